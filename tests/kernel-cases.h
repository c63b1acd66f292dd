/* Inputs for the slicer and displacement kernels (simd/slice.h,
 * simd/displace.h) and a driver that runs them from one or two dispatch
 * tables.  tests/check_simd.c compares every ISA's bytes with the scalar
 * reference's; tests/kernels-golden.c hashes them for tests/neon.sh.  The
 * inputs come from integer arithmetic, exact float operations and
 * nextafterf only, so every platform makes the same ones.
 *
 * Each kernel runs on several lengths (0, odd ones, lane multiples and
 * their neighbours) from several start offsets (unaligned starts), into
 * outputs pre-filled with a canary; the sink gets whole output buffers,
 * canaries after the end included, and counts or sums as bytes. */
#ifndef STRATA_KERNEL_CASES_H
#define STRATA_KERNEL_CASES_H

#include "base/ctx.h" /* the dispatch table of a context, ctx->simd */
#include "../simd/displace.h"
#include "../simd/slice.h"
#include "../simd/functable.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One output of one case: group names the kernel and input set, what the
 * length, offset and output; floats tells that the bytes are floats.  b
 * is NULL when the driver has one table. */
typedef void (*kc_sink)(void *user, const char *group, const char *what, int floats,
                        const void *a, const void *b, size_t len);

typedef struct kc_run {
    const strata_dispatch *da, *db; /* db may be NULL */
    kc_sink sink;
    void *user;
    char group[96];
} kc_run;

static uint64_t kc_state;
static uint32_t kc_rng(void)
{
    kc_state = kc_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(kc_state >> 33);
}
/* A float in [0, 1) with 24 random bits: exact. */
static float kc_unit(void) { return (float)(kc_rng() >> 8) * 0x1p-24f; }

static const float kc_special[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f, FLT_MAX,
                                   -FLT_MAX, 0x1p-149f, -0x1p-149f, FLT_MIN, -FLT_MIN,
                                   0x1p100f, -0x1p100f, 1e-30f, -1e-30f};
#define KC_NSPECIAL (sizeof kc_special / sizeof kc_special[0])

static const size_t kc_lengths[] = {0, 1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 63, 64,
                                    65, 127, 200, 1001};
#define KC_NLENGTHS (sizeof kc_lengths / sizeof kc_lengths[0])
#define KC_MAXN 1001
#define KC_OFFSETS 3 /* start offsets 0, 1, 3 */
#define KC_OFFSET(k) ((size_t)((k) == 2 ? 3 : (k)))
#define KC_CANARY 19 /* elements after the end */
#define KC_BUF (KC_MAXN + 3 + KC_CANARY)

static void kc_out(kc_run *r, const char *what, int floats, size_t n, size_t off, const void *a,
                   const void *b, size_t bytes)
{
    char w[64];
    snprintf(w, sizeof w, "n=%zu off=%zu %s", n, off, what);
    r->sink(r->user, r->group, w, floats, a, b, bytes);
}

/* ------------------------------------------------------------ planes */

/* Plane list k of KC_NLISTS into L (room for 65534); returns nL. */
#define KC_NLISTS 16
static uint32_t kc_planes(int k, float *L)
{
    static const uint32_t sizes[KC_NLISTS] = {1,  2,  3,   7,   8,    9,     15,  16,
                                              17, 31, 32, 33, 64, 1000, 65534, 40};
    const uint32_t n = sizes[k];
    kc_state = 0x51ce + (uint64_t)k;
    if (k == 14) { /* integers -32767 .. 32766 */
        for (uint32_t j = 0; j < n; j++)
            L[j] = (float)j - 32767.0f;
    } else if (k == 15) { /* the whole float range, ends included */
        const uint32_t mid = n / 2;
        for (uint32_t j = 1; j + 1 < n; j++) {
            const float m = 1.0f + (float)(kc_rng() % 256) / 256.0f; /* [1, 2) */
            L[j] = j < mid ? -ldexpf(m, 126 - 13 * (int)j)
                   : j == mid ? 0.0f
                              : ldexpf(m, 13 * (int)(j - mid) - 134);
        }
        L[0] = -FLT_MAX;
        L[n - 1] = FLT_MAX;
    } else if (k % 3 == 0) { /* adjacent floats around 1 */
        L[0] = 1.0f;
        for (uint32_t j = 1; j < n; j++)
            L[j] = nextafterf(L[j - 1], INFINITY);
    } else { /* random gaps, through zero */
        L[0] = -(float)(kc_rng() % 64) * 0.25f - 0.25f * (float)n;
        for (uint32_t j = 1; j < n; j++)
            L[j] = L[j - 1] + (float)(1 + kc_rng() % 16) * 0.125f;
    }
    return n;
}

/* Heights around the planes: exactly on one, one float below or above,
 * between two, beyond the ends, and the special values. */
