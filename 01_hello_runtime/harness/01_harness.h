/* Lesson 01's harnesses share this: a copy through the current context, to show it works. */
#ifndef EX01_HARNESS_H
#define EX01_HARNESS_H
#include <stdlib.h>
#include "exercise_harness.h"

/* Case k of the seed: n floats through a buffer of the current context (cuMemAlloc, there and
 * back). Reports "caseK N SUM", or "caseK none" when it could not be done. */
static inline void copy_case(uint32_t seed, int k, size_t n)
{
    float *v = malloc(n * sizeof(float));
    CUdeviceptr d = 0;
    bool done = v && cuMemAlloc(&d, n * sizeof(float)) == CUDA_SUCCESS;
    if (done) {
        done = harness_round_trip(d, v, n, seed, k);
        done = cuMemFree(d) == CUDA_SUCCESS && done;
    }
    harness_case(k, done, v, n, "none");
    free(v);
}
#endif
