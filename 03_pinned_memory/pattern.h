/* 03_pinned_memory/pattern.h - the data every copy carries, known to the host and the GPU.
 * Word i of a buffer filled with `seed` is pattern_word(i, seed): any copy that drops, repeats
 * or shifts a word is caught, and no buffer needs to be read back to know what it should hold. */
#ifndef PINNED_PATTERN_H
#define PINNED_PATTERN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define PATTERN_FN __host__ __device__ static inline
#else
#define PATTERN_FN static inline
#endif

PATTERN_FN uint32_t pattern_word(size_t i, uint32_t seed)
{
    uint32_t x = (uint32_t)i * 2654435761u + seed;
    x ^= (uint32_t)(i >> 32) * 0x85ebca6bu;
    return x ^ (x >> 15);
}

#endif
