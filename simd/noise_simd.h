/* The fBm batch kernels written once over a small vector vocabulary; each
 * ISA file (simd/x86/noise_avx2.c, noise_avx512.c, simd/arm/noise_neon.c)
 * defines the vocabulary and includes this file once.  Every function
 * mirrors its namesake in core/mesh/noise.c: the same float operations on the
 * same operands, so that every lane gives the scalar reference's bits.
 * Where a step is computed differently (integer hash inputs, a skipped
 * clamp or +0) the comment there shows why the bits cannot change.
 *
 * The including file defines, before including:
 *   VL                        lanes per vector
 *   ISA_SUFFIX                avx2, avx512, neon: kernel names
 *   vf, vi, vm                float vector, uint32 vector, lane mask
 *   vf_load, vf_store (unaligned), vf_set1, vi_set1
 *   vf_add, vf_sub, vf_mul    plain IEEE single operations, no FMA
 *   vf_max_lo(v, lo)          v > lo ? v : lo  (lo when v is NaN)
 *   vf_min_hi(v, hi)          v < hi ? v : hi
 *   vf_floor(v)               floor as a float (-0 may stay -0)
 *   vf_cvtt(v)                (int32_t)v, truncating
 *   vf_gt, vf_ge              ordered compares -> vm
 *   vi_add, vi_mul, vi_xor, vi_and   (mul: low 32 bits)
 *   VI_SRL(v, n), VI_SLL(v, n)  logical shifts by a constant
 *   vi_gt(a, b) -> vm         signed a > b
 *   vm_and, vm_or, vm_andnot(a, b) = ~a & b
 *   vm_all(m)                 nonzero if every lane of m is set
 *   vi_sel(m, a, b)           m ? a : b
 *   vi_sel_msb(v, a, b)       (v & 0x80000000) ? a : b, lane by lane
 *   vf_bits(v), vi_asf(i)     reinterpret
 * and may define, where one instruction does it (AVX-512 vpternlogd):
 *   vi_xor3(a, b, c)          a ^ b ^ c
 *   vi_xor_and(a, b, c)       a ^ (b & c)
 * and, where a float->int conversion can round down by itself (AVX-512
 * embedded rounding), both of:
 *   vf_cvt_floor(v)           (int32_t)floor(v) for |v| < 2^31
 *   vi_cvtf(i)                (float)i
 *
 * and may set NS_STEPWISE to 0 (see v_terms_n()).
 *
 * The corners of a cell are computed step by step across the corners
 * (every corner's hash multiply, then every corner's shift, ...), not one
 * corner after the other: the out-of-order window then finds four
 * independent chains side by side instead of one long one (AVX-512 on
 * Zen 5: simplex fbm3 12% faster, Perlin fbm3 4%).  Each step is a short
 * loop over the corners that the compiler unrolls, so the arrays live in
 * registers.
 */
#include "noise.h"

#include <string.h>

#define NS_CAT2(a, b) a##b
#define NS_CAT(a, b) NS_CAT2(a, b)
#define NS_FN(name) NS_CAT(name, ISA_SUFFIX)

#if defined(__GNUC__)
#define VINLINE static inline __attribute__((always_inline))
#else
#define VINLINE static inline
#endif

#ifndef vi_xor3
#define vi_xor3(a, b, c) vi_xor(vi_xor(a, b), c)
#endif
#ifndef vi_xor_and
#define vi_xor_and(a, b, c) vi_xor(a, vi_and(b, c))
#endif

/* for (q = 0; q < n; q++), fully unrolled (n is a constant). */
#define NS_EACH(q, n) _Pragma("GCC unroll 8") for (int q = 0; q < (n); q++)

/* clamp_coord().  The noise functions below take a constant clamp: 0
 * leaves the clamps out for points known to be inside the limits (see
 * v_inside_limit()), where they change nothing. */
VINLINE vf v_clamp_coord(vf v)
{
    v = vf_max_lo(v, vf_set1(-COORD_LIMIT));
    return vf_min_hi(v, vf_set1(COORD_LIMIT));
}

/* floor_int() and (float)floor_int().  With vf_cvt_floor the reference's
 * two steps, one instruction each (|v| <= 2^25 after the clamps, so i
 * converts back exactly).  Otherwise: for |v| <= 2^25 the floor of a
 * float is a float, so rounding down gives (float)i exactly, except that
 * floor(-0) is -0 where (float)0 is +0; adding +0 fixes that.  Either
 * saves the scalar code's convert back and compare. */
