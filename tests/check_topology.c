/* Suite "topology": the placement plan on synthetic hwloc topologies
 * (core/base/topology.c compiled in with STRATA_PLACEMENT_PLAN_ONLY), and on
 * this machine: binding never changes output bytes, never pins the calling
 * thread, and strata_ctx_binding describes it. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "testutil.h"
#include "base/topology.h" /* strata__placement_plan */

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef HAVE_HWLOC
#include <hwloc.h>
#endif

/* ------------------------------------------------------------ plan */

#ifdef HAVE_HWLOC
#define MAXT 64

static hwloc_topology_t synthetic(const char *desc)
{
    hwloc_topology_t t;
    ck_assert_int_eq(hwloc_topology_init(&t), 0);
    ck_assert_int_eq(hwloc_topology_set_synthetic(t, desc), 0);
    ck_assert_int_eq(hwloc_topology_load(t), 0);
    return t;
}

/* Plan n threads; pu[i], core[i], pack[i] get logical indexes. */
static void plan(hwloc_topology_t t, int n, int *pu, int *core, int *pack)
{
    hwloc_bitmap_t sets[MAXT];
    ck_assert_int_eq(strata__placement_plan(t, n, sets), 0);
    for (int i = 0; i < n; i++) {
        ck_assert_int_eq(hwloc_bitmap_weight(sets[i]), 1);
        hwloc_obj_t p = hwloc_get_pu_obj_by_os_index(t, (unsigned)hwloc_bitmap_first(sets[i]));
        ck_assert_ptr_nonnull(p);
        hwloc_obj_t c = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_CORE, p);
        hwloc_obj_t k = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_PACKAGE, p);
        pu[i] = (int)p->logical_index;
        core[i] = c ? (int)c->logical_index : -1;
        pack[i] = k ? (int)k->logical_index : -1;
        hwloc_bitmap_free(sets[i]);
    }
}

static int count(const int *v, int n, int x)
{
    int c = 0;
    for (int i = 0; i < n; i++)
        c += v[i] == x;
    return c;
}

/* Up to one thread per core: distinct cores, packages balanced. */
START_TEST(test_one_per_core)
{
    hwloc_topology_t t = synthetic("pack:2 core:4 pu:2");
    for (int n = 1; n <= 8; n++) {
        int pu[MAXT], core[MAXT], pack[MAXT];
        plan(t, n, pu, core, pack);
        for (int i = 0; i < n; i++) {
            ck_assert_msg(core[i] >= 0 && count(core, n, core[i]) == 1,
                          "n=%d: core %d used twice", n, core[i]);
            ck_assert_msg(pu[i] % 2 == 0, "n=%d: thread %d on a second PU", n, i);
        }
        const int d = count(pack, n, 0) - count(pack, n, 1);
        ck_assert_msg(d >= -1 && d <= 1, "n=%d: packages unbalanced (%d)", n, d);
    }
    hwloc_topology_destroy(t);
}
END_TEST

/* More threads than cores: every core keeps one, the rest take second
 * PUs, never a PU twice until all are used. */
START_TEST(test_more_than_cores)
{
    hwloc_topology_t t = synthetic("pack:2 core:4 pu:2");
    for (int n = 9; n <= 16; n++) {
        int pu[MAXT], core[MAXT], pack[MAXT];
        plan(t, n, pu, core, pack);
        for (int c = 0; c < 8; c++)
            ck_assert_msg(count(core, n, c) >= 1, "n=%d: core %d idle", n, c);
        for (int i = 0; i < n; i++)
            ck_assert_msg(count(pu, n, pu[i]) == 1, "n=%d: PU %d twice", n, pu[i]);
    }
    int pu[MAXT], core[MAXT], pack[MAXT];
    plan(t, 20, pu, core, pack); /* oversubscribed: every PU, none thrice */
    for (int p = 0; p < 16; p++) {
        const int c = count(pu, 20, p);
        ck_assert_msg(c == 1 || c == 2, "PU %d has %d threads", p, c);
    }
    hwloc_topology_destroy(t);
}
END_TEST

START_TEST(test_deterministic)
{
    static const char *const descs[] = {"pack:2 core:4 pu:2", "pack:1 core:6 pu:1",
                                        "pack:2 numa:2 core:3 pu:4"};
    for (size_t d = 0; d < sizeof descs / sizeof descs[0]; d++) {
        hwloc_topology_t t = synthetic(descs[d]);
        for (int n = 1; n <= 40; n += 3) {
            int a[3][MAXT], b[3][MAXT];
            plan(t, n, a[0], a[1], a[2]);
            plan(t, n, b[0], b[1], b[2]);
            for (int i = 0; i < n; i++)
                ck_assert_msg(a[0][i] == b[0][i], "%s n=%d: plans differ", descs[d], n);
        }
        hwloc_topology_destroy(t);
    }
}
END_TEST

