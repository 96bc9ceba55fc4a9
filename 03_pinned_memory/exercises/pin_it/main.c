/*
 * Exercise 1 - pin_it: page-lock memory you already have, and see the copy speed up.
 *
 * `data` below is ordinary malloc'd memory, so its copies go through the driver's staging
 * buffer (step 4 of the lesson). Make the copy engine read it directly:
 *   TODO 1: page-lock `data` in place with cudaHostRegister (step 2's "registered" kind).
 *   TODO 2: undo it with cudaHostUnregister before the memory goes back to free().
 * Then "data is page-locked" and "unpinned before free" both say yes, and the copy runs as fast
 * as the pinned reference measured in the same run (a cudaMallocHost buffer): 0.85x or more.
 * Grade it: make check   (from 03_pinned_memory/)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "check.h"

#define BYTES ((size_t)64 << 20)
#define REPS 10

static bool page_locked(const void *p)
{
    struct cudaPointerAttributes a;
    return cudaPointerGetAttributes(&a, p) == cudaSuccess && a.type == cudaMemoryTypeHost;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median GB/s of REPS host-to-device copies of BYTES from `src`. */
static bool h2d_gbps(void *dev, const void *src, cudaStream_t s, cudaEvent_t e[2], double *out)
{
    double rate[REPS];
    for (int r = -1; r < REPS; r++) { /* r = -1: warm-up */
        float ms = 0;
        if (!checkRuntime(cudaEventRecord(e[0], s)) ||
            !checkRuntime(cudaMemcpyAsync(dev, src, BYTES, cudaMemcpyHostToDevice, s)) ||
            !checkRuntime(cudaEventRecord(e[1], s)) || !checkRuntime(cudaEventSynchronize(e[1])) ||
            !checkRuntime(cudaEventElapsedTime(&ms, e[0], e[1])))
            return false;
        if (r >= 0)
            rate[r] = (double)BYTES / (ms * 1e6);
    }
    qsort(rate, REPS, sizeof *rate, cmp);
    *out = (rate[REPS / 2 - 1] + rate[REPS / 2]) / 2;
    return true;
}

int main(int argc, char **argv)
{
    (void)argc;
    lesson_init(argv[0]);
    int count = 0;
    if (!requireRuntime(cudaGetDeviceCount(&count)))
        return EXIT_CHECK;
    bool ok = true;
    void *dev = NULL, *reference = NULL, *data = NULL, *pinned = NULL;
    cudaStream_t s = NULL;
    cudaEvent_t e[2] = {NULL, NULL};
    if (!checkRuntime(cudaSetDevice(0)) || !checkRuntime(cudaStreamCreate(&s)) ||
        !checkRuntime(cudaEventCreate(&e[0])) || !checkRuntime(cudaEventCreate(&e[1])) ||
        !checkRuntime(cudaMalloc(&dev, BYTES)) || !checkRuntime(cudaMallocHost(&pinned, BYTES))) {
        ok = false;
        goto cleanup;
    }
    reference = malloc(BYTES);
    data = malloc(BYTES);
    if (!reference || !data) {
        fprintf(stderr, "%s: out of host memory\n", lesson_prog);
        ok = false;
        goto cleanup;
    }
    memset(reference, 1, BYTES);
    memset(data, 2, BYTES);
    memset(pinned, 3, BYTES);

    /* TODO 1 goes here. */

    double pageable = 0, yours = 0, pinned_ref = 0;
    if (!h2d_gbps(dev, reference, s, e, &pageable) || !h2d_gbps(dev, pinned, s, e, &pinned_ref) ||
        !h2d_gbps(dev, data, s, e, &yours)) {
        ok = false;
        goto cleanup;
    }
    printf("data is page-locked: %s\n", page_locked(data) ? "yes" : "no");
    printf("pageable reference: %.1f GB/s\n", pageable);
    printf("pinned reference (cudaMallocHost): %.1f GB/s\n", pinned_ref);
    printf("data: %.1f GB/s, %.2fx the pageable reference, %.2fx the pinned reference\n", yours,
           yours / pageable, yours / pinned_ref);

    /* TODO 2 goes here. */

    printf("unpinned before free: %s\n", page_locked(data) ? "no" : "yes");
cleanup:
    if (data && page_locked(data)) /* a failure skipped the unpinning: do it before free() */
        ok = checkRuntime(cudaHostUnregister(data)) && ok;
    free(data);
    free(reference);
    if (pinned)
        ok = checkRuntime(cudaFreeHost(pinned)) && ok;
    if (dev)
        ok = checkRuntime(cudaFree(dev)) && ok;
    for (int i = 0; i < 2; i++)
        if (e[i])
            ok = checkRuntime(cudaEventDestroy(e[i])) && ok;
    if (s)
        ok = checkRuntime(cudaStreamDestroy(s)) && ok;
    return ok ? EXIT_OK : EXIT_CHECK;
}