VINLINE vi v_floor(vf v, vf *fi)
{
#ifdef vf_cvt_floor
    const vi i = vf_cvt_floor(v);
    *fi = vi_cvtf(i);
    return i;
#else
    *fi = vf_add(vf_floor(v), vf_set1(0.0f));
    return vf_cvtt(*fi);
#endif
}

/* floor_int() and (float)floor_int() for the simplex functions: v_floor()
 * (exactly the reference's with vf_cvt_floor), else v_floor() without
 * the +0, which changes no bit there.  vf_floor(v) is -0 only for
 * v = -0, and v = x + sk is -0 only for x = sk = -0.  The float floors
 * only enter t = (sum of the floors) * G and x - (fi - t):
 *  - if t != 0, fi - t = -t for either zero, and t is the same;
 *  - if t = 0, the other floors sum to 0; as sk = -0 adds nothing, the
 *    other coordinates are at least their floors, so their sum is >= 0
 *    and the coordinate sum, hence sk, is +0 or positive unless every
 *    coordinate is -0.  At (-0, -0 (, -0)) every floor is -0, t = -0 and
 *    fi - t = -0 - -0 = +0: the reference's +0 - +0.
 * (Perlin's x - fi would differ for x = -0: it keeps v_floor().) */
VINLINE vi v_floor_s(vf v, vf *fi)
{
#ifdef vf_cvt_floor
    return v_floor(v, fi);
#else
    *fi = vf_floor(v);
    return vf_cvtt(*fi);
#endif
}

/* clamp_unit() */
VINLINE vf v_clamp_unit(vf v)
{
    v = vf_max_lo(v, vf_set1(-1.0f));
    return vf_min_hi(v, vf_set1(1.0f));
}

/* mix() of the n hash inputs h[], in place; hi[q] gets h[q] >> 16 of the
 * result, which is the last step's shift (the xor leaves the top half
 * alone). */
VINLINE void v_mix_n(vi *h, vi *hi, int n)
{
    NS_EACH(q, n) h[q] = vi_mul(h[q], vi_set1(HASH_M1));
    NS_EACH(q, n) h[q] = vi_xor(h[q], VI_SRL(h[q], 15));
    NS_EACH(q, n) h[q] = vi_mul(h[q], vi_set1(HASH_M2));
    NS_EACH(q, n) hi[q] = VI_SRL(h[q], 16);
    NS_EACH(q, n) h[q] = vi_xor(h[q], hi[q]);
}

/* g[q] = grad2(h[q], x[q], y[q]) */
VINLINE void v_grad2_n(const vi *h, const vf *x, const vf *y, vf *g, int n)
{
    NS_EACH(q, n) {
        const vi u = vi_xor(vf_bits(x[q]), VI_SLL(h[q], 31));
        const vi v = vi_xor_and(vf_bits(y[q]), VI_SLL(h[q], 30), vi_set1(0x80000000u));
        const vf diag = vf_mul(vf_set1(DIAG), vf_add(vi_asf(u), vi_asf(v)));
        const vi axis = vi_sel_msb(VI_SLL(h[q], 1), u, v); /* bit 30 */
        g[q] = vi_asf(vi_sel_msb(h[q], vf_bits(diag), axis));
    }
}

/* g[q] = grad3(h[q], x[q], y[q], z[q]), hi[q] = h[q] >> 16 */
VINLINE void v_grad3_n(const vi *h, const vi *hi, const vf *x, const vf *y, const vf *z, vf *g,
                       int n)
{
    /* a = (hi * 3) >> 16 with hi < 2^16, so a == 0 exactly when hi <=
     * 21845 and a == 2 exactly when hi >= 43691 (65536 / 3 and 131072 / 3
     * rounded up): two compares instead of the multiply. */
    NS_EACH(q, n) {
        const vm a0 = vi_gt(vi_set1(21846u), hi[q]), a2 = vi_gt(hi[q], vi_set1(43690u));
        const vi u = vi_xor(vi_sel(a0, vf_bits(y[q]), vf_bits(x[q])), VI_SLL(h[q], 31));
        const vi v = vi_xor_and(vi_sel(a2, vf_bits(y[q]), vf_bits(z[q])), VI_SLL(h[q], 30),
                                vi_set1(0x80000000u));
        g[q] = vf_add(vi_asf(u), vi_asf(v));
    }
}

