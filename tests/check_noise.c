/* Noise, fBm, height curves and displacement.
 *
 * Every OpenMP call happens inside a test function (libgomp threads do not
 * survive Check's fork), so the suite runs with CK_FORK=yes and =no.
 * Loops over many points count failures and assert once: each Check
 * assertion costs a write in fork mode. */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

static uint32_t fbits(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

/* xorshift64: reproducible pseudo-random test points. */
typedef struct {
    uint64_t s;
} rng;

static uint32_t rng_u32(rng *r)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return (uint32_t)(r->s >> 32);
}

static float rng_float(rng *r, float lo, float hi)
{
    return lo + (hi - lo) * (float)((rng_u32(r) >> 8) * (1.0 / 16777216.0));
}

static float noise(strata_noise_kind k, int dims, uint32_t seed, float x, float y, float z)
{
    return dims == 2 ? strata_noise2(k, seed, x, y) : strata_noise3(k, seed, x, y, z);
}

static const strata_noise_kind kinds[2] = {STRATA_NOISE_SIMPLEX, STRATA_NOISE_PERLIN};

/* ------------------------------------------------------------------ */
/* Noise                                                               */
/* ------------------------------------------------------------------ */

/* Bit patterns computed once with this implementation (x86-64, gcc,
 * -ffp-contract=off).  Any change to the hash, gradients, skew constants,
 * scale factors or operation order shows up here; so would a SIMD kernel
 * that does not match the scalar reference. */
static const struct golden {
    strata_noise_kind kind;
    int dims;
    uint32_t seed;
    float x, y, z;
    uint32_t bits;
} golden[] = {
    {STRATA_NOISE_SIMPLEX, 2, 0x00000000u, 0.0f, 0.0f, 0.0f, 0x00000000u},
    {STRATA_NOISE_SIMPLEX, 2, 0x00000001u, 0.5f, 0.25f, 0.0f, 0xBF47A7C3u},
    {STRATA_NOISE_SIMPLEX, 2, 0x0000002Au, 1.0f, 2.0f, 0.0f, 0x3EAAB5E9u},
    {STRATA_NOISE_SIMPLEX, 2, 0x0000002Au, -3.0f, -7.0f, 0.0f, 0x3F1F8F71u},
    {STRATA_NOISE_SIMPLEX, 2, 0x00000007u, -0.001f, 0.999f, 0.0f, 0xBF3E4E04u},
    {STRATA_NOISE_SIMPLEX, 2, 0xFFFFFFFFu, -12.625f, 3.375f, 0.0f, 0xBD1D52ABu},
    {STRATA_NOISE_SIMPLEX, 2, 0x075BCD15u, 10000.0f, -10000.0f, 0.0f, 0x00000000u},
    {STRATA_NOISE_SIMPLEX, 2, 0x00000009u, 10000.37f, 9999.81f, 0.0f, 0x3EABAAEAu},
    {STRATA_NOISE_SIMPLEX, 2, 0x00000003u, 0.3660254f, 0.3660254f, 0.0f, 0xBEFB6E4Eu},
    {STRATA_NOISE_SIMPLEX, 2, 0x00000005u, -0.21132487f, 0.78867513f, 0.0f, 0x00000000u},
    {STRATA_NOISE_PERLIN, 2, 0x00000000u, 0.5f, 0.5f, 0.0f, 0xBEDA827Au},
    {STRATA_NOISE_PERLIN, 2, 0x00000001u, 0.25f, 0.75f, 0.0f, 0xBF194B79u},
    {STRATA_NOISE_PERLIN, 2, 0x0000002Au, -0.5f, -1.5f, 0.0f, 0xBEDA827Au},
    {STRATA_NOISE_PERLIN, 2, 0x00000007u, -0.001f, 0.999f, 0.0f, 0x3B0311A1u},
    {STRATA_NOISE_PERLIN, 2, 0xFFFFFFFFu, -12.625f, 3.375f, 0.0f, 0xBE281044u},
    {STRATA_NOISE_PERLIN, 2, 0x075BCD15u, 10000.5f, -10000.25f, 0.0f, 0x3E0C58D9u},
    {STRATA_NOISE_PERLIN, 2, 0x00000009u, 10000.37f, 9999.81f, 0.0f, 0xBCE717E9u},
    {STRATA_NOISE_PERLIN, 2, 0x0000000Bu, 3.0f, -0.4f, 0.0f, 0xBE485888u},
    {STRATA_NOISE_SIMPLEX, 3, 0x00000000u, 0.0f, 0.0f, 0.0f, 0x00000000u},
    {STRATA_NOISE_SIMPLEX, 3, 0x00000001u, 0.5f, 0.25f, 0.125f, 0x3DA5014Cu},
    {STRATA_NOISE_SIMPLEX, 3, 0x0000002Au, 1.0f, 2.0f, 3.0f, 0x00000000u},
    {STRATA_NOISE_SIMPLEX, 3, 0x0000002Au, -3.0f, -7.0f, -1.0f, 0xBF4FDCDCu},
    {STRATA_NOISE_SIMPLEX, 3, 0x00000007u, -0.001f, 0.999f, -2.5f, 0xBE99C6B9u},
    {STRATA_NOISE_SIMPLEX, 3, 0xFFFFFFFFu, -12.625f, 3.375f, 8.875f, 0xBEB9264Du},
    {STRATA_NOISE_SIMPLEX, 3, 0x075BCD15u, 10000.0f, -10000.0f, 5000.0f, 0xBD233742u},
    {STRATA_NOISE_SIMPLEX, 3, 0x00000009u, 10000.37f, 9999.81f, -10000.11f, 0xBB748465u},
    {STRATA_NOISE_SIMPLEX, 3, 0x00000003u, 0.3333333f, 0.3333333f, 0.3333333f, 0x00000000u},
    {STRATA_NOISE_SIMPLEX, 3, 0x00000005u, 0.1666667f, -0.8333333f, 0.5f, 0xB36F24BEu},
    {STRATA_NOISE_PERLIN, 3, 0x00000000u, 0.5f, 0.5f, 0.5f, 0xBDF70517u},
    {STRATA_NOISE_PERLIN, 3, 0x00000001u, 0.25f, 0.75f, 0.125f, 0xBF0E314Cu},
    {STRATA_NOISE_PERLIN, 3, 0x0000002Au, -0.5f, -1.5f, 2.5f, 0xBE770517u},
    {STRATA_NOISE_PERLIN, 3, 0x00000007u, -0.001f, 0.999f, -2.5f, 0xBEF78382u},
    {STRATA_NOISE_PERLIN, 3, 0xFFFFFFFFu, -12.625f, 3.375f, 8.875f, 0xBF1C7CE4u},
    {STRATA_NOISE_PERLIN, 3, 0x075BCD15u, 10000.5f, -10000.25f, 0.75f, 0xBF012AD5u},
    {STRATA_NOISE_PERLIN, 3, 0x00000009u, 10000.37f, 9999.81f, -10000.11f, 0x3DD54022u},
    {STRATA_NOISE_PERLIN, 3, 0x0000000Bu, 3.0f, -0.4f, 2.0f, 0xBDA326D6u},
};

START_TEST(test_noise_golden)
{
    const struct golden *g = &golden[_i];
    float v = noise(g->kind, g->dims, g->seed, g->x, g->y, g->z);
    ck_assert_msg(fbits(v) == g->bits,
                  "entry %d: kind %d %dD seed %u (%g, %g, %g): got %a (0x%08X), want 0x%08X",
                  _i, (int)g->kind, g->dims, g->seed, g->x, g->y, g->z, v, fbits(v), g->bits);
}
END_TEST

