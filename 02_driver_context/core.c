/*
 * 02_driver_context/core.c - the lesson itself: contexts made by hand with the Driver API,
 * next to the runtime's primary context. Read this file first; demo.c runs the story in a
 * few lines, and the lesson's program (proof/) runs the same functions step by step, then
 * prints, measures and judges what they did.
 *
 * In the order of the story:
 *   1. describe_device            after cuInit: a device is an ordinal; no context needed
 *   2. create_context             cuCtxCreate, CUDA 13's form (12's where it differs)
 *   3. stack_depth                the context stack of one host thread
 *   4. alloc_in_context, read_in_context, free_in, kernel_in_context
 *                                 cuMemAlloc's memory belongs to a context, but is not fenced
 *                                 off (cuMemCreate's and the pools' belongs to none, cuda.h)
 *   5. runtime_alloc_owner, runtime_round_trip, primary_retain_release, runtime_primary,
 *      set_device_over_stack      the runtime works in the current context, else in the
 *                                 primary one, which it shares with the Driver API
 * Every call is checked: a function returns false after checkDriver/checkRuntime printed the
 * call that failed. read_in_context returns the copy's own result, because the lesson also
 * reads a buffer from a context that does not own it, to see what happens.
 */
#include <stdint.h>

#include "core.h"

/* 1. After cuInit(0), a device is an ordinal until you ask about it; none of this needs a
 * context. */
bool describe_device(int ordinal, struct device_info *d)
{
    if (!checkDriver(cuDeviceGet(&d->dev, ordinal)))
        return false;
    if (!checkDriver(cuDeviceGetName(d->name, (int)sizeof d->name, d->dev)))
        return false;
    if (!checkDriver(
            cuDeviceGetAttribute(&d->major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d->dev)))
        return false;
    if (!checkDriver(
            cuDeviceGetAttribute(&d->minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d->dev)))
        return false;
    if (!checkDriver(
            cuDeviceGetAttribute(&d->compute_mode, CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, d->dev)))
        return false;
    if (!checkDriver(cuDeviceTotalMem(&d->total, d->dev)))
        return false;
    return checkDriver(cuDeviceGetPCIBusId(d->bus, (int)sizeof d->bus, d->dev));
}

/* 2. A context of our own, pushed on this thread's stack: current at once. CUDA 13 put a
 * CUctxCreateParams * (NULL: no execution affinity, no CIG) before the flags; the
 * three-argument call of CUDA 12 no longer compiles there. cuCtxDestroy ends it. */
CUresult create_context(CUcontext *ctx, CUdevice dev)
{
#if CUDA_VERSION >= 13000
    return cuCtxCreate(ctx, NULL, 0, dev);
#else
    return cuCtxCreate(ctx, 0, dev);
#endif
}

/* 3. The driver shows only the top of the stack (cuCtxGetCurrent). To count the entries: pop
 * until the stack is empty, then push them back in their order. */
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

/* 4. cuMemAlloc takes no context: with ctx pushed, the buffer is ctx's. Copy the host's bytes
 * in, pop: the stack is as it was. */
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

/* 4. A kernel launched with ctx pushed writes pattern `seed` over n words of a buffer that may
 * be another context's (on one GPU no peer access is needed, nor can be had); then waits for
 * it in ctx. */
bool kernel_in_context(CUcontext ctx, CUdeviceptr buf, int n, unsigned int seed)
{
    CUcontext popped;
    if (!checkDriver(cuCtxPushCurrent(ctx)))
        return false;
    bool ok = checkRuntime(launch_write_pattern((unsigned int *)(uintptr_t)buf, n, seed)) &&
              checkDriver(cuCtxSynchronize());
    return checkDriver(cuCtxPopCurrent(&popped)) && ok;
}

/* 5. cudaMalloc allocates in the context current at the call, whoever made it: the driver
 * names the owner (CU_POINTER_ATTRIBUTE_CONTEXT). */
