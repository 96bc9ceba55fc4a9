/*
 * grading/harness/pick.h - inputs by position and the judge's picks, shared by the harnesses
 * (exercise_harness.h), the judge's relay (grading/judge/channel.c) and its expected values
 * (grading/judge/expected_picks.c), so that each computes the same numbers alone.
 *
 * An input value is a hash of (seed, position): harness_input_at(seed, i) needs nothing before
 * it, so the judge can compute any position of any input alone, and an input made from a seed
 * the judge drew for one call has nothing in common with another call's.
 * A pick: after a call, the judge draws a seed, and the PICK_COUNT positions it checks come
 * from that seed over the whole output of n values (pick_positions: the last one always n - 1),
 * so that no position is known before the call's output exists.
 */
#ifndef GRADING_PICK_H
#define GRADING_PICK_H

#include <stddef.h>
#include <stdint.h>

#define PICK_COUNT 64

/* A bijective 32-bit mix (Chris Wellons' "lowbias32"). */
static inline uint32_t pick_mix(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

/* The key of a seed: every position's value depends on it. */
static inline uint32_t pick_key(uint32_t seed)
{
    return pick_mix(seed * 0x9e3779b1u + 0x7f4a7c15u);
}

/* Input value i (i < 2^32) of the input made from seed: 32 bits. */
static inline uint32_t harness_input_at(uint32_t seed, uint64_t i)
{
    return pick_mix((uint32_t)i ^ pick_key(seed));
}

/* Input value i of the input whose seed's key is `key`, as a float in [-1, 1), exact (a
 * multiple of 2^-15): integers, then an exact conversion, the same value whatever the
 * instructions. */
static inline __attribute__((always_inline)) float pick_value(uint32_t key, uint64_t i)
{
    return (float)(int32_t)(pick_mix((uint32_t)i ^ key) & 0xffffu) / 32768.0f - 1.0f;
}

/* The same from the seed. */
static inline float harness_input_value(uint32_t seed, uint64_t i)
{
    return pick_value(pick_key(seed), i);
}

/* v[0..n) = harness_input_value of the seed whose key is `key`: a loop the compiler vectorises. */
static inline __attribute__((always_inline)) void pick_fill_loop(float *v, size_t n, uint32_t key)
{
    for (size_t i = 0; i < n; i++)
        v[i] = pick_value(key, i);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__CUDACC__)
#include <immintrin.h>
/* The same values with AVX2's eight 32-bit lanes, written out (x86-64's baseline SSE2 has no
 * 32-bit multiply of four lanes, and at the build's -O2 GCC leaves the plain loop scalar: 45 ms
 * for 16 Mi values on the GPU machine; written out, 3 ms on the CPU machine). Chosen at run
 * time where the CPU has AVX2 (a branch, no IFUNC). Every step is the plain loop's: a logical shift, a 32-bit
 * multiply's low half, an exact conversion, a multiply by 2^-15 and 1 less, both exact. */
__attribute__((target("avx2"))) static void pick_fill_avx2(float *v, size_t n, uint32_t key)
{
    const __m256i k = _mm256_set1_epi32((int)key), low = _mm256_set1_epi32(0xffff);
    const __m256i m1 = _mm256_set1_epi32(0x7feb352d), m2 = _mm256_set1_epi32((int)0x846ca68bu);
    const __m256 scale = _mm256_set1_ps(1.0f / 32768.0f), one = _mm256_set1_ps(1.0f);
    __m256i at = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    size_t whole = n - n % 8;
    for (size_t i = 0; i < whole; i += 8) {
        __m256i x = _mm256_xor_si256(at, k);
        x = _mm256_mullo_epi32(_mm256_xor_si256(x, _mm256_srli_epi32(x, 16)), m1);
        x = _mm256_mullo_epi32(_mm256_xor_si256(x, _mm256_srli_epi32(x, 15)), m2);
        x = _mm256_and_si256(_mm256_xor_si256(x, _mm256_srli_epi32(x, 16)), low);
        _mm256_storeu_ps(v + i, _mm256_sub_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(x), scale), one));
        at = _mm256_add_epi32(at, _mm256_set1_epi32(8));
    }
    for (size_t i = whole; i < n; i++) /* the last n % 8 */
        v[i] = pick_value(key, i);
}
#define PICK_FILL_AVX2 1
#endif

/* v[0..n) = harness_input_value(seed, 0..n), made fast: a run's whole input is made in the
 * time the judge takes of that run (lesson 04). */
static inline void harness_input_fill(float *v, size_t n, uint32_t seed)
{
#ifdef PICK_FILL_AVX2
    if (__builtin_cpu_supports("avx2")) {
        pick_fill_avx2(v, n, pick_key(seed));
        return;
    }
#endif
    pick_fill_loop(v, n, pick_key(seed));
}

/* The PICK_COUNT positions of a pick with seed s over n > 0 values: drawn over [0, n), the last
 * one n - 1 (a chunk cut short at the end shows there). */
static inline void pick_positions(uint32_t s, uint64_t n, uint64_t at[PICK_COUNT])
{
    uint32_t key = pick_key(s ^ 0x5bd1e995u);
    for (uint32_t j = 0; j + 1 < PICK_COUNT; j++) {
        uint64_t r = (uint64_t)pick_mix(2 * j ^ key) << 32 | pick_mix((2 * j + 1) ^ key);
        at[j] = r % n;
    }
    at[PICK_COUNT - 1] = n - 1;
}

#endif
