/*
 * common/exercise_harness.h - what the exercises' harnesses share (NN_name/harness/NAME/, built from the
 * teacher's tree, never from a submission; common/lesson.mk says how an exercise is built).
 *
 * A harness holds main(): it calls the functions the student wrote, observes their effect
 * itself (the driver's view of contexts, memory and pointers; the calls counted through the
 * linker's --wrap) and reports what it saw on lines "harness: KEY VALUE". It judges nothing:
 * the test (tests/exercises/NN_name.bats) compares those values with what it expects, and its
 * inputs come from a seed the test chooses for each run (argv[1]), so that a printed sentence or
 * a pasted figure cannot pass. The last line is "harness: end SEED": output cut short by a
 * student's exit() has none.
 */
#ifndef LESSON_EXERCISE_HARNESS_H
#define LESSON_EXERCISE_HARNESS_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* The values of one case: MINSTD (Park-Miller) from the case's seed, each x % 1000, so that
 * every result the exercises compute from them (2x, 3x + 1, x / 2, ...) is exact in float and
 * the test can compute the same sums with awk (tests/exercises/harness.bash, expected_sum). */
static inline uint32_t harness_case_seed(uint32_t seed, int k)
{
    return (uint32_t)(((uint64_t)seed + (uint64_t)k * 7919u) % 2147483646u) + 1u;
}

static inline void harness_fill(float *v, size_t n, uint32_t seed, int k)
{
    uint64_t s = harness_case_seed(seed, k);
    for (size_t i = 0; i < n; i++) {
        s = s * 48271u % 2147483647u;
        v[i] = (float)(s % 1000u);
    }
}

static inline double harness_sum(const float *v, size_t n)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    return sum;
}

/* Case k of the seed to device buffer d and back through the current context (v: n floats,
 * poisoned between the two copies, so that what comes back is what the device held). */
static inline bool harness_round_trip(CUdeviceptr d, float *v, size_t n, uint32_t seed, int k)
{
    harness_fill(v, n, seed, k);
    bool done = cuMemcpyHtoD(d, v, n * sizeof(float)) == CUDA_SUCCESS;
    for (size_t i = 0; i < n; i++)
        v[i] = -1;
    return done && cuMemcpyDtoH(v, d, n * sizeof(float)) == CUDA_SUCCESS;
}

/* One line of the report: "harness: KEY VALUE". */
static inline void harness_report(const char *key, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline void harness_report(const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("harness: %s ", key);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
}

/* A result: "KEY N SUM" (the sum of v's n values) where ok, else "KEY " and the word the
 * exercise's grader expects for one that gave nothing ("failed", "none"). */
static inline void harness_result(const char *key, bool ok, const float *v, size_t n,
                                  const char *failed)
{
    if (ok)
        harness_report(key, "%zu %.1f", n, harness_sum(v, n));
    else
        harness_report(key, "%s", failed);
}

/* The same for case k of the seed, under the key "caseK". */
static inline void harness_case(int k, bool ok, const float *v, size_t n, const char *failed)
{
    char key[16];
    snprintf(key, sizeof key, "case%d", k);
    harness_result(key, ok, v, n, failed);
}

/* The seed from the command line (one number, 1 .. 2^31 - 2); a bad command line exits 2,
 * --help (or -h) prints the usage and exits 0. */
static inline uint32_t harness_seed(int argc, char **argv, const char *what)
{
    long seed = 0;
    bool help = argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0);
    if (help || argc != 2 || !parse_long(argv[1], 1, 2147483646L, "SEED", &seed)) {
        fprintf(help ? stdout : stderr,
                "usage: %s SEED\n%s\nThe inputs come from SEED; the grader "
                "(tests/exercises) chooses it and judges the lines \"harness: ...\".\n",
                lesson_prog, what);
        exit(help ? EXIT_OK : EXIT_USAGE);
    }
    return (uint32_t)seed;
}

/* The last line: the report is complete. */
static inline int harness_end(uint32_t seed, bool ok)
{
    if (ok)
        harness_report("end", "%u", seed);
    return ok ? EXIT_OK : EXIT_CHECK;
}

/* How many references to device dev's primary context are left beyond the runtime's own
 * one: the harness gives back references until the driver says the context is inactive.
 * -1: the runtime's own reference was already gone (someone released one too many). Call
 * it last: the runtime's context is gone afterwards. */
static inline int harness_primary_refs_beyond_runtime(CUdevice dev)
{
    unsigned int flags = 0;
    int active = 0;
    if (cuDevicePrimaryCtxGetState(dev, &flags, &active) != CUDA_SUCCESS || !active)
        return -1;
    for (int extra = 0; extra < 16; extra++) {
        if (cuDevicePrimaryCtxRelease(dev) != CUDA_SUCCESS)
            return -1;
        if (cuDevicePrimaryCtxGetState(dev, &flags, &active) != CUDA_SUCCESS)
            return -1;
        if (!active)
            return extra;
    }
    return 16;
}

/* Case k of a kernel exercise: n floats made from the seed go to *dy (allocated here, freed
 * and zeroed after), kernel f runs over them in one-dimensional blocks of 256 with params
 * (which point at *dy), and the result comes back: "caseK N SUM", or "caseK failed" (f NULL
 * included: the student's lookup failed). */
static inline void harness_kernel_case(CUfunction f, void **params, CUdeviceptr *dy, size_t n,
                                       uint32_t seed, int k)
{
    float *y = malloc(n * sizeof(float));
    bool ok = f && y && cuMemAlloc(dy, n * sizeof(float)) == CUDA_SUCCESS;
    if (ok) {
        harness_fill(y, n, seed, k);
        ok = cuMemcpyHtoD(*dy, y, n * sizeof(float)) == CUDA_SUCCESS &&
             checkDriver(cuLaunchKernel(f, (unsigned)((n + 255) / 256), 1, 1, 256, 1, 1, 0, NULL,
                                        params, NULL)) &&
             checkDriver(cuCtxSynchronize()) &&
             cuMemcpyDtoH(y, *dy, n * sizeof(float)) == CUDA_SUCCESS;
    }
    harness_case(k, ok, y, n, "failed");
    if (*dy)
        (void)cuMemFree(*dy);
    *dy = 0;
    free(y);
}

/* The depth of this thread's context stack and its top (popped and pushed back). */
static inline int harness_stack_depth(CUcontext *top)
{
    CUcontext seen[16];
    int depth = 0;
    *top = NULL;
    while (depth < 16) {
        CUcontext c = NULL;
        if (cuCtxGetCurrent(&c) != CUDA_SUCCESS || !c ||
            cuCtxPopCurrent(&seen[depth]) != CUDA_SUCCESS)
            break;
        depth++;
    }
    for (int i = depth - 1; i >= 0; i--)
        (void)cuCtxPushCurrent(seen[i]);
    if (depth)
        *top = seen[0];
    return depth;
}

#endif