bool runtime_alloc_owner(void **p, size_t bytes, CUcontext *owner)
{
    return checkRuntime(cudaMalloc(p, bytes)) &&
           checkDriver(cuPointerGetAttribute(owner, CU_POINTER_ATTRIBUTE_CONTEXT,
                                             (CUdeviceptr)(uintptr_t)*p));
}

/* 5b. The runtime in the current context: allocate (who owns it?), copy in, add_one<<<>>>
 * (the runtime loads the kernel into that context), wait, copy back. */
bool runtime_round_trip(void **p, CUcontext *owner, const unsigned int *in, unsigned int *out,
                        int n)
{
    size_t bytes = (size_t)n * sizeof *in;
    if (!runtime_alloc_owner(p, bytes, owner))
        return false;
    if (!checkRuntime(cudaMemcpy(*p, in, bytes, cudaMemcpyHostToDevice)))
        return false;
    if (!checkRuntime(launch_add_one(*p, n)) || !checkRuntime(cudaDeviceSynchronize()))
        return false;
    return checkRuntime(cudaMemcpy(out, *p, bytes, cudaMemcpyDeviceToHost));
}

/* 5a. The primary context through the Driver API: retaining it starts it (or counts one more
 * reference) without making it current; releasing the last reference ends it. */
bool primary_retain_release(CUdevice dev, struct primary_life *s)
{
    unsigned int flags = 0;
    if (!checkDriver(cuDevicePrimaryCtxGetState(dev, &flags, &s->active_before)) ||
        !checkDriver(cuDevicePrimaryCtxRetain(&s->primary, dev)))
        return false;
    bool ok = checkDriver(cuDevicePrimaryCtxGetState(dev, &flags, &s->active_retained)) &&
              checkDriver(cuCtxGetCurrent(&s->current));
    if (!checkDriver(cuDevicePrimaryCtxRelease(dev)))
        return false;
    return checkDriver(cuDevicePrimaryCtxGetState(dev, &flags, &s->active_released)) && ok;
}

/* 5c. With no context current, cudaSetDevice starts the device's primary context and makes it
 * current. cuDevicePrimaryCtxRetain hands the Driver API that very context; our release
 * leaves it alive, because the runtime holds a reference of its own. */
bool runtime_primary(int ordinal, CUdevice dev, struct runtime_primary *s)
{
    unsigned int flags = 0;
    double t0 = host_ms();
    if (!checkRuntime(cudaSetDevice(ordinal)))
        return false;
    s->set_ms = host_ms() - t0;
    if (!checkDriver(cuCtxGetCurrent(&s->current)) ||
        !checkDriver(cuDevicePrimaryCtxGetState(dev, &flags, &s->active_set)) ||
        !checkDriver(cuDevicePrimaryCtxRetain(&s->retained, dev)))
        return false;
    bool ok = checkDriver(cuDevicePrimaryCtxGetState(dev, &flags, &s->active_ours));
    if (!checkDriver(cuDevicePrimaryCtxRelease(dev)))
        return false;
    return checkDriver(cuDevicePrimaryCtxGetState(dev, &flags, &s->active_back)) && ok;
}

/* 5d. cudaSetDevice does not push: it makes the primary context current with cuCtxSetCurrent,
 * which replaces the top of the stack. Push a and b, call it, pop once: what comes off, and
 * what is current then? */
bool set_device_over_stack(CUcontext a, CUcontext b, int ordinal, struct replaced_top *s)
{
    if (!checkDriver(cuCtxPushCurrent(a)) || !checkDriver(cuCtxPushCurrent(b)))
        return false;
    if (!checkDriver(cuCtxGetCurrent(&s->after_push)))
        return false;
    if (!checkRuntime(cudaSetDevice(ordinal)) || !checkDriver(cuCtxGetCurrent(&s->after_set)))
        return false;
    return checkDriver(cuCtxPopCurrent(&s->popped)) && checkDriver(cuCtxGetCurrent(&s->after_pop));
}
