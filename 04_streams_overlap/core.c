/*
 * 04_streams_overlap/core.c - the idea of the lesson: copies in, a kernel and copies out, cut
 * into chunks and spread over streams, so that the copy engines and the SMs work at once.
 * demo.c and the instrument (proof/: measuring, the model, the claims) call these functions: the
 * pipelines' loops are here and nowhere else (proof/ times each stage alone with its own calls).
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
 *   copy_engines, time_on_gpu       what the GPU can overlap; how long a pipeline takes (demo.c)
 * Each pipeline takes an optional struct observer (core.h): between the calls, observe() lets
 * the instrument (proof/) record an event, and does nothing when it is NULL. So the timed runs,
 * the timelines and demo.c issue the same loops. Left to the instrument: events (create, record,
 * elapsed time, wait), step 8's cuStreamWaitEvent on a common start, the gate that holds each
 * timed repetition (common/gate.h), and the cudaMemset that poisons the output before a check.
 */
#include "core.h"
#include "work.h"

/* The four buffers of a job of p->n floats; what was made is set even when a call failed. */
bool buffers_alloc(struct pipeline *p)
{
    size_t bytes = p->n * sizeof(float);
    return checkRuntime(cudaMallocHost((void **)&p->host_in, bytes)) &&
           checkRuntime(cudaMallocHost((void **)&p->host_out, bytes)) &&
           checkRuntime(cudaMalloc((void **)&p->dev_in, bytes)) &&
           checkRuntime(cudaMalloc((void **)&p->dev_out, bytes));
}

/* What buffers_alloc made (a NULL pointer was not made); false when a release failed. */
bool buffers_free(struct pipeline *p)
{
    bool ok = true;
    ok = (!p->dev_out || checkRuntime(cudaFree(p->dev_out))) && ok;
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
 * below, where each operation waits for the one before. */
bool pipeline_sequential(const struct pipeline *p, struct observer *obs)
{
    cudaStream_t legacy[1] = {0};
    struct pipeline one = *p;
    one.streams = 1;
    one.stream = legacy;
    return pipeline_per_stream(&one, obs);
}

/* Step 3, "per stream": chunk 1's copy in, kernel, copy out, then chunk 2's, ... each chunk in
 * its own stream. Within a stream the three run in order; streams have no order between them.
 * Step 5b: with p->dev_counter, a library's 4-byte memset in the legacy stream after each chunk
 * but the last: it waits for all earlier work of every blocking stream, and their later work
 * waits for it, so the chunks run one after another again. */
bool pipeline_per_stream(const struct pipeline *p, struct observer *obs)
{
    bool ok = true;
    for (int i = 0; ok && i < p->streams; i++) {
        size_t at = chunk_first(p, i), n = chunk_size(p, i), bytes = n * sizeof(float);
        float *h_in = p->host_in + at, *d_in = p->dev_in + at;
        float *h_out = p->host_out + at, *d_out = p->dev_out + at;
        cudaStream_t s = p->stream[i];
        ok = observe(obs, i, BEFORE_COPY_IN, s) &&
             checkRuntime(cudaMemcpyAsync(d_in, h_in, bytes, cudaMemcpyHostToDevice, s)) &&
             observe(obs, i, AFTER_COPY_IN, s) &&
             checkRuntime(launch_work(d_in, d_out, n, p->work, s)) &&
             observe(obs, i, AFTER_KERNEL, s) &&
             checkRuntime(cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, s)) &&
             observe(obs, i, AFTER_COPY_OUT, s);
        if (ok && p->dev_counter && i + 1 < p->streams)
            ok = checkRuntime(cudaMemsetAsync(p->dev_counter, 0, sizeof(int), 0));
    }
    return ok;
}

/* Step 3, "by stage": the same calls in the same streams, issued in another order: every copy
 * in, then every kernel, then every copy out. */
