/* 04_streams_overlap/demo.c - the idea on one page, as NVIDIA's async.cu writes it: pinned host
 * buffers; the job copied in, computed and copied out in one stream, then cut into 8 chunks with
 * chunk i's copy in, kernel and copy out in stream i; both timed with events on the GPU, and the
 * result checked on the host. It builds from this folder alone (README.md):
 *   nvcc -o demo demo.c kernel.cu
 * Exit 0 right, 1 a CUDA call or a check failed, 77 no GPU here (demo.h). */
#include <string.h>

#include "demo.h"
#include "work.h" /* launch_work: work_kernel<<<blocks, 256, 0, stream>>> (work.cuh) */

enum { N = 1 << 24, STREAMS = 8, WORK = 2000 }; /* 64 MiB each way; the kernel about a copy */
static float *in, *out, *d_in, *d_out;          /* N floats each: pinned host, device */
static cudaEvent_t start, stop;

/* The job in `chunks` chunks, chunk i in s[i]: copy in, compute, copy out. *ms between two events
 * in the legacy stream, which waits for the streams' earlier work and they for it. */
static bool timed(int chunks, const cudaStream_t *s, float *ms)
{
    size_t n = N / chunks, bytes = n * sizeof(float);
    if (!checkRuntime(cudaEventRecord(start, 0)))
        return false;
    for (int i = 0; i < chunks; i++) { /* copy in, compute, copy out: chunk i in stream s[i] */
        float *h_in = in + (size_t)i * n, *h_out = out + (size_t)i * n;
        float *dev_in = d_in + (size_t)i * n, *dev_out = d_out + (size_t)i * n;
        if (!checkRuntime(cudaMemcpyAsync(dev_in, h_in, bytes, cudaMemcpyHostToDevice, s[i])))
            return false;
        if (!checkRuntime(launch_work(dev_in, dev_out, n, WORK, s[i])))
            return false;
        if (!checkRuntime(cudaMemcpyAsync(h_out, dev_out, bytes, cudaMemcpyDeviceToHost, s[i])))
            return false;
    }
    if (!checkRuntime(cudaEventRecord(stop, 0)))
        return false;
    if (!checkRuntime(cudaEventSynchronize(stop)))
        return false;
    return checkRuntime(cudaEventElapsedTime(ms, start, stop));
}

/* Pinned host buffers (the copy engines read and write them by DMA), device buffers, the two
 * events and the streams; what was made is kept for main to release. */
static bool allocate(cudaStream_t *stream)
{
    if (!checkRuntime(cudaMallocHost((void **)&in, N * sizeof(float))))
        return false;
    if (!checkRuntime(cudaMallocHost((void **)&out, N * sizeof(float))))
        return false;
    if (!checkRuntime(cudaMalloc((void **)&d_in, N * sizeof(float))))
        return false;
    if (!checkRuntime(cudaMalloc((void **)&d_out, N * sizeof(float))))
        return false;
    if (!checkRuntime(cudaEventCreate(&start)))
        return false;
    if (!checkRuntime(cudaEventCreate(&stop)))
        return false;
    for (int i = 0; i < STREAMS; i++)
        if (!checkRuntime(cudaStreamCreate(&stream[i])))
            return false;
    return true;
}

int main(void)
{
    cudaStream_t legacy[1] = {0}, stream[STREAMS] = {0};
    float one = 0, eight = 0;
    int engines = 0, wrong = 0;
    bool ok = false;
    if (!allocate(stream))
        goto done;
    if (!checkRuntime(cudaDeviceGetAttribute(&engines, cudaDevAttrAsyncEngineCount, 0)))
        goto done;
    for (size_t i = 0; i < N; i++)
        in[i] = work_input(i);
    if (!checkRuntime(preload_work())) /* the kernel loaded now, not in the timing */
        goto done;
    if (!timed(1, legacy, &one))
        goto done;
    memset(out, 0xff, N * sizeof(float)); /* poisoned: a chunk not copied back shows */
    if (!timed(STREAMS, stream, &eight))
        goto done;
    for (size_t i = 0; i < N; i += 1021) /* the host's fmaf, bit for bit */
        wrong += memcmp(&out[i], &(float){work_on_host(in[i], WORK)}, sizeof(float)) != 0;
    printf(
        "%d copy engines; 64 MiB in, computed, out: in 1 stream %.2f ms, in %d streams %.2f ms\n",
        engines, one, STREAMS, eight);
    ok = claim(wrong == 0, "the streams' result is the host's (every 1021st element compared)");
    ok = claim(eight < one, "faster in streams: their copies and kernels overlapped") && ok;
done:
    for (int i = 0; i < STREAMS; i++)
        ok = (!stream[i] || checkRuntime(cudaStreamDestroy(stream[i]))) && ok;
    ok = (!start || checkRuntime(cudaEventDestroy(start))) && ok;
    ok = (!stop || checkRuntime(cudaEventDestroy(stop))) && ok;
    ok = checkRuntime(cudaFree(d_in)) && ok;
    ok = checkRuntime(cudaFree(d_out)) && ok;
    ok = checkRuntime(cudaFreeHost(in)) && ok;
    ok = checkRuntime(cudaFreeHost(out)) && ok;
    return verdict(ok);
}
