/*
 * 01_hello_runtime/proof/lifecycle.c - step 8: the primary context's lifecycle.
 *
 * It runs in a child process (this program again, with --lifecycle-demo): it starts the
 * primary context in its own order and destroys it twice, which the rest of the lesson must
 * not see. The child prints what it observes and its claims; the parent counts the claims.
 * The calls that start, flag, retain, release and reset the context are core.c's; this file
 * watches their effect (cuDevicePrimaryCtxGetState, cuCtxGetFlags, cuPointerGetAttribute).
 * References: CUDA Runtime API, "Device Management" (cudaInitDevice, cudaSetDeviceFlags,
 * cudaDeviceReset); CUDA Driver API, "Primary Context Management" (cuDevicePrimaryCtxRetain,
 * cuDevicePrimaryCtxRelease, cuDevicePrimaryCtxSetFlags, cuDevicePrimaryCtxReset).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "lesson.h"

static const char *sched_name(unsigned int flags)
{
    switch (flags & CU_CTX_SCHED_MASK) {
    case CU_CTX_SCHED_SPIN: return "SCHED_SPIN";
    case CU_CTX_SCHED_YIELD: return "SCHED_YIELD";
    case CU_CTX_SCHED_BLOCKING_SYNC: return "SCHED_BLOCKING_SYNC";
    default: return "SCHED_AUTO";
    }
}

static const char *driver_name(CUresult r)
{
    const char *name = NULL;
    cuGetErrorName(r, &name);
    return name ? name : "(no name)";
}

static int primary_active(CUdevice dev)
{
    unsigned int flags;
    int active = -1;
    return checkDriver(cuDevicePrimaryCtxGetState(dev, &flags, &active)) ? active : -1;
}

/* Which context owns this allocation? CUDA_ERROR_INVALID_VALUE: none, the pointer dangles. */
static CUresult owner_of(void *p)
{
    CUcontext owner = NULL;
    return cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, (CUdeviceptr)(uintptr_t)p);
}

/* a) flags recorded before the context is active, then cudaInitDevice, then cudaSetDevice */
static bool step_8a_before_it_is_active(int device, CUdevice dev, cudaError_t *no_context)
{
    printf("   a) schedule flags set before the context is active, then cudaInitDevice\n");
    unsigned int flags = 0, ctx_flags = 0;
    int active = -1;
    if (!checkDriver(cuDevicePrimaryCtxSetFlags(dev, CU_CTX_SCHED_BLOCKING_SYNC)) ||
        !checkDriver(cuDevicePrimaryCtxGetState(dev, &flags, &active)))
        return false;
    printf("   [child] cuDevicePrimaryCtxSetFlags(SCHED_BLOCKING_SYNC) -> recorded: flags 0x%x, "
           "active = %d\n",
           flags, active);
#if CUDART_VERSION >= 12000
    CUcontext current = (CUcontext)(uintptr_t)0x5eed;
    cudaError_t init = cudaInitDevice(device, 0, 0); /* CUDA 12.0 */
    if (no_context_for_child(init)) {
        *no_context = init;
        return true;
    }
    if (!checkRuntime(init) || !checkDriver(cuCtxGetCurrent(&current)))
        return false;
    active = primary_active(dev);
    printf("   [child] cudaInitDevice(%d, 0, 0)  -> active = %d, current context = %s\n", device,
           active, current ? "not NULL" : "NULL");
    claim(active == 1 && current == NULL,
          "cudaInitDevice activated the primary context without making it current");
#else
    not_judged("built with a CUDA older than 12.0",
               "cudaInitDevice activates the context without making it current");
#endif
    cudaError_t set = cudaSetDevice(device);
    if (no_context_for_child(set)) {
        *no_context = set;
        return true;
    }
    if (!checkRuntime(set) || !checkDriver(cuCtxGetFlags(&ctx_flags)))
        return false;
    printf("   [child] cudaSetDevice(%d)         -> current; cuCtxGetFlags -> 0x%x (%s)\n", device,
           ctx_flags, sched_name(ctx_flags));
    claim((ctx_flags & CU_CTX_SCHED_MASK) == CU_CTX_SCHED_BLOCKING_SYNC,
          "the context started with the schedule flag recorded before it was active");
    return true;
}