/* fade(): t * t * t * (t * (t * 6 - 15) + 10) */
VINLINE vf v_fade(vf t)
{
    const vf t3 = vf_mul(vf_mul(t, t), t);
    const vf p = vf_add(vf_mul(t, vf_sub(vf_mul(t, vf_set1(6.0f)), vf_set1(15.0f))),
                        vf_set1(10.0f));
    return vf_mul(t3, p);
}

/* lerp(): a + t * (b - a) */
VINLINE vf v_lerp(vf a, vf b, vf t) { return vf_add(a, vf_mul(t, vf_sub(b, a))); }

/* k[q] = kernel2(x[q], y[q]) or kernel3(x[q], y[q], z[q]) (z NULL: 2D):
 * max(0.5 - r^2, 0)^4 */
VINLINE void v_kernel_n(const vf *x, const vf *y, const vf *z, vf *k, int n)
{
    NS_EACH(q, n) k[q] = vf_sub(vf_set1(0.5f), vf_mul(x[q], x[q]));
    NS_EACH(q, n) k[q] = vf_sub(k[q], vf_mul(y[q], y[q]));
    if (z)
        NS_EACH(q, n) k[q] = vf_sub(k[q], vf_mul(z[q], z[q]));
    NS_EACH(q, n) k[q] = vf_max_lo(k[q], vf_set1(0.0f)); /* +0 for t <= 0, as the and-mask */
    NS_EACH(q, n) k[q] = vf_mul(k[q], k[q]);
    NS_EACH(q, n) k[q] = vf_mul(k[q], k[q]);
}

/* For n corners: h[] = mix(h[]) and hi[] (v_mix_n()), k[] = their
 * kernels unless k is NULL (Perlin), g[] = their gradients (grad3, or
 * grad2 when z is NULL).  NS_STEPWISE 1 (the default) issues each step
 * for all corners before the next; 0 computes one corner after the other,
 * for ISAs whose registers cannot hold every corner's values. */
#ifndef NS_STEPWISE
#define NS_STEPWISE 1
#endif
VINLINE void v_terms_n(vi *h, vi *hi, const vf *x, const vf *y, const vf *z, vf *k, vf *g, int n)
{
    if (NS_STEPWISE) {
        v_mix_n(h, hi, n);
        if (k)
            v_kernel_n(x, y, z, k, n);
        if (z)
            v_grad3_n(h, hi, x, y, z, g, n);
        else
            v_grad2_n(h, x, y, g, n);
        return;
    }
    NS_EACH(q, n) {
        v_mix_n(h + q, hi + q, 1);
        if (k)
            v_kernel_n(x + q, y + q, z ? z + q : NULL, k + q, 1);
        if (z)
            v_grad3_n(h + q, hi + q, x + q, y + q, z + q, g + q, 1);
        else
            v_grad2_n(h + q, x + q, y + q, g + q, 1);
    }
}

/* The sum of k[q] * g[q] in corner order, as the reference adds them. */
VINLINE vf v_dot_n(const vf *k, const vf *g, int n)
{
    vf s = vf_mul(k[0], g[0]);
    NS_EACH(q, n - 1) s = vf_add(s, vf_mul(k[q + 1], g[q + 1]));
    return s;
}

/* perlin2() */
VINLINE vf v_perlin2(vi s, vf x, vf y, int clamp)
{
    if (clamp) {
        x = v_clamp_coord(x);
        y = v_clamp_coord(y);
    }
    vf fi, fj;
    const vi i = v_floor(x, &fi), j = v_floor(y, &fj);
    const vf x0 = vf_sub(x, fi), y0 = vf_sub(y, fj);
    const vf x1 = vf_sub(x0, vf_set1(1.0f)), y1 = vf_sub(y0, vf_set1(1.0f));
    const vi i0 = vi_mul(i, vi_set1(HASH_PX)), i1 = vi_add(i0, vi_set1(HASH_PX));
    const vi j0 = vi_mul(j, vi_set1(HASH_PY)), j1 = vi_add(j0, vi_set1(HASH_PY));
    const vi si0 = vi_xor(s, i0), si1 = vi_xor(s, i1);
    /* Corners 00, 10, 01, 11. */
    vi h[4] = {vi_xor(si0, j0), vi_xor(si1, j0), vi_xor(si0, j1), vi_xor(si1, j1)}, hi[4];
    const vf cx[4] = {x0, x1, x0, x1}, cy[4] = {y0, y0, y1, y1};
    vf g[4];
    v_terms_n(h, hi, cx, cy, NULL, NULL, g, 4);
    const vf u = v_fade(x0), v = v_fade(y0);
    const vf r = v_lerp(v_lerp(g[0], g[1], u), v_lerp(g[2], g[3], u), v);
    return v_clamp_unit(vf_mul(vf_set1(SCALE_PERLIN2), r));
}

