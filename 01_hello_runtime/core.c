/*
 * 01_hello_runtime/core.c - the lesson itself: when the CUDA runtime creates a context, which
 * context that is (the device's primary context, shared with the Driver API), how launches
 * from C report their errors, and how the primary context lives and dies. Read this file
 * first; demo.c tells its story in one page, and proof/ runs these functions step by step,
 * watches the driver's state, prints and checks. In the order of the story:
 *   look_at_contexts                  what the Driver API sees; its queries start nothing
 *   before_any_call                   1. the driver is not initialised: no context
 *   after_first_runtime_call          2. cudaGetDeviceCount initialises it, makes no context
 *   after_first_call_that_needs_a_context   3. cudaSetDevice makes the primary context current
 *   primary_context_of                3. the Driver API's handle on the very same context
 *   read_versions                     4. the runtime's version, the driver's, the context's
 *   calls_after_a_fault               5. a fault arrives at synchronisation, and sticks
 *   add_one_on_device                 6. a kernel launched from C, through kernel.cu
 *   change_live_schedule              8. flags set while the context is active
 *   library_borrows_primary_context, library_holds_primary_context   8. a library's reference
 *   reset_primary_context             8. the two resets
 * The instrument (proof/) calls CUDA by name where a step is one call: step 2's first calls in
 * their child processes, step 5's launches and cudaGetLastError, step 7's cudaSetDevice on a
 * new thread, step 8's cuDevicePrimaryCtxSetFlags, cudaInitDevice, cuDevicePrimaryCtxRelease,
 * and after a reset cudaSetDevice, which starts the primary context again at once.
 */
#include "check.h"
#include "core.h"

/* The Driver API's view of device `device`: the current context and whether the device's
 * primary context is active. Before the driver is initialised cuCtxGetCurrent fails with
 * CUDA_ERROR_NOT_INITIALIZED and leaves v->current as it was: read the result before the
 * output argument (a common example sets ctx to NULL, ignores the result and prints "(nil)"). */
CUresult look_at_contexts(int device, struct context_view *v)
{
    CUdevice dev;
    unsigned int flags;
    v->active = -1;
    v->query = cuCtxGetCurrent(&v->current);
    if (v->query != CUDA_SUCCESS)
        return v->query;
    CUresult r = cuDeviceGet(&dev, device);
    return r != CUDA_SUCCESS ? r : cuDevicePrimaryCtxGetState(dev, &flags, &v->active);
}

/* 1. Before any CUDA call: cuCtxGetCurrent answers CUDA_ERROR_NOT_INITIALIZED and leaves
 * v->current as it was (the marker). Returns what it answered. */
CUresult before_any_call(struct context_view *v)
{
    v->current = CONTEXT_MARKER;
    return look_at_contexts(0, v);
}

/* 2. The runtime's first call: cudaGetDeviceCount initialises the driver and makes no context:
 * afterwards cuCtxGetCurrent succeeds with NULL and the primary context is inactive. */
cudaError_t after_first_runtime_call(int device, int *count, struct context_view *v)
{
    cudaError_t err = cudaGetDeviceCount(count);
    v->current = CONTEXT_MARKER;
    v->seen = err == cudaSuccess && device < *count &&
              checkDriver(look_at_contexts(device, v)); /* device past the count: not looked */
    return err;
}

/* 3. The first call that needs a context: since CUDA 12.0 cudaSetDevice creates the device's
 * primary context at once (before, it only recorded the choice, and cudaFree(0) was the usual
 * first call) and makes it current on this thread: the context cuDevicePrimaryCtxRetain hands
 * out. Creating it is the cost of the first call (v->call_ms). */
cudaError_t after_first_call_that_needs_a_context(int device, struct context_view *v,
                                                  CUcontext *retained)
{
    CUdevice dev;
    double t0 = host_ms();
    cudaError_t err = cudaSetDevice(device);
    v->call_ms = host_ms() - t0;
    v->seen = err == cudaSuccess && checkDriver(look_at_contexts(device, v)) &&
              checkDriver(cuDeviceGet(&dev, device)) && primary_context_of(dev, retained);
    return err;
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
    if (!checkRuntime(cudaRuntimeGetVersion(&v->runtime)))
        return false;
    if (!checkRuntime(cudaDriverGetVersion(&v->driver)))
        return false;
    if (!checkDriver(cuCtxGetApiVersion(primary, &v->api_primary)))
        return false;
    return checkDriver(cuCtxGetApiVersion(NULL, &v->api_current));
}

/* 5c. A kernel that faults launches fine (unless CUDA_LAUNCH_BLOCKING=1); the fault arrives
 * at the next synchronisation, and every call after it returns it too: it is sticky. */
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

/* 8b. Set while the context is active, either API changes the live context's flags. */
bool change_live_schedule(CUdevice dev, unsigned int *after_runtime, unsigned int *after_driver)
{
    if (!checkRuntime(cudaSetDeviceFlags(cudaDeviceScheduleSpin)))
        return false;
    if (!checkDriver(cuCtxGetFlags(after_runtime)))
        return false;
    if (!checkDriver(cuDevicePrimaryCtxSetFlags(dev, CU_CTX_SCHED_YIELD)))
        return false;
    return checkDriver(cuCtxGetFlags(after_driver));
}

/* 8c. A library that shares the primary context: it retains it (the runtime's own context),
 * works in it, and releases exactly what it retained. */
bool library_borrows_primary_context(CUdevice dev, CUcontext *ctx)
{
    CUdeviceptr workspace = 0;
    if (!checkDriver(cuDevicePrimaryCtxRetain(ctx, dev)))
        return false;
    bool ok = checkDriver(cuMemAlloc(&workspace, 1 << 20));
    if (ok)
        ok = checkDriver(cuMemFree(workspace));
    return checkDriver(cuDevicePrimaryCtxRelease(dev)) && ok;
}

/* 8d. The same library, holding its reference and a workspace while a reset comes. */
bool library_holds_primary_context(CUdevice dev, CUcontext *ctx, CUdeviceptr *workspace)
{
    return checkDriver(cuDevicePrimaryCtxRetain(ctx, dev)) &&
           checkDriver(cuMemAlloc(workspace, 1 << 20));
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
