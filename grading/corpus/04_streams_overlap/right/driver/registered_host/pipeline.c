/* Right, another way: the host buffers are malloc'd and page-locked where they are with the
 * Driver API (cuMemHostRegister, PORTABLE), unregistered before free(). */
#include <stdint.h>
#include <stdlib.h>

#include "harness.h"

static CUdeviceptr dptr(const float *p)
{
    return (CUdeviceptr)(uintptr_t)p;
}

float *exercise_host_alloc(size_t bytes)
{
    void *p = malloc(bytes);
    if (p && !checkDriver(cuMemHostRegister(p, bytes, CU_MEMHOSTREGISTER_PORTABLE))) {
        free(p);
        p = NULL;
    }
    return p;
}

void exercise_host_free(float *p)
{
    (void)checkDriver(cuMemHostUnregister(p));
    free(p);
}

bool exercise_create_streams(cudaStream_t *s, int n)
{
    for (int i = 0; i < n; i++) {
        CUstream cs = NULL;
        if (!checkDriver(cuStreamCreate(&cs, CU_STREAM_NON_BLOCKING)))
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
        CUstream s = (CUstream)p->stream[i];
        if (!checkDriver(
                cuMemcpyHtoDAsync(dptr(p->dev_in + first), p->host_in + first, bytes, s)) ||
            !checkRuntime(launch_work(p->dev_in + first, p->dev_out + first, count, p->work,
                                      (cudaStream_t)s)) ||
            !checkDriver(
                cuMemcpyDtoHAsync(p->host_out + first, dptr(p->dev_out + first), bytes, s)) ||
            !library_reset_counter(p->dev_counter))
            return false;
    }
    return true;
}
