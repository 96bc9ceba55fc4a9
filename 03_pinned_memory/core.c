/* 03_pinned_memory/core.c - what the lesson teaches, the way NVIDIA's bandwidth sample shows it:
 * the same cudaMemcpyAsync from pageable memory (malloc) and from page-locked, "pinned" memory
 * (cudaMallocHost, cudaHostAlloc, or malloc'd memory pinned with cudaHostRegister), each copy
 * timed with a pair of events. The GPU's copy engines read and write pinned memory directly
 * (DMA), at the link's rate; from pageable memory the driver first copies the data through a
 * pinned buffer of its own (it "stages" it), and the call may keep the host until it is done.
 *   host_alloc, host_free       the four kinds of host memory (step 2; the demo uses two)
 *   copy_ms                     one copy between two events: its time on the GPU (the demo)
 *   call_ms                     how long cudaMemcpyAsync keeps the host (step 4)
 *   mapped_pass, explicit_pass  a kernel over mapped host memory (zero-copy) against copy in,
 *                               the kernel, copy out (step 5)
 *   copy_both_ways              a copy up and one down at the same time, in two streams (step 6)
 *   driver_host_alloc, _free    the Driver API's pinned memory (step 7)
 * The instrument in proof/ measures, checks and judges: it calls these, and CUDA by its names. */
#define _GNU_SOURCE /* posix_memalign */
#include <stdlib.h>

#include "check.h"
#include "core.h"

/* ---- the four kinds of host memory ---------------------------------------------------------- */

/* New host memory of one kind. The page-locked kinds come from the CUDA runtime, which makes the
 * pages real and locks them inside the call; pageable memory from the C library, its pages made
 * real at the first touch. Registered memory starts pageable: cudaHostRegister locks it where it
 * is, and cudaHostUnregister must release it before host_free. */
cudaError_t host_alloc(enum kind k, size_t bytes, void **p)
{
    *p = NULL;
    if (k == PINNED) /* the same as cudaHostAlloc(p, bytes, cudaHostAllocDefault) */
        return cudaMallocHost(p, bytes);
    if (k == WRITE_COMBINED) /* pinned, and not cached by the CPU */
        return cudaHostAlloc(p, bytes, cudaHostAllocWriteCombined);
    if (posix_memalign(p, 4096, bytes) == 0) /* page-aligned, as cudaHostRegister prefers */
        return cudaSuccess;
    *p = NULL;
    return cudaErrorMemoryAllocation; /* the C library had none */
}

cudaError_t host_free(enum kind k, void *p)
{
    if (k == PINNED || k == WRITE_COMBINED)
        return cudaFreeHost(p);
    free(p); /* pageable, or registered memory after cudaHostUnregister */
    return cudaSuccess;
}

/* ---- a copy, timed ---------------------------------------------------------------------------- */

/* One copy in stream s between two events, as the bandwidth sample times it: the GPU stamps each
 * event when the stream reaches it, so stop - start is the copy's time on the GPU, whatever the
 * host did meanwhile. The same call for every kind of host memory. */
bool copy_ms(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind, cudaStream_t s,
             cudaEvent_t start, cudaEvent_t stop, float *ms)
{
    return checkRuntime(cudaEventRecord(start, s)) &&
           checkRuntime(cudaMemcpyAsync(dst, src, bytes, kind, s)) &&
           checkRuntime(cudaEventRecord(stop, s)) && checkRuntime(cudaEventSynchronize(stop)) &&
           checkRuntime(cudaEventElapsedTime(ms, start, stop));
}

/* How long cudaMemcpyAsync keeps the host (returned_ms) against the copy's whole time (done_ms),
 * on the host's clock. From pinned memory the copy engine takes the pages itself and the call
 * returns at once; from pageable memory the driver stages the data, and NVIDIA's Runtime API
 * documentation says it "may synchronize with the stream" to do so: the call may wait. */