/* The single-package 6-core machine: 6 threads on 6 cores. */
START_TEST(test_flat_machine)
{
    hwloc_topology_t t = synthetic("pack:1 core:6 pu:1");
    int pu[MAXT], core[MAXT], pack[MAXT];
    plan(t, 6, pu, core, pack);
    for (int c = 0; c < 6; c++)
        ck_assert_int_eq(count(core, 6, c), 1);
    hwloc_topology_destroy(t);
}
END_TEST
#endif

/* ------------------------------------------------------------ machine */

/* Displaced grid sliced into 12 terraces; the caller frees. */
static strata_result *terraces(strata_ctx *ctx)
{
    strata_mesh *m;
    ck_assert_ok(strata_shape_grid(ctx, 96, 80, 0.05f, &m));
    strata_fbm f;
    strata_fbm_defaults(&f);
    ck_assert_ok(strata_displace_flat(ctx, m, &f, NULL));
    float levels[12];
    ck_assert_ok(strata_levels_uniform(m, 12, NULL, levels));
    strata_slice_options o = slice_options(levels, 12, STRATA_WALLS_UPPER, 1, 0);
    strata_result *r;
    ck_assert_ok(strata_slice(ctx, m, &o, &r));
    strata_mesh_destroy(m);
    return r;
}

static void describe(strata_ctx *ctx, char *buf, size_t len)
{
    ck_assert_ok(strata_ctx_binding(ctx, buf, len));
    ck_assert_msg(strlen(buf) > 0 && strlen(buf) < len, "bad description");
}

/* Binding on or off, 1, 2 or 5 threads: the same bytes. */
START_TEST(test_same_bytes)
{
    strata_ctx *ref_ctx = ctx_new(1);
    ck_assert_ok(strata_ctx_set_binding(ref_ctx, 0));
    strata_result *ref = terraces(ref_ctx);
    static const int threads[] = {2, 5, 1, 2};
    for (size_t i = 0; i < sizeof threads / sizeof threads[0]; i++) {
        for (int on = 0; on < 2; on++) {
            strata_ctx *ctx = ctx_new(threads[i]);
#ifdef HAVE_HWLOC
            ck_assert_ok(strata_ctx_set_binding(ctx, on));
#else
            ck_assert_status(strata_ctx_set_binding(ctx, on),
                             on ? STRATA_ERR_UNSUPPORTED : STRATA_OK);
#endif
            strata_result *r = terraces(ctx);
            same_result(ref, r, "binding and threads");
            strata_result_destroy(r);
            strata_ctx_destroy(ctx);
        }
    }
    strata_result_destroy(ref);
    strata_ctx_destroy(ref_ctx);
}
END_TEST

START_TEST(test_description)
{
    char buf[256];
    strata_ctx *ctx = ctx_new(2);
    describe(ctx, buf, sizeof buf);
#if !defined(HAVE_HWLOC)
    ck_assert_str_eq(buf, "unbound (no hwloc)");
#elif !defined(_OPENMP)
    ck_assert_str_eq(buf, "unbound (no OpenMP: 1 thread)");
#else
    if (getenv("STRATA_BIND") || getenv("OMP_PROC_BIND") || getenv("OMP_PLACES") ||
        getenv("GOMP_CPU_AFFINITY") || getenv("KMP_AFFINITY"))
        ck_assert_msg(!strncmp(buf, "unbound (", 9) || !strncmp(buf, "2 threads: ", 11), "%s", buf);
    else
        ck_assert_msg(!strncmp(buf, "2 threads: 1 worker bound to PU ", 32) ||
                          !strncmp(buf, "unbound (binding failed for 1 of 1 workers: ", 44),
                      "%s", buf);
    ck_assert_ok(strata_ctx_set_binding(ctx, 0));
    describe(ctx, buf, sizeof buf);
    ck_assert_str_eq(buf, "unbound (turned off)");
    ck_assert_ok(strata_ctx_set_binding(ctx, 1));
    ck_assert_ok(strata_ctx_set_threads(ctx, 1));
    describe(ctx, buf, sizeof buf);
    ck_assert_str_eq(buf, "unbound (1 thread: the calling thread is never pinned)");
#endif
    /* Truncation, and the argument checks. */
    char tiny[8];
    ck_assert_ok(strata_ctx_binding(ctx, tiny, sizeof tiny));
    ck_assert_uint_eq(strlen(tiny), sizeof tiny - 1);
    ck_assert_ok(strata_ctx_binding(ctx, NULL, 0));
    ck_assert_status(strata_ctx_binding(ctx, NULL, 4), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_ctx_binding(NULL, buf, sizeof buf), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_ctx_set_binding(NULL, 1), STRATA_ERR_INVALID_ARG);
    strata_ctx_destroy(ctx);
}
END_TEST

/* The environment: OpenMP placement variables turn the default off,
 * STRATA_BIND=0 too, STRATA_BIND=1 wins over them.  (Each test runs in its
 * own process, so setenv stays here.) */
