/* pageable_fallback: where cudaMallocHost fails, the buffer quietly comes from malloc
 * (pageable), freed with free(). With the driver working every other test passes (4 EiB: malloc
 * fails too, NULL); with the driver's call made to fail (--fail-at 1) exercise_host_alloc()
 * hides the failure: "host_alloc given" where NULL was due. */
#include <stdlib.h>

#include "harness.h"

static void *fallback[2];

float *exercise_host_alloc(size_t bytes)
{
    void *p = NULL;
    if (cudaMallocHost(&p, bytes) == cudaSuccess)
        return p;
    (void)cudaGetLastError();
    p = malloc(bytes); /* the failure hidden */
    for (int i = 0; p && i < 2; i++)
        if (!fallback[i]) {
            fallback[i] = p;
            break;
        }
    return p;
}

void exercise_host_free(float *p)
{
    for (int i = 0; i < 2; i++)
        if (p && fallback[i] == p) {
            fallback[i] = NULL;
            free(p);
            return;
        }
    (void)checkRuntime(cudaFreeHost(p));
}

bool exercise_create_streams(cudaStream_t *s, int n)
{
    for (int i = 0; i < n; i++)
        if (!checkRuntime(cudaStreamCreate(&s[i])))
            return false;
    return true;
}

bool exercise_issue(const struct pipeline *p)
{
    for (int i = 0; i < p->streams; i++) {
        size_t first, count;
        pipeline_chunk(p, i, &first, &count);
        size_t bytes = count * sizeof(float);
        cudaStream_t s = p->stream[i];
        if (!checkRuntime(cudaMemcpyAsync(p->dev_in + first, p->host_in + first, bytes,
                                          cudaMemcpyHostToDevice, s)) ||
            !checkRuntime(launch_work(p->dev_in + first, p->dev_out + first, count, p->work, s)) ||
            !checkRuntime(cudaMemcpyAsync(p->host_out + first, p->dev_out + first, bytes,
                                          cudaMemcpyDeviceToHost, s)))
            return false;
    }
    return true;
}