bool call_ms(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind, cudaStream_t s,
             double *returned_ms, double *done_ms)
{
    double t0 = host_ms();
    if (!checkRuntime(cudaMemcpyAsync(dst, src, bytes, kind, s)))
        return false;
    *returned_ms = host_ms() - t0;
    bool ok = checkRuntime(cudaStreamSynchronize(s));
    *done_ms = host_ms() - t0;
    return ok;
}

/* ---- mapped (zero-copy) memory ----------------------------------------------------------------- */

/* One pass of the kernel out = 3 * in + 1 over pinned host memory allocated mapped
 * (cudaHostAlloc(..., cudaHostAllocMapped)): every load and store crosses the link, no copy at
 * all. The kernel takes the addresses cudaHostGetDevicePointer gives. */
bool mapped_pass(const uint32_t *host_in, uint32_t *host_out, size_t words, cudaStream_t s)
{
    void *in = NULL, *out = NULL;
    return checkRuntime(cudaHostGetDevicePointer(&in, (void *)host_in, 0)) &&
           checkRuntime(cudaHostGetDevicePointer(&out, host_out, 0)) &&
           checkRuntime(launch_triple_plus_one(in, out, words, s));
}

/* The same pass the explicit way: copy in, the kernel in device memory, copy out, in turn. */
bool explicit_pass(const uint32_t *in, uint32_t *out, uint32_t *dev_in, uint32_t *dev_out,
                   size_t words, cudaStream_t s)
{
    size_t bytes = words * 4;
    return checkRuntime(cudaMemcpyAsync(dev_in, in, bytes, cudaMemcpyHostToDevice, s)) &&
           checkRuntime(launch_triple_plus_one(dev_in, dev_out, words, s)) &&
           checkRuntime(cudaMemcpyAsync(out, dev_out, bytes, cudaMemcpyDeviceToHost, s));
}

/* ---- both directions at once ---------------------------------------------------------------- */

/* The copy up in stream s_up, the copy down in s_down. s_down starts at `begin` (an event just
 * recorded in s_up) and s_up waits for `down_done`, so that work queued in s_up afterwards (the
 * stop event) comes after both. With two copy engines the two copies run at the same time. */
bool copy_both_ways(void *up, void *dev_up, void *down, void *dev_down, size_t bytes,
                    cudaStream_t s_up, cudaStream_t s_down, cudaEvent_t begin,
                    cudaEvent_t down_done)
{
    return checkRuntime(cudaStreamWaitEvent(s_down, begin, 0)) &&
           checkRuntime(cudaMemcpyAsync(dev_up, up, bytes, cudaMemcpyHostToDevice, s_up)) &&
           checkRuntime(cudaMemcpyAsync(down, dev_down, bytes, cudaMemcpyDeviceToHost, s_down)) &&
           checkRuntime(cudaEventRecord(down_done, s_down)) &&
           checkRuntime(cudaStreamWaitEvent(s_up, down_done, 0));
}

/* ---- the Driver API ------------------------------------------------------------------------- */

/* The same pinned memory one level down. cuMemHostAlloc's flags: 0 pinned;
 * CU_MEMHOSTALLOC_PORTABLE pinned for every context, not only the current one; _DEVICEMAP mapped
 * for kernels; _WRITECOMBINED not cached by the CPU. in_place: malloc'd memory page-locked where
 * it is by cuMemHostRegister (flags: CU_MEMHOSTREGISTER_*), unregistered before free. */
CUresult driver_host_alloc(void **p, size_t bytes, unsigned int flags, bool in_place)
{
    *p = NULL;
    if (!in_place)
        return cuMemHostAlloc(p, bytes, flags);
    if (posix_memalign(p, 4096, bytes) != 0) {
        *p = NULL;
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    CUresult r = cuMemHostRegister(*p, bytes, flags);
    if (r != CUDA_SUCCESS) {
        free(*p);
        *p = NULL;
    }
    return r;
}

CUresult driver_host_free(void *p, bool in_place)
{
    if (!in_place)
        return cuMemFreeHost(p);
    CUresult r = cuMemHostUnregister(p);
    free(p);
    return r;
}
