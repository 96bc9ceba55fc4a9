/*
 * Exercise "legacy" - EDIT THIS FILE.
 *
 * Pinned memory, one stream per chunk, asynchronous copies: and still no overlap. After
 * each chunk's work a library call (played here by a cudaMemsetAsync of one counter)
 * does its own small job on stream 0, the legacy default stream. The legacy default
 * stream waits for all earlier work in every blocking stream, and all later work in those
 * streams waits for it: each memset joins the streams back into one line.
 *
 * The memset stays where it is, in stream 0 (you cannot change the library). Make the
 * streams overlap again by changing how they are created. (Why is that safe here? Would
 * it be if the memset wrote p->dev_out?)
 *
 * Build and grade: make -C 04_streams_overlap check   (passes at the pass mark it prints)
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
    for (int i = 0; i < n; i++) /* FIXME: streams that the legacy stream's memset does not join */
        if (!checkRuntime(cudaStreamCreate(&s[i])))
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
