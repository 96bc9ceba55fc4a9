/*
 * Exercise "legacy" - the reference solution.
 *
 * Streams made with cudaStreamNonBlocking do not synchronise with the legacy default
 * stream: the library's memset on stream 0 no longer waits for them, nor they for it.
 * That is safe here because the memset touches only dev_counter, which no stream uses;
 * had it written dev_out, the implicit ordering would have been what kept it correct, and
 * removing it would need an explicit cudaEventRecord / cudaStreamWaitEvent instead.
 * The per-thread default stream would not do: it is a blocking stream and still synchronises
 * with the legacy stream (lesson 04, step 5b measures it). And nvcc's --default-stream
 * per-thread changes nothing in this file, which gcc compiles: C code gets the per-thread
 * default stream with -DCUDA_API_PER_THREAD_DEFAULT_STREAM=1, or by passing cudaStreamPerThread.
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
        if (!checkRuntime(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking)))
            return false;
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
        if (!checkRuntime(cudaMemcpyAsync(p->dev_in + first, p->host_in + first, bytes,
                                          cudaMemcpyHostToDevice, s)) ||
            !checkRuntime(launch_work(p->dev_in + first, p->dev_out + first, count, p->work, s)) ||
            !checkRuntime(cudaMemcpyAsync(p->host_out + first, p->dev_out + first, bytes,
                                          cudaMemcpyDeviceToHost, s)) ||
            !library_reset_counter(p->dev_counter))
            return false;
    }
    return true;
}
