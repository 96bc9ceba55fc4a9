/* events_leaked: each chunk's end is marked with an event of its own (cudaEventCreateWithFlags,
 * cudaEventRecord), made in every exercise_issue() and never destroyed. The result and the
 * overlap are right; the stand-in driver counts what the first issue left: resources_pipeline
 * "left: event N" (one per chunk). */
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
        cudaEvent_t done = NULL; /* the chunk's end, never destroyed */
        if (!checkRuntime(cudaEventCreateWithFlags(&done, cudaEventDisableTiming)) ||
            !checkRuntime(cudaEventRecord(done, s)))
            return false;
    }
    return true;
}
