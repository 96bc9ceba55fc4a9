/* 05_ptx_module/core.h - the functions of core.c, the calls the lesson teaches, in step order,
 * and the few types they take. */
#ifndef PTX_MODULE_CORE_H
#define PTX_MODULE_CORE_H

#include <stdbool.h>
#include <stddef.h>

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <nvrtc.h>

#include "check.h"

/* checkNvrtc(call): as check.h's checkDriver, for NVRTC (the call's text and NVRTC's error). */
bool check_nvrtc_(nvrtcResult r, const char *call, const char *file, int line);
#define checkNvrtc(op) check_nvrtc_((op), #op, __FILE__, __LINE__)

enum { BLOCK = 256, LOG_SIZE = 16384 };

/* cuModuleLoadDataEx's two logs and the JIT's own wall time (load_module_with_log). */
struct jit_log {
    char info[LOG_SIZE];
    char error[LOG_SIZE];
    float wall_ms;
};

/* What `extra` packs for axpy(float a, const float *x, float *y, int n): each parameter at its
 * natural alignment, as the kernel's parameter list is laid out. A C struct with the same
 * members puts them at the same offsets; its sizeof (32) adds tail padding after n, so the
 * size to pass is the end of n (28). */
struct axpy_args {
    float a;       /* offset 0, then 4 bytes of padding */
    CUdeviceptr x; /* offset 8 */
    CUdeviceptr y; /* offset 16 */
    int n;         /* offset 24 */
};

/* What cuFuncGetAttribute says about a loaded function. */
struct fn_attrs {
    int regs, shared, local, max_threads, ptx_version, binary_version;
};

/* 2. Loading a module with JIT options; returns the driver's answer, the caller checks it. */
CUresult load_module_with_log(CUmodule *mod, const void *image, struct jit_log *log);

/* 3. What a function needs, and launching it. */
bool function_attributes(CUfunction f, struct fn_attrs *a);
CUresult launch_axpy(CUfunction f, float a, CUdeviceptr x, CUdeviceptr y, int n);
CUresult launch_axpy_with_extra(CUfunction f, float a, CUdeviceptr x, CUdeviceptr y, int n);

/* 4. NVRTC. */
nvrtcResult nvrtc_compile(nvrtcProgram *prog, const char *source, const char *name,
                          const char *arch_opt);
bool nvrtc_output(nvrtcProgram *prog, char **log, char **ptx, char **cubin, size_t *cubin_size);

/* 5. What a launch costs (the graphs of launches are the instrument's: proof/). */
CUresult launch_empty(CUfunction f, long n, CUstream s);
void launch_empty_runtime_n(long n, cudaStream_t s);
CUresult launch_and_wait(CUfunction f, long n);

/* 7. One load for every context; the runtime's side. */
#if CUDA_VERSION >= 12000
bool load_library(CUlibrary *lib, CUkernel *kernel, const void *image, const char *name);
#endif
#if CUDART_VERSION >= 12080
bool runtime_library_axpy(const void *image, const char *name, float a, CUdeviceptr x,
                          CUdeviceptr y, int n);
#endif

/* kernels.cu: <<<1, 1, 0, s>>> of `empty`, the runtime's launch; axpy's host-side symbol. */
void launch_empty_runtime_on(cudaStream_t s);
const void *axpy_symbol(void);

#endif
