/*
 * 02_driver_context/core.c - the lesson itself: contexts made by hand with the Driver API,
 * next to the runtime's primary context. Read this file first; the step files run these
 * functions in order, then print, measure and judge what they did.
 *
 * Functions, in the order of the steps:
 *   1. init_driver, describe_device               cuInit, then the devices (no context yet)
 *   2. create_context, destroy_context            cuCtxCreate (CUDA 13's form; 12's where
 *                                                 it differs) and cuCtxDestroy
 *   3. push_context, pop_context, set_current,    the context stack of one host thread
 *      stack_depth
 *   4. alloc_in_current, alloc_in_context,        memory belongs to a context ...
 *      read_in_context, free_in,
 *      enable_peer_access, kernel_in_context      ... but is not fenced off: a kernel in
 *                                                 ctxB writes ctxA's buffer, no peer access
 *   5. retain_primary, release_primary,           the runtime works in the current context,
 *      runtime_set_device, runtime_alloc,         else in the primary one it shares with
 *      runtime_round_trip                         the Driver API
 *   6. (a worker thread: set_current, alloc_in_current)
 *   7. (every device: create_context, alloc_in_context, read_in_context)
 *   8. (two GPUs: enable_peer_access, kernel_in_context)
 *   9. driver_entry_point, runtime_entry_point    the Driver API by name and CUDA version
 *
 * The thin functions return the call's own result, because the steps also make calls that
 * fail on purpose (a pop of an empty stack, cuMemAlloc with no context); the others return
 * false after checkDriver/checkRuntime has printed the call that failed.
 * Exceptions, made in the step files: the observing calls (cuCtxGetCurrent, cuMemGetInfo,
 * cuPointerGetAttribute, cuDevicePrimaryCtxGetState, cuCtxGetLimit), step 2's
 * cuCtxSetLimit (a probe of what a context's memory is for), step 8's copies between GPUs
 * and cudaDeviceEnablePeerAccess, and step 9's dlsym (the address to compare with).
 */
#include <stdint.h>

#include "lesson.h"

/* 1. Nothing that needs a device works before cuInit (step 1 shows which calls do). */
CUresult init_driver(void)
{
    return cuInit(0);
}

/* 1. A device is an ordinal until you ask about it; none of this needs a context. */
bool describe_device(int ordinal, struct device_info *d)
{
    if (!checkDriver(cuDeviceGet(&d->dev, ordinal)))
        return false;
    return checkDriver(cuDeviceGetName(d->name, (int)sizeof d->name, d->dev)) &&
           checkDriver(cuDeviceGetAttribute(&d->major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                            d->dev)) &&
           checkDriver(cuDeviceGetAttribute(&d->minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                            d->dev)) &&
           checkDriver(
               cuDeviceGetAttribute(&d->compute_mode, CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, d->dev)) &&
           checkDriver(cuDeviceTotalMem(&d->total, d->dev)) &&
           checkDriver(cuDeviceGetPCIBusId(d->bus, (int)sizeof d->bus, d->dev));
}

/* 2. A context of our own, pushed on this thread's stack: current at once. CUDA 13 put a
 * CUctxCreateParams * (NULL: no execution affinity, no CIG) before the flags; the
 * three-argument call of CUDA 12 no longer compiles there. */
CUresult create_context(CUcontext *ctx, CUdevice dev)
{
#if CUDA_VERSION >= 13000
    return cuCtxCreate(ctx, NULL, 0, dev);
#else
    return cuCtxCreate(ctx, 0, dev);
#endif
}

/* 2. Frees everything made in the context; if it is current, it is popped too. */
CUresult destroy_context(CUcontext ctx)
{
    return cuCtxDestroy(ctx);
}

/* 3. The top of the calling thread's stack is its current context: push puts ctx there. */
CUresult push_context(CUcontext ctx)
{
    return cuCtxPushCurrent(ctx);
}

/* 3. Takes the top off and hands it back; the one below becomes current. Empty: an error. */
CUresult pop_context(CUcontext *popped)
{
    return cuCtxPopCurrent(popped);
}

/* 3. Replaces the top of the stack (pushes only onto an empty one; NULL pops). */
CUresult set_current(CUcontext ctx)
{
    return cuCtxSetCurrent(ctx);
}

/* 3. The driver shows only the top (cuCtxGetCurrent). To count the entries: pop until the
 * stack is empty, then push them back in their order. Returns -1 if a push failed. */
int stack_depth(void)
{
    CUcontext held[16];
    int n = 0;
    while (n < 16 && cuCtxPopCurrent(&held[n]) == CUDA_SUCCESS)
        n++;
    for (int i = n - 1; i >= 0; i--)
        if (!checkDriver(cuCtxPushCurrent(held[i])))
            return -1;
    return n;
}

/* 4. An allocation belongs to the context current when it is made (none: an error). */
CUresult alloc_in_current(CUdeviceptr *p, size_t bytes)
{
    return cuMemAlloc(p, bytes);
}

