/* replays_kept_result: a variant for the grader's tests. The first call does the work in one
 * stream and keeps the result in a device buffer of its own; every later call copies that kept
 * result back (no copy in, no kernel): fast, and right as long as the input never changes. */
#include "harness.h"

static float *kept; /* the first call's result, on the device (freed with the context) */

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
    size_t bytes = p->n * sizeof(float);
    cudaStream_t s = p->stream[0];
    if (kept) /* replayed: the result of the first call's input */
        return checkRuntime(cudaMemcpyAsync(p->host_out, kept, bytes, cudaMemcpyDefault, s));
    return checkRuntime(cudaMalloc((void **)&kept, bytes)) &&
           checkRuntime(cudaMemcpyAsync(p->dev_in, p->host_in, bytes, cudaMemcpyHostToDevice, s)) &&
           checkRuntime(launch_work(p->dev_in, kept, p->n, p->work, s)) &&
           checkRuntime(cudaMemcpyAsync(p->host_out, kept, bytes, cudaMemcpyDeviceToHost, s));
}