/* b) flags set while the context is active: both APIs change the live context */
static bool step_8b_while_it_is_active(CUdevice dev)
{
    printf("   b) schedule flags set while it is active\n");
    unsigned int after_runtime = 0, after_driver = 0;
    if (!change_live_schedule(dev, &after_runtime, &after_driver))
        return false;
    printf(
        "   [child] cudaSetDeviceFlags(cudaDeviceScheduleSpin)   -> cuCtxGetFlags -> 0x%x (%s)\n",
        after_runtime, sched_name(after_runtime));
    printf(
        "   [child] cuDevicePrimaryCtxSetFlags(SCHED_YIELD)      -> cuCtxGetFlags -> 0x%x (%s)\n",
        after_driver, sched_name(after_driver));
    claim((after_runtime & CU_CTX_SCHED_MASK) == CU_CTX_SCHED_SPIN &&
              (after_driver & CU_CTX_SCHED_MASK) == CU_CTX_SCHED_YIELD,
          "set while the context is active, each call changed the live context's schedule flag");
    return true;
}

/* c) a library's references beside the runtime's own */
static bool step_8c_references(CUdevice dev)
{
    printf("   c) a library retains the primary context beside the runtime\n");
    void *app = NULL, *again = NULL;
    CUcontext lib_ctx = NULL, current = NULL;
    if (!checkRuntime(cudaMalloc(&app, 1 << 20)) || !checkDriver(cuCtxGetCurrent(&current)) ||
        !library_borrows_primary_context(dev, &lib_ctx))
        return false;
    int after_balanced = primary_active(dev);
    printf("   [child] library: retain (%s), cuMemAlloc, cuMemFree, release -> active = %d\n",
           lib_ctx == current ? "the runtime's context" : "ANOTHER context", after_balanced);
    claim(lib_ctx == current && after_balanced == 1,
          "after the library's balanced release the context stays active: the runtime holds its "
          "own reference");
    CUresult extra = cuDevicePrimaryCtxRelease(dev); /* a bug on purpose: one release too many */
    int after_extra = primary_active(dev);
    CUresult app_owner = owner_of(app);
    printf("   [child] library: one release too many -> %s, active = %d; the application's buffer: "
           "cuPointerGetAttribute -> %s\n",
           driver_name(extra), after_extra, driver_name(app_owner));
    claim(extra == CUDA_SUCCESS && after_extra == 0 && app_owner == CUDA_ERROR_INVALID_VALUE,
          "one release too many took the runtime's reference: the context and the application's "
          "buffer are gone");
    if (!checkRuntime(cudaMalloc(&again, 16)))
        return false;
    int restarted = primary_active(dev);
    printf("   [child] the runtime's next call, cudaMalloc -> cudaSuccess, active = %d\n",
           restarted);
    claim(restarted == 1, "the runtime's next call silently started a new primary context");
    return checkRuntime(cudaFree(again));
}

/* d) the two resets, each on its own: the runtime holds its reference, a library retains the
 * context beside it; each side has a buffer in it (the application's from cudaMalloc, the
 * library's from cuMemAlloc). The reset, then what is left: the buffers, the library's handles,
 * and how many references, counted by releasing until the driver answers that none is left,
 * with no call between the reset and the count that could retain the context again. */
enum { MAX_RELEASES = 4 };

static int references_left(CUdevice dev, CUresult *last)
{
    int n = 0;
    while (n < MAX_RELEASES && (*last = cuDevicePrimaryCtxRelease(dev)) == CUDA_SUCCESS)
        n++;
    return n;
}

