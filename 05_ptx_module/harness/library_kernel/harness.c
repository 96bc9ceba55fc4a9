/*
 * 05_ptx_module/harness/library_kernel - the grader's side of exercise library_kernel: compiles
 * `twice` into SASS for this GPU (NVRTC), calls kernel_load() (library.c) with the primary
 * context current, then in the primary context and in two contexts created after the load
 * calls kernel_function() and runs it on fresh data; last, kernel_unload(). Reports the
 * results, and the student's loads and unloads of libraries and modules (the linker's --wrap;
 * and the stand-in driver's counts: what was made and left, whatever API made it; the judge's
 * --fail-at N makes the Nth driver call fail). It judges nothing
 * (grading/harness/exercise_harness.h).
 */
#include "05_harness.h"
#include "harness_watch.h"
#include "library_kernel.h"

/* kernel_load() loads the code once: one library (or one module), kept until kernel_unload(). */
static const bool load_once[DRIVER_WATCH_KINDS] = {
    [DRIVER_WATCH_LIBRARY] = true, [DRIVER_WATCH_MODULE] = true};

static const char source[] = "extern \"C\" __global__ void twice(float *y, int n)\n"
                             "{\n"
                             "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                             "    if (i < n)\n"
                             "        y[i] *= 2.0f;\n"
                             "}\n";
static int lib_loads, lib_unloads, mod_loads, mod_unloads;

CUresult __real_cuLibraryLoadData(CUlibrary *library, const void *code, CUjit_option *jit_options,
                                  void **jit_values, unsigned int njit,
                                  CUlibraryOption *library_options, void **library_values,
                                  unsigned int nlibrary);
CUresult __wrap_cuLibraryLoadData(CUlibrary *library, const void *code, CUjit_option *jit_options,
                                  void **jit_values, unsigned int njit,
                                  CUlibraryOption *library_options, void **library_values,
                                  unsigned int nlibrary)
{
    CUresult r = __real_cuLibraryLoadData(library, code, jit_options, jit_values, njit,
                                          library_options, library_values, nlibrary);
    lib_loads += r == CUDA_SUCCESS;
    return r;
}
CUresult __real_cuLibraryUnload(CUlibrary library);
CUresult __wrap_cuLibraryUnload(CUlibrary library)
{
    CUresult r = __real_cuLibraryUnload(library);
    lib_unloads += r == CUDA_SUCCESS;
    return r;
}
CUresult __real_cuModuleLoadData(CUmodule *module, const void *image);
CUresult __wrap_cuModuleLoadData(CUmodule *module, const void *image)
{
    CUresult r = __real_cuModuleLoadData(module, image);
    mod_loads += r == CUDA_SUCCESS;
    return r;
}
CUresult __real_cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int n,
                                   CUjit_option *o, void **v);
CUresult __wrap_cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int n,
                                   CUjit_option *o, void **v)
{
    CUresult r = __real_cuModuleLoadDataEx(module, image, n, o, v);
    mod_loads += r == CUDA_SUCCESS;
    return r;
}
CUresult __real_cuModuleUnload(CUmodule module);
CUresult __wrap_cuModuleUnload(CUmodule module)
{
    CUresult r = __real_cuModuleUnload(module);
    mod_unloads += r == CUDA_SUCCESS;
    return r;
}

/* A lookup that fails: while `failing` is set, every call that finds a kernel, a function or a
 * library's module fails (as a lookup in a context without the code would), without calling
 * the driver. */
static int failing;
#define LOOKUP(name, params, args)                                  \
    CUresult __real_##name params;                                  \
    CUresult __wrap_##name params                                   \
    {                                                               \
        return failing ? CUDA_ERROR_NOT_FOUND : __real_##name args; \
    }
LOOKUP(cuKernelGetFunction, (CUfunction * f, CUkernel k), (f, k))
LOOKUP(cuModuleGetFunction, (CUfunction * f, CUmodule m, const char *n), (f, m, n))
LOOKUP(cuLibraryGetModule, (CUmodule * m, CUlibrary l), (m, l))
LOOKUP(cuLibraryGetKernel, (CUkernel * k, CUlibrary l, const char *n), (k, l, n))

/* kernel_function() while every lookup fails: it must return false. */
static void failing_lookup(void *handle)
{
    CUfunction f = NULL;
    failing = 1;
    bool found = kernel_function(handle, &f);
    failing = 0;
    harness_report("lookup_failing", "%s", found ? "true" : "false");
}

static bool make_context(CUcontext *ctx, CUdevice dev)
{
#if CUDA_VERSION >= 13000
    return checkDriver(cuCtxCreate(ctx, NULL, 0, dev));
#else
    return checkDriver(cuCtxCreate(ctx, 0, dev));
#endif
}

