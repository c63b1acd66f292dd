/* Shortest float32 decimals for the loop writers (core/io/loops_write.c), in a
 * header so that tests/check_shortest.c can compile them in.
 *
 * strata__put_float(p, f) writes the decimal of f with the fewest
 * significant digits n (1..9) whose correct rounding to n digits (what
 * printf's %.{n-1}e gives) reads back, correctly rounded to float, as f:
 * plain notation for decimal exponents -4..9, else d.ddde[-]x.
 *
 * How: f = m 2^e.  For a last digit at 10^p the candidate is D =
 * round-half-even(f / 10^p); it reads back as f when D 10^p lies inside
 * f's rounding interval, whose ends (f -+ half a gap) are exact doubles.
 * Both f 10^-p and D 10^p are one correctly rounded double operation on
 * exact operands (10^|p| <= 10^22 is exact), so f 10^-p is within
 * 2^-53 of the truth, and D 10^p, as D times 10^p rounded, within 2^-52: when the computed value is farther than that from the
 * rounding tie or the interval's ends, the decision is exact; otherwise
 * (rare: a tie in the last place) the whole number goes the slow way,
 * through snprintf and strtof, which is the definition itself.  Within a
 * gap that is the same on both sides of f, more digits are never worse
 * (the n + 1 digit rounding is at least as close as the n digit one), so
 * the search steps from 7 digits (the usual count) up or down; at the bottom of a binade the
 * lower gap is half the upper and the positions are tried in order.
 * Integers below 2^24 are their own digits.  Floats of 2^-13 .. 2^23 that
 * are not integers (map coordinates, mostly) go in integers, exactly: see
 * strata__put_float. */
#ifndef STRATA_SHORTEST_H
#define STRATA_SHORTEST_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double strata__p10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* 10^k, k <= 19, as integers */
static const uint64_t strata__p10u[20] = {1u,
                                          10u,
                                          100u,
                                          1000u,
                                          10000u,
                                          100000u,
                                          1000000u,
                                          10000000u,
                                          100000000u,
                                          1000000000u,
                                          10000000000u,
                                          100000000000u,
                                          1000000000000u,
                                          10000000000000u,
                                          100000000000000u,
                                          1000000000000000u,
                                          10000000000000000u,
                                          100000000000000000u,
                                          1000000000000000000u,
                                          10000000000000000000u};

/* 10^-k rounded to double: within 2^-53 of the truth */
static const double strata__p10inv[23] = {1e0,   1e-1,  1e-2,  1e-3,  1e-4,  1e-5,  1e-6,  1e-7,
                                          1e-8,  1e-9,  1e-10, 1e-11, 1e-12, 1e-13, 1e-14, 1e-15,
                                          1e-16, 1e-17, 1e-18, 1e-19, 1e-20, 1e-21, 1e-22};

static const char strata__dig2[201] = "00010203040506070809"
                                      "10111213141516171819"
                                      "20212223242526272829"
                                      "30313233343536373839"
                                      "40414243444546474849"
                                      "50515253545556575859"
                                      "60616263646566676869"
                                      "70717273747576777879"
                                      "80818283848586878889"
                                      "90919293949596979899";

/* The digits of d (below 10^19) into the end of buf[20]: returns the
 * first. */
static inline char *strata__utoa_end(char *end, uint64_t d)
{
    char *q = end;
    while (d >= 100) {
        const unsigned r = (unsigned)(d % 100);
        d /= 100;
        q -= 2;
        memcpy(q, strata__dig2 + 2 * r, 2);
    }
    if (d >= 10) {
        q -= 2;
        memcpy(q, strata__dig2 + 2 * d, 2);
    } else {
        *--q = (char)('0' + d);
    }
    return q;
}

/* Significant digits dig[0..nd) (no trailing zero), the first at 10^e,
 * in the layout above. */