static bool reset_with_library(CUdevice dev, bool runtime_reset, int *left, CUresult *last)
{
    void *app = NULL;
    CUcontext lib_ctx = NULL;
    CUdeviceptr lib_buf = 0;
    unsigned int version = 0;
    if (!checkRuntime(cudaMalloc(&app, 1 << 20)) ||
        !library_holds_primary_context(dev, &lib_ctx, &lib_buf))
        return false;
    const char *how = runtime_reset ? "cudaDeviceReset()" : "cuDevicePrimaryCtxReset(dev)";
    if (!reset_primary_context(dev, runtime_reset))
        return false;
    int active = primary_active(dev);
    CUresult app_owner = owner_of(app), lib_owner = owner_of((void *)(uintptr_t)lib_buf);
    CUresult lib_free = cuMemFree(lib_buf);
    CUresult lib_handle = cuCtxGetApiVersion(lib_ctx, &version);
    printf(
        "   [child] %-28s -> active = %d; cuPointerGetAttribute: application's buffer %s,\n"
        "           library's %s; library: cuMemFree -> %s, cuCtxGetApiVersion(its handle) -> %s\n",
        how, active, driver_name(app_owner), driver_name(lib_owner), driver_name(lib_free),
        driver_name(lib_handle));
    claim(active == 0 && app_owner == CUDA_ERROR_INVALID_VALUE &&
              lib_owner == CUDA_ERROR_INVALID_VALUE,
          "%s destroyed the context and both buffers in it (cudaMalloc's and cuMemAlloc's), "
          "although a library held a reference",
          how);
    claim(lib_free != CUDA_SUCCESS && lib_handle != CUDA_SUCCESS,
          "after %s the library's pointer and context handle dangle: its calls on them fail", how);
    *left = references_left(dev, last);
    printf(
        "   [child] references left: cuDevicePrimaryCtxRelease succeeded %d time(s), then returned "
        "%s\n",
        *left, driver_name(*last));
    return true;
}

static bool step_8d_resets(CUdevice dev)
{
    printf("   d) cudaDeviceReset, then cuDevicePrimaryCtxReset, each with a library holding a "
           "reference\n");
    int left = -1;
    CUresult last = CUDA_SUCCESS;
    if (!reset_with_library(dev, true, &left, &last))
        return false;
    claim(left == 1 && last == CUDA_ERROR_INVALID_CONTEXT,
          "cudaDeviceReset() also dropped the runtime's reference: only the library's was left");
    /* the runtime's next call (reset_with_library's cudaMalloc) starts a new primary context */
    if (!reset_with_library(dev, false, &left, &last))
        return false;
    claim(left == 2 && last == CUDA_ERROR_INVALID_CONTEXT,
          "cuDevicePrimaryCtxReset(dev) released no reference: the library's and the runtime's "
          "were both left");
    return true;
}

int lifecycle_child(int device)
{
    int count = 0;
    CUdevice dev;
    if (!checkRuntime(cudaGetDeviceCount(&count)) || !checkDriver(cuDeviceGet(&dev, device)))
        return EXIT_CHECK;
    cudaError_t no_context = cudaSuccess;
    if (!step_8a_before_it_is_active(device, dev, &no_context))
        return EXIT_CHECK;
    if (no_context != cudaSuccess) { /* the relay makes this the parent's not-judged claim */
        not_judged(cudaGetErrorName(no_context),
                   "the rest of step 8: the driver gave this child process "
                   "no context (another process holds the GPU, or its memory is full)");
        return EXIT_OK;
    }
    bool ok = step_8b_while_it_is_active(dev) && step_8c_references(dev) && step_8d_resets(dev);
    return ok ? EXIT_OK : EXIT_CHECK;
}

bool step_8_primary_context_lifecycle(struct lesson *L)
{
    printf("\n8. The primary context's lifecycle (in a child process, since it destroys the "
           "context)\n");
    char dev[16];
    snprintf(dev, sizeof dev, "%d", L->device);
    /* the last step: after it, this process needs no context again */
    if (!give_back_context_for_child(L))
        return false;
    int rc = run_self((char *[]){"--lifecycle-demo", "--device", dev, NULL}, NULL, NULL);
    if (rc != EXIT_OK)
        fprintf(stderr, "%s: step 8's child process exited %d\n", lesson_prog, rc);
    return rc == EXIT_OK;
}
