/*
 * 04_streams_overlap/core.c - the idea of the lesson: copies in, a kernel and copies out, cut
 * into chunks and spread over streams, so that the copy engines and the SMs work at once.
 * Everything else in the lesson (measuring, the model, the claims) calls these functions; the
 * calls they make (cudaMallocHost, cudaStreamCreate*, cudaMemcpyAsync, the kernel's launch, the
 * memset in the legacy stream, cuStreamCreate, cuMemcpy*Async, cuLaunchKernel) are made here
 * and nowhere else in the lesson's own files.
 *
 * In the order of the steps:
 *   buffers_alloc, buffers_free     pinned host memory, which the copy engines can DMA
 *   streams_create, streams_destroy blocking, non-blocking, or through the Driver API
 *   chunk_op                        one operation of one chunk in a stream (step 1 times each
 *                                   stage alone with it; the pipelines below are made of it)
 *   pipeline_sequential             step 2: everything in one stream, one after the other
 *   pipeline_per_stream             step 3: chunk i's copy in, kernel, copy out in stream i
 *   pipeline_by_stage               step 3: every copy in, then every kernel, then every copy out
 *   pipeline_with_legacy_memset     step 5b: a library's memset in the legacy default stream
 *                                   between the chunks joins blocking streams into one line
 *   pipeline_driver_api             step 8: the per-stream pipeline through the Driver API
 * Each pipeline takes an optional struct pipeline_events (core.h): the apparatus times every
 * operation with it, so there is one copy of each loop. Left to the apparatus, as observers:
 * events (create, record a common start, elapsed time, wait), step 8's cuStreamWaitEvent on
 * that common start, the gate that holds each timed repetition (common/gate.h), and the
 * synchronous cudaMemset that poisons the output before a checked run.
 */
#include "core.h"
#include "work.h"

bool buffers_alloc(struct pipeline *p)
{
    size_t bytes = p->n * sizeof(float);
    return checkRuntime(cudaMallocHost((void **)&p->host_in, bytes)) &&
           checkRuntime(cudaMallocHost((void **)&p->host_out, bytes)) &&
           checkRuntime(cudaMalloc((void **)&p->dev_in, bytes)) &&
           checkRuntime(cudaMalloc((void **)&p->dev_out, bytes)) &&
           checkRuntime(cudaMalloc((void **)&p->dev_counter, sizeof(int)));
}

