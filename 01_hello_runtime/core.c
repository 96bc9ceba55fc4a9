/*
 * 01_hello_runtime/core.c - the lesson itself: when the CUDA runtime creates a context, which
 * context that is (the device's primary context, shared with the Driver API), how launches
 * from C report their errors, and how the primary context lives and dies. Read this file
 * first; the rest of the folder runs these functions, watches the driver's state through the
 * Driver API, prints and checks. In step order:
 *   1. current_context                 before any call the driver is not initialised
 *   2. count_devices                   the runtime's first call: the driver, no context
 *      make_first_call                 which calls, made first, start the primary context
 *   3. make_primary_context_current    cudaSetDevice creates it and makes it current
 *      primary_context_of              the Driver API's handle on the very same context
 *   4. read_versions                   the runtime's version, the driver's, the context's
 *   5. launch_error_of                 a launch error arrives through cudaGetLastError
 *      launch_a_faulting_kernel, calls_after_a_fault   a fault arrives later, and sticks
 *   6. add_one_on_device               a kernel launched from C, through kernel.cu
 *      launch_spinning_kernel          a launch returns before its kernel ends
 *   8. record_schedule_flag, start_without_making_current, change_live_schedule
 *      library_borrows_primary_context, library_holds_primary_context,
 *      release_primary_context         the references the primary context counts
 *      reset_primary_context           the two resets; start_primary_context_again
 * Step 7 (a new thread) calls make_primary_context_current again, on its own thread.
 * Made elsewhere, and why: step 5a (steps.c) calls cudaSetDevice with a device that does not
 * exist: it shows the check macro's report of the very line it is on. The steps allocate what
 * they watch (cudaMalloc, cuMemAlloc; step 8c's next cudaMalloc too), and wait for the GPU.
 */
#include <string.h>

#include "check.h"
#include "core.h"

/* 1. Before any CUDA call: the query fails with CUDA_ERROR_NOT_INITIALIZED and leaves *ctx as
 * it was. Read the result before the output argument: a common example sets ctx to NULL,
 * ignores what cuCtxGetCurrent returns, and prints "(nil)" as if it were the answer. */
CUresult current_context(CUcontext *ctx)
{
    return cuCtxGetCurrent(ctx);
}

/* 2. The runtime's first call: counting devices initialises the driver, makes no context. */
cudaError_t count_devices(int *count)
{
    return cudaGetDeviceCount(count);
}

/* 2. Each of these, made first in a fresh process (first_calls.c starts one per call). The
 * queries need no context; the calls that need one start the primary context. */
cudaError_t make_first_call(const char *name, int device)
{
    int value = 0;
    size_t free_bytes, total_bytes;
    struct cudaDeviceProp prop;
    if (strcmp(name, "cudaRuntimeGetVersion") == 0)
        return cudaRuntimeGetVersion(&value);
    if (strcmp(name, "cudaDriverGetVersion") == 0)
        return cudaDriverGetVersion(&value);
    if (strcmp(name, "cudaGetDeviceCount") == 0)
        return cudaGetDeviceCount(&value);
    if (strcmp(name, "cudaGetDeviceProperties") == 0)
        return cudaGetDeviceProperties(&prop, device);
    if (strcmp(name, "cudaDeviceGetAttribute") == 0)
        return cudaDeviceGetAttribute(&value, cudaDevAttrMultiProcessorCount, device);
    if (strcmp(name, "cudaMemGetInfo") == 0)
        return cudaMemGetInfo(&free_bytes, &total_bytes);
    if (strcmp(name, "cudaFree(0)") == 0)
        return cudaFree(0);
    if (strcmp(name, "cudaSetDevice") == 0)
        return cudaSetDevice(device);
#if CUDART_VERSION >= 12000
    if (strcmp(name, "cudaInitDevice") == 0) /* CUDA 12.0 */
        return cudaInitDevice(device, 0, 0);
#endif
    return cudaErrorNotSupported;
}

/* 3. Since CUDA 12.0 cudaSetDevice creates the device's primary context at once (before, it
 * only recorded the choice) and makes it current on the calling thread. */
cudaError_t make_primary_context_current(int device)
{
    return cudaSetDevice(device);
}

/* 3. The Driver API's way to the same context: retain hands out the primary context and
 * counts a reference to it; release gives that reference back. */
bool primary_context_of(CUdevice dev, CUcontext *ctx)
{
    return checkDriver(cuDevicePrimaryCtxRetain(ctx, dev)) &&
           checkDriver(cuDevicePrimaryCtxRelease(dev));
}

/* 4. The runtime linked into the program, the newest CUDA the driver supports, and the
 * context's API version (of the primary context, and of NULL: the current one). */
bool read_versions(CUcontext primary, struct versions *v)
{
    return checkRuntime(cudaRuntimeGetVersion(&v->runtime)) &&
           checkRuntime(cudaDriverGetVersion(&v->driver)) &&
           checkDriver(cuCtxGetApiVersion(primary, &v->api_primary)) &&
           checkDriver(cuCtxGetApiVersion(NULL, &v->api_current));
}

/* 5b. A launch returns nothing: a launch error (a block larger than the device allows) only
 * reaches the host through cudaGetLastError, at once, without synchronising. */