/* perlin3() */
VINLINE vf v_perlin3(vi s, vf x, vf y, vf z, int clamp)
{
    if (clamp) {
        x = v_clamp_coord(x);
        y = v_clamp_coord(y);
        z = v_clamp_coord(z);
    }
    vf fi, fj, fk;
    const vi i = v_floor(x, &fi), j = v_floor(y, &fj), k = v_floor(z, &fk);
    const vf x0 = vf_sub(x, fi), y0 = vf_sub(y, fj), z0 = vf_sub(z, fk);
    const vf one = vf_set1(1.0f);
    const vf x1 = vf_sub(x0, one), y1 = vf_sub(y0, one), z1 = vf_sub(z0, one);
    const vi i0 = vi_mul(i, vi_set1(HASH_PX)), i1 = vi_add(i0, vi_set1(HASH_PX));
    const vi j0 = vi_mul(j, vi_set1(HASH_PY)), j1 = vi_add(j0, vi_set1(HASH_PY));
    const vi k0 = vi_mul(k, vi_set1(HASH_PZ)), k1 = vi_add(k0, vi_set1(HASH_PZ));
    const vi s00 = vi_xor3(s, i0, j0), s10 = vi_xor3(s, i1, j0);
    const vi s01 = vi_xor3(s, i0, j1), s11 = vi_xor3(s, i1, j1);
    /* Corners 000, 100, 010, 110, 001, 101, 011, 111. */
    vi h[8] = {vi_xor(s00, k0), vi_xor(s10, k0), vi_xor(s01, k0), vi_xor(s11, k0),
               vi_xor(s00, k1), vi_xor(s10, k1), vi_xor(s01, k1), vi_xor(s11, k1)};
    vi hi[8];
    const vf cx[8] = {x0, x1, x0, x1, x0, x1, x0, x1}, cy[8] = {y0, y0, y1, y1, y0, y0, y1, y1},
             cz[8] = {z0, z0, z0, z0, z1, z1, z1, z1};
    vf g[8];
    v_terms_n(h, hi, cx, cy, cz, NULL, g, 8);
    const vf u = v_fade(x0), v = v_fade(y0), w = v_fade(z0);
    const vf r0 = v_lerp(v_lerp(g[0], g[1], u), v_lerp(g[2], g[3], u), v);
    const vf r1 = v_lerp(v_lerp(g[4], g[5], u), v_lerp(g[6], g[7], u), v);
    return v_clamp_unit(vf_mul(vf_set1(SCALE_PERLIN3), v_lerp(r0, r1, w)));
}

/* simplex2() in two stages, as v_simplex3_cell() and _corners(). */
typedef struct {
    vf x0, y0; /* offsets from corner 0 */
    vi i0, j0; /* its lattice coordinates times HASH_PX, _PY */
} v_cell2;

VINLINE void v_simplex2_cell(vf x, vf y, int clamp, v_cell2 *c)
{
    if (clamp) {
        x = v_clamp_coord(x);
        y = v_clamp_coord(y);
    }
    const vf sk = vf_mul(vf_add(x, y), vf_set1(F2));
    vf fi, fj;
    const vi i = v_floor_s(vf_add(x, sk), &fi), j = v_floor_s(vf_add(y, sk), &fj);
    const vf t = vf_mul(vf_add(fi, fj), vf_set1(G2));
    c->x0 = vf_sub(x, vf_sub(fi, t));
    c->y0 = vf_sub(y, vf_sub(fj, t));
    c->i0 = vi_mul(i, vi_set1(HASH_PX));
    c->j0 = vi_mul(j, vi_set1(HASH_PY));
}

