/* 03_pinned_memory/core.c - what the lesson teaches: a copy between host and device is the same
 * call whatever host memory it uses, but only page-locked (pinned) memory can be read and written
 * by the GPU's copy engines directly (DMA), at the PCIe link's rate; from pageable memory the
 * driver first copies the data through a pinned buffer of its own. Its functions, step by step:
 *   2. host_alloc, pin_in_place, unpin, host_free: pageable (malloc), pinned (cudaMallocHost),
 *      write-combined (cudaHostAlloc) and registered (malloc, then cudaHostRegister) memory;
 *      copy: cudaMemcpyAsync either way, for every kind; start_timing, stop_timing, elapsed_ms:
 *      the events around each timed copy. Step 3 times the same calls on the host clock, and
 *      step 4 times how long copy() keeps the host.
 *   5. host_alloc_mapped, mapped_pointer: host memory a kernel reaches (zero-copy); kernel_pass
 *      over it, against explicit_pass: copy in, the kernel in device memory, copy out.
 *   6. copy_both_ways: a copy to the device and one from it, in two streams, at the same time.
 *   7. driver_host_alloc, driver_pin_in_place, driver_mapped_pointer, driver_copy, driver_unpin,
 *      driver_host_free: the same memory and copies through the Driver API.
 * The other files are the apparatus (lesson.h lists them): options, the sweep, statistics, the
 * claims and the report. They call these functions and make none of these calls themselves; the
 * state queries (cuMemHostGetFlags) and the Driver API's own events stay in step7_driver_api.c. */
#define _GNU_SOURCE /* posix_memalign */
#include <stdlib.h>

#include "lesson.h"

/* ---- step 2: four kinds of host memory, one copy call ---------------------------------------- */

/* New host memory of one kind. The page-locked kinds come from the CUDA runtime, which makes
 * the pages real and locks them inside the call; pageable memory from the C library, its pages
 * made real at the first touch. Registered memory starts pageable: pin_in_place locks it. */
bool host_alloc(enum kind k, size_t bytes, void **p)
{
    *p = NULL;
    if (k == PINNED) /* the same as cudaHostAlloc(p, bytes, cudaHostAllocDefault) */
        return ALLOC(cudaMallocHost(p, bytes), "cudaMallocHost", bytes);
    if (k == WRITE_COMBINED) /* pinned, and not cached by the CPU */
        return ALLOC(cudaHostAlloc(p, bytes, cudaHostAllocWriteCombined),
                     "cudaHostAlloc(cudaHostAllocWriteCombined)", bytes);
    if (posix_memalign(p, 4096, bytes) == 0) /* page-aligned, as cudaHostRegister prefers */
        return true;
    *p = NULL;
    return pageable_failed(bytes);
}

/* Page-lock memory you already have, where it is; unpin it before free. */
bool pin_in_place(void *p, size_t bytes)
{
    return ALLOC(cudaHostRegister(p, bytes, cudaHostRegisterDefault), "cudaHostRegister", bytes);
}

bool unpin(void *p)
{
    return checkRuntime(cudaHostUnregister(p));
}

bool host_free(enum kind k, void *p)
{
    if (k == PINNED || k == WRITE_COMBINED)
        return checkRuntime(cudaFreeHost(p));
    free(p); /* pageable, or registered memory after unpin */
    return true;
}

/* One copy, queued in stream s: the same call for every kind. From pinned memory the copy engine
 * reads or writes the host's pages itself and the call returns at once; from pageable memory the
 * driver stages the data through its own pinned buffer, and the call may wait (step 4). */
cudaError_t copy(void *host, void *dev, size_t bytes, enum dir d, cudaStream_t s)
{
    if (d == H2D)
        return cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s);
    return cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, s);
}

/* How a copy is timed: an event before it and one after it in its stream. The GPU stamps each
 * event when the stream reaches it, so stop - start is the copy's time on the GPU, whatever the
 * host did meanwhile; the host reads it once the stop event has happened. */
