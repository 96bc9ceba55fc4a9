/*
 * 04_streams_overlap/core.c - the idea of the lesson: copies in, a kernel and copies out, cut
 * into chunks and spread over streams, so that the copy engines and the SMs work at once.
 * The instrument (proof/: measuring, the model, the claims) issues these pipelines: their loops
 * are here and nowhere else (proof/ times each stage alone with its own calls).
 *
 * In the order of the steps:
 *   buffers_alloc, buffers_free     pinned host memory, which the copy engines can DMA
 *   streams_create, streams_destroy blocking, non-blocking, or through the Driver API
 *   pipeline_sequential             step 2: the whole job as one chunk in the legacy stream
 *   pipeline_per_stream             step 3: chunk i's copy in, kernel, copy out in stream i;
 *                                   step 5b: with a library's memset in the legacy default
 *                                   stream between the chunks, which joins blocking streams
 *   pipeline_by_stage               step 3: three loops: every copy in, every kernel, every
 *                                   copy out
 *   pipeline_driver_api             step 8: the per-stream pipeline through the Driver API
 * Nothing here watches: the instrument records its events from its own side (proof/watch.c:
 * the lesson's Makefile links core.c's cudaMemcpyAsync and launch_work through its watchers),
 * and makes the events, the gate that holds each timed repetition (common/gate.h) and the
 * cudaMemset that poisons the output before a check.
 */
#include "core.h" /* and work.h: launch_work, the kernel's launcher */

/* The four buffers of a job of p->n floats; what was made is set even when a call failed. */
bool buffers_alloc(struct pipeline *p)
{
    size_t bytes = p->n * sizeof(float);
    bool ok = checkRuntime(cudaMallocHost((void **)&p->host_in, bytes));
    ok = ok && checkRuntime(cudaMallocHost((void **)&p->host_out, bytes));
    ok = ok && checkRuntime(cudaMalloc((void **)&p->dev_in, bytes));
    return ok && checkRuntime(cudaMalloc((void **)&p->dev_out, bytes));
}

/* What buffers_alloc made (a NULL pointer was not made); false when a release failed. */
bool buffers_free(struct pipeline *p)
{
    bool ok = !p->dev_out || checkRuntime(cudaFree(p->dev_out));
    ok = (!p->dev_in || checkRuntime(cudaFree(p->dev_in))) && ok;
    ok = (!p->host_out || checkRuntime(cudaFreeHost(p->host_out))) && ok;
    ok = (!p->host_in || checkRuntime(cudaFreeHost(p->host_in))) && ok;
    return ok;
}

/* A blocking stream waits for the legacy default stream (stream 0), and it for the stream;
 * a non-blocking one does not (step 5b, step 8). Streams and CUstreams are the same objects. */
bool streams_create(cudaStream_t *s, int n, enum stream_kind kind)
{
    bool ok = true;
    for (int i = 0; ok && i < n; i++)
        ok = kind == BLOCKING ? checkRuntime(cudaStreamCreate(&s[i]))
             : kind == NON_BLOCKING
                 ? checkRuntime(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking))
                 : checkDriver(cuStreamCreate(&s[i], CU_STREAM_NON_BLOCKING));
    return ok;
}

/* Every stream made (a NULL one was not); false when one could not be destroyed. */
bool streams_destroy(cudaStream_t *s, int n, enum stream_kind kind)
{
    bool ok = true;
    for (int i = 0; i < n; i++)
        if (s[i] && !(kind == DRIVER_NON_BLOCKING ? checkDriver(cuStreamDestroy(s[i]))
                                                  : checkRuntime(cudaStreamDestroy(s[i]))))
            ok = false;
    return ok;
}

/* Step 2: the whole job as one chunk in the legacy default stream (stream 0): the same loop as
 * below, where each stage waits for the one before. */
bool pipeline_sequential(const struct pipeline *p)
{
    cudaStream_t legacy[1] = {0};
    struct pipeline one = *p;
    one.streams = 1;
    one.stream = legacy;
    return pipeline_per_stream(&one);
}

