/* The fBm batch kernels written once over a small vector vocabulary; each
 * ISA file (simd/x86/noise_avx2.c, noise_avx512.c, simd/arm/noise_neon.c)
 * defines the vocabulary and includes this file once.  Every function
 * mirrors its namesake in core/noise.c: the same float operations on the
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
 *   vf_mask(m, a), vi_mask(m, a)       m ? a : 0
 *   vf_maskn(m, a), vi_maskn(m, a)     m ? 0 : a
 *   vf_bits(v), vi_asf(i)     reinterpret
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

/* clamp_coord().  The noise functions below take a constant clamp: 0
 * leaves the clamps out for points known to be inside the limits (see
 * v_inside_limit()), where they change nothing. */
VINLINE vf v_clamp_coord(vf v)
{
    v = vf_max_lo(v, vf_set1(-COORD_LIMIT));
    return vf_min_hi(v, vf_set1(COORD_LIMIT));
}

/* floor_int() and (float)floor_int(): for |v| <= 2^25 the floor of a
 * float is a float, so rounding down gives (float)i exactly, except that
 * floor(-0) is -0 where (float)0 is +0; adding +0 fixes that.  Saves the
 * scalar code's convert back and compare. */
VINLINE vi v_floor(vf v, vf *fi)
{
    *fi = vf_add(vf_floor(v), vf_set1(0.0f));
    return vf_cvtt(*fi);
}

/* floor_int() and (float)floor_int() for the simplex functions: v_floor()
 * without the +0, which changes no bit there.  vf_floor(v) is -0 only for
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
    *fi = vf_floor(v);
    return vf_cvtt(*fi);
}

/* clamp_unit() */
VINLINE vf v_clamp_unit(vf v)
{
    v = vf_max_lo(v, vf_set1(-1.0f));
    return vf_min_hi(v, vf_set1(1.0f));
}

/* mix(); v_mix_hi() also gives h >> 16 of the result, which is the last
 * step's shift (the xor leaves the top half alone). */
VINLINE vi v_mix_hi(vi h, vi *hi)
{
    h = vi_mul(h, vi_set1(HASH_M1));
    h = vi_xor(h, VI_SRL(h, 15));
    h = vi_mul(h, vi_set1(HASH_M2));
    *hi = VI_SRL(h, 16);
    return vi_xor(h, *hi);
}

VINLINE vi v_mix(vi h)
{
    vi hi;
    return v_mix_hi(h, &hi);
}

/* grad2() */
VINLINE vf v_grad2(vi h, vf x, vf y)
{
    const vi u = vi_xor(vf_bits(x), VI_SLL(h, 31));
    const vi v = vi_xor(vf_bits(y), VI_SLL(vi_and(h, vi_set1(2u)), 30));
    const vf diag = vf_mul(vf_set1(DIAG), vf_add(vi_asf(u), vi_asf(v)));
    const vi axis = vi_sel_msb(VI_SLL(h, 1), u, v); /* bit 30 */
    return vi_asf(vi_sel_msb(h, vf_bits(diag), axis));
}

