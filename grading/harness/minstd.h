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

#endif