/* 4. With ctx pushed: allocate, copy the host's bytes in, pop. The buffer is ctx's. */
bool alloc_in_context(CUcontext ctx, CUdeviceptr *p, const void *host, size_t bytes)
{
    CUcontext popped;
    if (!checkDriver(cuCtxPushCurrent(ctx)))
        return false;
    bool ok = checkDriver(cuMemAlloc(p, bytes)) && checkDriver(cuMemcpyHtoD(*p, host, bytes));
    return checkDriver(cuCtxPopCurrent(&popped)) && ok;
}

/* 4. With ctx pushed, copy a buffer to the host. The copy finds the buffer by its address,
 * whichever context of the process owns it (unified addressing): the copy's own result. */
CUresult read_in_context(CUcontext ctx, void *host, CUdeviceptr p, size_t bytes)
{
    CUcontext popped;
    CUresult r = cuCtxPushCurrent(ctx);
    if (r != CUDA_SUCCESS)
        return r;
    CUresult copy = cuMemcpyDtoH(host, p, bytes);
    r = cuCtxPopCurrent(&popped);
    return copy != CUDA_SUCCESS ? copy : r;
}

/* 4. Frees a buffer with its own context pushed, and forgets it. */
bool free_in(CUcontext ctx, CUdeviceptr *p)
{
    CUcontext popped;
    if (!*p)
        return true;
    bool ok = checkDriver(cuCtxPushCurrent(ctx)) && checkDriver(cuMemFree(*p)) &&
              checkDriver(cuCtxPopCurrent(&popped));
    *p = 0;
    return ok;
}

/* 4, 8. Lets the current context's kernels reach peer's memory. Only between contexts on two
 * GPUs that cuDeviceCanAccessPeer allows: on one GPU, CUDA_ERROR_PEER_ACCESS_UNSUPPORTED. */
CUresult enable_peer_access(CUcontext peer)
{
    return cuCtxEnablePeerAccess(peer, 0);
}

/* 4, 8. A kernel launched with ctx pushed writes pattern `seed` over n words of a buffer that
 * may be another context's; then waits for it in ctx. */
bool kernel_in_context(CUcontext ctx, CUdeviceptr buf, int n, unsigned int seed)
{
    CUcontext popped;
    if (!checkDriver(cuCtxPushCurrent(ctx)))
        return false;
    bool ok = checkRuntime(launch_write_pattern((unsigned int *)(uintptr_t)buf, n, seed)) &&
              checkDriver(cuCtxSynchronize());
    return checkDriver(cuCtxPopCurrent(&popped)) && ok;
}

/* 5a. Starts the device's primary context (or counts one more reference to it) without
 * making it current; the release of the last reference ends it. */
CUresult retain_primary(CUcontext *primary, CUdevice dev)
{
    return cuDevicePrimaryCtxRetain(primary, dev);
}

CUresult release_primary(CUdevice dev)
{
    return cuDevicePrimaryCtxRelease(dev);
}

/* 5c, 5d. The runtime's way in: makes the device's primary context current, by replacing the
 * top of the stack (cuCtxSetCurrent), starting the context if it has to. */
cudaError_t runtime_set_device(int device)
{
    return cudaSetDevice(device);
}

/* 5. The runtime allocates in the current context, whoever made it. */
cudaError_t runtime_alloc(void **p, size_t bytes)
{
    return cudaMalloc(p, bytes);
}

/* 5b. The runtime in the current context: allocate, copy in, add_one<<<>>> (the runtime
 * loads the kernel into that context), wait, copy back. */
bool runtime_round_trip(void **p, const unsigned int *in, unsigned int *out, int n)
{
    size_t bytes = (size_t)n * sizeof *in;
    return checkRuntime(cudaMalloc(p, bytes)) &&
           checkRuntime(cudaMemcpy(*p, in, bytes, cudaMemcpyHostToDevice)) &&
           checkRuntime(launch_add_one(*p, n)) && checkRuntime(cudaDeviceSynchronize()) &&
           checkRuntime(cudaMemcpy(out, *p, bytes, cudaMemcpyDeviceToHost));
}

#if CUDA_VERSION >= 12000
/* 9. Any Driver API function by its base name ("cuMemAlloc") and the CUDA version whose ABI
 * the caller was written for (1000 x major + 10 x minor); flags pick the default stream's
 * variant. It works before cuInit (step 1). */
CUresult driver_entry_point(const char *name, void **fn, int version, cuuint64_t flags,
                            CUdriverProcAddressQueryResult *status)
{
    return cuGetProcAddress(name, fn, version, flags, status);
}
#endif

#if CUDART_VERSION >= 12050
/* 9. The same through the runtime (CUDA 12.5): a runtime program reaches any Driver API
 * function without linking -lcuda. */
cudaError_t runtime_entry_point(const char *name, void **fn, unsigned int version,
                                unsigned long long flags,
                                enum cudaDriverEntryPointQueryResult *status)
{
    return cudaGetDriverEntryPointByVersion(name, fn, version, flags, status);
}
#endif