VINLINE vf v_simplex2_corners(vi s, const v_cell2 *c)
{
    const vf x0 = c->x0, y0 = c->y0;
    const vi i0 = c->i0, j0 = c->j0;
    /* Middle corner: (1, 0) below the diagonal, (0, 1) above it.  Its
     * offsets x0 - (float)lower + G2 pick x0 - 1 or x0 - 0 = x0 (x0 is
     * not NaN), then add, as in v_simplex3_corners(). */
    const vm lower = vf_gt(x0, y0);
    const vf one = vf_set1(1.0f), g2 = vf_set1(G2), g2x2m1 = vf_set1(G2X2M1);
    const vi xm = vf_bits(vf_sub(x0, one)), ym = vf_bits(vf_sub(y0, one));
    const vf cx[3] = {x0, vf_add(vi_asf(vi_sel(lower, xm, vf_bits(x0))), g2), vf_add(x0, g2x2m1)};
    const vf cy[3] = {y0, vf_add(vi_asf(vi_sel(lower, vf_bits(y0), ym)), g2), vf_add(y0, g2x2m1)};
    /* Hash inputs as in v_simplex3_corners(): the middle corner is corner
     * 0 with di = i0 ^ (i0 + PX) or dj xored in. */
    const vi i1 = vi_add(i0, vi_set1(HASH_PX)), j1 = vi_add(j0, vi_set1(HASH_PY));
    vi h[3], hi[3];
    h[0] = vi_xor3(s, i0, j0);
    h[1] = vi_xor(h[0], vi_sel(lower, vi_xor(i0, i1), vi_xor(j0, j1)));
    h[2] = vi_xor3(s, i1, j1);
    vf k[3], g[3];
    v_terms_n(h, hi, cx, cy, NULL, k, g, 3);
    return v_clamp_unit(vf_mul(vf_set1(SCALE_SIMPLEX2), v_dot_n(k, g, 3)));
}

/* simplex3() in two stages: the cell (skew, floor, unskew: one long
 * dependency chain) and the four corners.  The fBm loop runs the first
 * stage for every octave before the second: the out-of-order window then
 * sees the octaves' independent chains side by side instead of one
 * octave's chain at a time (fbm3 about 8% faster on Zen 3). */
typedef struct {
    vf x0, y0, z0; /* offsets from corner 0 */
    vi i0, j0, k0; /* its lattice coordinates times HASH_PX, _PY, _PZ */
} v_cell3;

VINLINE void v_simplex3_cell(vf x, vf y, vf z, int clamp, v_cell3 *c)
{
    if (clamp) {
        x = v_clamp_coord(x);
        y = v_clamp_coord(y);
        z = v_clamp_coord(z);
    }
    const vf sk = vf_mul(vf_add(vf_add(x, y), z), vf_set1(F3));
    vf fi, fj, fk;
    const vi i = v_floor_s(vf_add(x, sk), &fi), j = v_floor_s(vf_add(y, sk), &fj),
             k = v_floor_s(vf_add(z, sk), &fk);
    const vf t = vf_mul(vf_add(vf_add(fi, fj), fk), vf_set1(G3));
    c->x0 = vf_sub(x, vf_sub(fi, t));
    c->y0 = vf_sub(y, vf_sub(fj, t));
    c->z0 = vf_sub(z, vf_sub(fk, t));
    c->i0 = vi_mul(i, vi_set1(HASH_PX));
    c->j0 = vi_mul(j, vi_set1(HASH_PY));
    c->k0 = vi_mul(k, vi_set1(HASH_PZ));
}

