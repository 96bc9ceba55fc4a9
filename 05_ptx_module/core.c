/* 05_ptx_module/core.c - the idea: a kernel as PTX (or SASS), loaded through the Driver API as
 * a module or a library, looked up by name and launched. The calls the lesson teaches that
 * take more than one line live here, in the order of the steps; the steps (proof/) call
 * cuModuleLoad, cuModuleLoadData, cuModuleGetFunction and the rest by their own names, then
 * time, check and print. A call whose failure a step shows on purpose returns its result;
 * the rest are checked here (checkDriver, checkRuntime, checkNvrtc print the call and error).
 *   2. load_module_with_log: cuModuleLoadDataEx with JIT options (logs, wall time)
 *   3. function_attributes; launch_axpy (kernelParams); launch_axpy_with_extra (`extra`)
 *   4. nvrtc_compile (nvrtcCreateProgram, nvrtcCompileProgram), nvrtc_output (its PTX, cubin)
 *   5. launch_empty, launch_empty_runtime_n, launch_and_wait
 *   7. load_library (cuLibraryLoadData, cuLibraryGetKernel); runtime_library_axpy
 * Not here, on purpose: the <<<>>> itself (C has none: kernels.cu's launch_empty_runtime_on);
 * what the instrument measures beside the idea (step 5's CUDA graphs, step 8's green context:
 * proof/); step 1's cuInit and primary context, the contexts of step 7, the data's cuMemAlloc
 * and cuMemcpy*, the waits (cuCtxSynchronize) and step 5's streams: lessons 01-04 teach those. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

/* ---- 2. Loading a module ------------------------------------------------------------------ */
/* cuModuleLoad (a file) and cuModuleLoadData (memory) take PTX, a cubin or a fatbin alike; the
 * steps call them by name. c) With JIT options: two arrays, the options and a value for each.
 * The logs are buffers of ours; CU_JIT_WALL_TIME's value slot comes back holding a float, the
 * JIT's milliseconds. */
CUresult load_module_with_log(CUmodule *mod, const void *image, struct jit_log *log)
{
    memset(log, 0, sizeof *log);
    CUjit_option opt[] = {CU_JIT_INFO_LOG_BUFFER,  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                          CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                          CU_JIT_LOG_VERBOSE,      CU_JIT_OPTIMIZATION_LEVEL,
                          CU_JIT_WALL_TIME};
    void *size = (void *)(uintptr_t)(LOG_SIZE - 1), *verbose = (void *)1, *highest = (void *)4;
    void *val[] = {log->info, size, log->error, size, verbose, highest, NULL};
    CUresult r = cuModuleLoadDataEx(mod, image, (unsigned)(sizeof opt / sizeof opt[0]), opt, val);
    memcpy(&log->wall_ms, &val[6], sizeof log->wall_ms);
    return r;
}

/* ---- 3. cuFuncGetAttribute and cuLaunchKernel ------------------------------------------ */
/* What the loaded function needs, and the PTX and SASS versions it was made from. */
bool function_attributes(CUfunction f, struct fn_attrs *a)
{
    bool ok = checkDriver(cuFuncGetAttribute(&a->regs, CU_FUNC_ATTRIBUTE_NUM_REGS, f));
    ok = ok && checkDriver(cuFuncGetAttribute(&a->shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f));
    ok = ok && checkDriver(cuFuncGetAttribute(&a->local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, f));
    ok = ok && checkDriver(
                   cuFuncGetAttribute(&a->max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f));
    ok = ok && checkDriver(cuFuncGetAttribute(&a->ptx_version, CU_FUNC_ATTRIBUTE_PTX_VERSION, f));
    return ok &&
           checkDriver(cuFuncGetAttribute(&a->binary_version, CU_FUNC_ATTRIBUTE_BINARY_VERSION, f));
}

/* y = a * x + y: axpy(float a, const float *x, float *y, int n), one thread per element. */
CUresult launch_axpy(CUfunction f, float a, CUdeviceptr x, CUdeviceptr y, int n)
{
    void *params[] = {&a, &x, &y, &n}; /* kernelParams: a pointer to each parameter's value */
    unsigned grid = (n + BLOCK - 1) / BLOCK;
    return cuLaunchKernel(f, grid, 1, 1, BLOCK, 1, 1, 0, NULL, params, NULL);
}

/* The same through `extra`: the parameters packed into one buffer (struct axpy_args), and its
 * size, which is the end of the last parameter, not sizeof the struct. */
CUresult launch_axpy_with_extra(CUfunction f, float a, CUdeviceptr x, CUdeviceptr y, int n)
{
    struct axpy_args args = {a, x, y, n};
    size_t size = offsetof(struct axpy_args, n) + sizeof args.n; /* 28, not sizeof args (32) */
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &args, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                     CU_LAUNCH_PARAM_END};
    unsigned grid = (n + BLOCK - 1) / BLOCK;
    return cuLaunchKernel(f, grid, 1, 1, BLOCK, 1, 1, 0, NULL, NULL, extra);
}

