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

/* A canary for the primary context's life: n floats of case k of the seed in a buffer of ctx
 * (pushed for the copy, popped after), made before the student's calls and read back after
 * them by canary_check. A context reset, destroyed, or released to no reference in between
 * (and retained again: the same handle, a new context) has lost it. 0: not made. */
static inline CUdeviceptr canary_make(CUcontext ctx, size_t n, uint32_t seed, int k)
{
    float *v = malloc(n * sizeof(float));
    CUdeviceptr d = 0;
    if (v && cuCtxPushCurrent(ctx) == CUDA_SUCCESS) {
        harness_fill(v, n, seed, k);
        if (cuMemAlloc(&d, n * sizeof(float)) == CUDA_SUCCESS &&
            cuMemcpyHtoD(d, v, n * sizeof(float)) != CUDA_SUCCESS) {
            (void)cuMemFree(d);
            d = 0;
        }
        (void)cuCtxPopCurrent(NULL);
    }
    free(v);
    return d;
}

/* "KEY N SUM": the canary read back through ctx (and freed), or "KEY lost". */
static inline void canary_check(const char *key, CUcontext ctx, CUdeviceptr d, size_t n)
{
    float *v = malloc(n * sizeof(float));
    bool ok = d && v && cuCtxPushCurrent(ctx) == CUDA_SUCCESS;
    if (ok) {
        for (size_t i = 0; i < n; i++)
            v[i] = -1;
        ok = cuMemcpyDtoH(v, d, n * sizeof(float)) == CUDA_SUCCESS;
        (void)cuMemFree(d);
        (void)cuCtxPopCurrent(NULL);
    }
    harness_result(key, ok, v, n, "lost");
    free(v);
}
#endif
