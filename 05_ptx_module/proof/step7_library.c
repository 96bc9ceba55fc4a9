/* 05_ptx_module/step7_library.c - step 7: one load for every context. A module (cuModuleLoad*)
 * is loaded into the current context and serves that context only; a library (core.c:
 * load_library, then cuKernelGetFunction; CUDA 12.0) is loaded once and serves every context that
 * exists and every one created later, on every device. The runtime has the same since CUDA 12.8
 * (runtime_library_axpy), so it can load PTX too; and cudaGetKernel / cudaGetFuncBySymbol
 * (called by their names) go the other way, from a kernel compiled into the
 * program to handles the Driver API can query and launch. The contexts themselves (cuCtxCreate,
 * the primary contexts) are lesson 02's, made here. */
#include <stdio.h>
#include <stdlib.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "embedded.h"
#include "ptx_module.h"

enum { SMALL = 4096, MAX_CONTEXTS = 18 };

/* axpy on SMALL floats in the current context, with buffers of its own: the number wrong, or
 * -1 when a call failed (*launch holds cuLaunchKernel's result, reported by the caller). */
static int small_axpy(CUfunction f, CUresult *launch)
{
    float x[SMALL], y[SMALL];
    int wrong = -1;
    for (int i = 0; i < SMALL; i++)
        x[i] = (float)(i % 100), y[i] = 1.0f;
    CUdeviceptr dx = 0, dy = 0;
    *launch = CUDA_SUCCESS;
    if (checkDriver(cuMemAlloc(&dx, sizeof x)) && checkDriver(cuMemAlloc(&dy, sizeof y)) &&
        checkDriver(cuMemcpyHtoD(dx, x, sizeof x)) && checkDriver(cuMemcpyHtoD(dy, y, sizeof y))) {
        *launch = launch_axpy(f, AXPY_A, dx, dy, SMALL);
        if (*launch == CUDA_SUCCESS && checkDriver(cuCtxSynchronize()) &&
            checkDriver(cuMemcpyDtoH(y, dy, sizeof y))) {
            wrong = 0;
            for (int i = 0; i < SMALL; i++)
                wrong += y[i] != AXPY_A * x[i] + 1.0f;
        }
    }
    if (dx)
        checkDriver(cuMemFree(dx));
    if (dy)
        checkDriver(cuMemFree(dy));
    return wrong;
}

#if CUDA_VERSION >= 12000
/* A new user context on the device, left not current (cuCtxCreate pushes it; pop it again). */
static bool new_context(CUdevice dev, CUcontext *ctx)
{
    CUcontext popped;
#if CUDA_VERSION >= 13000
    return checkDriver(cuCtxCreate(ctx, NULL, 0, dev)) && checkDriver(cuCtxPopCurrent(&popped));
#else
    return checkDriver(cuCtxCreate(ctx, 0, dev)) && checkDriver(cuCtxPopCurrent(&popped));
#endif
}

/* a) a module serves its own context only: step 2's module in the user context ctx[n - 1]. */
static bool module_in_another_context(struct lesson *L, CUcontext other)
{
    CUresult launch = CUDA_SUCCESS;
    int wrong = -1;
    bool ok = checkDriver(cuCtxSetCurrent(other));
    if (ok)
        small_axpy(L->fn[M_FATBIN], &launch);
    printf(
        "   a) the fatbin's module, loaded in step 2 into the primary context, launched in a user\n"
        "      context created since: cuLaunchKernel -> %s (%d)\n",
        cu_name(launch), (int)launch);
    claim(launch != CUDA_SUCCESS,
          "a module's function does not run in another context: one module per context");
    CUmodule again = NULL;
    CUfunction f;
    ok = ok && checkDriver(cuModuleLoadData(&again, kernels_fatbin)) &&
         checkDriver(cuModuleGetFunction(&f, again, L->kernel));
    if (ok) {
        wrong = small_axpy(f, &launch);
        ok = checkDriver(launch) && wrong >= 0;
    }
    if (again)
        ok = checkDriver(cuModuleUnload(again)) && ok;
    if (ok)
        printf("      cuModuleLoadData again, in that context: %d floats, %d wrong\n", SMALL,
               wrong);
    return ok;
}