/* ---- 4. NVRTC: PTX made at run time ---------------------------------------------------- */
/* CUDA C++ source text compiled inside the running program; `name` is the file name its
 * messages give. --gpu-architecture=compute_XX makes PTX, sm_XX SASS for that card too (a
 * cubin). Returns the compile's result; *prog is NULL when the program was not even made. */
nvrtcResult nvrtc_compile(nvrtcProgram *prog, const char *source, const char *name,
                          const char *arch_opt)
{
    *prog = NULL;
    nvrtcResult r = nvrtcCreateProgram(prog, source, name, 0, NULL, NULL);
    if (r != NVRTC_SUCCESS)
        return r;
    const char *opts[] = {arch_opt};
    return nvrtcCompileProgram(*prog, 1, opts);
}

/* What NVRTC made, each malloc'd for the caller to free (a NULL argument: not wanted): its
 * log, the PTX (a C string), the cubin and its size. Then the program is destroyed. */
bool nvrtc_output(nvrtcProgram *prog, char **log, char **ptx, char **cubin, size_t *cubin_size)
{
    size_t size = 0;
    bool ok = true;
    if (log) {
        ok = checkNvrtc(nvrtcGetProgramLogSize(*prog, &size)) && (*log = malloc(size + 1));
        ok = ok && checkNvrtc(nvrtcGetProgramLog(*prog, *log));
    }
    if (ok && ptx) { /* the size NVRTC gives counts the NUL at the end */
        ok = checkNvrtc(nvrtcGetPTXSize(*prog, &size)) && (*ptx = malloc(size));
        ok = ok && checkNvrtc(nvrtcGetPTX(*prog, *ptx));
    }
    if (ok && cubin) {
        ok = checkNvrtc(nvrtcGetCUBINSize(*prog, cubin_size)) && (*cubin = malloc(*cubin_size));
        ok = ok && checkNvrtc(nvrtcGetCUBIN(*prog, *cubin));
    }
    return checkNvrtc(nvrtcDestroyProgram(prog)) && ok;
}

/* ---- 5. What a launch costs ------------------------------------------------------------ */
/* n launches of `empty` on stream s, one after another: each is queued, and the call returns.
 * The first failure, if any. */
CUresult launch_empty(CUfunction f, long n, CUstream s)
{
    CUresult first = CUDA_SUCCESS;
    for (long i = 0; i < n; i++) {
        CUresult r = cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL);
        if (r != CUDA_SUCCESS && first == CUDA_SUCCESS)
            first = r;
    }
    return first;
}

/* The same through the runtime: kernels.cu's <<<1, 1, 0, s>>>, n times. */
void launch_empty_runtime_n(long n, cudaStream_t s)
{
    for (long i = 0; i < n; i++)
        launch_empty_runtime_on(s);
}

/* n launches, waiting for each to finish before the next. */
CUresult launch_and_wait(CUfunction f, long n)
{
    CUresult first = CUDA_SUCCESS;
    for (long i = 0; i < n; i++) {
        CUresult r = cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL);
        if (r == CUDA_SUCCESS)
            r = cuCtxSynchronize();
        if (r != CUDA_SUCCESS && first == CUDA_SUCCESS)
            first = r;
    }
    return first;
}

/* ---- 7. One load for every context ----------------------------------------------------- */
#if CUDA_VERSION >= 12000
/* b) A library (CUDA 12.0): loaded once, for every context, those that exist and those made
 *    later. Its kernel is a CUkernel, which belongs to no context. */
bool load_library(CUlibrary *lib, CUkernel *kernel, const void *image, const char *name)
{
    return checkDriver(cuLibraryLoadData(lib, image, NULL, NULL, 0, NULL, NULL, 0)) &&
           checkDriver(cuLibraryGetKernel(kernel, *lib, name));
}
#endif

#if CUDART_VERSION >= 12080
/* c) The runtime's library (CUDA 12.8), which loads PTX too: cudaLaunchKernel takes its
 *    cudaKernel_t cast to const void *, and the same array of pointers to the arguments. */
bool runtime_library_axpy(const void *image, const char *name, float a, CUdeviceptr x,
                          CUdeviceptr y, int n)
{
    cudaLibrary_t lib = NULL;
    cudaKernel_t kernel;
    void *args[] = {&a, &x, &y, &n};
    dim3 grid = {(n + BLOCK - 1) / BLOCK, 1, 1}, block = {BLOCK, 1, 1};
    bool ok = checkRuntime(cudaLibraryLoadData(&lib, image, NULL, NULL, 0, NULL, NULL, 0)) &&
              checkRuntime(cudaLibraryGetKernel(&kernel, lib, name));
    ok = ok && checkRuntime(cudaLaunchKernel((const void *)kernel, grid, block, args, 0, NULL));
    ok = ok && checkRuntime(cudaDeviceSynchronize()); /* done with it before it is unloaded */
    return (!lib || checkRuntime(cudaLibraryUnload(lib))) && ok;
}
#endif

bool check_nvrtc_(nvrtcResult r, const char *call, const char *file, int line)
{
    if (r == NVRTC_SUCCESS)
        return true;
    fflush(stdout);
    fprintf(stderr, "%s:%d: %s failed: %s (%d)\n", file, line, call, nvrtcGetErrorString(r),
            (int)r);
    return false;
}
