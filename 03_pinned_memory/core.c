/* 03_pinned_memory/core.c - what the lesson teaches, the way NVIDIA's bandwidth sample shows it:
 * the same cudaMemcpyAsync from pageable memory (malloc) and from page-locked, "pinned" memory
 * (cudaMallocHost, cudaHostAlloc, or malloc'd memory pinned with cudaHostRegister), each copy
 * timed with a pair of events. The GPU's copy engines read and write pinned memory directly
 * (DMA), at the link's rate; from pageable memory the driver first copies the data through a
 * pinned buffer of its own (it "stages" it), and the call may keep the host until it is done.
 *   host_alloc, host_free       the four kinds of host memory the sweep copies (step 2)
 *   mapped_alloc                mapped memory: pinned or registered, with its device address
 *   timed_copies, copies_ms     copies between two events: their time on the GPU (step 2)
 *   call_ms                     how long cudaMemcpyAsync keeps the host (step 4)
 *   mapped_pass, explicit_pass  a kernel over mapped host memory (zero-copy) against copy in,
 *                               the kernel, copy out (step 5)
 *   copy_both_ways              a copy up and one down at the same time, in two streams (step 6)
 *   driver_host_alloc, _free    the Driver API's pinned memory (step 7)
 * The instrument in proof/ measures, checks and judges: it calls these, and CUDA by its names. */
#define _GNU_SOURCE /* posix_memalign */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core.h"

/* ---- the four kinds of host memory ---------------------------------------------------------- */

/* New host memory of one kind. The page-locked kinds come from the CUDA runtime, which makes the
 * pages real and locks them inside the call; pageable memory from the C library (page-aligned,
 * as cudaHostRegister prefers), its pages made real at the first touch. Registered memory starts
 * pageable: touched, then cudaHostRegister locks it where it is; host_free unregisters it.
 * `flags`: cudaHostAlloc's or cudaHostRegister's beyond the kind's own (0, or mapped_alloc's). */
cudaError_t host_alloc(enum kind k, size_t bytes, unsigned int flags, void **p)
{
    *p = NULL;
    if (k == PINNED) /* cudaMallocHost is cudaHostAlloc with cudaHostAllocDefault */
        return flags ? cudaHostAlloc(p, bytes, flags) : cudaMallocHost(p, bytes);
    if (k == WRITE_COMBINED) /* pinned, and not cached by the CPU */
        return cudaHostAlloc(p, bytes, cudaHostAllocWriteCombined | flags);
    if (posix_memalign(p, 4096, bytes) != 0 || k == PAGEABLE)
        return *p ? cudaSuccess : cudaErrorMemoryAllocation;
    memset(*p, 0, bytes); /* registered: its pages made real, then locked where they are */
    cudaError_t err = cudaHostRegister(*p, bytes, cudaHostRegisterDefault | flags);
    if (err != cudaSuccess) {
        free(*p);
        *p = NULL;
    }
    return err;
}

cudaError_t host_free(enum kind k, void *p)
{
    if (k == PINNED || k == WRITE_COMBINED)
        return cudaFreeHost(p);
    cudaError_t err = k == REGISTERED && p ? cudaHostUnregister(p) : cudaSuccess;
    free(p);
    return err;
}

/* Mapped memory (step 5): page-locked host memory a kernel reaches across the link, at the device
 * address cudaHostGetDevicePointer gives: cudaHostAlloc with cudaHostAllocMapped (PINNED or
 * WRITE_COMBINED), or malloc'd memory registered with cudaHostRegisterMapped (REGISTERED). That
 * address is the host pointer where every visible device can use host pointers for registered
 * memory (cudaDevAttrCanUseHostPointerForRegisteredMem), and one of its own where one cannot.
 * host_free(k, *host) frees it. */
cudaError_t mapped_alloc(enum kind k, size_t bytes, void **host, void **dev)
{
    cudaError_t err =
        host_alloc(k, bytes, k == REGISTERED ? cudaHostRegisterMapped : cudaHostAllocMapped, host);
    if (err == cudaSuccess && (err = cudaHostGetDevicePointer(dev, *host, 0)) != cudaSuccess) {
        (void)host_free(k, *host);
        *host = NULL;
    }
    return err;
}

/* ---- a copy, timed ---------------------------------------------------------------------------- */

/* `count` copies of `bytes` in stream s, direction d, between two events, as the bandwidth sample
 * times them: the GPU stamps each event when the stream reaches it, so stop - start is the
 * copies' time on the GPU, whatever the host did meanwhile. The same calls for every kind of host
 * memory; step 2's sweep times each of its copies so (count 1), and its batches (count 10). */
bool timed_copies(void *host, void *dev, size_t bytes, enum dir d, int count, cudaStream_t s,
                  cudaEvent_t start, cudaEvent_t stop)
{
    if (!checkRuntime(cudaEventRecord(start, s)))
        return false;
    for (int i = 0; i < count; i++)
        if (!checkRuntime(d == H2D ? cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s)
                                   : cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, s)))
            return false;
    return checkRuntime(cudaEventRecord(stop, s));
}

/* The time between the two events, in ms, once the stream has passed `stop`. */
bool copies_ms(cudaEvent_t start, cudaEvent_t stop, float *ms)
{
    return checkRuntime(cudaEventSynchronize(stop)) &&
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
    bool ok = checkRuntime(cudaStreamWaitEvent(s_down, begin, 0));
    ok = ok && checkRuntime(cudaMemcpyAsync(dev_up, up, bytes, cudaMemcpyHostToDevice, s_up));
    ok = ok && checkRuntime(cudaMemcpyAsync(down, dev_down, bytes, cudaMemcpyDeviceToHost, s_down));
    ok = ok && checkRuntime(cudaEventRecord(down_done, s_down));
    return ok && checkRuntime(cudaStreamWaitEvent(s_up, down_done, 0));
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
    if (host_alloc(PAGEABLE, bytes, 0, p) != cudaSuccess)
        return CUDA_ERROR_OUT_OF_MEMORY;
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