static inline char *strata__put_digits(char *p, const char *dig, int nd, int e)
{
    if (e < -4 || e > 9) {
        *p++ = dig[0];
        if (nd > 1) {
            *p++ = '.';
            memcpy(p, dig + 1, (size_t)nd - 1);
            p += nd - 1;
        }
        *p++ = 'e';
        if (e < 0) {
            *p++ = '-';
            e = -e;
        }
        char b[20];
        const char *s = strata__utoa_end(b + 20, (uint64_t)e);
        memcpy(p, s, (size_t)(b + 20 - s));
        return p + (b + 20 - s);
    }
    if (e < 0) {
        *p++ = '0';
        *p++ = '.';
        for (int i = 0; i < -e - 1; i++)
            *p++ = '0';
        memcpy(p, dig, (size_t)nd);
        return p + nd;
    }
    for (int i = 0; i <= e; i++)
        *p++ = i < nd ? dig[i] : '0';
    if (nd > e + 1) {
        *p++ = '.';
        memcpy(p, dig + e + 1, (size_t)(nd - e - 1));
        p += nd - e - 1;
    }
    return p;
}

/* D 10^p (D > 0) in the layout above. */
static inline char *strata__put_decimal(char *p, uint64_t D, int pp)
{
    while (D % 10 == 0) {
        D /= 10;
        pp++;
    }
    char buf[20];
    const char *s = strata__utoa_end(buf + 20, D);
    const int nd = (int)(buf + 20 - s);
    return strata__put_digits(p, s, nd, pp + nd - 1);
}

/* f > 0 finite, by the definition: %.{n-1}e for n = 1, 2, ... until it
 * reads back. */
static inline char *strata__put_float_slow(char *p, float f)
{
    char buf[40];
    for (int n = 1; n <= 9; n++) {
        snprintf(buf, sizeof buf, "%.*e", n - 1, (double)f);
        if (strtof(buf, NULL) == f)
            break;
    }
    char dig[12];
    int nd = 0;
    const char *s = buf;
    for (; *s && *s != 'e'; s++)
        if (*s >= '0' && *s <= '9')
            dig[nd++] = *s;
    const int e = *s == 'e' ? atoi(s + 1) : 0;
    while (nd > 1 && dig[nd - 1] == '0')
        nd--;
    return strata__put_digits(p, dig, nd, e);
}

/* Last digit at 10^p: 1 and *D when round(d / 10^p) 10^p reads back,
 * that is lies inside (lo, hi) (or on an end, for an even significand),
 * 0 when it does not, -1 when doubles cannot tell.  For -11 <= p <= 0
 * everything is exact: d (24 bits), lo and hi (26) times 10^-p = 5^-p
 * 2^-p (5^11 < 2^26) fit a double's 53 bits. */
static inline int strata__try_digits(double d, int p, double lo, double hi, int even, uint64_t *D)
{
    if (p <= 0 && p >= -11) {
        const double sc = strata__p10[-p];
        const double y = d * sc, L = lo * sc, H = hi * sc;
        uint64_t q = (uint64_t)(int64_t)y;
        const double fr = y - (double)q;
        q += fr > 0.5 || (fr == 0.5 && (q & 1));
        const double t = (double)q;
        if ((t > L && t < H) || (even && (t == L || t == H))) {
            *D = q;
            return 1;
        }
        return 0;
    }
    const double y = p <= 0 ? d * strata__p10[-p] : d / strata__p10[p];
    uint64_t q = (uint64_t)(int64_t)y;
    const double fr = y - (double)q; /* exact: y < 2^53 */
    if (fabs(fr - 0.5) < 1e-5)
        return -1; /* y is within y 2^-53 < 1e-5 of the truth */
    q += fr > 0.5;
    /* two roundings of 2^-53 each at most */
    const double t = p <= 0 ? (double)q * strata__p10inv[-p] : (double)q * strata__p10[p];
    const double tol = t * 0x1p-50;
    if (t > lo + tol && t < hi - tol) {
        *D = q;
        return 1;
    }
    if (t < lo - tol || t > hi + tol)
        return 0;
    return -1;
}

/* The shortest decimal of f (see the top); zero and non-finite values
 * (which the writers never hold) as 0.  At most 16 bytes. */
