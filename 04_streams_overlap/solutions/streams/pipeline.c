/*
 * Exercise "streams" - the reference solution.
 *
 * Each chunk's three operations go, asynchronously, into a stream of its own. Within
 * stream i they still run in order (copy in, kernel, copy out of chunk i), but different
 * streams are independent: the copy engines and the SMs take work from whichever stream
 * has some ready, so the copy in of chunk i+1 runs beside the kernel of chunk i.
 * (cudaMemcpyAsync into a single stream would be asynchronous for the host, but the stream
 * would still run one operation at a time: asynchrony is not concurrency.)
 */
#include "harness.h"

float *exercise_host_alloc(size_t bytes)
{
    void *p = NULL;
    return checkRuntime(cudaMallocHost(&p, bytes)) ? p : NULL;
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