VINLINE vf v_simplex3_corners(vi s, const v_cell3 *c)
{
    const vf x0 = c->x0, y0 = c->y0, z0 = c->z0;
    const vi i0 = c->i0, j0 = c->j0, k0 = c->k0;
    const vm xy = vf_ge(x0, y0), yz = vf_ge(y0, z0), xz = vf_ge(x0, z0);
    /* a1 = xy & xz, b1 = !xy & yz, c1 = !(xz | yz); a2 = xy | xz,
     * b2 = !xy | yz = !(xy & !yz), c2 = !(xz & yz): the negated ones are
     * kept as their complements nc1, nb2, nc2, which swap the selects. */
    const vm a1 = vm_and(xy, xz), b1 = vm_andnot(xy, yz), nc1 = vm_or(xz, yz);
    const vm a2 = vm_or(xy, xz), nb2 = vm_andnot(yz, xy), nc2 = vm_and(xz, yz);
    /* Hash inputs.  A corner's term for an axis is i0 or i1 = i0 + PX, that
     * is i0 ^ (0 or di) with di = i0 ^ i1, so each corner is corner 0 or 3
     * with one di, dj or dk xored in: corner 1 steps along exactly one axis
     * (a1, b1, c1: one is set) and corner 2 along all but exactly one
     * (!a2, nb2, nc2: one is set).  Same bits as the reference's sums. */
    const vi i1 = vi_add(i0, vi_set1(HASH_PX)), j1 = vi_add(j0, vi_set1(HASH_PY)),
             k1 = vi_add(k0, vi_set1(HASH_PZ));
    const vi di = vi_xor(i0, i1), dj = vi_xor(j0, j1), dk = vi_xor(k0, k1);
    vi h[4], hi[4];
    h[0] = vi_xor(vi_xor3(s, i0, j0), k0);
    h[3] = vi_xor(vi_xor3(s, i1, j1), k1);
    h[1] = vi_xor(h[0], vi_sel(a1, di, vi_sel(b1, dj, dk)));
    h[2] = vi_xor(h[3], vi_sel(nb2, dj, vi_sel(nc2, dk, di)));
    /* Offsets.  The reference's x0 - (float)a1 is x0 - 1 or x0 - 0, which
     * is x0 (no NaN gets here): pick one of x0, x0 - 1, then add. */
    const vf one = vf_set1(1.0f), g3 = vf_set1(G3), g3x2 = vf_set1(G3X2), half = vf_set1(0.5f);
    const vi xb = vf_bits(x0), yb = vf_bits(y0), zb = vf_bits(z0);
    const vi xm = vf_bits(vf_sub(x0, one)), ym = vf_bits(vf_sub(y0, one)),
             zm = vf_bits(vf_sub(z0, one));
    const vf cx[4] = {x0, vf_add(vi_asf(vi_sel(a1, xm, xb)), g3),
                      vf_add(vi_asf(vi_sel(a2, xm, xb)), g3x2), vf_sub(x0, half)};
    const vf cy[4] = {y0, vf_add(vi_asf(vi_sel(b1, ym, yb)), g3),
                      vf_add(vi_asf(vi_sel(nb2, yb, ym)), g3x2), vf_sub(y0, half)};
    const vf cz[4] = {z0, vf_add(vi_asf(vi_sel(nc1, zb, zm)), g3),
                      vf_add(vi_asf(vi_sel(nc2, zb, zm)), g3x2), vf_sub(z0, half)}; /* 3 G3 - 1 */
    vf k[4], g[4];
    v_terms_n(h, hi, cx, cy, cz, k, g, 4);
    return v_clamp_unit(vf_mul(vf_set1(SCALE_SIMPLEX3), v_dot_n(k, g, 4)));
}

/* The clamp-free path.  For |v| <= l with fl(l * fmax) <= COORD_LIMIT,
 * fmax the largest octave frequency, every fl(v * freq[o]) is inside the
 * limits (rounding is monotone), so the clamps would change nothing.
 * Returns the float bits of such an l, plus one; comparing the bits of
 * |v| as signed integers is then "inside" and also rejects inf and NaN. */
static uint32_t v_inside_limit(const strata_fbm_plan *p)
{
    float fmax = p->freq[0];
    for (int o = 1; o < p->octaves; o++)
        fmax = p->freq[o] > fmax ? p->freq[o] : fmax;
    float l = COORD_LIMIT / fmax; /* within an ulp; inf for a tiny fmax */
    uint32_t b;
    memcpy(&b, &l, sizeof b);
    while (b > 0) {
        memcpy(&l, &b, sizeof l);
        if (l * fmax <= COORD_LIMIT)
            break;
        b--; /* the next float toward 0 */
    }
    return b + 1;
}

/* All lanes of v inside the limit from v_inside_limit(). */
VINLINE vm v_inside(vf v, vi lim)
{
    return vi_gt(lim, vi_and(vf_bits(v), vi_set1(0x7FFFFFFFu)));
}

