/*
 * 01_hello_runtime/harness/library_shutdown - the grader's side of exercise library_shutdown:
 * the application (runtime calls, a cudaMalloc buffer of fresh data) around the library's
 * lib_init() and lib_shutdown() (exercises/library_shutdown/library.c). Reports the
 * application's data read back, whether the workspace still exists, the context stack, and the
 * references to the primary context left after the application gives back the runtime's.
 * It judges nothing (grading/harness/exercise_harness.h).
 */
#include <stdint.h>
#include <stdlib.h>

#include "exercise_harness.h"
#include "library_shutdown.h"

HARNESS_FOLLOW_DEVICE_ALLOCATIONS()

/* The application's buffer after the library's shutdown: still there, still holding its data?
 * ("case0 N SUM", or "case0 lost (ERROR)"). Frees it. */
static void application_case(float *app, float *host, size_t n)
{
    for (size_t i = 0; i < n; i++)
        host[i] = -1;
    cudaError_t copied = cudaMemcpy(host, app, n * sizeof(float), cudaMemcpyDeviceToHost);
    (void)cudaGetLastError();
    if (copied == cudaSuccess)
        harness_report("case0", "%zu %.1f", n, harness_sum(host, n));
    else
        harness_report("case0", "lost (%s)", cudaGetErrorName(copied));
    if (copied == cudaSuccess)
        (void)cudaFree(app);
}

/* What the driver says of the library's workspace: no context owns it any more. */
static void workspace_report(CUdeviceptr workspace)
{
    CUcontext owner = NULL;
    CUresult r = workspace ? cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, workspace)
                           : CUDA_ERROR_NOT_FOUND;
    harness_report("workspace", "%s",
                   r == CUDA_ERROR_INVALID_VALUE ? "freed"
                   : r == CUDA_SUCCESS           ? "allocated"
                                                 : "unknown");
}

/* While the library's calls run, the application has a context of its own (*own, made on
 * device 0 here and pushed) current, above the runtime's: each call must leave the stack, the
 * primary context and the current device as it found them, which a library that sets its
 * context current, or pops one it did not push, does not. */
static bool own_context(CUcontext *own)
{
    CUdevice dev;
    if (!checkDriver(cuDeviceGet(&dev, 0)))
        return false;
#if CUDA_VERSION >= 13000
    return checkDriver(cuCtxCreate(own, NULL, 0, dev)); /* CUDA 13 signature */
#else
    return checkDriver(cuCtxCreate(own, 0, dev));
#endif
}

/* One call of the library's, its allocations followed, and "state_NAME": what it left. */
static bool library_call(const char *name, bool (*call)(struct library *), struct library *lib)
{
    struct harness_state before = harness_state_now();
    harness_device_allocs.counting = 1;
    bool ok = call(lib);
    harness_device_allocs.counting = 0;
    harness_state_check(name, &before);
    return ok;
}

/* The library's two calls, its allocations followed; reports their results and, right after
 * lib_shutdown(), before any runtime call could make a context current again, the context
 * stack: the application's context, alone. False: lib_init() failed. */
static bool library_calls(struct library *lib, CUcontext app_ctx, CUdeviceptr *workspace)
{
    CUcontext top = NULL, own = NULL;
    if (!own_context(&own))
        return false;
    bool ok = library_call("lib_init", lib_init, lib);
    harness_report("lib_init", "%s", ok ? "true" : "false");
    if (!ok) {
        harness_own_context_end(own);
        return false;
    }
    *workspace = lib->workspace; /* as lib_init() made it: a zero written there later is moot */
    CUdevice dev = lib->dev;
    ok = library_call("lib_shutdown", lib_shutdown, lib);
    harness_own_context_end(own);
    int depth = harness_stack_depth(&top);
    lib->dev = dev;
    harness_report("lib_shutdown", "%s", ok ? "true" : "false");
    harness_report("stack", "%d %s", depth,
                   !top             ? "none"
                   : top == app_ctx ? "application"
                                    : "another");
    return true;
}

int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    harness_start(argc, argv,
                  "Exercise library_shutdown: the application around lib_init() and "
                  "lib_shutdown(), reports what is left.");
    CUcontext app_ctx = NULL;
    CUdeviceptr workspace = 0;
    struct library lib = {0};
    /* asked before lib_init(): the application's buffer and its data must exist before your
     * first call (its size comes from the seed too) */
    uint32_t seed = harness_seed_now();
    size_t n = 100000 + seed % 50000, bytes = n * sizeof(float);
    float *host = malloc(bytes), *app = NULL;
    if (!host)
        return EXIT_CHECK;
    harness_fill(host, n, seed, 0);
    if (!requireRuntime(cudaSetDevice(0)) || !checkRuntime(cudaMalloc((void **)&app, bytes)) ||
        !checkRuntime(cudaMemcpy(app, host, bytes, cudaMemcpyHostToDevice)) ||
        !checkDriver(cuCtxGetCurrent(&app_ctx))) {
        free(host);
        return EXIT_CHECK;
    }
    if (library_calls(&lib, app_ctx, &workspace)) {
        /* the library's device allocations still alive (a second workspace, one kept aside) */
        int lib_allocs_left = harness_device_allocs_alive();
        application_case(app, host, n);
        workspace_report(workspace);
        harness_report("allocations_left", "%d", lib_allocs_left);
        /* only the runtime's reference is left: giving that one back deactivates the context */
        harness_report("refs_beyond_runtime", "%d", harness_primary_refs_beyond_runtime(lib.dev));
    }
    free(host);
    return harness_end(seed, true);
}