bool start_timing(cudaEvent_t start, cudaStream_t s)
{
    return checkRuntime(cudaEventRecord(start, s));
}

bool stop_timing(cudaEvent_t stop, cudaStream_t s)
{
    return checkRuntime(cudaEventRecord(stop, s));
}

bool elapsed_ms(cudaEvent_t start, cudaEvent_t stop, double *ms)
{
    float f = 0;
    bool ok = checkRuntime(cudaEventSynchronize(stop)) &&
              checkRuntime(cudaEventElapsedTime(&f, start, stop));
    *ms = f;
    return ok;
}

/* ---- step 5: mapped (zero-copy) memory ------------------------------------------------------- */

/* Pinned host memory mapped into the GPU's address space: a kernel can load and store it over
 * PCIe, through the pointer mapped_pointer gives. Under unified addressing that is the host's own
 * pointer, except for write-combined and registered memory (cuda_runtime_api.h, "Exceptions,
 * Disjoint Addressing"): step 5 checks it. */
bool host_alloc_mapped(size_t bytes, void **host)
{
    *host = NULL;
    return ALLOC(cudaHostAlloc(host, bytes, cudaHostAllocMapped),
                 "cudaHostAlloc(cudaHostAllocMapped)", bytes);
}

bool mapped_pointer(void *host, void **dev)
{
    return checkRuntime(cudaHostGetDevicePointer(dev, host, 0));
}

/* One pass of the kernel out = 3 * in + 1 over memory where it lies: given mapped pointers, every
 * load and store crosses the link (zero-copy); given device memory, none does. */
cudaError_t kernel_pass(const uint32_t *in, uint32_t *out, size_t words, cudaStream_t s)
{
    return launch_triple_plus_one(in, out, words, s);
}

/* The same pass the explicit way: copy in, the kernel in device memory, copy out, in turn. */
cudaError_t explicit_pass(const uint32_t *in, uint32_t *out, uint32_t *dev_in, uint32_t *dev_out,
                          size_t words, cudaStream_t s)
{
    size_t bytes = words * 4;
    cudaError_t e = cudaMemcpyAsync(dev_in, in, bytes, cudaMemcpyHostToDevice, s);
    if (e == cudaSuccess)
        e = launch_triple_plus_one(dev_in, dev_out, words, s);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(out, dev_out, bytes, cudaMemcpyDeviceToHost, s);
    return e;
}

/* ---- step 6: both directions at once --------------------------------------------------------- */

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

/* ---- step 7: the Driver API ------------------------------------------------------------------ */

/* cuMemHostAlloc's flags: 0 pinned; CU_MEMHOSTALLOC_PORTABLE pinned for every context, not only
 * the current one; _DEVICEMAP mapped for kernels; _WRITECOMBINED not cached by the CPU. */
bool driver_host_alloc(void **p, size_t bytes, unsigned int flags)
{
    *p = NULL;
    return checkDriver(cuMemHostAlloc(p, bytes, flags));
}

bool driver_pin_in_place(void *p, size_t bytes)
{
    return checkDriver(cuMemHostRegister(p, bytes, 0));
}

/* The address a kernel uses. Under unified addressing cuda.h makes it the host pointer for
 * cuMemHostAlloc memory, but not for write-combined or registered memory: for those, always ask. */
bool driver_mapped_pointer(void *host, CUdeviceptr *dev)
{
    return checkDriver(cuMemHostGetDevicePointer(dev, host, 0));
}

CUresult driver_copy(void *host, CUdeviceptr dev, size_t bytes, enum dir d, CUstream s)
{
    if (d == H2D)
        return cuMemcpyHtoDAsync(dev, host, bytes, s);
    return cuMemcpyDtoHAsync(host, dev, bytes, s);
}

bool driver_unpin(void *p)
{
    return checkDriver(cuMemHostUnregister(p));
}

bool driver_host_free(void *p)
{
    return checkDriver(cuMemFreeHost(p));
}
