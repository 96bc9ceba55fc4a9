/*
 * Exercise "driver" - EDIT THIS FILE.
 *
 * The pipeline again, with the CUDA Driver API (cuda.h) for the host memory, the streams and
 * the copies: cuMemHostAlloc, cuStreamCreate, cuMemcpyHtoD / cuMemcpyDtoH. The kernel is
 * launched by the runtime's launcher into the same stream: a CUstream is a cudaStream_t
 * underneath, and the runtime's primary context, current after cudaSetDevice, is the context
 * these Driver API calls use. After each chunk a "library" call resets a counter in the legacy
 * default stream, as in exercise "legacy"; leave it there.
 *
 * Nothing overlaps: cuMemcpyHtoD and cuMemcpyDtoH return only when their copy is done, and the
 * streams are blocking streams (CU_STREAM_DEFAULT), which the legacy stream's memset joins
 * into one line anyway. Make it overlap, still with the Driver API: the copies that take a
 * CUstream and return at once, and streams created with the flag that keeps them apart from
 * the legacy stream. Lesson 04's step 8 (driver.c) shows both.
 *
 * Build and grade: make -C 04_streams_overlap check   (passes at the pass mark it prints)
 */
#include <stdint.h>

#include "harness.h"

static CUdeviceptr dptr(const float *p)
{
    return (CUdeviceptr)(uintptr_t)p;
}

float *exercise_host_alloc(size_t bytes)
{
    void *p = NULL;
    return checkDriver(cuMemHostAlloc(&p, bytes, 0)) ? p : NULL;
}

void exercise_host_free(float *p)
{
    (void)checkDriver(cuMemFreeHost(p));
}

bool exercise_create_streams(cudaStream_t *s, int n)
{
    for (int i = 0; i < n; i++) {
        CUstream cs = NULL; /* FIXME: a flag that keeps these streams apart from the legacy one */
        if (!checkDriver(cuStreamCreate(&cs, CU_STREAM_DEFAULT)))
            return false;
        s[i] = (cudaStream_t)cs;
    }
    return true;
}

/* The "library" call: it always uses the legacy default stream. Do not change it. */
static bool library_reset_counter(int *dev_counter)
{
    return checkRuntime(cudaMemsetAsync(dev_counter, 0, sizeof(int), 0));
}

bool exercise_issue(const struct pipeline *p)
{
    for (int i = 0; i < p->streams; i++) {
        size_t first, count;
        pipeline_chunk(p, i, &first, &count);
        size_t bytes = count * sizeof(float);
        cudaStream_t s = p->stream[i];
        /* FIXME: cuMemcpyHtoD and cuMemcpyDtoH wait until their copy is done: use the Driver
         * API's copies that take a stream (s, as a CUstream) and return at once */
        if (!checkDriver(cuMemcpyHtoD(dptr(p->dev_in + first), p->host_in + first, bytes)) ||
            !checkRuntime(launch_work(p->dev_in + first, p->dev_out + first, count, p->work, s)) ||
            !checkDriver(cuMemcpyDtoH(p->host_out + first, dptr(p->dev_out + first), bytes)) ||
            !library_reset_counter(p->dev_counter))
            return false;
    }
    return true;
}