/* b) a library serves every context: those in ctx[0..n), and one created after the load. */
static bool one_library(struct lesson *L, CUcontext *ctx, const char **what, int n, int gpus)
{
    CUlibrary lib = NULL;
    CUkernel kernel;
    CUcontext after = NULL;
    CUresult launch = CUDA_SUCCESS;
    double t0 = host_ms();
    bool ok = load_library(&lib, &kernel, kernels_fatbin, L->kernel);
    double load_ms = host_ms() - t0;
    ok = ok && new_context(L->dev, &after);
    if (ok)
        printf("   b) cuLibraryLoadData(kernels_fatbin) once (%.3f ms), "
               "cuLibraryGetKernel(\"%s\"); then in\n"
               "      each context cuKernelGetFunction and cuLaunchKernel on %d floats:\n",
               load_ms, L->kernel, SMALL);
    int good = 0;
    for (int c = 0; c <= n && ok; c++) {
        CUfunction f;
        int wrong = -1;
        ok = checkDriver(cuCtxSetCurrent(c < n ? ctx[c] : after)) &&
             checkDriver(cuKernelGetFunction(&f, kernel));
        if (ok) {
            wrong = small_axpy(f, &launch);
            ok = checkDriver(launch) && wrong >= 0;
        }
        if (ok)
            printf("      %-44s %d wrong\n",
                   c < n ? what[c] : "user context created after the load", wrong);
        good += ok && wrong == 0;
    }
    if (lib)
        ok = checkDriver(cuLibraryUnload(lib)) && ok;
    if (after)
        ok = checkDriver(cuCtxDestroy(after)) && ok;
    if (ok)
        claim(good == n + 1,
              "one cuLibraryLoadData served all %d contexts on %d GPU(s), one created after it too",
              n + 1, gpus);
    return ok;
}
#endif

#if CUDART_VERSION >= 12080 /* cudaLibraryLoadData and friends: CUDA 12.8 */
/* c) the runtime loads PTX: cudaLibraryLoadData, cudaLibraryGetKernel, cudaLaunchKernel. Where
 *    the driver cannot compile this toolkit's PTX, the runtime loads the fatbin's SASS. */
static bool runtime_library(struct lesson *L)
{
    int wrong = -1;
    const void *image = L->jit_ok ? (const void *)kernels_ptx : (const void *)kernels_fatbin;
    if (!axpy_reset(&L->d) ||
        !runtime_library_axpy(image, L->kernel, AXPY_A, L->d.dx, L->d.dy, N) ||
        (wrong = axpy_wrong(&L->d)) < 0)
        return false;
    printf("   c) the runtime: cudaLibraryLoadData(%s), cudaLibraryGetKernel, cudaLaunchKernel\n"
           "      of the cudaKernel_t: y = %.1f * x + y on %d floats, %d wrong\n",
           L->jit_ok ? "kernels_ptx" : "kernels_fatbin", (double)AXPY_A, N, wrong);
    if (L->jit_ok) {
        claim(wrong == 0, "the runtime loaded PTX and launched a kernel from it (CUDA 12.8)");
    } else {
        not_judged(L->jit_why, "the runtime loads PTX with cudaLibraryLoadData");
        claim(wrong == 0, "the runtime loaded a library (the fatbin's SASS) and launched a kernel "
                          "from it (CUDA 12.8)");
    }
    return true;
}
#endif