/* kernel_function() in the current context, then `twice` on case k, of size + (seed + add) %
 * 4096 values: "caseK N SUM" or failed. The seed is asked here, after kernel_function(), where
 * the case's data is made (the first case: after kernel_load() and that first call). */
static void run(void *handle, int k, size_t size, uint32_t add)
{
    CUdeviceptr dy = 0;
    CUfunction f = NULL;
    int ni = 0;
    void *params[2] = {&dy, &ni};
    struct harness_state state; /* kernel_function() leaves all of it as it found it */
    char name[24];
    harness_state_take(&state);
    if (!kernel_function(handle, &f))
        f = NULL;
    snprintf(name, sizeof name, "kernel_function%d", k);
    harness_state_check(name, &state);
    uint32_t seed = harness_seed_now();
    size_t n = size + (seed + add) % 4096;
    ni = (int)n;
    harness_kernel_case(f, params, &dy, n, seed, k);
}

/* kernel_unload(), which leaves the context stack, the primary context and the device as it
 * found them, then the loads and unloads counted. */
static void unload(void *handle)
{
    struct harness_state state = harness_state_now();
    bool unloaded = kernel_unload(handle);
    harness_report("kernel_unload", "%s", unloaded ? "true" : "false");
    harness_state_check("kernel_unload", &state);
    harness_report("loads", "%d %d", lib_loads, mod_loads);
    harness_report("unloads", "%d %d", lib_unloads, mod_unloads);
}

/* The judge's --fail-at N: the Nth watched call from kernel_load() on fails, in kernel_load() or
 * in kernel_unload() (nothing between them: no launch); the one that saw it must answer false,
 * and nothing may be left ("fail_in kernel_load|kernel_unload|none", "fail_came",
 * "resources_fail"). */
static void failure_run(const char *image, long n)
{
    void *handle = NULL;
    struct harness_watch w = harness_watch_take();
    harness_watch_fail_at(n);
    bool loaded = kernel_load(image, &handle), in_load = harness_watch_failed();
    bool unloaded = loaded && !in_load && kernel_unload(handle);
    bool came = harness_watch_judge();
    harness_report("fail_in", "%s", in_load ? "kernel_load" : came ? "kernel_unload" : "none");
    harness_report("kernel_load", "%s", loaded ? "true" : "false");
    harness_report("kernel_unload", "%s", unloaded ? "true" : "false");
    harness_watch_check("fail", &w, load_once);
}

/* One kernel_load(), the cases in the primary context and in two created after it, the
 * failing lookup, kernel_unload(); the stand-in's window from the load to the unload. */
static bool graded_run(const char *image, CUdevice dev, CUcontext primary)
{
    CUcontext later[2] = {NULL, NULL};
    void *handle = NULL;
    bool ok = true;
    struct harness_state state = harness_state_now(); /* kept by kernel_load() */
    struct harness_watch w = harness_watch_take();    /* from kernel_load() to kernel_unload() */
    bool loaded = kernel_load(image, &handle);
    harness_report("kernel_load", "%s", loaded ? "true" : "false");
    harness_state_check("kernel_load", &state);
    /* a load that failed gave no handle: nothing more of the student's is called with it */
    if (loaded)
        run(handle, 0, 1000, 0);                  /* the primary context */
    for (int c = 0; c < 2 && loaded && ok; c++) { /* contexts created after the load */
        ok = make_context(&later[c], dev);
        run(handle, 1 + c, 3000, 11u * (unsigned)c);
    }
    for (int c = 1; c >= 0; c--)
        if (later[c])
            ok = checkDriver(cuCtxDestroy(later[c])) && ok;
    ok = checkDriver(cuCtxSetCurrent(primary)) && ok;
    if (loaded) {
        failing_lookup(handle);
        unload(handle);
    }
    harness_watch_check("library_kernel", &w, load_once);
    return ok;
}

int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    long fail_at = harness_watch_fail_arg(&argc, argv);
    harness_start(argc, argv,
                  "Exercise library_kernel: one kernel_load(), then kernel_function() in three "
                  "contexts, then kernel_unload().");
    CUdevice dev;
    CUcontext primary = NULL;
    char *image = NULL;
    if (!requireDriver(cuInit(0)) || !checkDriver(cuDeviceGet(&dev, 0)) ||
        !checkDriver(cuDevicePrimaryCtxRetain(&primary, dev)))
        return EXIT_CHECK;
    bool ok = checkDriver(cuCtxSetCurrent(primary)) &&
              nvrtc_image(source, "twice.cu", dev, NULL, NULL, NULL, &image);
    if (ok && fail_at)
        failure_run(image, fail_at);
    else if (ok)
        ok = graded_run(image, dev, primary);
    free(image);
    ok = checkDriver(cuDevicePrimaryCtxRelease(dev)) && ok;
    /* the seed run() asked (or, where no case ran, asked now for "end SEED") */
    return harness_end(harness_seed_now(), ok);
}