static void kc_heights(const float *L, uint32_t nL, float *h, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const uint32_t k = kc_rng() % nL;
        switch (kc_rng() % 8) {
        case 0: h[i] = L[k]; break;
        case 1: h[i] = nextafterf(L[k], -INFINITY); break;
        case 2: h[i] = nextafterf(L[k], INFINITY); break;
        case 3: h[i] = kc_special[kc_rng() % KC_NSPECIAL]; break;
        case 4: h[i] = L[0] - kc_unit() * 8.0f; break;
        case 5: h[i] = L[nL - 1] + kc_unit() * 8.0f; break;
        default:
            h[i] = k + 1 < nL ? L[k] + (L[k + 1] - L[k]) * kc_unit() : L[k] + kc_unit();
            break;
        }
    }
}

/* ------------------------------------------------------------ slicer */

static void kc_classify(kc_run *r, float *L, float *h)
{
    static uint16_t lev[2][KC_BUF];
    static uint8_t on[2][KC_BUF];
    for (int k = 0; k < KC_NLISTS; k++) {
        const uint32_t nL = kc_planes(k, L);
        kc_heights(L, nL, h, KC_MAXN + 3);
        snprintf(r->group, sizeof r->group, "classify planes=%d nL=%u", k, nL);
        for (size_t li = 0; li < KC_NLENGTHS; li++) {
            /* the biggest lists need not run every length */
            if (nL > 1000 && li % 4 != 3)
                continue;
            for (int o = 0; o < KC_OFFSETS; o++) {
                const size_t n = kc_lengths[li], off = KC_OFFSET(o);
                uint64_t counts[2][2] = {{5, 7}, {5, 7}};
                for (int t = 0; t < (r->db ? 2 : 1); t++) {
                    const strata_dispatch *d = t ? r->db : r->da;
                    memset(lev[t], 0xA5, sizeof lev[t]);
                    memset(on[t], 0xA5, sizeof on[t]);
                    d->classify(L, nL, h + off, n, lev[t] + off, on[t] + off, counts[t]);
                }
                const void *b0 = r->db ? lev[1] : NULL, *b1 = r->db ? on[1] : NULL;
                const void *b2 = r->db ? counts[1] : NULL;
                kc_out(r, "lev", 0, n, off, lev[0], b0, sizeof lev[0]);
                kc_out(r, "on", 0, n, off, on[0], b1, sizeof on[0]);
                kc_out(r, "counts", 0, n, off, counts[0], b2, sizeof counts[0]);
            }
        }
    }
}

/* Triangles or edges over NV vertices whose levels have the given range;
 * ids NV - 1 (the padding read) occur, and some triangles lie in one
 * band.  lev[NV] is a padding element that kernels must ignore. */
#define KC_NV 3000
static void kc_mesh(uint16_t *lev, uint32_t range, uint32_t *a, uint32_t *b, uint32_t *c,
                    size_t n)
{
    for (size_t v = 0; v < KC_NV; v++)
        lev[v] = (uint16_t)(kc_rng() % range);
    lev[KC_NV] = 0xBEEF;
    for (size_t t = 0; t < n; t++) {
        a[t] = kc_rng() % 5 == 0 ? KC_NV - 1 : kc_rng() % KC_NV;
        b[t] = kc_rng() % 5 == 0 ? KC_NV - 1 : kc_rng() % KC_NV;
        c[t] = kc_rng() % KC_NV;
        if (kc_rng() % 3 == 0) { /* one band: ids of equal levels */
            for (uint32_t v = 0; v < KC_NV; v++)
                if (lev[v] == lev[a[t]] && kc_rng() % 4 == 0) {
                    b[t] = v;
                    break;
                }
            c[t] = kc_rng() % 2 ? a[t] : b[t];
        }
    }
}

