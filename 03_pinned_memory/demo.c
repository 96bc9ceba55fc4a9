/* 03_pinned_memory/demo.c - the lesson in one short program: the same 64 MiB copied to the GPU
 * and back, from pageable memory (malloc) and from pinned memory (cudaMallocHost), each copy
 * timed with a pair of events, the data checked on the host. Build it from this folder alone:
 *   nvcc -o demo demo.c
 * The lesson's program (make run) measures the same with medians, sizes, more kinds and claims. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "demo.h"

/* The same round trip for both kinds of memory, each copy in stream s between two events, as
 * NVIDIA's bandwidth sample times them (the GPU stamps an event when the stream reaches it):
 * fill, a warm-up copy, the timed copy to the GPU, clear, the timed copy back, every word checked.
 * ms: [to the GPU, back]. */
static bool round_trip(uint32_t *host, void *dev, size_t bytes, cudaStream_t s, cudaEvent_t start,
                       cudaEvent_t stop, float ms[2], size_t *wrong)
{
    for (size_t i = 0; i < bytes / 4; i++)
        host[i] = (uint32_t)i * 2654435761u;
    if (!checkRuntime(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice))) /* the warm-up */
        return false;
    if (!checkRuntime(cudaEventRecord(start, s)))
        return false;
    if (!checkRuntime(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s)))
        return false;
    if (!checkRuntime(cudaEventRecord(stop, s)))
        return false;
    if (!checkRuntime(cudaEventSynchronize(stop)))
        return false;
    if (!checkRuntime(cudaEventElapsedTime(&ms[0], start, stop)))
        return false;
    memset(host, 0, bytes); /* so that only the copy back can bring the data home */
    if (!checkRuntime(cudaEventRecord(start, s)))
        return false;
    if (!checkRuntime(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, s)))
        return false;
    if (!checkRuntime(cudaEventRecord(stop, s)))
        return false;
    if (!checkRuntime(cudaEventSynchronize(stop)))
        return false;
    if (!checkRuntime(cudaEventElapsedTime(&ms[1], start, stop)))
        return false;
    for (size_t i = 0; i < bytes / 4; i++)
        *wrong += host[i] != (uint32_t)i * 2654435761u;
    return true;
}

int main(void)
{
    const size_t bytes = (size_t)64 << 20;
    uint32_t *host[2] = {malloc(bytes), NULL}, *dev = NULL; /* host: [0] pageable, [1] pinned */
    cudaStream_t s = NULL;
    cudaEvent_t start = NULL, stop = NULL;
    float ms[2][2] = {{0}}; /* [pageable, pinned][to the GPU, back] */
    size_t wrong = 0;
    bool ok = false;
    if (!checkRuntime(cudaSetDevice(0)) || !host[0]) /* !host[0]: malloc had no memory */
        goto done;
    if (!checkRuntime(cudaMallocHost((void **)&host[1], bytes))) /* page-locked */
        goto done;
    if (!checkRuntime(cudaMalloc((void **)&dev, bytes)))
        goto done;
    if (!checkRuntime(cudaStreamCreate(&s)))
        goto done;
    if (!checkRuntime(cudaEventCreate(&start)))
        goto done;
    if (!checkRuntime(cudaEventCreate(&stop)))
        goto done;
    for (int k = 0; k < 2; k++) { /* the same calls for both: only the host memory differs */
        if (!round_trip(host[k], dev, bytes, s, start, stop, ms[k], &wrong))
            goto done;
        printf("%-24s to the GPU %5.1f GB/s, back %5.1f GB/s\n",
               k ? "pinned (cudaMallocHost)" : "pageable (malloc)",
               (double)bytes / (ms[k][0] * 1e6), (double)bytes / (ms[k][1] * 1e6));
    }
    ok = true;
    claim(ms[1][0] < ms[0][0] && ms[1][1] < ms[0][1], "pinned copies are faster, both ways");
    claim(wrong == 0, "the data came back intact from both kinds of memory");
done:
    ok = checkRuntime(cudaFree(dev)) && ok; /* cudaFree(NULL) and cudaFreeHost(NULL) do nothing */
    ok = checkRuntime(cudaFreeHost(host[1])) && ok;
    ok = (!start || checkRuntime(cudaEventDestroy(start))) && ok;
    ok = (!stop || checkRuntime(cudaEventDestroy(stop))) && ok;
    ok = (!s || checkRuntime(cudaStreamDestroy(s))) && ok;
    free(host[0]);
    return verdict(ok);
}