/* Step 3, "per stream": chunk 1's copy in, kernel, copy out, then chunk 2's, ... each chunk in
 * its own stream. Each call returns at once; within a stream the three stages run in order,
 * streams have no order between them. Step 5b: with p->dev_counter, a library's 4-byte memset
 * in the legacy stream after each chunk but the last: it waits for all earlier work of every
 * blocking stream, and their later work waits for it, so the chunks run one after another. */
bool pipeline_per_stream(const struct pipeline *p)
{
    bool ok = true;
    for (int i = 0; ok && i < p->streams; i++) {
        size_t at = chunk_first(p, i), n = chunk_size(p, i), bytes = n * sizeof(float);
        float *h_in = p->host_in + at, *d_in = p->dev_in + at;
        float *h_out = p->host_out + at, *d_out = p->dev_out + at;
        cudaStream_t s = p->stream[i];
        /* copy in */
        ok = checkRuntime(cudaMemcpyAsync(d_in, h_in, bytes, cudaMemcpyHostToDevice, s));
        /* compute: work_kernel<<<blocks, 256, 0, s>>> (work.cuh) */
        ok = ok && checkRuntime(launch_work(d_in, d_out, n, p->work, s));
        /* copy out */
        ok = ok && checkRuntime(cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, s));
        if (ok && p->dev_counter && i + 1 < p->streams)
            ok = checkRuntime(cudaMemsetAsync(p->dev_counter, 0, sizeof(int), 0));
    }
    return ok;
}

/* Step 3, "by stage": the same calls in the same streams, issued in another order: every copy
 * in, then every kernel, then every copy out. */
bool pipeline_by_stage(const struct pipeline *p)
{
    bool ok = true;
    for (int i = 0; ok && i < p->streams; i++) { /* copy in */
        size_t at = chunk_first(p, i), bytes = chunk_size(p, i) * sizeof(float);
        ok = checkRuntime(cudaMemcpyAsync(p->dev_in + at, p->host_in + at, bytes,
                                          cudaMemcpyHostToDevice, p->stream[i]));
    }
    for (int i = 0; ok && i < p->streams; i++) { /* compute */
        size_t at = chunk_first(p, i), n = chunk_size(p, i);
        ok = checkRuntime(launch_work(p->dev_in + at, p->dev_out + at, n, p->work, p->stream[i]));
    }
    for (int i = 0; ok && i < p->streams; i++) { /* copy out */
        size_t at = chunk_first(p, i), bytes = chunk_size(p, i) * sizeof(float);
        ok = checkRuntime(cudaMemcpyAsync(p->host_out + at, p->dev_out + at, bytes,
                                          cudaMemcpyDeviceToHost, p->stream[i]));
    }
    return ok;
}

/* Step 8: pipeline_per_stream through the Driver API, in streams from streams_create(...,
 * DRIVER_NON_BLOCKING); `kernel` is the lesson's kernel as a CUfunction. With p->dev_counter,
 * the library's legacy-stream memset after each chunk but the last, as in step 5b. */
bool pipeline_driver_api(const struct pipeline *p, CUfunction kernel)
{
    bool ok = true;
    for (int i = 0; ok && i < p->streams; i++) {
        size_t at = chunk_first(p, i), n = chunk_size(p, i), bytes = n * sizeof(float);
        CUstream s = p->stream[i];
        CUdeviceptr d_in = (uintptr_t)(p->dev_in + at), d_out = (uintptr_t)(p->dev_out + at);
        void *params[] = {&d_in, &d_out, &n, (void *)&p->work}; /* the kernel's parameters */
        unsigned blocks = (unsigned)((n + 255) / 256);
        /* copy in */
        ok = checkDriver(cuMemcpyHtoDAsync(d_in, p->host_in + at, bytes, s));
        /* compute */
        ok = ok && checkDriver(cuLaunchKernel(kernel, blocks, 1, 1, 256, 1, 1, 0, s, params, NULL));
        /* copy out */
        ok = ok && checkDriver(cuMemcpyDtoHAsync(p->host_out + at, d_out, bytes, s));
        if (ok && p->dev_counter && i + 1 < p->streams)
            ok = checkRuntime(cudaMemsetAsync(p->dev_counter, 0, sizeof(int), 0));
    }
    return ok;
}