static void kc_topology(kc_run *r)
{
    static uint16_t lev[KC_NV + 1], out[2][KC_BUF];
    static uint32_t a[KC_BUF], b[KC_BUF], c[KC_BUF];
    static const uint32_t ranges[] = {1, 2, 4, 300, 65534};
    for (size_t q = 0; q < sizeof ranges / sizeof ranges[0]; q++) {
        kc_state = 0x7e1 + q;
        kc_mesh(lev, ranges[q], a, b, c, KC_MAXN + 3);
        snprintf(r->group, sizeof r->group, "tri_levels levels<%u", ranges[q]);
        for (size_t li = 0; li < KC_NLENGTHS; li++) {
            for (int o = 0; o < KC_OFFSETS; o++) {
                const size_t n = kc_lengths[li], off = KC_OFFSET(o);
                size_t multi[2] = {0, 0};
                for (int t = 0; t < (r->db ? 2 : 1); t++) {
                    memset(out[t], 0xA5, sizeof out[t]);
                    multi[t] = (t ? r->db : r->da)
                                   ->tri_levels(a + off, b + off, c + off, n, lev, out[t] + off);
                }
                kc_out(r, "out", 0, n, off, out[0], r->db ? out[1] : NULL, sizeof out[0]);
                kc_out(r, "multi", 0, n, off, &multi[0], r->db ? &multi[1] : NULL,
                       sizeof multi[0]);
            }
        }
        snprintf(r->group, sizeof r->group, "edge_spans levels<%u", ranges[q]);
        for (size_t li = 0; li < KC_NLENGTHS; li++) {
            for (int o = 0; o < KC_OFFSETS; o++) {
                const size_t n = kc_lengths[li], off = KC_OFFSET(o);
                uint64_t span[2] = {0, 0};
                /* the bits, and a word after them that must stay as it was */
                uint64_t cross[2][(KC_MAXN + 63) / 64 + 1];
                const size_t words = (n + 63) / 64 + 1;
                for (int t = 0; t < (r->db ? 2 : 1); t++) {
                    memset(cross[t], 0xA5, sizeof cross[t]);
                    span[t] = (t ? r->db : r->da)->edge_spans(a + off, c + off, n, lev, cross[t]);
                }
                kc_out(r, "sum", 0, n, off, &span[0], r->db ? &span[1] : NULL, sizeof span[0]);
                kc_out(r, "cross", 0, n, off, cross[0], r->db ? cross[1] : NULL,
                       words * sizeof cross[0][0]);
            }
        }
    }
    /* Many edges of the widest span: lane sums must not wrap (2^21 edges
     * of 65533 planes: 2^17 steps of 16 lanes). */
    enum { NE = 1 << 21 };
    uint32_t *e0 = malloc(NE * sizeof *e0), *e1 = malloc(NE * sizeof *e1);
    uint64_t *cross = malloc(NE / 64 * sizeof *cross);
    if (!e0 || !e1 || !cross) {
        fprintf(stderr, "kernel-cases: out of memory\n");
        exit(99);
    }
    for (size_t v = 0; v < KC_NV; v++)
        lev[v] = v % 2 ? 65533 : 0;
    for (size_t e = 0; e < NE; e++)
        e0[e] = (uint32_t)(2 * (e % 1000)), e1[e] = (uint32_t)(2 * (e % 700) + 1);
    uint64_t sum[2] = {0, 0};
    for (int t = 0; t < (r->db ? 2 : 1); t++)
        sum[t] = (t ? r->db : r->da)->edge_spans(e0, e1, NE - 5, lev, cross);
    snprintf(r->group, sizeof r->group, "edge_spans wide");
    kc_out(r, "sum", 0, NE - 5, 0, &sum[0], r->db ? &sum[1] : NULL, sizeof sum[0]);
    free(e0);
    free(e1);
    free(cross);
}

/* Points: ordinary ones, the centre itself, special coordinates, points
 * whose squared length overflows or underflows. */
static void kc_points(const float c[3], float *x, float *y, float *z, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float p[3];
        for (int j = 0; j < 3; j++)
            p[j] = c[j] + (kc_unit() - 0.5f) * 20.0f;
        switch (kc_rng() % 10) {
        case 0: p[0] = c[0], p[1] = c[1], p[2] = c[2]; break;
        case 1: p[kc_rng() % 3] = kc_special[kc_rng() % KC_NSPECIAL]; break;
        case 2: p[0] = c[0] + 1e30f * (kc_unit() - 0.5f); break;
        case 3: p[0] = c[0] + 1e-30f * kc_unit(), p[1] = c[1], p[2] = c[2]; break;
        case 4: p[1] = c[1]; p[2] = c[2]; break; /* on an axis */
        default: break;
        }
        x[i] = p[0], y[i] = p[1], z[i] = p[2];
    }
}

static const float kc_centres[][4] = {
    {0.0f, 0.0f, 0.0f, 1.0f}, {1.0f, -2.0f, 0.5f, 10.0f}, {-0.0f, 3e5f, -7.25f, 0.01f}};
#define KC_NCENTRES (sizeof kc_centres / sizeof kc_centres[0])