/* grad3(mix(in), x, y, z) */
VINLINE vf v_grad3(vi in, vf x, vf y, vf z)
{
    /* a = (h16 * 3) >> 16 with h16 = h >> 16 < 2^16, so a == 0 exactly
     * when h16 <= 21845 and a == 2 exactly when h16 >= 43691 (65536 / 3
     * and 131072 / 3 rounded up): two compares instead of the multiply. */
    vi h16;
    const vi h = v_mix_hi(in, &h16);
    const vm a0 = vi_gt(vi_set1(21846u), h16), a2 = vi_gt(h16, vi_set1(43690u));
    const vi u = vi_xor(vi_sel(a0, vf_bits(y), vf_bits(x)), VI_SLL(h, 31));
    const vi v = vi_xor(vi_sel(a2, vf_bits(y), vf_bits(z)), VI_SLL(vi_and(h, vi_set1(2u)), 30));
    return vf_add(vi_asf(u), vi_asf(v));
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

/* kernel2(), kernel3(): max(0.5 - r^2, 0)^4 */
VINLINE vf v_kernel_tail(vf t)
{
    t = vf_max_lo(t, vf_set1(0.0f)); /* +0 for t <= 0, as the and-mask */
    t = vf_mul(t, t);
    return vf_mul(t, t);
}

VINLINE vf v_kernel2(vf x, vf y)
{
    return v_kernel_tail(vf_sub(vf_sub(vf_set1(0.5f), vf_mul(x, x)), vf_mul(y, y)));
}

VINLINE vf v_kernel3(vf x, vf y, vf z)
{
    return v_kernel_tail(
        vf_sub(vf_sub(vf_sub(vf_set1(0.5f), vf_mul(x, x)), vf_mul(y, y)), vf_mul(z, z)));
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
    const vf n00 = v_grad2(v_mix(vi_xor(si0, j0)), x0, y0);
    const vf n10 = v_grad2(v_mix(vi_xor(si1, j0)), x1, y0);
    const vf n01 = v_grad2(v_mix(vi_xor(si0, j1)), x0, y1);
    const vf n11 = v_grad2(v_mix(vi_xor(si1, j1)), x1, y1);
    const vf u = v_fade(x0), v = v_fade(y0);
    const vf r = v_lerp(v_lerp(n00, n10, u), v_lerp(n01, n11, u), v);
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
    const vi s00 = vi_xor(vi_xor(s, i0), j0), s10 = vi_xor(vi_xor(s, i1), j0);
    const vi s01 = vi_xor(vi_xor(s, i0), j1), s11 = vi_xor(vi_xor(s, i1), j1);
    const vf n000 = v_grad3(vi_xor(s00, k0), x0, y0, z0);
    const vf n100 = v_grad3(vi_xor(s10, k0), x1, y0, z0);
    const vf n010 = v_grad3(vi_xor(s01, k0), x0, y1, z0);
    const vf n110 = v_grad3(vi_xor(s11, k0), x1, y1, z0);
    const vf n001 = v_grad3(vi_xor(s00, k1), x0, y0, z1);
    const vf n101 = v_grad3(vi_xor(s10, k1), x1, y0, z1);
    const vf n011 = v_grad3(vi_xor(s01, k1), x0, y1, z1);
    const vf n111 = v_grad3(vi_xor(s11, k1), x1, y1, z1);
    const vf u = v_fade(x0), v = v_fade(y0), w = v_fade(z0);
    const vf r0 = v_lerp(v_lerp(n000, n100, u), v_lerp(n010, n110, u), v);
    const vf r1 = v_lerp(v_lerp(n001, n101, u), v_lerp(n011, n111, u), v);
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
    /* Middle corner: (1, 0) below the diagonal, (0, 1) above it. */
    const vm lower = vf_gt(x0, y0);
    const vf one = vf_set1(1.0f), g2 = vf_set1(G2);
    const vf x1 = vf_add(vf_sub(x0, vf_mask(lower, one)), g2);
    const vf y1 = vf_add(vf_sub(y0, vf_maskn(lower, one)), g2);
    const vf x2 = vf_add(x0, vf_set1(G2X2M1)), y2 = vf_add(y0, vf_set1(G2X2M1));
    /* Hash inputs as in v_simplex3_corners(): the middle corner is corner
     * 0 with di = i0 ^ (i0 + PX) or dj xored in. */
    const vi i1 = vi_add(i0, vi_set1(HASH_PX)), j1 = vi_add(j0, vi_set1(HASH_PY));
    const vi s0 = vi_xor(vi_xor(s, i0), j0);
    const vi s1 = vi_xor(s0, vi_sel(lower, vi_xor(i0, i1), vi_xor(j0, j1)));
    const vi s2 = vi_xor(vi_xor(s, i1), j1);
    const vf n0 = vf_mul(v_kernel2(x0, y0), v_grad2(v_mix(s0), x0, y0));
    const vf n1 = vf_mul(v_kernel2(x1, y1), v_grad2(v_mix(s1), x1, y1));
    const vf n2 = vf_mul(v_kernel2(x2, y2), v_grad2(v_mix(s2), x2, y2));
    return v_clamp_unit(vf_mul(vf_set1(SCALE_SIMPLEX2), vf_add(vf_add(n0, n1), n2)));
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
     * kept as their complements nc1, nb2, nc2 and applied with maskn. */
    const vm a1 = vm_and(xy, xz), b1 = vm_andnot(xy, yz), nc1 = vm_or(xz, yz);
    const vm a2 = vm_or(xy, xz), nb2 = vm_andnot(yz, xy), nc2 = vm_and(xz, yz);
    /* Hash inputs.  A corner's term for an axis is i0 or i1 = i0 + PX, that
     * is i0 ^ (0 or di) with di = i0 ^ i1, so each corner is corner 0 or 3
     * with one di, dj or dk xored in: corner 1 steps along exactly one axis
     * (a1, b1, c1: one is set) and corner 2 along all but exactly one
     * (!a2, nb2, nc2: one is set).  Same bits as the reference's sums. */
    const vi i1 = vi_add(i0, vi_set1(HASH_PX)), j1 = vi_add(j0, vi_set1(HASH_PY)),
             k1 = vi_add(k0, vi_set1(HASH_PZ));
    const vi s0 = vi_xor(vi_xor(vi_xor(s, i0), j0), k0);
    const vi s3 = vi_xor(vi_xor(vi_xor(s, i1), j1), k1);
    const vi di = vi_xor(i0, i1), dj = vi_xor(j0, j1), dk = vi_xor(k0, k1);
    /* One corner at a time, few values live. */
    const vf one = vf_set1(1.0f);
    vf n = vf_mul(v_kernel3(x0, y0, z0), v_grad3(s0, x0, y0, z0));
    {
        const vi s1 = vi_xor(s0, vi_sel(a1, di, vi_sel(b1, dj, dk)));
        const vf g3 = vf_set1(G3);
        const vf x1 = vf_add(vf_sub(x0, vf_mask(a1, one)), g3);
        const vf y1 = vf_add(vf_sub(y0, vf_mask(b1, one)), g3);
        const vf z1 = vf_add(vf_sub(z0, vf_maskn(nc1, one)), g3);
        n = vf_add(n, vf_mul(v_kernel3(x1, y1, z1), v_grad3(s1, x1, y1, z1)));
    }
    {
        const vi s2 = vi_xor(s3, vi_sel(nb2, dj, vi_sel(nc2, dk, di)));
        const vf g3x2 = vf_set1(G3X2);
        const vf x2 = vf_add(vf_sub(x0, vf_mask(a2, one)), g3x2);
        const vf y2 = vf_add(vf_sub(y0, vf_maskn(nb2, one)), g3x2);
        const vf z2 = vf_add(vf_sub(z0, vf_maskn(nc2, one)), g3x2);
        n = vf_add(n, vf_mul(v_kernel3(x2, y2, z2), v_grad3(s2, x2, y2, z2)));
    }
    {
        const vf h = vf_set1(0.5f);
        const vf x3 = vf_sub(x0, h), y3 = vf_sub(y0, h), z3 = vf_sub(z0, h);
        n = vf_add(n, vf_mul(v_kernel3(x3, y3, z3), v_grad3(s3, x3, y3, z3)));
    }
    return v_clamp_unit(vf_mul(vf_set1(SCALE_SIMPLEX3), n));
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