/* [-1, 1] over millions of points, close to +-1, mean near 0, varied. */
START_TEST(test_noise_range)
{
    const strata_noise_kind kind = kinds[_i / 2];
    const int dims = 2 + _i % 2;
    /* Random sampling rarely hits the extreme gradient configurations;
     * 3D Perlin's sup (1 after scaling) needs all 8 corners aligned. */
    const float want = kind == STRATA_NOISE_PERLIN && dims == 3 ? 0.9f : 0.98f;
    rng r = {0x9E3779B97F4A7C15ull + (uint64_t)_i};
    const long n = 2000000;
    long out = 0, at_one = 0;
    float lo = 1.0f, hi = -1.0f;
    double sum = 0.0, sum2 = 0.0;
    for (long i = 0; i < n; i++) {
        float x = rng_float(&r, -200.0f, 200.0f), y = rng_float(&r, -200.0f, 200.0f),
              z = rng_float(&r, -200.0f, 200.0f);
        float v = noise(kind, dims, (uint32_t)i, x, y, z);
        if (!(v >= -1.0f && v <= 1.0f))
            out++;
        at_one += fabsf(v) == 1.0f;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
        sum += v;
        sum2 += (double)v * v;
    }
    const double mean = sum / n, sd = sqrt(sum2 / n - mean * mean);
    ck_assert_msg(out == 0, "%ld values outside [-1, 1]", out);
    /* The final clamp only absorbs rounding: a scale factor that is too
     * large would pin many values to +-1. */
    ck_assert_msg(at_one <= n / 100000, "%ld values at +-1", at_one);
    ck_assert_msg(hi >= want && lo <= -want, "range [%g, %g] does not reach +-%g", lo, hi, want);
    ck_assert_msg(fabs(mean) < 0.005, "mean %g", mean);
    ck_assert_msg(sd > 0.2, "standard deviation %g", sd);
}
END_TEST

START_TEST(test_noise_deterministic_and_seeded)
{
    for (int k = 0; k < 2; k++) {
        for (int dims = 2; dims <= 3; dims++) {
            rng r = {12345};
            int differ = 0, same_call = 0;
            double sab = 0, saa = 0, sbb = 0;
            const int n = 4000;
            for (int i = 0; i < n; i++) {
                float x = rng_float(&r, -50, 50), y = rng_float(&r, -50, 50),
                      z = rng_float(&r, -50, 50);
                float a = noise(kinds[k], dims, 1, x, y, z);
                float a2 = noise(kinds[k], dims, 1, x, y, z);
                float b = noise(kinds[k], dims, 2, x, y, z);
                same_call += fbits(a) == fbits(a2);
                differ += a != b;
                sab += (double)a * b;
                saa += (double)a * a;
                sbb += (double)b * b;
            }
            const double corr = sab / sqrt(saa * sbb);
            ck_assert_msg(same_call == n, "kind %d %dD: repeated calls differ", k, dims);
            /* With 8 or 12 gradients, two seeds pick the same ones for all
             * corners in reach (2D simplex: often just 2) now and then. */
            ck_assert_msg(differ > n * 95 / 100, "kind %d %dD: seeds 1 and 2 agree at %d of %d",
                          k, dims, n - differ, n);
            ck_assert_msg(fabs(corr) < 0.1, "kind %d %dD: seeds 1 and 2 correlate %g", k, dims,
                          corr);
        }
    }
}
END_TEST

START_TEST(test_perlin_zero_at_lattice)
{
    int bad = 0;
    const float big[] = {1e4f, -1e4f, 65536.0f, -8388608.0f};
    for (uint32_t seed = 0; seed < 5; seed++) {
        for (int i = -12; i <= 12; i++)
            for (int j = -12; j <= 12; j++) {
                bad += strata_noise2(STRATA_NOISE_PERLIN, seed, (float)i, (float)j) != 0.0f;
                for (int k = -3; k <= 3; k++)
                    bad += strata_noise3(STRATA_NOISE_PERLIN, seed, (float)i, (float)j,
                                         (float)k) != 0.0f;
            }
        for (int a = 0; a < 4; a++) {
            bad += strata_noise2(STRATA_NOISE_PERLIN, seed, big[a], big[3 - a]) != 0.0f;
            bad += strata_noise3(STRATA_NOISE_PERLIN, seed, big[a], 7.0f, big[3 - a]) != 0.0f;
        }
    }
    ck_assert_int_eq(bad, 0);
    /* ...and not zero in between. */
    ck_assert(strata_noise2(STRATA_NOISE_PERLIN, 1, 0.5f, 0.5f) != 0.0f);
}
END_TEST

/* Continuity: |n(p + d) - n(p)| <= L |d| with a Lipschitz constant well
 * above the measured slopes (simplex about 7.5, Perlin about 3), at random
 * points (crossing simplex faces) and straddling lattice planes. */
START_TEST(test_noise_continuous)
{
    const double lip = 12.0;
    for (int k = 0; k < 2; k++) {
        for (int dims = 2; dims <= 3; dims++) {
            rng r = {777 + (uint64_t)k * 10 + (uint64_t)dims};
            long bad = 0;
            double worst = 0;
            for (long i = 0; i < 300000; i++) {
                float x = rng_float(&r, -60, 60), y = rng_float(&r, -60, 60),
                      z = rng_float(&r, -60, 60);
                if (i % 4 == 0) /* straddle the plane x = integer */
                    x = floorf(x) - 5e-4f;
                float x2 = x + rng_float(&r, -1e-3f, 1e-3f), y2 = y + rng_float(&r, -1e-3f, 1e-3f),
                      z2 = z + rng_float(&r, -1e-3f, 1e-3f);
                if (i % 4 == 0)
                    x2 = x + 1e-3f;
                double d = sqrt((double)(x2 - x) * (x2 - x) + (double)(y2 - y) * (y2 - y) +
                                (dims == 3 ? (double)(z2 - z) * (z2 - z) : 0.0));
                float a = noise(kinds[k], dims, 3, x, y, z), b = noise(kinds[k], dims, 3, x2, y2, z2);
                double slope = fabs((double)a - b) / (d > 0 ? d : 1);
                if (fabs((double)a - b) > lip * d + 1e-6)
                    bad++;
                worst = slope > worst ? slope : worst;
            }
            ck_assert_msg(bad == 0, "kind %d %dD: %ld jumps, worst slope %g", k, dims, bad, worst);
        }
    }
}
END_TEST

/* ------------------------------------------------------------------ */
/* fBm                                                                 */
/* ------------------------------------------------------------------ */

static const strata_fbm fbm_specs[4] = {
    {STRATA_NOISE_SIMPLEX, 1, 6, 1.0f, 2.0f, 0.5f, 1.0f},
    {STRATA_NOISE_PERLIN, 77, 8, 0.01f, 2.1f, 0.55f, 30.0f},
    {STRATA_NOISE_SIMPLEX, 0xFFFFFFFFu, 16, 0.5f, 1.9f, 0.6f, 2.0f},
    {STRATA_NOISE_PERLIN, 3, 1, 3.0f, 2.0f, 0.5f, 0.25f},
};
static const float fbm_points[4][3] = {
    {0.0f, 0.0f, 0.0f}, {-1.5f, 2.25f, -3.0f}, {123.456f, -78.9f, 0.5f}, {10000.0f, -10000.0f, 10000.0f}};
static const uint32_t fbm_golden[4][4][2] = {
    {{0x00000000u, 0x00000000u}, {0x3EB2606Cu, 0xBDC7CF3Du}, {0xBF491859u, 0x3E0BD055u}, {0x00000000u, 0x3F968FCBu}},
    {{0x00000000u, 0x00000000u}, {0x3FFA4A67u, 0xC00C4A1Eu}, {0xC1358CB8u, 0xC10132F1u}, {0xBF09B4C4u, 0x3F2CBDC1u}},
    {{0x00000000u, 0x00000000u}, {0xBF050132u, 0xBFE09C4Fu}, {0x3F8A0007u, 0xBF016819u}, {0x3E736F2Cu, 0x3FEF3B99u}},
    {{0x00000000u, 0x00000000u}, {0xBE39F0FBu, 0xBD9FB1CAu}, {0xBE15CBDAu, 0xBCB9B0BFu}, {0x00000000u, 0x00000000u}},
};

