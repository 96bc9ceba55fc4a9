/*
 * grading/harness/minstd.h - the graders' random values: MINSTD (Park-Miller, x' = 48271 x mod
 * 2^31 - 1), the sequence harness_fill (exercise_harness.h) and the judge's expected_sum.c both
 * walk, the same numbers in the same order, fast: no division (2^31 - 1 is a Mersenne prime:
 * x mod p = (x & p) + (x >> 31), once more less p), and eight lanes that each jump eight steps
 * at a time (48271^8 mod p), so the compiler can do eight at once. About ten times the speed of
 * s = s * 48271 % p per value; every value is the same.
 */
#ifndef GRADING_MINSTD_H
#define GRADING_MINSTD_H

#include <stddef.h>
#include <stdint.h>

#define MINSTD_P 2147483647u

/* a * s mod p for a, s < p (the product fits 62 bits; the sum of its halves is < 2p, and is
 * never 2p: p is prime and neither factor is 0 mod p) */
static inline uint64_t minstd_mul(uint64_t a, uint64_t s)
{
    uint64_t x = a * s;
    x = (x & MINSTD_P) + (x >> 31);
    return x >= MINSTD_P ? x - MINSTD_P : x;
}

struct minstd {
    uint64_t lane[8]; /* the next eight values, in order */
    uint64_t jump;    /* 48271^8 mod p */
};

/* the sequence after state s (1 <= s < p): its first value is 48271 s mod p */
static inline void minstd_start(struct minstd *m, uint64_t s)
{
    m->jump = 1;
    for (int j = 0; j < 8; j++) {
        s = minstd_mul(48271u, s);
        m->lane[j] = s;
        m->jump = minstd_mul(48271u, m->jump);
    }
}

/* the next n values into out; only the last call of a sequence may ask for a count that is not
 * a multiple of 8 */
static inline void minstd_next(struct minstd *m, uint32_t *out, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int j = 0; j < 8; j++) {
            out[i + j] = (uint32_t)m->lane[j];
            m->lane[j] = minstd_mul(m->jump, m->lane[j]);
        }
    for (int j = 0; j < 8 && i < n; i++, j++)
        out[i] = (uint32_t)m->lane[j];
}

/* The value harness_fill and the judge's expected_sum take of each: x % 1000. */
static inline uint32_t minstd_mod1000(uint64_t x)
{
    return (uint32_t)(x % 1000u);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__CUDACC__)
#include <immintrin.h>
/* The same walk with AVX2, eight values a step in two vectors of four 64-bit lanes, written out
 * (at the build's -O2 GCC leaves the walk above scalar: with its x % 1000 and the store, 3.2 ns
 * a value on the CPU machine here, 1.7 s for the 2^29 values of lesson 02's largest task).
 * Every step is the plain one's: a 32 x 32 -> 64-bit multiply, the same reduction mod p, and
 * x % 1000 as x - 1000 * (x * 274877907 >> 38), exact for every x below 2^32. Chosen at run time
 * where the CPU has AVX2 (minstd_floats, minstd_sum). */
__attribute__((target("avx2"))) static inline __m256i minstd_mul_avx2(__m256i jump, __m256i s)
{
    const __m256i p = _mm256_set1_epi64x(MINSTD_P), below = _mm256_set1_epi64x(MINSTD_P - 1);
    __m256i x = _mm256_mul_epu32(jump, s);
    x = _mm256_add_epi64(_mm256_and_si256(x, p), _mm256_srli_epi64(x, 31));
    return _mm256_sub_epi64(x, _mm256_and_si256(_mm256_cmpgt_epi64(x, below), p));
}
__attribute__((target("avx2"))) static inline __m256i minstd_mod1000_avx2(__m256i x)
{
    __m256i q = _mm256_srli_epi64(_mm256_mul_epu32(x, _mm256_set1_epi64x(274877907)), 38);
    return _mm256_sub_epi64(x, _mm256_mul_epu32(q, _mm256_set1_epi64x(1000)));
}
/* n values % 1000 as floats into out (to_float) or summed into *sum; the walk's last call */
__attribute__((target("avx2"))) static inline void minstd_avx2(struct minstd *m, float *out,
                                                               uint64_t *sum, size_t n)
{
    const __m256i jump = _mm256_set1_epi64x((long long)m->jump);
    const __m256i even = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    __m256i a = _mm256_loadu_si256((const __m256i *)&m->lane[0]);
    __m256i b = _mm256_loadu_si256((const __m256i *)&m->lane[4]);
    __m256i total = _mm256_setzero_si256();
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i ra = minstd_mod1000_avx2(a), rb = minstd_mod1000_avx2(b);
        if (out) { /* the low halves of the eight lanes, in order */
            __m128i lo = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(ra, even));
            __m128i hi = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(rb, even));
            __m256i r = _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
            _mm256_storeu_ps(out + i, _mm256_cvtepi32_ps(r));
        } else {
            total = _mm256_add_epi64(total, _mm256_add_epi64(ra, rb));
        }
        a = minstd_mul_avx2(jump, a);
        b = minstd_mul_avx2(jump, b);
    }
    _mm256_storeu_si256((__m256i *)&m->lane[0], a);
    _mm256_storeu_si256((__m256i *)&m->lane[4], b);
    uint64_t t[4];
    _mm256_storeu_si256((__m256i *)t, total);
    uint64_t s = t[0] + t[1] + t[2] + t[3];
    for (int j = 0; i < n; i++, j++) { /* the last n % 8, as minstd_next's end */
        if (out)
            out[i] = (float)minstd_mod1000(m->lane[j]);
        else
            s += minstd_mod1000(m->lane[j]);
    }
    if (sum)
        *sum = s;
}
#define MINSTD_AVX2 1
#endif

/* The n values after minstd_start, each x % 1000, as floats into out (out not NULL) or summed
 * into *sum: with AVX2 where the CPU has it, else the plain walk; the walk's last call. */
static inline void minstd_values(struct minstd *m, float *out, uint64_t *sum, size_t n)
{
#ifdef MINSTD_AVX2
    if (__builtin_cpu_supports("avx2")) {
        minstd_avx2(m, out, sum, n);
        return;
    }
#endif
    uint32_t x[1024];
    uint64_t s = 0;
    for (size_t i = 0; i < n; i += 1024) {
        size_t count = n - i < 1024 ? n - i : 1024;
        minstd_next(m, x, count);
        for (size_t j = 0; j < count; j++) {
            if (out)
                out[i + j] = (float)minstd_mod1000(x[j]);
            else
                s += minstd_mod1000(x[j]);
        }
    }
    if (sum)
        *sum = s;
}

/* The n values as floats into v (harness_fill). */
static inline void minstd_floats(struct minstd *m, float *v, size_t n)
{
    minstd_values(m, v, NULL, n);
}

/* The sum of the n values (exact: below 1000 n). */
static inline uint64_t minstd_sum(struct minstd *m, size_t n)
{
    uint64_t s = 0;
    minstd_values(m, NULL, &s, n);
    return s;
}

#endif
