/*
 * Exercise 3 - driver_pinned: pinned memory through the Driver API.
 *
 * The program copies 64 MiB to the device and back with the Driver API: cuMemcpyHtoDAsync /
 * cuMemcpyDtoHAsync in a cuStreamCreate stream, timed with cuEventRecord. Its reference is a
 * buffer from the runtime's cudaMallocHost, copied with the very same calls in the same run
 * (the runtime and the Driver API share the device's primary context). `data` is malloc'd, so
 * its copies are staged through the driver's own buffer (step 4 of the lesson):
 *   TODO 1: allocate `data` with cuMemHostAlloc instead (flag CU_MEMHOSTALLOC_PORTABLE: pinned
 *           for every context, as step 7 shows), checked with checkDriver.
 *   TODO 2: release it with cuMemFreeHost instead of free() (in cleanup).
 * Then "data is pinned" says yes and the copy runs as fast as the reference: 0.9x or more.
 * Grade it: make check   (from 03_pinned_memory/)
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "check.h"

#define BYTES ((size_t)64 << 20)
#define WORDS (BYTES / 4)

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median GB/s of 7 host-to-device copies of BYTES from `src`, after one warm-up. */
static bool h2d_gbps(CUdeviceptr dev, const void *src, CUstream s, CUevent e[2], double *out)
{
    double rate[7];
    for (int r = -1; r < 7; r++) {
        float ms = 0;
        if (!checkDriver(cuEventRecord(e[0], s)) || !checkDriver(cuMemcpyHtoDAsync(dev, src, BYTES, s)) ||
            !checkDriver(cuEventRecord(e[1], s)) || !checkDriver(cuEventSynchronize(e[1])) ||
            !checkDriver(cuEventElapsedTime(&ms, e[0], e[1])))
            return false;
        if (r >= 0)
            rate[r] = (double)BYTES / (ms * 1e6);
    }
    qsort(rate, 7, sizeof *rate, cmp);
    *out = rate[3];
    return true;
}

int main(int argc, char **argv)
{
    (void)argc;
    lesson_init(argv[0]);
    int count = 0;
    if (!requireRuntime(cudaGetDeviceCount(&count)))
        return EXIT_CHECK;
    bool ok = true, pushed = false;
    CUdevice dev = 0;
    CUcontext ctx = NULL, popped;
    CUstream s = NULL;
    CUevent e[2] = {NULL, NULL};
    CUdeviceptr d = 0;
    void *reference = NULL;
    uint32_t *data = NULL;
    if (!checkRuntime(cudaSetDevice(0)) || !checkDriver(cuDeviceGet(&dev, 0)) ||
        !checkDriver(cuDevicePrimaryCtxRetain(&ctx, dev))) {
        ok = false;
        goto cleanup;
    }
    if (!(pushed = checkDriver(cuCtxPushCurrent(ctx))) ||
        !checkDriver(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING)) ||
        !checkDriver(cuEventCreate(&e[0], CU_EVENT_DEFAULT)) ||
        !checkDriver(cuEventCreate(&e[1], CU_EVENT_DEFAULT)) || !checkDriver(cuMemAlloc(&d, BYTES)) ||
        !checkRuntime(cudaMallocHost(&reference, BYTES))) {
        ok = false;
        goto cleanup;
    }

    /* TODO 1: allocate `data` with cuMemHostAlloc instead. */
    data = malloc(BYTES);
    if (!data) {
        fprintf(stderr, "%s: out of host memory\n", lesson_prog);
        ok = false;
        goto cleanup;
    }

    memset(reference, 1, BYTES);
    for (size_t i = 0; i < WORDS; i++)
        data[i] = (uint32_t)i * 2654435761u;
    double ref = 0, yours = 0;
    if (!h2d_gbps(d, reference, s, e, &ref) || !h2d_gbps(d, data, s, e, &yours)) {
        ok = false;
        goto cleanup;
    }
    /* The device now holds data's words: bring them back into the cleared reference buffer. */
    memset(reference, 0, BYTES);
    if (!checkDriver(cuMemcpyDtoHAsync(reference, d, BYTES, s)) || !checkDriver(cuStreamSynchronize(s))) {
        ok = false;
        goto cleanup;
    }
    size_t wrong = 0;
    for (size_t i = 0; i < WORDS; i++)
        wrong += ((uint32_t *)reference)[i] != (uint32_t)i * 2654435761u;
    unsigned int flags = 0;
    printf("data is pinned (cuMemHostGetFlags): %s\n",
           cuMemHostGetFlags(&flags, data) == CUDA_SUCCESS ? "yes" : "no");
    printf("reference (cudaMallocHost, same Driver API calls): %.1f GB/s\n", ref);
    printf("data: %.1f GB/s, %.2fx the reference\n", yours, yours / ref);
    printf("wrong words: %zu\n", wrong);
cleanup:
    free(data); /* TODO 2: memory from cuMemHostAlloc goes back with cuMemFreeHost. */
    if (reference)
        ok = checkRuntime(cudaFreeHost(reference)) && ok;
    if (d)
        ok = checkDriver(cuMemFree(d)) && ok;
    for (int i = 0; i < 2; i++)
        if (e[i])
            ok = checkDriver(cuEventDestroy(e[i])) && ok;
    if (s)
        ok = checkDriver(cuStreamDestroy(s)) && ok;
    if (pushed)
        ok = checkDriver(cuCtxPopCurrent(&popped)) && ok;
    if (ctx)
        ok = checkDriver(cuDevicePrimaryCtxRelease(dev)) && ok;
    return ok ? EXIT_OK : EXIT_CHECK;
}