START_TEST(test_fbm_golden)
{
    for (int a = 0; a < 4; a++)
        for (int p = 0; p < 4; p++) {
            const float *q = fbm_points[p];
            float v2 = strata_fbm2(&fbm_specs[a], q[0], q[1]);
            float v3 = strata_fbm3(&fbm_specs[a], q[0], q[1], q[2]);
            ck_assert_msg(fbits(v2) == fbm_golden[a][p][0], "spec %d point %d 2D: %a", a, p, v2);
            ck_assert_msg(fbits(v3) == fbm_golden[a][p][1], "spec %d point %d 3D: %a", a, p, v3);
        }
}
END_TEST

/* The documented sum, written out: frequency and amplitude by repeated
 * float multiplication, octave o with seed + o, summed in octave order. */
START_TEST(test_fbm_is_documented_sum)
{
    int bad = 0;
    for (int a = 0; a < 4; a++) {
        const strata_fbm *f = &fbm_specs[a];
        rng r = {99 + (uint64_t)a};
        for (int i = 0; i < 2000; i++) {
            float x = rng_float(&r, -300, 300), y = rng_float(&r, -300, 300),
                  z = rng_float(&r, -300, 300);
            float s2 = 0.0f, s3 = 0.0f, fr = f->frequency, am = f->amplitude;
            for (int o = 0; o < f->octaves; o++) {
                s2 = s2 + am * strata_noise2(f->kind, f->seed + (uint32_t)o, x * fr, y * fr);
                s3 = s3 + am * strata_noise3(f->kind, f->seed + (uint32_t)o, x * fr, y * fr, z * fr);
                fr = fr * f->lacunarity;
                am = am * f->gain;
            }
            bad += fbits(s2) != fbits(strata_fbm2(f, x, y));
            bad += fbits(s3) != fbits(strata_fbm3(f, x, y, z));
        }
    }
    ck_assert_int_eq(bad, 0);
}
END_TEST

START_TEST(test_fbm_defaults_validate_bound)
{
    strata_fbm f;
    memset(&f, 0xAB, sizeof f);
    strata_fbm_defaults(&f);
    ck_assert_int_eq(f.kind, STRATA_NOISE_SIMPLEX);
    ck_assert_uint_eq(f.seed, 1);
    ck_assert_int_eq(f.octaves, 6);
    ck_assert(f.frequency == 1.0f && f.lacunarity == 2.0f && f.gain == 0.5f &&
              f.amplitude == 1.0f);
    ck_assert_ok(strata_fbm_validate(&f));
    ck_assert(strata_fbm_bound(&f) == 1.96875f); /* 1 + 1/2 + ... + 1/32 */

    strata_fbm g = f;
    g.amplitude = 3.0f;
    g.gain = 1.0f;
    g.octaves = 16;
    ck_assert(strata_fbm_bound(&g) == 48.0f);
    g.gain = 0.0f;
    ck_assert_ok(strata_fbm_validate(&g));
    ck_assert(strata_fbm_bound(&g) == 3.0f);
    g.amplitude = 0.0f;
    ck_assert_ok(strata_fbm_validate(&g));
    ck_assert(strata_fbm_bound(&g) == 0.0f);
    ck_assert(strata_fbm2(&g, 0.3f, 0.7f) == 0.0f);

    const float inf = INFINITY, nan = NAN;
    struct {
        int field;
        float v;
    } badf[] = {{0, 0.0f}, {0, -1.0f}, {0, nan}, {0, inf}, {1, 0.0f}, {1, -2.0f}, {1, nan},
                {1, inf},  {2, -0.5f}, {2, nan}, {2, inf}, {3, -1.0f}, {3, nan},  {3, inf}};
    for (size_t i = 0; i < sizeof badf / sizeof badf[0]; i++) {
        strata_fbm h = f;
        float *fld[] = {&h.frequency, &h.lacunarity, &h.gain, &h.amplitude};
        *fld[badf[i].field] = badf[i].v;
        ck_assert_msg(strata_fbm_validate(&h) == STRATA_ERR_INVALID_ARG, "case %zu accepted", i);
        ck_assert(strata_fbm_bound(&h) == 0.0f);
        ck_assert(strata_fbm2(&h, 0.3f, 0.7f) == 0.0f);
        ck_assert(strata_fbm3(&h, 0.3f, 0.7f, 0.1f) == 0.0f);
    }
    const int octs[] = {0, -1, 17, 1000};
    for (size_t i = 0; i < 4; i++) {
        strata_fbm h = f;
        h.octaves = octs[i];
        ck_assert_status(strata_fbm_validate(&h), STRATA_ERR_INVALID_ARG);
    }
    strata_fbm h = f;
    h.octaves = 16;
    ck_assert_ok(strata_fbm_validate(&h));
    h.octaves = 1;
    ck_assert_ok(strata_fbm_validate(&h));
    h.kind = (strata_noise_kind)7;
    ck_assert_status(strata_fbm_validate(&h), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_fbm_validate(NULL), STRATA_ERR_INVALID_ARG);
    ck_assert(strata_fbm_bound(NULL) == 0.0f);
    /* Overflow of the octave frequency or of the bound. */
    h = f;
    h.octaves = 16;
    h.frequency = 1e30f;
    h.lacunarity = 1e3f;
    ck_assert_status(strata_fbm_validate(&h), STRATA_ERR_INVALID_ARG);
    h = f;
    h.amplitude = 3e38f;
    h.gain = 1.0f;
    ck_assert_status(strata_fbm_validate(&h), STRATA_ERR_INVALID_ARG);
}
END_TEST

/* |fbm| <= bound exactly (no tolerance) for several parameter sets. */
START_TEST(test_fbm_within_bound)
{
    strata_fbm specs[3] = {fbm_specs[0], fbm_specs[1], fbm_specs[2]};
    specs[0].gain = 0.9f;
    specs[0].amplitude = 7.0f;
    long bad = 0;
    float worst = 0.0f;
    for (int a = 0; a < 3; a++) {
        const float b = strata_fbm_bound(&specs[a]);
        rng r = {4242 + (uint64_t)a};
        for (int i = 0; i < 200000; i++) {
            float x = rng_float(&r, -500, 500), y = rng_float(&r, -500, 500),
                  z = rng_float(&r, -500, 500);
            float v2 = strata_fbm2(&specs[a], x, y), v3 = strata_fbm3(&specs[a], x, y, z);
            bad += !(fabsf(v2) <= b) + !(fabsf(v3) <= b);
            worst = fmaxf(worst, fmaxf(fabsf(v2), fabsf(v3)) / b);
        }
    }
    ck_assert_msg(bad == 0, "%ld values beyond the bound", bad);
    ck_assert_msg(worst > 0.5f, "fbm never gets near its bound (%g)", worst);
}
END_TEST

typedef struct {
    pthread_t caller;
    int calls, wrong_thread, backwards, cancel_at;
    double first, last;
    char stage[32];
} progress_log;

static int log_progress(void *user, const char *stage, double done)
{
    progress_log *p = user;
    if (!pthread_equal(pthread_self(), p->caller))
        p->wrong_thread++;
    if (p->calls == 0)
        p->first = done;
    else if (done < p->last)
        p->backwards++;
    p->last = done;
    snprintf(p->stage, sizeof p->stage, "%s", stage);
    p->calls++;
    return p->cancel_at > 0 && p->calls >= p->cancel_at;
}

/* Batch == single point, byte for byte, for 1, 2 and 3 threads; n spans
 * more than one progress span and a partial block. */