/* fbm2_eval(), fbm3_eval() on VL points, simplex in stages. */
VINLINE vf v_fbm2_octaves(const strata_fbm_plan *p, vf x, vf y, int clamp)
{
    vf sum = vf_set1(0.0f);
    if (p->kind == STRATA_NOISE_PERLIN) {
        for (int o = 0; o < p->octaves; o++) {
            const vf f = vf_set1(p->freq[o]);
            const vf n = v_perlin2(vi_set1(p->seed[o]), vf_mul(x, f), vf_mul(y, f), clamp);
            sum = vf_add(sum, vf_mul(vf_set1(p->amp[o]), n));
        }
    } else {
        v_cell2 cell[FBM_MAX_OCTAVES];
        for (int o = 0; o < p->octaves; o++) {
            const vf f = vf_set1(p->freq[o]);
            v_simplex2_cell(vf_mul(x, f), vf_mul(y, f), clamp, &cell[o]);
        }
        for (int o = 0; o < p->octaves; o++) {
            const vf n = v_simplex2_corners(vi_set1(p->seed[o]), &cell[o]);
            sum = vf_add(sum, vf_mul(vf_set1(p->amp[o]), n));
        }
    }
    return sum;
}

VINLINE vf v_fbm3_octaves(const strata_fbm_plan *p, vf x, vf y, vf z, int clamp)
{
    vf sum = vf_set1(0.0f);
    if (p->kind == STRATA_NOISE_PERLIN) {
        for (int o = 0; o < p->octaves; o++) {
            const vf f = vf_set1(p->freq[o]);
            const vf n = v_perlin3(vi_set1(p->seed[o]), vf_mul(x, f), vf_mul(y, f),
                                   vf_mul(z, f), clamp);
            sum = vf_add(sum, vf_mul(vf_set1(p->amp[o]), n));
        }
    } else {
        v_cell3 cell[FBM_MAX_OCTAVES];
        for (int o = 0; o < p->octaves; o++) {
            const vf f = vf_set1(p->freq[o]);
            v_simplex3_cell(vf_mul(x, f), vf_mul(y, f), vf_mul(z, f), clamp, &cell[o]);
        }
        for (int o = 0; o < p->octaves; o++) {
            const vf n = v_simplex3_corners(vi_set1(p->seed[o]), &cell[o]);
            sum = vf_add(sum, vf_mul(vf_set1(p->amp[o]), n));
        }
    }
    return sum;
}

VINLINE vf v_fbm2(const strata_fbm_plan *p, vf x, vf y, vi lim)
{
    if (vm_all(vm_and(v_inside(x, lim), v_inside(y, lim))))
        return v_fbm2_octaves(p, x, y, 0);
    return v_fbm2_octaves(p, x, y, 1);
}

VINLINE vf v_fbm3(const strata_fbm_plan *p, vf x, vf y, vf z, vi lim)
{
    if (vm_all(vm_and(vm_and(v_inside(x, lim), v_inside(y, lim)), v_inside(z, lim))))
        return v_fbm3_octaves(p, x, y, z, 0);
    return v_fbm3_octaves(p, x, y, z, 1);
}

/* Batch kernels.  The last n % VL points go through a zero-padded vector:
 * lanes are independent, so the padding cannot change the real lanes. */
void NS_FN(strata__fbm2_)(const strata_fbm_plan *p, const float *x, const float *y,
                          const float *z, size_t n, float *out)
{
    (void)z;
    const vi lim = vi_set1(v_inside_limit(p));
    size_t i = 0;
    for (; i + VL <= n; i += VL)
        vf_store(out + i, v_fbm2(p, vf_load(x + i), vf_load(y + i), lim));
    if (i < n) {
        float bx[VL] = {0}, by[VL] = {0}, bo[VL];
        memcpy(bx, x + i, (n - i) * sizeof(float));
        memcpy(by, y + i, (n - i) * sizeof(float));
        vf_store(bo, v_fbm2(p, vf_load(bx), vf_load(by), lim));
        memcpy(out + i, bo, (n - i) * sizeof(float));
    }
}

void NS_FN(strata__fbm3_)(const strata_fbm_plan *p, const float *x, const float *y,
                          const float *z, size_t n, float *out)
{
    const vi lim = vi_set1(v_inside_limit(p));
    size_t i = 0;
    for (; i + VL <= n; i += VL)
        vf_store(out + i, v_fbm3(p, vf_load(x + i), vf_load(y + i), vf_load(z + i), lim));
    if (i < n) {
        float bx[VL] = {0}, by[VL] = {0}, bz[VL] = {0}, bo[VL];
        memcpy(bx, x + i, (n - i) * sizeof(float));
        memcpy(by, y + i, (n - i) * sizeof(float));
        memcpy(bz, z + i, (n - i) * sizeof(float));
        vf_store(bo, v_fbm3(p, vf_load(bx), vf_load(by), vf_load(bz), lim));
        memcpy(out + i, bo, (n - i) * sizeof(float));
    }
}