static void kc_place(kc_run *r, float *L, float *x, float *y, float *z)
{
    static float out[2][3][KC_BUF];
    static uint16_t lev[KC_BUF];
    for (size_t q = 0; q < 2 * KC_NCENTRES; q++) {
        strata_place g = {q < KC_NCENTRES ? STRATA_FLAT : STRATA_RADIAL,
                          {kc_centres[q % KC_NCENTRES][0], kc_centres[q % KC_NCENTRES][1],
                           kc_centres[q % KC_NCENTRES][2]},
                          kc_centres[q % KC_NCENTRES][3]};
        const uint32_t nL = kc_planes(q % 2 ? 15 : 13, L);
        kc_state = 0x9ace + q;
        kc_points(g.center, x, y, z, KC_MAXN + 3);
        for (size_t i = 0; i < KC_MAXN + 3; i++)
            lev[i] = (uint16_t)(kc_rng() % 2 ? kc_rng() % nL : nL - 1);
        snprintf(r->group, sizeof r->group, "place_roofs %s centre=%zu planes=%u",
                 q < KC_NCENTRES ? "flat" : "radial", q % KC_NCENTRES, nL);
        for (size_t li = 0; li < KC_NLENGTHS; li++) {
            for (int o = 0; o < KC_OFFSETS; o++) {
                const size_t n = kc_lengths[li], off = KC_OFFSET(o);
                for (int t = 0; t < (r->db ? 2 : 1); t++) {
                    memset(out[t], 0xA5, sizeof out[t]);
                    (t ? r->db : r->da)->place_roofs(&g, L, x + off, y + off, z + off,
                                                     lev + off, n, out[t][0] + off,
                                                     out[t][1] + off, out[t][2] + off);
                }
                kc_out(r, "xyz", 1, n, off, out[0], r->db ? out[1] : NULL, sizeof out[0]);
            }
        }
    }
}

/* ------------------------------------------------------------ displace */

static void kc_displace(kc_run *r, float *x, float *y, float *z)
{
    static float out[2][4][KC_BUF];
    static float v[KC_BUF];
    for (size_t q = 0; q < KC_NCENTRES; q++) {
        const float *c = kc_centres[q], radius = kc_centres[q][3];
        kc_state = 0xd15 + q;
        kc_points(c, x, y, z, KC_MAXN + 3);
        for (size_t i = 0; i < KC_MAXN + 3; i++)
            v[i] = kc_rng() % 16 ? (kc_unit() - 0.5f) * radius : kc_special[kc_rng() % KC_NSPECIAL];
        snprintf(r->group, sizeof r->group, "radial_samples centre=%zu", q);
        for (size_t li = 0; li < KC_NLENGTHS; li++) {
            for (int o = 0; o < KC_OFFSETS; o++) {
                const size_t n = kc_lengths[li], off = KC_OFFSET(o);
                size_t bad[2] = {0, 0};
                for (int t = 0; t < (r->db ? 2 : 1); t++) {
                    memset(out[t], 0xA5, sizeof out[t]);
                    bad[t] = (t ? r->db : r->da)
                                 ->radial_samples(c, radius, x + off, y + off, z + off, n,
                                                  out[t][0] + off, out[t][1] + off,
                                                  out[t][2] + off);
                }
                kc_out(r, "s", 1, n, off, out[0], r->db ? out[1] : NULL, sizeof out[0]);
                kc_out(r, "bad", 0, n, off, &bad[0], r->db ? &bad[1] : NULL, sizeof bad[0]);
            }
        }
        /* In place; offset 1: v and h the same array. */
        snprintf(r->group, sizeof r->group, "radial_move centre=%zu", q);
        for (size_t li = 0; li < KC_NLENGTHS; li++) {
            for (int o = 0; o < KC_OFFSETS; o++) {
                const size_t n = kc_lengths[li], off = KC_OFFSET(o);
                for (int t = 0; t < (r->db ? 2 : 1); t++) {
                    memcpy(out[t][0], x, sizeof out[t][0]);
                    memcpy(out[t][1], y, sizeof out[t][1]);
                    memcpy(out[t][2], z, sizeof out[t][2]);
                    memcpy(out[t][3], v, sizeof out[t][3]);
                    (t ? r->db : r->da)
                        ->radial_move(c, radius, o == 1 ? out[t][3] + off : v + off, n,
                                      out[t][0] + off, out[t][1] + off, out[t][2] + off,
                                      out[t][3] + off);
                }
                kc_out(r, "xyzh", 1, n, off, out[0], r->db ? out[1] : NULL, sizeof out[0]);
            }
        }
    }
}

/* Every case, in a fixed order. */
static void kc_run_all(const strata_dispatch *da, const strata_dispatch *db, kc_sink sink,
                       void *user)
{
    kc_run r = {da, db, sink, user, ""};
    float *L = malloc(65534 * sizeof *L);
    float *x = malloc(KC_BUF * sizeof *x), *y = malloc(KC_BUF * sizeof *y);
    float *z = malloc(KC_BUF * sizeof *z);
    if (!L || !x || !y || !z) {
        fprintf(stderr, "kernel-cases: out of memory\n");
        exit(99);
    }
    kc_classify(&r, L, x);
    kc_topology(&r);
    kc_place(&r, L, x, y, z);
    kc_displace(&r, x, y, z);
    free(L), free(x), free(y), free(z);
}

#endif