static inline char *strata__put_float(char *p, float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    if ((b & 0x7fffffffu) == 0 || (b & 0x7f800000u) == 0x7f800000u) {
        *p++ = '0';
        return p;
    }
    if (b >> 31) {
        *p++ = '-';
        b &= 0x7fffffffu;
        f = -f;
    }
    const uint32_t E = b >> 23;
    if (E == 0)
        return strata__put_float_slow(p, f); /* subnormal */
    const uint32_t m = (b & 0x7fffffu) | 0x800000u;
    const int e = (int)E - 150; /* f = m 2^e */
    char buf[20];
    if (e < 0 && e > -24 && !(m & ((1u << -e) - 1))) { /* an integer below 2^24 */
        const char *s = strata__utoa_end(buf + 20, m >> -e);
        memcpy(p, s, (size_t)(buf + 20 - s));
        return p + (buf + 20 - s);
    }
    if (e >= -36 && e <= -1 && m != 0x800000u) {
        /* f = m / 2^k, k = -e in 1..36, the gap 2^e the same on both
         * sides.  A last digit at 10^p with 10^p < 2^e always reads back
         * (it is within half a gap); from the largest such p (pk) up,
         * while the next one reads back too.  In integers: N = m 10^s
         * (s = -p <= 11, N < 2^61), D = N / 2^k rounded half to even,
         * and D 10^p reads back iff 2 |D 2^k - N| < 10^s (or equal, m
         * even). */
        const int k = -e;
        const double lp = (double)e * 0.30102999566398120;
        int pk = (int)lp;
        pk -= lp < (double)pk; /* floor: e log10(2) is never whole */
        const uint64_t half = (uint64_t)1 << (k - 1), mask = ((uint64_t)1 << k) - 1;
        int pp = pk;
        uint64_t N = (uint64_t)m * strata__p10u[-pk];
        uint64_t D = N >> k;
        {
            const uint64_t r = N & mask;
            D += r > half || (r == half && (D & 1));
        }
        while (pp < 0) { /* the next digit up */
            const uint64_t N1 = (uint64_t)m * strata__p10u[-pp - 1];
            const uint64_t r = N1 & mask;
            uint64_t D1 = N1 >> k;
            D1 += r > half || (r == half && (D1 & 1));
            const uint64_t t = D1 << k;
            const uint64_t dist = t > N1 ? t - N1 : N1 - t;
            const uint64_t lim = strata__p10u[-pp - 1];
            if (!(2 * dist < lim || (2 * dist == lim && !(m & 1))))
                break;
            D = D1;
            pp++;
        }
        /* (pp stays below 0: f is no integer, and the gap is at most
         * 1/2, so no integer reads back as f) */
        return strata__put_decimal(p, D, pp);
    }
    const double d = f;
    /* 10^e10 <= d < 10^(e10+1): the search looks at 1..9 digits */
    const double l2 = (double)((int)E - 127) * 0.30102999566398120;
    int e10 = (int)l2;
    e10 -= l2 < (double)e10; /* floor */
    if (e10 < -14 || e10 > 21)
        return strata__put_float_slow(p, f);
    if (e10 + 1 >= 0 ? d >= strata__p10[e10 + 1] : d * strata__p10[-(e10 + 1)] >= 1.0)
        e10++;
    if (e10 < -14 || e10 > 21)
        return strata__put_float_slow(p, f);
    uint64_t hb = (uint64_t)(e - 1 + 1023) << 52; /* 2^(e-1), a normal double */
    double half;
    memcpy(&half, &hb, sizeof half);
    const double hi = d + half, lo = m == 0x800000u && E > 1 ? d - 0.5 * half : d - half;
    const int even = !(m & 1);
    uint64_t D = 0;
    int best, r; /* the largest p (fewest digits) that reads back */
    if (m == 0x800000u) { /* uneven gaps: in order */
        for (best = e10; best >= e10 - 8; best--)
            if ((r = strata__try_digits(d, best, lo, hi, even, &D)) != 0)
                break;
    } else { /* from 7 digits, the usual count, up or down */
        best = e10 - 6;
        if ((r = strata__try_digits(d, best, lo, hi, even, &D)) == 1) {
            int up = 1;
            while (best < e10 && (up = strata__try_digits(d, best + 1, lo, hi, even, &D)) == 1)
                best++;
            r = best < e10 && up < 0 ? -1 : 1;
        } else if (r == 0) {
            while (best > e10 - 8 && (r = strata__try_digits(d, best - 1, lo, hi, even, &D)) == 0)
                best--;
            best--; /* r == 1: that one read back */
        }
    }
    if (r != 1) /* too close to call, or (cannot be) nine digits not enough */
        return strata__put_float_slow(p, f);
    return strata__put_decimal(p, D, best);
}

#endif