/* d) a kernel compiled into the program (<<<>>>'s axpy), as Driver API handles. */
static bool runtime_kernel_to_driver(struct lesson *L)
{
    CUfunction func = NULL;
    struct fn_attrs at = {0};
    int wrong = -1;
    bool ok = checkRuntime(cudaGetFuncBySymbol(&func, axpy_symbol())) &&
              function_attributes(func, &at) && axpy_reset(&L->d) &&
              checkDriver(launch_axpy(func, AXPY_A, L->d.dx, L->d.dy, N)) &&
              (wrong = axpy_wrong(&L->d)) >= 0;
    if (!ok)
        return false;
    int regs = at.regs;
    printf("   d) the other way: cudaGetFuncBySymbol(&f, axpy) gives the CUfunction of the <<<>>> "
           "kernel:\n"
           "      cuFuncGetAttribute: %d registers; cuLaunchKernel(f, ...): %d wrong\n",
           regs, wrong);
    claim(regs > 0 && wrong == 0,
          "a kernel compiled into the program is a CUfunction the Driver API can query and launch");
#if CUDART_VERSION >= 12080
    /* The Runtime API documents cudaKernel_t and CUkernel as one type, to be cast from one to
     * the other ("Interactions with the CUDA Driver API"), from CUDA 12.8, the release that gave
     * the runtime its library API (step 7c). */
    cudaKernel_t kernel;
    CUfunction f2;
    ok = checkRuntime(cudaGetKernel(&kernel, axpy_symbol())) &&
         checkDriver(cuKernelGetFunction(&f2, (CUkernel)kernel)) && axpy_reset(&L->d) &&
         checkDriver(launch_axpy(f2, AXPY_A, L->d.dx, L->d.dy, N)) &&
         (wrong = axpy_wrong(&L->d)) >= 0;
    if (!ok)
        return false;
    printf("      cudaGetKernel(&k, axpy) gives its CUkernel; cuKernelGetFunction(k) in this "
           "context is\n"
           "      %s CUfunction; cuLaunchKernel with it: %d wrong\n",
           f2 == func ? "the same" : "another", wrong);
    claim(wrong == 0,
          "the runtime's cudaKernel_t is a CUkernel: the Driver API takes it (CUDA 12.8)");
#elif CUDART_VERSION >= 12010 /* cudaKernel_t and cudaGetKernel: CUDA 12.1 */
    /* Before 12.8 a cudaKernel_t is the runtime's own handle: a 12.4 runtime's, given to
     * cuKernelGetFunction, was answered CUDA_ERROR_INVALID_HANDLE. It is not passed on here. */
    cudaKernel_t kernel;
    char why[200];
    if (!checkRuntime(cudaGetKernel(&kernel, axpy_symbol())))
        return false;
    snprintf(why, sizeof why,
             "built with CUDA runtime %d.%d; the runtime documents its cudaKernel_t as a CUkernel "
             "from CUDA 12.8",
             CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
    printf("      cudaGetKernel(&k, axpy) gives a cudaKernel_t, a handle for the runtime's own "
           "calls here\n");
    not_judged(why, "the runtime's cudaKernel_t is a CUkernel: the Driver API takes it");
#endif
    return ok;
}

/* 7. */
bool step_7_one_load_for_every_context(struct lesson *L)
{
    printf("\n7. One load for every context: a library (cuLibraryLoadData) against a module\n");
    bool ok = true;
#if CUDA_VERSION >= 12000
    int count = 0;
    if (!checkDriver(cuDeviceGetCount(&count)))
        return false;
    if (count > MAX_CONTEXTS - 2)
        count = MAX_CONTEXTS - 2;
    CUcontext ctx[MAX_CONTEXTS] = {0};
    char names[MAX_CONTEXTS][48];
    const char *what[MAX_CONTEXTS];
    int retained = 0;
    for (int d = 0; d < count && ok; d++) { /* the primary context of every visible device */
        CUdevice dev;
        ok = checkDriver(cuDeviceGet(&dev, d)) &&
             checkDriver(cuDevicePrimaryCtxRetain(&ctx[retained], dev));
        snprintf(names[retained], sizeof names[retained], "device %d, primary context", d);
        what[retained] = names[retained];
        retained += ok;
    }
    what[retained] = "user context created before the load";
    ok = ok && new_context(L->dev, &ctx[retained]); /* after step 2's module, before the library */
    int n_ctx = retained + (ctx[retained] != NULL);
    printf(
        "   contexts: the primary context of each of the %d visible device(s), and on device %ld\n"
        "   user contexts created after step 2's module: one before the library below, one after\n",
        count, L->device);
    ok = ok && module_in_another_context(L, ctx[retained]) &&
         one_library(L, ctx, what, n_ctx, count);
    if (ok && count < 2)
        not_judged("one GPU is visible; this needs two", "the same library serves a second GPU");
    ok = checkDriver(cuCtxSetCurrent(L->primary)) && ok; /* for the runtime and the rest */
    if (n_ctx > retained)
        ok = checkDriver(cuCtxDestroy(ctx[retained])) && ok;
    for (int d = 0; d < retained; d++) {
        CUdevice dev;
        ok = checkDriver(cuDeviceGet(&dev, d)) && checkDriver(cuDevicePrimaryCtxRelease(dev)) && ok;
    }
#else
    not_judged("built with CUDA older than 12.0", "one cuLibraryLoadData serves every context");
#endif
#if CUDART_VERSION >= 12080 /* cudaLibraryLoadData and friends: CUDA 12.8 */
    ok = ok && runtime_library(L);
#else
    not_judged("built with a CUDA runtime older than 12.8",
               "the runtime loads PTX with cudaLibraryLoadData");
#endif
    return ok && runtime_kernel_to_driver(L);
}