START_TEST(test_environment)
{
    char buf[256];
    unsetenv("STRATA_BIND");
    setenv("OMP_PROC_BIND", "close", 1);
    strata_ctx *ctx = ctx_new(2);
    describe(ctx, buf, sizeof buf);
#ifdef HAVE_HWLOC
    ck_assert_str_eq(buf, "unbound (OMP_PROC_BIND is set)");
#else
    ck_assert_str_eq(buf, "unbound (no hwloc)");
#endif
    strata_ctx_destroy(ctx);
    setenv("STRATA_BIND", "1", 1);
    ctx = ctx_new(2);
    describe(ctx, buf, sizeof buf);
#if defined(HAVE_HWLOC) && defined(_OPENMP)
    ck_assert_msg(strncmp(buf, "unbound (OMP_PROC_BIND", 22) != 0, "%s", buf);
#endif
    strata_ctx_destroy(ctx);
    unsetenv("OMP_PROC_BIND");
    setenv("STRATA_BIND", "0", 1);
    ctx = ctx_new(2);
    describe(ctx, buf, sizeof buf);
#ifdef HAVE_HWLOC
    ck_assert_str_eq(buf, "unbound (STRATA_BIND=0)");
#endif
    strata_ctx_destroy(ctx);
    unsetenv("STRATA_BIND");
    setenv("GOMP_CPU_AFFINITY", "0-1", 1);
    ctx = ctx_new(2);
    describe(ctx, buf, sizeof buf);
#ifdef HAVE_HWLOC
    ck_assert_str_eq(buf, "unbound (GOMP_CPU_AFFINITY is set)");
#endif
    strata_ctx_destroy(ctx);
}
END_TEST

#if defined(HAVE_HWLOC) && defined(_OPENMP)
/* When binding works here: worker 1 sits on the one PU of the plan, the
 * calling thread keeps its CPU set, and turning binding off hands the
 * worker back. */
START_TEST(test_workers_bound)
{
    unsetenv("STRATA_BIND");
    hwloc_topology_t t;
    ck_assert_int_eq(hwloc_topology_init(&t), 0);
    ck_assert_int_eq(hwloc_topology_load(t), 0);
    hwloc_bitmap_t before = hwloc_bitmap_alloc(), after = hwloc_bitmap_alloc(),
                   worker = hwloc_bitmap_alloc();
    ck_assert_int_eq(hwloc_get_cpubind(t, before, HWLOC_CPUBIND_THREAD), 0);

    strata_ctx *ctx = ctx_new(2);
    ck_assert_ok(strata_ctx_set_binding(ctx, 1));
    strata_result *r = terraces(ctx);
    strata_result_destroy(r);
    char buf[256];
    describe(ctx, buf, sizeof buf);
    ck_assert_int_eq(hwloc_get_cpubind(t, after, HWLOC_CPUBIND_THREAD), 0);
    ck_assert_msg(hwloc_bitmap_isequal(before, after), "the calling thread was pinned");

    int pu = -1;
    if (sscanf(buf, "2 threads: 1 worker bound to PU %d", &pu) == 1) {
#pragma omp parallel num_threads(2)
        if (omp_get_thread_num() == 1)
            hwloc_get_cpubind(t, worker, HWLOC_CPUBIND_THREAD);
        ck_assert_int_eq(hwloc_bitmap_weight(worker), 1);
        ck_assert_int_eq(hwloc_bitmap_first(worker), pu);
        /* Off: back to the caller's set. */
        ck_assert_ok(strata_ctx_set_binding(ctx, 0));
        r = terraces(ctx);
        strata_result_destroy(r);
#pragma omp parallel num_threads(2)
        if (omp_get_thread_num() == 1)
            hwloc_get_cpubind(t, worker, HWLOC_CPUBIND_THREAD);
        ck_assert_msg(hwloc_bitmap_isequal(worker, before), "worker not handed back");
    } else {
        ck_assert_msg(!strncmp(buf, "unbound (", 9), "%s", buf);
    }
    strata_ctx_destroy(ctx);
    hwloc_bitmap_free(before);
    hwloc_bitmap_free(after);
    hwloc_bitmap_free(worker);
    hwloc_topology_destroy(t);
}
END_TEST
#endif

static Suite *topology_suite(void)
{
    Suite *s = suite_create("topology");
#ifdef HAVE_HWLOC
    TCase *plan_tc = tcase_create("Plan");
    tcase_add_test(plan_tc, test_one_per_core);
    tcase_add_test(plan_tc, test_more_than_cores);
    tcase_add_test(plan_tc, test_deterministic);
    tcase_add_test(plan_tc, test_flat_machine);
    suite_add_tcase(s, plan_tc);
#endif
    TCase *tc = tcase_create("Machine");
    tcase_add_test(tc, test_same_bytes);
    tcase_add_test(tc, test_description);
    tcase_add_test(tc, test_environment);
#if defined(HAVE_HWLOC) && defined(_OPENMP)
    tcase_add_test(tc, test_workers_bound);
#endif
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return run_suite(topology_suite()); }
