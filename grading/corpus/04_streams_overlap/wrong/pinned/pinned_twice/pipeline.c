/* pinned_twice: exercise_host_alloc() takes page-locked memory twice, cudaMallocHost and then
 * cudaHostAlloc(PORTABLE), and returns the second: the first is never given back. The buffers
 * it returns are pinned and freed (host_buffers_kept 0); the stand-in driver counts the one
 * left: resources_host_alloc "left: pinned 1 made twice: pinned 2". */
#include "harness.h"

float *exercise_host_alloc(size_t bytes)
{
    void *p = NULL, *portable = NULL;
    if (!checkRuntime(cudaMallocHost(&p, bytes)))
        return NULL;
    /* "portable is better": the first buffer is forgotten */
    return checkRuntime(cudaHostAlloc(&portable, bytes, cudaHostAllocPortable)) ? portable : NULL;
}

void exercise_host_free(float *p)
{
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