START_TEST(test_fbm_batch_matches_single)
{
    const size_t n = 270001;
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *z = malloc(n * sizeof *z);
    float *ref2 = malloc(n * sizeof *ref2), *ref3 = malloc(n * sizeof *ref3);
    float *out = malloc(n * sizeof *out);
    ck_assert(x && y && z && ref2 && ref3 && out);
    rng r = {31337};
    for (size_t i = 0; i < n; i++) {
        x[i] = rng_float(&r, -1000, 1000);
        y[i] = rng_float(&r, -1000, 1000);
        z[i] = rng_float(&r, -1000, 1000);
    }
    for (int k = 0; k < 2; k++) {
        strata_fbm f = fbm_specs[k];
        f.octaves = 3;
        for (size_t i = 0; i < n; i++) {
            ref2[i] = strata_fbm2(&f, x[i], y[i]);
            ref3[i] = strata_fbm3(&f, x[i], y[i], z[i]);
        }
        for (int t = 1; t <= 3; t++) {
            strata_ctx *ctx = ctx_new(t);
            progress_log log = {pthread_self(), 0, 0, 0, 0, 0, 0, ""};
            strata_ctx_set_progress(ctx, log_progress, &log);
            memset(out, 0xFF, n * sizeof *out);
            ck_assert_ok(strata_fbm2_batch(ctx, &f, x, y, n, out));
            ck_assert_msg(memcmp(out, ref2, n * sizeof *out) == 0, "kind %d 2D threads %d", k, t);
            ck_assert(log.first == 0.0 && log.last == 1.0);
            log.calls = 0;
            memset(out, 0xFF, n * sizeof *out);
            ck_assert_ok(strata_fbm3_batch(ctx, &f, x, y, z, n, out));
            ck_assert_msg(memcmp(out, ref3, n * sizeof *out) == 0, "kind %d 3D threads %d", k, t);
            ck_assert_int_eq(log.wrong_thread, 0);
            ck_assert_int_eq(log.backwards, 0);
            /* 0, after span 1, 1: threads take blocks as they come, so
             * with more than one the calling thread may finish its last
             * block before a span is done and skip the middle report */
            if (t == 1)
                ck_assert_int_eq(log.calls, 3);
            else
                ck_assert(log.calls == 2 || log.calls == 3);
            ck_assert_str_eq(log.stage, "noise");
            ck_assert(log.first == 0.0 && log.last == 1.0);
            strata_ctx_destroy(ctx);
        }
    }
    free(x), free(y), free(z), free(ref2), free(ref3), free(out);
}
END_TEST

