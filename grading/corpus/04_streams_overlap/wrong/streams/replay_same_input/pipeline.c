/* replay_same_input: a variant for the grader's tests. The whole job runs in one stream (no
 * overlap) into a device buffer of its own, kept; a later call whose input begins and ends as
 * the last computed one did copies that kept result back (no copy in, no kernel). Fast and
 * right wherever the input does not change from call to call, or changes only at positions the
 * check does not read: it must lose the speed point where every timed run has an input of its
 * own, checked at positions picked after the run over the whole output. */
#include <string.h>

#include "harness.h"

static float *kept; /* the last result computed, on the device (freed with the context) */
static float head[64], tail[64]; /* the first and last floats of the input it came from */

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

/* Whether the input begins and ends as the one the kept result came from. */
static bool same_input(const struct pipeline *p, size_t k)
{
    return memcmp(head, p->host_in, k * sizeof(float)) == 0 &&
           memcmp(tail, p->host_in + p->n - k, k * sizeof(float)) == 0;
}

bool exercise_issue(const struct pipeline *p)
{
    size_t bytes = p->n * sizeof(float), k = p->n < 64 ? p->n : 64;
    cudaStream_t s = p->stream[0];
    if (kept && same_input(p, k)) /* replayed */
        return checkRuntime(cudaMemcpyAsync(p->host_out, kept, bytes, cudaMemcpyDeviceToHost, s));
    memcpy(head, p->host_in, k * sizeof(float));
    memcpy(tail, p->host_in + p->n - k, k * sizeof(float));
    return (kept || checkRuntime(cudaMalloc((void **)&kept, bytes))) &&
           checkRuntime(cudaMemcpyAsync(p->dev_in, p->host_in, bytes, cudaMemcpyHostToDevice, s)) &&
           checkRuntime(launch_work(p->dev_in, kept, p->n, p->work, s)) &&
           checkRuntime(cudaMemcpyAsync(p->host_out, kept, bytes, cudaMemcpyDeviceToHost, s));
}
