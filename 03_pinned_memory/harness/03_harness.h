/* Lesson 03's harnesses share this: copies timed by the harness's own events, the page-lock
 * state asked of the driver, data through the device and back into a poisoned buffer. */
#ifndef EX03_HARNESS_H
#define EX03_HARNESS_H
#include <stdlib.h>
#include <string.h>
#include "exercise_harness.h"

#define ROUNDS 7

/* Milliseconds of one host-to-device copy of `bytes` from src, by two events in stream s. */
static inline bool h2d_ms(void *dev, const void *src, size_t bytes, cudaStream_t s,
                          cudaEvent_t e[2], double *ms)
{
    float f = 0;
    bool ok = checkRuntime(cudaEventRecord(e[0], s)) &&
              checkRuntime(cudaMemcpyAsync(dev, src, bytes, cudaMemcpyHostToDevice, s)) &&
              checkRuntime(cudaEventRecord(e[1], s)) && checkRuntime(cudaEventSynchronize(e[1])) &&
              checkRuntime(cudaEventElapsedTime(&f, e[0], e[1]));
    *ms = f;
    return ok;
}

/* The rates (GB/s, median of ROUNDS, the three sources taking turns in each round) of copies
 * from a pageable buffer, from yours, and from a cudaMallocHost buffer. "rates P Y R". */
static inline bool compare_rates(void *yours, size_t bytes)
{
    void *dev = NULL, *pageable = malloc(bytes), *pinned = NULL;
    cudaStream_t s = NULL;
    cudaEvent_t e[2] = {NULL, NULL};
    double t[3][ROUNDS];
    bool ok = pageable && checkRuntime(cudaMalloc(&dev, bytes)) &&
              checkRuntime(cudaMallocHost(&pinned, bytes)) && checkRuntime(cudaStreamCreate(&s)) &&
              checkRuntime(cudaEventCreate(&e[0])) && checkRuntime(cudaEventCreate(&e[1]));
    if (ok) {
        memset(pageable, 1, bytes);
        memset(pinned, 2, bytes);
    }
    for (int r = -1; ok && r < ROUNDS; r++) { /* -1: the warm-up */
        double ms[3];
        ok = h2d_ms(dev, pageable, bytes, s, e, &ms[0]) &&
             h2d_ms(dev, yours, bytes, s, e, &ms[1]) && h2d_ms(dev, pinned, bytes, s, e, &ms[2]);
        for (int i = 0; ok && r >= 0 && i < 3; i++)
            t[i][r] = ms[i];
    }
    if (ok)
        harness_report("rates", "%.2f %.2f %.2f", bytes / (median_of(t[0], ROUNDS) * 1e6),
                       bytes / (median_of(t[1], ROUNDS) * 1e6),
                       bytes / (median_of(t[2], ROUNDS) * 1e6));
    for (int i = 0; i < 2; i++)
        if (e[i])
            ok = checkRuntime(cudaEventDestroy(e[i])) && ok;
    if (s)
        ok = checkRuntime(cudaStreamDestroy(s)) && ok;
    if (pinned)
        ok = checkRuntime(cudaFreeHost(pinned)) && ok;
    if (dev)
        ok = checkRuntime(cudaFree(dev)) && ok;
    free(pageable);
    return ok;
}

/* "pinned", "unregistered" or another memory type: what the runtime says of address p. */
static inline const char *host_kind(const void *p)
{
    struct cudaPointerAttributes a;
    cudaError_t e = cudaPointerGetAttributes(&a, p);
    (void)cudaGetLastError();
    if (e != cudaSuccess)
        return "error";
    return a.type == cudaMemoryTypeHost           ? "pinned"
           : a.type == cudaMemoryTypeUnregistered ? "unregistered"
                                                  : "other";
}

/* n floats of case k written into v, to the device and back into a poisoned buffer: "KEY N SUM". */
static inline bool data_case(const char *key, float *v, size_t n, uint32_t seed, int k)
{
    float *back = malloc(n * sizeof(float));
    void *dev = NULL;
    bool ok = back && checkRuntime(cudaMalloc(&dev, n * sizeof(float)));
    if (ok) {
        harness_fill(v, n, seed, k);
        memset(back, 0x7f, n * sizeof(float)); /* 3.39e38: no NaN, no value of a case */
        ok = checkRuntime(cudaMemcpy(dev, v, n * sizeof(float), cudaMemcpyHostToDevice)) &&
             checkRuntime(cudaMemcpy(back, dev, n * sizeof(float), cudaMemcpyDeviceToHost));
    }
    if (ok)
        harness_report(key, "%zu %.1f", n, harness_sum(back, n));
    if (dev)
        ok = checkRuntime(cudaFree(dev)) && ok;
    free(back);
    return ok;
}
#endif