cudaError_t launch_error_of(float *data, int n, int threads_per_block)
{
    launch_add_one(data, n, threads_per_block);
    return cudaGetLastError();
}

/* 5c. A kernel that faults launches fine (unless CUDA_LAUNCH_BLOCKING=1); the fault arrives
 * at the next synchronisation, and every call after it returns it too: it is sticky. */
cudaError_t launch_a_faulting_kernel(void)
{
    launch_trap();
    return cudaGetLastError();
}

void calls_after_a_fault(cudaError_t *at_sync, cudaError_t *afterwards)
{
    void *p = NULL;
    *at_sync = cudaDeviceSynchronize();
    *afterwards = cudaMalloc(&p, 16);
    if (*afterwards == cudaSuccess)
        checkRuntime(cudaFree(p));
}

/* 6. A kernel launched from C: copy in, launch through kernel.cu's extern "C" launcher, check
 * the launch, wait, copy back. The caller verifies every element on the host. */
bool add_one_on_device(float *host, int n, int threads_per_block)
{
    float *dev = NULL;
    size_t bytes = (size_t)n * sizeof *host;
    bool ok = checkRuntime(cudaMalloc((void **)&dev, bytes)) &&
              checkRuntime(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice));
    if (ok) {
        launch_add_one(dev, n, threads_per_block);
        ok = checkRuntime(cudaGetLastError()) && checkRuntime(cudaDeviceSynchronize()) &&
             checkRuntime(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost));
    }
    if (dev)
        ok = checkRuntime(cudaFree(dev)) && ok;
    return ok;
}

/* 6. A launch returns before its kernel ends: this one spins for ns nanoseconds of the GPU's
 * clock, and the host goes on at once (CUDA_LAUNCH_BLOCKING=1 makes it wait). */
cudaError_t launch_spinning_kernel(unsigned long long ns)
{
    launch_spin(ns);
    return cudaGetLastError();
}

/* 8a. Flags set while the primary context is inactive are recorded: it starts with them. */
CUresult record_schedule_flag(CUdevice dev, unsigned int flag)
{
    return cuDevicePrimaryCtxSetFlags(dev, flag);
}

/* 8a. cudaInitDevice (CUDA 12.0) starts the primary context without making it current. */
cudaError_t start_without_making_current(int device)
{
#if CUDART_VERSION >= 12000
    return cudaInitDevice(device, 0, 0);
#else
    (void)device;
    return cudaErrorNotSupported;
#endif
}

/* 8b. Set while the context is active, either API changes the live context's flags. */
bool change_live_schedule(CUdevice dev, unsigned int *after_runtime, unsigned int *after_driver)
{
    return checkRuntime(cudaSetDeviceFlags(cudaDeviceScheduleSpin)) &&
           checkDriver(cuCtxGetFlags(after_runtime)) &&
           checkDriver(cuDevicePrimaryCtxSetFlags(dev, CU_CTX_SCHED_YIELD)) &&
           checkDriver(cuCtxGetFlags(after_driver));
}

/* 8c. A library that shares the primary context: it retains it (the runtime's own context),
 * works in it, and releases exactly what it retained. */
bool library_borrows_primary_context(CUdevice dev, CUcontext *ctx)
{
    CUdeviceptr workspace = 0;
    return checkDriver(cuDevicePrimaryCtxRetain(ctx, dev)) &&
           checkDriver(cuMemAlloc(&workspace, 1 << 20)) && checkDriver(cuMemFree(workspace)) &&
           checkDriver(cuDevicePrimaryCtxRelease(dev));
}

/* 8d. The same library, holding its reference and a workspace while a reset comes. */
bool library_holds_primary_context(CUdevice dev, CUcontext *ctx, CUdeviceptr *workspace)
{
    return checkDriver(cuDevicePrimaryCtxRetain(ctx, dev)) &&
           checkDriver(cuMemAlloc(workspace, 1 << 20));
}

/* 8c, 8d. One reference given back. The last one destroys the context and everything in it;
 * with none left, the driver answers CUDA_ERROR_INVALID_CONTEXT. */
CUresult release_primary_context(CUdevice dev)
{
    return cuDevicePrimaryCtxRelease(dev);
}

/* 8d. Both resets destroy the primary context and the allocations in it, whoever still holds a
 * reference (tested: cudaMalloc's and cuMemAlloc's; its reference says cudaDeviceReset leaves
 * those of cudaMallocAsync and cudaMallocFromPoolAsync). cudaDeviceReset also drops the
 * runtime's own reference; cuDevicePrimaryCtxReset releases none ("Resetting the primary
 * context does not release it", cuda.h): whoever retained it must still release it. */
bool reset_primary_context(CUdevice dev, bool the_runtime_way)
{
    if (the_runtime_way)
        return checkRuntime(cudaDeviceReset());
    return checkDriver(cuDevicePrimaryCtxReset(dev));
}

/* After a reset the runtime's next call that needs a context starts a new primary context;
 * cudaFree(0) is such a call (cudaSetDevice of the device already set may only record it). */
cudaError_t start_primary_context_again(int device)
{
    cudaError_t err = cudaSetDevice(device);
    return err != cudaSuccess ? err : cudaFree(0);
}