bool pipeline_by_stage(const struct pipeline *p, struct observer *obs)
{
    bool ok = true;
    for (int i = 0; ok && i < p->streams; i++) {
        size_t at = chunk_first(p, i), bytes = chunk_size(p, i) * sizeof(float);
        ok = observe(obs, i, BEFORE_COPY_IN, p->stream[i]) &&
             checkRuntime(cudaMemcpyAsync(p->dev_in + at, p->host_in + at, bytes,
                                          cudaMemcpyHostToDevice, p->stream[i])) &&
             observe(obs, i, AFTER_COPY_IN, p->stream[i]);
    }
    for (int i = 0; ok && i < p->streams; i++) {
        size_t at = chunk_first(p, i), n = chunk_size(p, i);
        ok = checkRuntime(launch_work(p->dev_in + at, p->dev_out + at, n, p->work, p->stream[i])) &&
             observe(obs, i, AFTER_KERNEL, p->stream[i]);
    }
    for (int i = 0; ok && i < p->streams; i++) {
        size_t at = chunk_first(p, i), bytes = chunk_size(p, i) * sizeof(float);
        ok = checkRuntime(cudaMemcpyAsync(p->host_out + at, p->dev_out + at, bytes,
                                          cudaMemcpyDeviceToHost, p->stream[i])) &&
             observe(obs, i, AFTER_COPY_OUT, p->stream[i]);
    }
    return ok;
}

/* Step 8: pipeline_per_stream through the Driver API, in streams from streams_create(...,
 * DRIVER_NON_BLOCKING); `kernel` is the lesson's kernel as a CUfunction. With p->dev_counter,
 * the library's legacy-stream memset after each chunk but the last, as in step 5b. */
bool pipeline_driver_api(const struct pipeline *p, CUfunction kernel, struct observer *obs)
{
    bool ok = true;
    for (int i = 0; ok && i < p->streams; i++) {
        size_t at = chunk_first(p, i), n = chunk_size(p, i);
        CUstream s = p->stream[i];
        CUdeviceptr d_in = (uintptr_t)(p->dev_in + at), d_out = (uintptr_t)(p->dev_out + at);
        void *params[] = {&d_in, &d_out, &n, (void *)&p->work}; /* the kernel's parameters */
        ok = observe(obs, i, BEFORE_COPY_IN, s) &&
             checkDriver(cuMemcpyHtoDAsync(d_in, p->host_in + at, n * sizeof(float), s)) &&
             checkDriver(
                 cuLaunchKernel(kernel, (n + 255) / 256, 1, 1, 256, 1, 1, 0, s, params, 0)) &&
             checkDriver(cuMemcpyDtoHAsync(p->host_out + at, d_out, n * sizeof(float), s)) &&
             observe(obs, i, AFTER_COPY_OUT, s);
        if (ok && p->dev_counter && i + 1 < p->streams)
            ok = checkRuntime(cudaMemsetAsync(p->dev_counter, 0, sizeof(int), 0));
    }
    return ok;
}

/* asyncEngineCount of the current device: 2 or more copy in, copy out and compute at once; 1
 * copies one way at a time beside kernels; 0 overlaps nothing. -1 when a call failed. */
int copy_engines(void)
{
    int device = 0, engines = 0;
    bool ok = checkRuntime(cudaGetDevice(&device)) &&
              checkRuntime(cudaDeviceGetAttribute(&engines, cudaDevAttrAsyncEngineCount, device));
    return ok ? engines : -1;
}

/* How long `issue` keeps the GPU busy, in ms: an event before and one after it in the legacy
 * stream, which waits for every blocking stream's earlier work and they for it (demo.c). */
bool time_on_gpu(bool (*issue)(const struct pipeline *, struct observer *),
                 const struct pipeline *p, float *ms)
{
    cudaEvent_t start = NULL, stop = NULL;
    bool ok = checkRuntime(cudaEventCreate(&start)) && checkRuntime(cudaEventCreate(&stop)) &&
              checkRuntime(cudaEventRecord(start, 0)) && issue(p, NULL) &&
              checkRuntime(cudaEventRecord(stop, 0)) && checkRuntime(cudaEventSynchronize(stop)) &&
              checkRuntime(cudaEventElapsedTime(ms, start, stop));
    ok = (!start || checkRuntime(cudaEventDestroy(start))) && ok;
    return (!stop || checkRuntime(cudaEventDestroy(stop))) && ok;
}