/* What buffers_alloc made (a NULL pointer was not made); false when a release failed. */
bool buffers_free(struct pipeline *p)
{
    bool ok = true;
    ok = (!p->dev_counter || checkRuntime(cudaFree(p->dev_counter))) && ok;
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

/* Chunk i's copy in, kernel or copy out, queued in stream s: the call returns at once. With
 * events, one before the copy in and one after each operation, in the same stream. */
bool chunk_op(const struct pipeline *p, int op, int i, cudaStream_t s,
              const struct pipeline_events *ev)
{
    size_t at, n;
    pipeline_chunk(p, i, &at, &n);
    float *d_in = p->dev_in + at, *d_out = p->dev_out + at;
    size_t bytes = n * sizeof(float);
    if (ev && op == OP_H2D && !checkRuntime(cudaEventRecord(ev->at[i][0], s)))
        return false;
    bool ok;
    if (op == OP_H2D)
        ok = checkRuntime(cudaMemcpyAsync(d_in, p->host_in + at, bytes, cudaMemcpyHostToDevice, s));
    else if (op == OP_KERNEL)
        ok = checkRuntime(launch_work(d_in, d_out, n, p->work, s));
    else
        ok = checkRuntime(
            cudaMemcpyAsync(p->host_out + at, d_out, bytes, cudaMemcpyDeviceToHost, s));
    return ok && (!ev || checkRuntime(cudaEventRecord(ev->at[i][1 + op], s)));
}

/* Step 2: the whole job in one stream, p->stream[0]: each operation waits for the one before. */
bool pipeline_sequential(const struct pipeline *p, const struct pipeline_events *ev)
{
    cudaStream_t s = p->stream[0];
    size_t bytes = p->n * sizeof(float);
    return (!ev || checkRuntime(cudaEventRecord(ev->at[0][0], s))) &&
           checkRuntime(cudaMemcpyAsync(p->dev_in, p->host_in, bytes, cudaMemcpyHostToDevice, s)) &&
           (!ev || checkRuntime(cudaEventRecord(ev->at[0][1], s))) &&
           checkRuntime(launch_work(p->dev_in, p->dev_out, p->n, p->work, s)) &&
           (!ev || checkRuntime(cudaEventRecord(ev->at[0][2], s))) &&
           checkRuntime(
               cudaMemcpyAsync(p->host_out, p->dev_out, bytes, cudaMemcpyDeviceToHost, s)) &&
           (!ev || checkRuntime(cudaEventRecord(ev->at[0][3], s)));
}

/* Step 3, "per stream": chunk 1's copy in, kernel, copy out, then chunk 2's, ... each chunk in
 * its own stream. Within a stream the three run in order; streams have no order between them. */
bool pipeline_per_stream(const struct pipeline *p, const struct pipeline_events *ev)
{
    for (int i = 0; i < p->streams; i++)
        for (int op = OP_H2D; op < OPS; op++)
            if (!chunk_op(p, op, i, p->stream[i], ev))
                return false;
    return true;
}

/* Step 3, "by stage": the same operations in the same streams, issued in another order. */
bool pipeline_by_stage(const struct pipeline *p, const struct pipeline_events *ev)
{
    for (int op = OP_H2D; op < OPS; op++)
        for (int i = 0; i < p->streams; i++)
            if (!chunk_op(p, op, i, p->stream[i], ev))
                return false;
    return true;
}

/* A library's call that uses the legacy default stream (stream 0, NULL): a 4-byte memset. */
bool library_memset(const struct pipeline *p)
{
    return checkRuntime(cudaMemsetAsync(p->dev_counter, 0, sizeof(int), 0));
}

/* Step 5b: per stream, with the library's memset after each chunk's work but the last. In the
 * legacy stream it waits for all earlier work of every blocking stream, and their later work
 * waits for it: the chunks run one after another again. */
bool pipeline_with_legacy_memset(const struct pipeline *p, const struct pipeline_events *ev)
{
    for (int i = 0; i < p->streams; i++)
        for (int op = OP_H2D; op < OPS; op++)
            if (!chunk_op(p, op, i, p->stream[i], ev) ||
                (op == OP_D2H && i + 1 < p->streams && !library_memset(p)))
                return false;
    return true;
}

/* Step 8: pipeline_per_stream through the Driver API, in streams from streams_create(...,
 * DRIVER_NON_BLOCKING); `kernel` is the lesson's kernel as a CUfunction. With `with_memset`,
 * the library's legacy-stream memset after each chunk but the last, as in step 5b. One event
 * per chunk, at[i][3], after its copy out (one per operation changes what a queue waits for:
 * README, step 6). */
bool pipeline_driver_api(const struct pipeline *p, CUfunction kernel, bool with_memset,
                         const struct pipeline_events *ev)
{
    for (int i = 0; i < p->streams; i++) {
        size_t at, n;
        pipeline_chunk(p, i, &at, &n);
        CUstream s = p->stream[i];
        CUdeviceptr d_in = (uintptr_t)(p->dev_in + at), d_out = (uintptr_t)(p->dev_out + at);
        void *params[] = {&d_in, &d_out, &n, (void *)&p->work}; /* the kernel's parameters */
        if (!checkDriver(cuMemcpyHtoDAsync(d_in, p->host_in + at, n * sizeof(float), s)) ||
            !checkDriver(
                cuLaunchKernel(kernel, (n + 255) / 256, 1, 1, 256, 1, 1, 0, s, params, NULL)) ||
            !checkDriver(cuMemcpyDtoHAsync(p->host_out + at, d_out, n * sizeof(float), s)) ||
            (ev && !checkDriver(cuEventRecord(ev->at[i][3], s))) ||
            (with_memset && i + 1 < p->streams && !library_memset(p)))
            return false;
    }
    return true;
}