START_TEST(test_fbm_batch_args_and_cancel)
{
    strata_ctx *ctx = ctx_new(2);
    strata_fbm f;
    strata_fbm_defaults(&f);
    float x[4] = {0.1f, 0.2f, 0.3f, 0.4f}, out[4];
    ck_assert_status(strata_fbm2_batch(NULL, &f, x, x, 4, out), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_fbm2_batch(ctx, NULL, x, x, 4, out), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_fbm2_batch(ctx, &f, NULL, x, 4, out), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_fbm2_batch(ctx, &f, x, NULL, 4, out), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_fbm2_batch(ctx, &f, x, x, 4, NULL), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_fbm3_batch(ctx, &f, x, x, NULL, 4, out), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_fbm3_batch(ctx, &f, x, x, x, 4, NULL), STRATA_ERR_INVALID_ARG);
    ck_assert_ok(strata_fbm2_batch(ctx, &f, NULL, NULL, 0, NULL));
    ck_assert_ok(strata_fbm3_batch(ctx, &f, NULL, NULL, NULL, 0, NULL));
    strata_fbm bad = f;
    bad.octaves = 0;
    ck_assert_status(strata_fbm2_batch(ctx, &bad, x, x, 4, out), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_fbm3_batch(ctx, &bad, x, x, x, 4, out), STRATA_ERR_INVALID_ARG);

    strata_ctx_cancel(ctx);
    ck_assert_status(strata_fbm2_batch(ctx, &f, x, x, 4, out), STRATA_ERR_CANCELLED);
    ck_assert_status(strata_fbm3_batch(ctx, &f, x, x, x, 4, out), STRATA_ERR_CANCELLED);
    strata_ctx_reset_cancel(ctx);
    ck_assert_ok(strata_fbm3_batch(ctx, &f, x, x, x, 4, out));
    ck_assert(fbits(out[2]) == fbits(strata_fbm3(&f, 0.3f, 0.3f, 0.3f)));

    /* A progress callback asking to stop cancels a long batch midway
     * (long enough that the calling thread meets a span boundary). */
    const size_t n = 4000000;
    float *big = calloc(n, sizeof *big), *res = malloc(n * sizeof *res);
    ck_assert(big && res);
    progress_log log = {pthread_self(), 0, 0, 0, 2, 0, 0, ""};
    strata_ctx_set_progress(ctx, log_progress, &log);
    ck_assert_status(strata_fbm2_batch(ctx, &f, big, big, n, res), STRATA_ERR_CANCELLED);
    ck_assert_int_eq(log.calls, 2);
    free(big), free(res);
    strata_ctx_destroy(ctx);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Curves                                                              */
/* ------------------------------------------------------------------ */

static strata_curve *make_curve(strata_ctx *ctx, strata_curve_kind kind, const float *xs,
                                const float *ys, size_t n)
{
    strata_curve *c = NULL;
    ck_assert_ok(strata_curve_create(ctx, kind, xs, ys, n, &c));
    ck_assert_ptr_nonnull(c);
    return c;
}

START_TEST(test_curve_identity_exact)
{
    strata_ctx *ctx = ctx_new(1);
    const float xs2[] = {0.0f, 1.0f}, xs5[] = {0.0f, 0.1f, 0.3f, 0.7f, 1.0f};
    strata_curve *c[4] = {make_curve(ctx, STRATA_CURVE_LINEAR, xs2, xs2, 2),
                          make_curve(ctx, STRATA_CURVE_LINEAR, xs5, xs5, 5),
                          make_curve(ctx, STRATA_CURVE_MONOTONE, xs2, xs2, 2),
                          make_curve(ctx, STRATA_CURVE_MONOTONE, xs5, xs5, 5)};
    rng r = {5};
    long bad = 0;
    for (int i = 0; i <= 200000; i++) {
        float t = i < 100001 ? (float)i / 100000.0f : rng_float(&r, 0.0f, 1.0f);
        for (int k = 0; k < 4; k++)
            bad += fbits(strata_curve_eval(c[k], t)) != fbits(t);
    }
    ck_assert_msg(bad == 0, "%ld identity evaluations differ from t", bad);
    for (int k = 0; k < 4; k++) {
        ck_assert(strata_curve_eval(c[k], -0.5f) == 0.0f);
        ck_assert(strata_curve_eval(c[k], 7.0f) == 1.0f);
        strata_curve_destroy(c[k]);
    }
    strata_curve_destroy(NULL);
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_curve_linear)
{
    strata_ctx *ctx = ctx_new(1);
    const float xs[] = {0.1f, 0.4f, 0.5f, 0.9f}, ys[] = {0.2f, 0.8f, 0.3f, 0.3f};
    strata_curve *c = make_curve(ctx, STRATA_CURVE_LINEAR, xs, ys, 4);
    for (int i = 0; i < 4; i++)
        ck_assert(fbits(strata_curve_eval(c, xs[i])) == fbits(ys[i]));
    ck_assert_float_eq_tol(strata_curve_eval(c, 0.25f), 0.5f, 1e-6f);
    ck_assert_float_eq_tol(strata_curve_eval(c, 0.45f), 0.55f, 1e-6f);
    ck_assert_float_eq_tol(strata_curve_eval(c, 0.7f), 0.3f, 1e-7f);
    ck_assert(strata_curve_eval(c, 0.0f) == 0.2f);  /* constant outside */
    ck_assert(strata_curve_eval(c, -3.0f) == 0.2f);
    ck_assert(strata_curve_eval(c, 0.95f) == 0.3f);
    ck_assert(strata_curve_eval(c, 1.0f) == 0.3f);
    strata_curve_destroy(c);
    strata_ctx_destroy(ctx);
}
END_TEST

/* Monotone data: a non-decreasing curve through every point exactly,
 * never leaving [ys[k], ys[k+1]] on segment k.  Non-monotone data: no
 * overshoot either (flat tangents at the extrema). */
START_TEST(test_curve_monotone)
{
    strata_ctx *ctx = ctx_new(1);
    /* Steep and flat stretches: a plain cubic spline would overshoot. */
    const float xs[] = {0.0f, 0.2f, 0.25f, 0.6f, 0.61f, 1.0f};
    const float ys[] = {0.0f, 0.05f, 0.9f, 0.9f, 0.95f, 1.0f};
    const float yb[] = {0.1f, 0.9f, 0.2f, 0.2f, 1.0f, 0.0f};
    strata_curve *c = make_curve(ctx, STRATA_CURVE_MONOTONE, xs, ys, 6);
    strata_curve *b = make_curve(ctx, STRATA_CURVE_MONOTONE, xs, yb, 6);
    for (int i = 0; i < 6; i++) {
        ck_assert_msg(fbits(strata_curve_eval(c, xs[i])) == fbits(ys[i]), "point %d", i);
        ck_assert_msg(fbits(strata_curve_eval(b, xs[i])) == fbits(yb[i]), "point %d", i);
    }
    long back = 0, outside = 0, outside_b = 0;
    float prev = strata_curve_eval(c, 0.0f), worst = 0.0f;
    const int n = 4000000;
    for (int i = 1; i <= n; i++) {
        float t = (float)i / (float)n, v = strata_curve_eval(c, t), w = strata_curve_eval(b, t);
        int k = 0;
        while (k < 4 && t >= xs[k + 1])
            k++;
        if (v < prev) {
            back++;
            worst = fmaxf(worst, prev - v);
        }
        prev = v;
        if (t < xs[5]) {
            outside += v < ys[k] || v > ys[k + 1];
            outside_b += w < fminf(yb[k], yb[k + 1]) || w > fmaxf(yb[k], yb[k + 1]);
        }
    }
    ck_assert_msg(back == 0, "curve decreases by up to %g (%ld times)", worst, back);
    ck_assert_msg(outside == 0, "%ld values overshoot their segment", outside);
    ck_assert_msg(outside_b == 0, "%ld values overshoot (non-monotone data)", outside_b);
    /* Random monotone data (with flat runs): never a step back. */
    rng r = {8};
    long back_r = 0;
    for (int trial = 0; trial < 300; trial++) {
        float rx[8], ry[8], ax = 0.0f, ay = 0.0f;
        for (int k = 0; k < 8; k++) {
            ax += rng_float(&r, 0.001f, 1.0f);
            ay += rng_u32(&r) % 4 ? rng_float(&r, 0.0f, 1.0f) : 0.0f;
            rx[k] = ax, ry[k] = ay;
        }
        for (int k = 0; k < 8; k++)
            rx[k] /= ax, ry[k] /= ay;
        rx[0] = 0.0f, rx[7] = 1.0f;
        strata_curve *d = make_curve(ctx, STRATA_CURVE_MONOTONE, rx, ry, 8);
        float p = 0.0f;
        for (int i = 0; i <= 20000; i++) {
            float v = strata_curve_eval(d, (float)i / 20000.0f);
            back_r += v < p;
            p = v;
        }
        strata_curve_destroy(d);
    }
    ck_assert_msg(back_r == 0, "random monotone curves step back %ld times", back_r);
    /* Smooth, not piecewise linear: the midpoint of the steep segment
     * differs from the chord. */
    float mid = strata_curve_eval(c, 0.225f);
    ck_assert(fabsf(mid - 0.475f) > 1e-3f);
    strata_curve_destroy(c);
    strata_curve_destroy(b);
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_curve_invalid)
{
    strata_ctx *ctx = ctx_new(1);
    const float xs[] = {0.0f, 0.5f, 1.0f}, ys[] = {0.0f, 0.5f, 1.0f};
    const float dup[] = {0.0f, 0.5f, 0.5f}, down[] = {0.0f, 0.6f, 0.5f};
    const float big[] = {0.0f, 0.5f, 1.5f}, neg[] = {-0.1f, 0.5f, 1.0f};
    const float nanv[] = {0.0f, NAN, 1.0f}, infv[] = {0.0f, 0.5f, INFINITY};
    strata_curve *c = (strata_curve *)&c; /* must be reset to NULL */
    for (int k = 0; k < 2; k++) {
        strata_curve_kind kind = k ? STRATA_CURVE_MONOTONE : STRATA_CURVE_LINEAR;
        const float *bad_x[] = {dup, down, big, neg, nanv, infv};
        for (int i = 0; i < 6; i++) {
            c = (strata_curve *)&c;
            ck_assert_status(strata_curve_create(ctx, kind, bad_x[i], ys, 3, &c),
                             STRATA_ERR_INVALID_ARG);
            ck_assert_ptr_null(c);
        }
        const float *bad_y[] = {big, neg, nanv, infv};
        for (int i = 0; i < 4; i++)
            ck_assert_status(strata_curve_create(ctx, kind, xs, bad_y[i], 3, &c),
                             STRATA_ERR_INVALID_ARG);
        ck_assert_status(strata_curve_create(ctx, kind, xs, ys, 1, &c), STRATA_ERR_INVALID_ARG);
        ck_assert_status(strata_curve_create(ctx, kind, xs, ys, 0, &c), STRATA_ERR_INVALID_ARG);
        ck_assert_status(strata_curve_create(ctx, kind, NULL, ys, 3, &c), STRATA_ERR_INVALID_ARG);
        ck_assert_status(strata_curve_create(ctx, kind, xs, NULL, 3, &c), STRATA_ERR_INVALID_ARG);
        ck_assert_status(strata_curve_create(NULL, kind, xs, ys, 3, &c), STRATA_ERR_INVALID_ARG);
        ck_assert_status(strata_curve_create(ctx, kind, xs, ys, 3, NULL), STRATA_ERR_INVALID_ARG);
    }
    ck_assert_status(strata_curve_create(ctx, (strata_curve_kind)5, xs, ys, 3, &c),
                     STRATA_ERR_INVALID_ARG);
    ck_assert_ptr_null(c);
    strata_ctx_destroy(ctx);
}
END_TEST

/* The curve keeps its own copy of the allocator: it outlives the ctx. */
START_TEST(test_curve_allocator)
{
    test_alloc ta;
    strata_ctx *ctx = ctx_new_counting(1, &ta);
    const float xs[] = {0.0f, 0.3f, 1.0f}, ys[] = {0.0f, 0.6f, 1.0f};
    strata_curve *a = make_curve(ctx, STRATA_CURVE_LINEAR, xs, ys, 3);
    strata_curve *b = make_curve(ctx, STRATA_CURVE_MONOTONE, xs, ys, 3);
    ck_assert_int_eq(ta.live, 3);
    strata_ctx_destroy(ctx);
    ck_assert(strata_curve_eval(b, 0.3f) == 0.6f);
    strata_curve_destroy(a);
    strata_curve_destroy(b);
    ck_assert_int_eq(ta.live, 0);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Displacement                                                        */
/* ------------------------------------------------------------------ */

/* (nx+1) x (nz+1) grid in the xz plane, y = slope * x, two triangles a
 * cell, counter-clockwise seen from +y. */
static strata_mesh *make_grid(strata_ctx *ctx, uint32_t nx, uint32_t nz, float cell, float slope)
{
    const uint32_t nv = (nx + 1) * (nz + 1), nt = 2 * nx * nz;
    float *xyz = malloc(3 * (size_t)nv * sizeof *xyz);
    uint32_t *tri = malloc(3 * (size_t)nt * sizeof *tri);
    ck_assert(xyz && tri);
    for (uint32_t j = 0; j <= nz; j++)
        for (uint32_t i = 0; i <= nx; i++) {
            float *p = xyz + 3 * (j * (nx + 1) + i);
            p[0] = ((float)i - 0.5f * (float)nx) * cell;
            p[2] = ((float)j - 0.5f * (float)nz) * cell;
            p[1] = slope * p[0];
        }
    uint32_t *t = tri;
    for (uint32_t j = 0; j < nz; j++)
        for (uint32_t i = 0; i < nx; i++) {
            uint32_t v = j * (nx + 1) + i;
            *t++ = v, *t++ = v + nx + 1, *t++ = v + 1;
            *t++ = v + 1, *t++ = v + nx + 1, *t++ = v + nx + 2;
        }
    strata_mesh *m = NULL;
    ck_assert_ok(strata_mesh_create(ctx, xyz, nv, tri, nt, &m));
    free(xyz);
    free(tri);
    return m;
}

/* Latitude-longitude sphere of radius r about c (poles and nlat - 1
 * rings of nlon vertices), made RADIAL with base radius r.  With
 * extra_at_centre an unused vertex sits exactly at the centre. */
static strata_mesh *make_sphere(strata_ctx *ctx, const float c[3], float r, uint32_t nlat,
                                uint32_t nlon, int extra_at_centre)
{
    const uint32_t rings = nlat - 1, nv = 2 + rings * nlon + (extra_at_centre ? 1 : 0);
    const uint32_t nt = 2 * nlon + 2 * nlon * (rings - 1);
    float *xyz = malloc(3 * (size_t)nv * sizeof *xyz);
    uint32_t *tri = malloc(3 * (size_t)nt * sizeof *tri);
    ck_assert(xyz && tri);
    const double pi = 3.14159265358979323846;
    xyz[0] = c[0], xyz[1] = c[1] + r, xyz[2] = c[2];
    xyz[3] = c[0], xyz[4] = c[1] - r, xyz[5] = c[2];
    for (uint32_t a = 0; a < rings; a++)
        for (uint32_t b = 0; b < nlon; b++) {
            double th = pi * (a + 1) / nlat, ph = 2 * pi * b / nlon;
            float *p = xyz + 3 * (2 + a * nlon + b);
            p[0] = c[0] + (float)(r * sin(th) * cos(ph));
            p[1] = c[1] + (float)(r * cos(th));
            p[2] = c[2] + (float)(r * sin(th) * sin(ph));
        }
    if (extra_at_centre) {
        float *p = xyz + 3 * (nv - 1);
        p[0] = c[0], p[1] = c[1], p[2] = c[2];
    }
    uint32_t *t = tri;
#define RV(a, b) (2 + (a) * nlon + ((b) % nlon))
    for (uint32_t b = 0; b < nlon; b++) {
        *t++ = 0, *t++ = RV(0, b + 1), *t++ = RV(0, b);
        *t++ = 1, *t++ = RV(rings - 1, b), *t++ = RV(rings - 1, b + 1);
    }
    for (uint32_t a = 0; a + 1 < rings; a++)
        for (uint32_t b = 0; b < nlon; b++) {
            *t++ = RV(a, b), *t++ = RV(a, b + 1), *t++ = RV(a + 1, b);
            *t++ = RV(a + 1, b), *t++ = RV(a, b + 1), *t++ = RV(a + 1, b + 1);
        }
#undef RV
    strata_mesh *m = NULL;
    ck_assert_ok(strata_mesh_create(ctx, xyz, nv, tri, nt, &m));
    ck_assert_ok(strata_mesh_set_geometry(m, STRATA_RADIAL, c, r));
    free(xyz);
    free(tri);
    return m;
}

static strata_mesh *make_octahedron(strata_ctx *ctx, float r)
{
    const float xyz[] = {r, 0, 0, -r, 0, 0, 0, r, 0, 0, -r, 0, 0, 0, r, 0, 0, -r};
    const uint32_t tri[] = {0, 2, 4, 2, 1, 4, 1, 3, 4, 3, 0, 4,
                            2, 0, 5, 1, 2, 5, 3, 1, 5, 0, 3, 5};
    strata_mesh *m = NULL;
    ck_assert_ok(strata_mesh_create(ctx, xyz, 6, tri, 8, &m));
    ck_assert_ok(strata_mesh_set_geometry(m, STRATA_RADIAL, NULL, r));
    return m;
}

/* Same vertex data, bit for bit. */
static int same_vertices(const strata_mesh *a, const strata_mesh *b)
{
    strata_mesh_view va, vb;
    strata_mesh_get_view(a, &va);
    strata_mesh_get_view(b, &vb);
    if (va.nverts != vb.nverts)
        return 0;
    size_t sz = (size_t)va.nverts * sizeof(float);
    return !memcmp(va.x, vb.x, sz) && !memcmp(va.y, vb.y, sz) && !memcmp(va.z, vb.z, sz) &&
           !memcmp(va.h, vb.h, sz);
}

static strata_mesh *clone(strata_ctx *ctx, const strata_mesh *m)
{
    strata_mesh *c = NULL;
    ck_assert_ok(strata_mesh_clone(ctx, m, &c));
    return c;
}

/* The documented mapping, written out. */
static float reshape(float v, float bound, const strata_curve *c)
{
    if (!c)
        return v;
    if (bound == 0.0f)
        return 0.0f;
    return bound * (2.0f * strata_curve_eval(c, (v / bound + 1.0f) / 2.0f) - 1.0f);
}

START_TEST(test_displace_flat)
{
    strata_ctx *ctx = ctx_new(1);
    strata_mesh *base = make_grid(ctx, 48, 40, 0.37f, 0.1f);
    strata_fbm f;
    strata_fbm_defaults(&f);
    f.frequency = 0.2f;
    f.amplitude = 2.5f;
    const float bound = strata_fbm_bound(&f);
    const float sx[] = {0.0f, 0.3f, 1.0f}, sy[] = {0.0f, 0.1f, 1.0f}, idx[] = {0.0f, 0.5f, 1.0f};
    strata_curve *curves[4] = {
        NULL, make_curve(ctx, STRATA_CURVE_MONOTONE, sx, sy, 3),
        make_curve(ctx, STRATA_CURVE_LINEAR, sx, sy, 3),
        /* On the diagonal but only over [0.5, 1]: constant below, not the
         * identity. */
        make_curve(ctx, STRATA_CURVE_LINEAR, idx + 1, idx + 1, 2)};
    strata_mesh_view v0, v;
    strata_mesh_get_view(base, &v0);
    for (int ci = 0; ci < 4; ci++) {
        strata_mesh *first = NULL;
        for (int t = 1; t <= 3; t++) {
            strata_ctx *tctx = ctx_new(t);
            strata_mesh *m = clone(tctx, base);
            ck_assert_ok(strata_displace_flat(tctx, m, &f, curves[ci]));
            strata_mesh_get_view(m, &v);
            long bad = 0, moved = 0;
            for (uint32_t i = 0; i < v.nverts; i++) {
                float want = v0.y[i] + reshape(strata_fbm2(&f, v0.x[i], v0.z[i]), bound, curves[ci]);
                bad += fbits(v.y[i]) != fbits(want) || fbits(v.h[i]) != fbits(v.y[i]) ||
                       fbits(v.x[i]) != fbits(v0.x[i]) || fbits(v.z[i]) != fbits(v0.z[i]);
                moved += v.y[i] != v0.y[i];
            }
            ck_assert_msg(bad == 0, "curve %d threads %d: %ld vertices differ", ci, t, bad);
            ck_assert_msg(moved > (long)v.nverts / 3, "curve %d: only %ld moved", ci, moved);
            if (first)
                ck_assert_msg(same_vertices(first, m), "curve %d: threads %d differ", ci, t);
            else
                first = m, m = NULL;
            strata_mesh_destroy(m);
            strata_ctx_destroy(tctx);
        }
        strata_mesh_destroy(first);
    }
    /* A curve that is constant 1/2 maps every height to 0. */
    strata_curve *half = make_curve(ctx, STRATA_CURVE_LINEAR, idx, (const float[]){0.5f, 0.5f, 0.5f}, 3);
    strata_mesh *m = clone(ctx, base);
    ck_assert_ok(strata_displace_flat(ctx, m, &f, half));
    ck_assert(same_vertices(m, base));
    strata_mesh_destroy(m);
    strata_curve_destroy(half);
    for (int ci = 0; ci < 4; ci++)
        strata_curve_destroy(curves[ci]);
    strata_mesh_destroy(base);
    strata_ctx_destroy(ctx);
}
END_TEST

/* Identity curves of either kind give the same bytes as no curve. */
START_TEST(test_displace_identity_curve)
{
    strata_ctx *ctx = ctx_new(2);
    const float xs[] = {0.0f, 0.25f, 0.8f, 1.0f};
    strata_curve *lin = make_curve(ctx, STRATA_CURVE_LINEAR, xs, xs, 4);
    strata_curve *mono = make_curve(ctx, STRATA_CURVE_MONOTONE, xs, xs, 4);
    strata_fbm f;
    strata_fbm_defaults(&f);
    f.frequency = 0.7f;
    f.gain = 0.45f;
    f.amplitude = 1.3f;

    strata_mesh *g[3], *s[3];
    const float c[3] = {1.0f, -2.0f, 0.5f};
    const strata_curve *cv[3] = {NULL, lin, mono};
    for (int i = 0; i < 3; i++) {
        g[i] = make_grid(ctx, 30, 30, 0.5f, 0.0f);
        ck_assert_ok(strata_displace_flat(ctx, g[i], &f, cv[i]));
        s[i] = make_sphere(ctx, c, 10.0f, 24, 48, 0);
        ck_assert_ok(strata_displace_radial(ctx, s[i], &f, cv[i]));
    }
    for (int i = 1; i < 3; i++) {
        ck_assert_msg(same_vertices(g[0], g[i]), "flat, curve %d", i);
        ck_assert_msg(same_vertices(s[0], s[i]), "radial, curve %d", i);
    }
    for (int i = 0; i < 3; i++) {
        strata_mesh_destroy(g[i]);
        strata_mesh_destroy(s[i]);
    }
    strata_curve_destroy(lin);
    strata_curve_destroy(mono);
    strata_ctx_destroy(ctx);
}
END_TEST

/* Every vertex ends at radius R + h along its old direction; h is the
 * noise at d * R; the same bytes for 1, 2 and 3 threads. */
static void check_radial(strata_mesh *base, const strata_fbm *f, const strata_curve *curve)
{
    strata_mesh_view v0, v;
    strata_mesh_get_view(base, &v0);
    const float bound = strata_fbm_bound(f), R = v0.radius;
    const float *c = v0.center;
    strata_mesh *first = NULL;
    for (int t = 1; t <= 3; t++) {
        strata_ctx *ctx = ctx_new(t);
        strata_mesh *m = clone(ctx, base);
        ck_assert_ok(strata_displace_radial(ctx, m, f, curve));
        strata_mesh_get_view(m, &v);
        long bad_r = 0, bad_h = 0, bad_dir = 0;
        double worst = 0;
        for (uint32_t i = 0; i < v.nverts; i++) {
            float dx = v0.x[i] - c[0], dy = v0.y[i] - c[1], dz = v0.z[i] - c[2];
            float len = sqrtf(dx * dx + dy * dy + dz * dz);
            dx /= len, dy /= len, dz /= len;
            float h = reshape(strata_fbm3(f, dx * R, dy * R, dz * R), bound, curve);
            bad_h += fbits(h) != fbits(v.h[i]);
            double ex = (double)v.x[i] - c[0], ey = (double)v.y[i] - c[1], ez = (double)v.z[i] - c[2];
            double r = sqrt(ex * ex + ey * ey + ez * ez), want = (double)R + v.h[i];
            double rel = fabs(r - want) / want;
            worst = rel > worst ? rel : worst;
            bad_r += rel > 1e-5;
            bad_dir += (ex * dx + ey * dy + ez * dz) / r < 1.0 - 1e-6;
        }
        ck_assert_msg(bad_h == 0, "threads %d: %ld heights differ from fbm3(d R)", t, bad_h);
        ck_assert_msg(bad_r == 0, "threads %d: %ld radii off, worst relative %g", t, bad_r, worst);
        ck_assert_msg(bad_dir == 0, "threads %d: %ld vertices changed direction", t, bad_dir);
        if (first)
            ck_assert_msg(same_vertices(first, m), "threads %d differ from 1", t);
        else
            first = m, m = NULL;
        strata_mesh_destroy(m);
        strata_ctx_destroy(ctx);
    }
    strata_mesh_destroy(first);
}

START_TEST(test_displace_radial)
{
    strata_ctx *ctx = ctx_new(1);
    strata_fbm f;
    strata_fbm_defaults(&f);
    f.frequency = 0.3f;
    f.amplitude = 1.5f;
    const float c[3] = {1.0f, -2.0f, 0.5f};
    strata_mesh *s = make_sphere(ctx, c, 10.0f, 40, 80, 0);
    strata_mesh *o = make_octahedron(ctx, 4.0f);
    const float xs[] = {0.0f, 0.4f, 0.6f, 1.0f}, ys[] = {0.0f, 0.45f, 0.5f, 1.0f};
    strata_curve *curve = make_curve(ctx, STRATA_CURVE_MONOTONE, xs, ys, 4);
    check_radial(s, &f, NULL);
    check_radial(s, &f, curve);
    f.kind = STRATA_NOISE_PERLIN;
    check_radial(s, &f, NULL);
    check_radial(o, &f, curve);
    /* The library's own planet shape. */
    strata_mesh *ico = NULL;
    ck_assert_ok(strata_shape_icosphere(ctx, 3, 6.0f, &ico));
    check_radial(ico, &f, curve);
    strata_mesh_destroy(ico);
    /* Heights actually vary, and stay within the bound. */
    strata_mesh *m = clone(ctx, s);
    ck_assert_ok(strata_displace_radial(ctx, m, &f, NULL));
    strata_mesh_view v;
    strata_mesh_get_view(m, &v);
    float lo = 0, hi = 0, b = strata_fbm_bound(&f);
    for (uint32_t i = 0; i < v.nverts; i++)
        lo = fminf(lo, v.h[i]), hi = fmaxf(hi, v.h[i]);
    ck_assert(lo < -0.1f && hi > 0.1f && lo >= -b && hi <= b);
    strata_mesh_destroy(m);
    strata_curve_destroy(curve);
    strata_mesh_destroy(s);
    strata_mesh_destroy(o);
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_displace_errors)
{
    strata_ctx *ctx = ctx_new(2);
    strata_fbm f;
    strata_fbm_defaults(&f);
    const float c[3] = {0.5f, 0.5f, 0.5f};
    strata_mesh *grid = make_grid(ctx, 10, 10, 1.0f, 0.05f); /* no -0 heights */
    strata_mesh *sph = make_sphere(ctx, c, 5.0f, 12, 24, 0);
    strata_mesh *grid0 = clone(ctx, grid), *sph0 = clone(ctx, sph);

    /* Wrong geometry, NULLs, invalid fbm. */
    ck_assert_status(strata_displace_radial(ctx, grid, &f, NULL), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_displace_flat(ctx, sph, &f, NULL), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_displace_flat(NULL, grid, &f, NULL), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_displace_flat(ctx, NULL, &f, NULL), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_displace_flat(ctx, grid, NULL, NULL), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_displace_radial(NULL, sph, &f, NULL), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_displace_radial(ctx, NULL, &f, NULL), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_displace_radial(ctx, sph, NULL, NULL), STRATA_ERR_INVALID_ARG);
    strata_fbm bad = f;
    bad.octaves = 17;
    ck_assert_status(strata_displace_flat(ctx, grid, &bad, NULL), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_displace_radial(ctx, sph, &bad, NULL), STRATA_ERR_INVALID_ARG);

    /* Noise that could reach the centre: B = 1.96875 * 2.6 > 5. */
    bad = f;
    bad.amplitude = 2.6f;
    ck_assert_status(strata_displace_radial(ctx, sph, &bad, NULL), STRATA_ERR_INVALID_ARG);
    bad.amplitude = 2.5f; /* B = 4.92 < 5 */
    strata_mesh *tmp = clone(ctx, sph);
    ck_assert_ok(strata_displace_radial(ctx, tmp, &bad, NULL));
    strata_mesh_destroy(tmp);

    /* A vertex at the centre. */
    strata_mesh *cen = make_sphere(ctx, c, 5.0f, 6, 8, 1), *cen0 = clone(ctx, cen);
    ck_assert_status(strata_displace_radial(ctx, cen, &f, NULL), STRATA_ERR_BAD_MESH);
    ck_assert(same_vertices(cen, cen0));

    /* Cancel flag, and a progress callback that cancels. */
    strata_ctx_cancel(ctx);
    ck_assert_status(strata_displace_flat(ctx, grid, &f, NULL), STRATA_ERR_CANCELLED);
    ck_assert_status(strata_displace_radial(ctx, sph, &f, NULL), STRATA_ERR_CANCELLED);
    strata_ctx_reset_cancel(ctx);
    progress_log log = {pthread_self(), 0, 0, 0, 2, 0, 0, ""};
    strata_ctx_set_progress(ctx, log_progress, &log);
    ck_assert_status(strata_displace_flat(ctx, grid, &f, NULL), STRATA_ERR_CANCELLED);
    strata_ctx_reset_cancel(ctx);
    log.calls = 0;
    ck_assert_status(strata_displace_radial(ctx, sph, &f, NULL), STRATA_ERR_CANCELLED);
    strata_ctx_reset_cancel(ctx);
    strata_ctx_set_progress(ctx, NULL, NULL);

    /* Nothing above changed the meshes. */
    ck_assert(same_vertices(grid, grid0));
    ck_assert(same_vertices(sph, sph0));

    /* Zero amplitude: B = 0, with a curve v = 0, heights unchanged. */
    const float xs[] = {0.0f, 1.0f}, ys[] = {0.3f, 0.9f};
    strata_curve *cv = make_curve(ctx, STRATA_CURVE_LINEAR, xs, ys, 2);
    bad = f;
    bad.amplitude = 0.0f;
    ck_assert_ok(strata_displace_flat(ctx, grid, &bad, cv));
    ck_assert(same_vertices(grid, grid0));

    strata_curve_destroy(cv);
    strata_mesh_destroy(cen);
    strata_mesh_destroy(cen0);
    strata_mesh_destroy(grid);
    strata_mesh_destroy(grid0);
    strata_mesh_destroy(sph);
    strata_mesh_destroy(sph0);
    strata_ctx_destroy(ctx);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Limits                                                              */
/* ------------------------------------------------------------------ */

START_TEST(test_limits_coordinates)
{
    const float odd[] = {NAN, INFINITY, -INFINITY, 3e38f, -3e38f, 1e7f + 0.5f, -16777216.0f,
                         16777218.0f, 1e-40f, -0.0f};
    int bad = 0;
    for (int k = 0; k < 2; k++)
        for (size_t a = 0; a < 10; a++)
            for (size_t b = 0; b < 10; b++) {
                float v2 = strata_noise2(kinds[k], 9, odd[a], odd[b]);
                float v3 = strata_noise3(kinds[k], 9, odd[a], odd[b], odd[(a + b) % 10]);
                bad += !(v2 >= -1.0f && v2 <= 1.0f) + !(v3 >= -1.0f && v3 <= 1.0f);
            }
    ck_assert_int_eq(bad, 0);
    /* Beyond the clamp at 2^24 the noise is constant. */
    ck_assert(fbits(strata_noise3(STRATA_NOISE_SIMPLEX, 4, 1e9f, 0.5f, 0.25f)) ==
              fbits(strata_noise3(STRATA_NOISE_SIMPLEX, 4, 16777216.0f, 0.5f, 0.25f)));
    ck_assert(strata_noise2((strata_noise_kind)9, 1, 0.3f, 0.4f) == 0.0f);
    ck_assert(strata_noise3((strata_noise_kind)9, 1, 0.3f, 0.4f, 0.5f) == 0.0f);
}
END_TEST

/* Noise at 1e4 still varies on the unit scale (float keeps ~1e-3 there). */
START_TEST(test_limits_large_coordinates_vary)
{
    for (int k = 0; k < 2; k++) {
        int distinct = 0;
        float prev = 2.0f;
        for (int i = 0; i < 200; i++) {
            float v = strata_noise3(kinds[k], 1, 10000.0f + 0.137f * i, -10000.0f, 10000.3f);
            distinct += v != prev;
            prev = v;
        }
        ck_assert_int_ge(distinct, 190);
    }
}
END_TEST

START_TEST(test_limits_seed_wrap_and_octaves)
{
    /* seed + o wraps around: octave 1 of seed 2^32 - 1 uses seed 0. */
    strata_fbm f;
    strata_fbm_defaults(&f); /* simplex, frequency 1, lacunarity 2, gain 0.5, amplitude 1 */
    f.seed = 0xFFFFFFFFu;
    f.octaves = 2;
    float x = 0.3f, y = -1.7f;
    float want = 0.0f + 1.0f * strata_noise2(STRATA_NOISE_SIMPLEX, 0xFFFFFFFFu, x, y);
    want = want + 0.5f * strata_noise2(STRATA_NOISE_SIMPLEX, 0u, x * 2.0f, y * 2.0f);
    ck_assert(fbits(strata_fbm2(&f, x, y)) == fbits(want));
    /* 16 octaves of lacunarity 2 reach frequency 32768 without trouble. */
    f.octaves = 16;
    rng r = {2};
    int bad = 0;
    for (int i = 0; i < 10000; i++) {
        float v = strata_fbm3(&f, rng_float(&r, -10, 10), rng_float(&r, -10, 10),
                              rng_float(&r, -10, 10));
        bad += !(fabsf(v) <= strata_fbm_bound(&f));
    }
    ck_assert_int_eq(bad, 0);
}
END_TEST

static Suite *noise_suite(void)
{
    Suite *s = suite_create("noise");
    TCase *tc = tcase_create("Noise");
    tcase_add_loop_test(tc, test_noise_golden, 0, (int)(sizeof golden / sizeof golden[0]));
    tcase_add_loop_test(tc, test_noise_range, 0, 4);
    tcase_add_test(tc, test_noise_deterministic_and_seeded);
    tcase_add_test(tc, test_perlin_zero_at_lattice);
    tcase_add_test(tc, test_noise_continuous);
    suite_add_tcase(s, tc);

    tc = tcase_create("FBM");
    tcase_add_test(tc, test_fbm_golden);
    tcase_add_test(tc, test_fbm_is_documented_sum);
    tcase_add_test(tc, test_fbm_defaults_validate_bound);
    tcase_add_test(tc, test_fbm_within_bound);
    tcase_add_test(tc, test_fbm_batch_matches_single);
    tcase_add_test(tc, test_fbm_batch_args_and_cancel);
    suite_add_tcase(s, tc);

    tc = tcase_create("Curve");
    tcase_add_test(tc, test_curve_identity_exact);
    tcase_add_test(tc, test_curve_linear);
    tcase_add_test(tc, test_curve_monotone);
    tcase_add_test(tc, test_curve_invalid);
    tcase_add_test(tc, test_curve_allocator);
    suite_add_tcase(s, tc);

    tc = tcase_create("Displace");
    tcase_add_test(tc, test_displace_flat);
    tcase_add_test(tc, test_displace_identity_curve);
    tcase_add_test(tc, test_displace_radial);
    tcase_add_test(tc, test_displace_errors);
    suite_add_tcase(s, tc);

    tc = tcase_create("Limits");
    tcase_add_test(tc, test_limits_coordinates);
    tcase_add_test(tc, test_limits_large_coordinates_vary);
    tcase_add_test(tc, test_limits_seed_wrap_and_octaves);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return run_suite(noise_suite()); }
