/* common/driver_loader.c - the Driver API, forwarded to libcuda.so.1 (opened with dlopen on
 * first use). See driver_loader.h for why and for how this differs from the runtime's own way
 * of reaching the driver.
 *
 * Which functions: in every build by make, the whole Driver API of the toolkit's cuda.h. The
 * table DRIVER_FUNCTIONS (one line X(name, (parameters with names), (the names again)) per
 * function) is generated from the header at build time by common/driver-forward into the build
 * folder (BUILD/gen/driver_forward.h; common/lesson.mk gives -DDRIVER_FORWARD_GENERATED and that
 * folder on the include path for this file only). Nothing is kept by hand for it, so every call
 * an exercise's allow list accepts links, whatever the toolkit (CUDA 12.x or 13).
 * What cannot be generated: a build by hand that compiles this file alone (a README's one nvcc
 * line, tools/doctor's probe) has no build folder to generate into; there the short table below
 * (DRIVER_FUNCTIONS_BY_HAND: the calls the lessons' own programs and demos make) is used, and a
 * function missing from it fails at link time with "undefined reference", never at run time. */
#include "driver_loader.h"

#include <cuda.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

#ifdef DRIVER_FORWARD_GENERATED
#include "driver_forward.h" /* #define DRIVER_FUNCTIONS(X), the whole of cuda.h's */
#else
/* ---- the table of forwarded functions, by hand (see the top of this file) --------------
 * Each line names one cu* function, its parameters and the arguments to pass on.
 * cuda.h maps many names to versioned entry points (cuMemAlloc -> cuMemAlloc_v2,
 * cuCtxCreate -> cuCtxCreate_v4 on CUDA 13); the definitions below go through the same
 * macros, so they define and look up exactly the symbols a -lcuda build would use. */
/* CUDA 13 gave cuCtxCreate a CUctxCreateParams argument; CUDA 12 has the 3-argument form. */
#if CUDA_VERSION >= 13000
#define CTX_CREATE(X) \
    X(cuCtxCreate, (CUcontext * c, CUctxCreateParams * p, unsigned int f, CUdevice d), (c, p, f, d))
#else
#define CTX_CREATE(X) X(cuCtxCreate, (CUcontext * c, unsigned int f, CUdevice d), (c, f, d))
#endif

/* cuGetProcAddress gained its symbolStatus argument in CUDA 12.0 (cuGetProcAddress_v2). */
#if CUDA_VERSION >= 12000
#define GET_PROC_ADDRESS(X)                                                              \
    X(cuGetProcAddress,                                                                  \
      (const char *s, void **p, int v, cuuint64_t f, CUdriverProcAddressQueryResult *q), \
      (s, p, v, f, q))
#else
#define GET_PROC_ADDRESS(X)
#endif

/* Lesson 05: context-independent loading (cuLibrary*, cuKernel*: CUDA 12.0). */
#if CUDA_VERSION >= 12000
#define LIBRARY_05(X)                                                              \
    X(cuLibraryLoadData,                                                           \
      (CUlibrary * l, const void *c, CUjit_option *jo, void **jv, unsigned int jn, \
       CUlibraryOption *lo, void **lv, unsigned int ln),                           \
      (l, c, jo, jv, jn, lo, lv, ln))                                              \
    X(cuLibraryUnload, (CUlibrary l), (l))                                         \
    X(cuLibraryGetKernel, (CUkernel * k, CUlibrary l, const char *n), (k, l, n))   \
    X(cuLibraryGetModule, (CUmodule * m, CUlibrary l), (m, l))                     \
    X(cuKernelGetFunction, (CUfunction * f, CUkernel k), (f, k))
#else
#define LIBRARY_05(X)
#endif
/* Lesson 05: green contexts (CUDA 12.4). */
#if CUDA_VERSION >= 12040
#define GREEN_05(X)                                                                            \
    X(cuDeviceGetDevResource, (CUdevice d, CUdevResource * r, CUdevResourceType t), (d, r, t)) \
    X(cuDevSmResourceSplitByCount,                                                             \
      (CUdevResource * r, unsigned int *n, const CUdevResource *i, CUdevResource *rem,         \
       unsigned int f, unsigned int m),                                                        \
      (r, n, i, rem, f, m))                                                                    \
    X(cuDevResourceGenerateDesc, (CUdevResourceDesc * d, CUdevResource * r, unsigned int n),   \
      (d, r, n))                                                                               \
    X(cuGreenCtxCreate, (CUgreenCtx * g, CUdevResourceDesc d, CUdevice v, unsigned int f),     \
      (g, d, v, f))                                                                            \
    X(cuGreenCtxDestroy, (CUgreenCtx g), (g))                                                  \
    X(cuCtxFromGreenCtx, (CUcontext * c, CUgreenCtx g), (c, g))
#else
#define GREEN_05(X)
#endif

#define DRIVER_FUNCTIONS(X)                                                                      \
    LIBRARY_05(X)                                                                                \
    GREEN_05(X)                                                                                  \
    X(cuStreamBeginCapture, (CUstream s, CUstreamCaptureMode m), (s, m))                         \
    X(cuStreamEndCapture, (CUstream s, CUgraph * g), (s, g))                                     \
    X(cuGraphInstantiate, (CUgraphExec * e, CUgraph g, unsigned long long f), (e, g, f))         \
    X(cuGraphLaunch, (CUgraphExec e, CUstream s), (e, s))                                        \
    X(cuGraphExecDestroy, (CUgraphExec e), (e))                                                  \
    X(cuGraphDestroy, (CUgraph g), (g))                                                          \
    X(cuInit, (unsigned int f), (f))                                                             \
    X(cuDriverGetVersion, (int *v), (v))                                                         \
    X(cuGetErrorName, (CUresult e, const char **s), (e, s))                                      \
    X(cuGetErrorString, (CUresult e, const char **s), (e, s))                                    \
    X(cuDeviceGet, (CUdevice * d, int o), (d, o))                                                \
    X(cuDeviceGetCount, (int *c), (c))                                                           \
    X(cuDeviceGetName, (char *n, int l, CUdevice d), (n, l, d))                                  \
    X(cuDeviceGetAttribute, (int *p, CUdevice_attribute a, CUdevice d), (p, a, d))               \
    X(cuDeviceTotalMem, (size_t * b, CUdevice d), (b, d))                                        \
    X(cuDeviceGetPCIBusId, (char *b, int l, CUdevice d), (b, l, d))                              \
    X(cuDevicePrimaryCtxRetain, (CUcontext * c, CUdevice d), (c, d))                             \
    X(cuDevicePrimaryCtxRelease, (CUdevice d), (d))                                              \
    X(cuDevicePrimaryCtxGetState, (CUdevice d, unsigned int *f, int *a), (d, f, a))              \
    X(cuDevicePrimaryCtxSetFlags, (CUdevice d, unsigned int f), (d, f))                          \
    X(cuDevicePrimaryCtxReset, (CUdevice d), (d))                                                \
    X(cuCtxGetFlags, (unsigned int *f), (f))                                                     \
    CTX_CREATE(X)                                                                                \
    X(cuCtxDestroy, (CUcontext c), (c))                                                          \
    X(cuCtxPushCurrent, (CUcontext c), (c))                                                      \
    X(cuCtxPopCurrent, (CUcontext * c), (c))                                                     \
    X(cuCtxSetCurrent, (CUcontext c), (c))                                                       \
    X(cuCtxGetCurrent, (CUcontext * c), (c))                                                     \
    X(cuCtxGetDevice, (CUdevice * d), (d))                                                       \
    X(cuCtxGetId, (CUcontext c, unsigned long long *id), (c, id))                                \
    X(cuCtxGetApiVersion, (CUcontext c, unsigned int *v), (c, v))                                \
    X(cuCtxSynchronize, (void), ())                                                              \
    X(cuCtxGetLimit, (size_t * v, CUlimit l), (v, l))                                            \
    X(cuCtxSetLimit, (CUlimit l, size_t v), (l, v))                                              \
    X(cuCtxEnablePeerAccess, (CUcontext p, unsigned int f), (p, f))                              \
    X(cuCtxDisablePeerAccess, (CUcontext p), (p))                                                \
    X(cuDeviceCanAccessPeer, (int *c, CUdevice d, CUdevice p), (c, d, p))                        \
    X(cuMemcpyPeer, (CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n),        \
      (d, dc, s, sc, n))                                                                         \
    X(cuMemHostAlloc, (void **p, size_t n, unsigned int f), (p, n, f))                           \
    X(cuMemAllocHost, (void **p, size_t n), (p, n))                                              \
    X(cuMemFreeHost, (void *p), (p))                                                             \
    X(cuMemHostRegister, (void *p, size_t n, unsigned int f), (p, n, f))                         \
    X(cuMemHostUnregister, (void *p), (p))                                                       \
    X(cuMemHostGetDevicePointer, (CUdeviceptr * d, void *p, unsigned int f), (d, p, f))          \
    X(cuMemHostGetFlags, (unsigned int *f, void *p), (f, p))                                     \
    X(cuMemcpyHtoDAsync, (CUdeviceptr d, const void *s, size_t n, CUstream st), (d, s, n, st))   \
    X(cuMemcpyDtoHAsync, (void *d, CUdeviceptr s, size_t n, CUstream st), (d, s, n, st))         \
    GET_PROC_ADDRESS(X)                                                                          \
    X(cuMemGetInfo, (size_t * f, size_t * t), (f, t))                                            \
    X(cuMemAlloc, (CUdeviceptr * p, size_t n), (p, n))                                           \
    X(cuMemFree, (CUdeviceptr p), (p))                                                           \
    X(cuMemsetD32, (CUdeviceptr p, unsigned int v, size_t n), (p, v, n))                         \
    X(cuMemcpyHtoD, (CUdeviceptr d, const void *s, size_t n), (d, s, n))                         \
    X(cuMemcpyDtoH, (void *d, CUdeviceptr s, size_t n), (d, s, n))                               \
    X(cuPointerGetAttribute, (void *v, CUpointer_attribute a, CUdeviceptr p), (v, a, p))         \
    X(cuModuleLoad, (CUmodule * m, const char *f), (m, f))                                       \
    X(cuModuleLoadData, (CUmodule * m, const void *i), (m, i))                                   \
    X(cuModuleLoadDataEx,                                                                        \
      (CUmodule * m, const void *i, unsigned int n, CUjit_option *o, void **v), (m, i, n, o, v)) \
    X(cuModuleUnload, (CUmodule m), (m))                                                         \
    X(cuModuleGetFunction, (CUfunction * f, CUmodule m, const char *n), (f, m, n))               \
    X(cuModuleGetLoadingMode, (CUmoduleLoadingMode * m), (m))                                    \
    X(cuFuncGetAttribute, (int *p, CUfunction_attribute a, CUfunction f), (p, a, f))             \
    X(cuLaunchKernel,                                                                            \
      (CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,         \
       unsigned int by, unsigned int bz, unsigned int shm, CUstream s, void **params,            \
       void **extra),                                                                            \
      (f, gx, gy, gz, bx, by, bz, shm, s, params, extra))                                        \
    X(cuStreamCreate, (CUstream * s, unsigned int f), (s, f))                                    \
    X(cuStreamCreateWithPriority, (CUstream * s, unsigned int f, int p), (s, f, p))              \
    X(cuStreamDestroy, (CUstream s), (s))                                                        \
    X(cuStreamSynchronize, (CUstream s), (s))                                                    \
    X(cuStreamWaitEvent, (CUstream s, CUevent e, unsigned int f), (s, e, f))                     \
    X(cuEventCreate, (CUevent * e, unsigned int f), (e, f))                                      \
    X(cuEventRecord, (CUevent e, CUstream s), (e, s))                                            \
    X(cuEventSynchronize, (CUevent e), (e))                                                      \
    X(cuEventElapsedTime, (float *ms, CUevent a, CUevent b), (ms, a, b))                         \
    X(cuEventDestroy, (CUevent e), (e))
#endif /* DRIVER_FORWARD_GENERATED */

#define STRINGIFY_(x) #x
#define STRINGIFY(x)  STRINGIFY_(x) /* expands cuda.h's macro first: "cuMemAlloc_v2" */

#define DECLARE_POINTER(name, params, args) static CUresult(CUDAAPI *p_##name) params;
DRIVER_FUNCTIONS(DECLARE_POINTER)

static void *driver_lib;
static pthread_once_t driver_once = PTHREAD_ONCE_INIT;

static void open_driver(void)
{
    driver_lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!driver_lib)
        return;
#define LOOK_UP(name, params, args) \
    p_##name = (CUresult(CUDAAPI *) params)dlsym(driver_lib, STRINGIFY(name));
    DRIVER_FUNCTIONS(LOOK_UP)
}

bool driver_library_found(void)
{
    pthread_once(&driver_once, open_driver);
    return driver_lib != NULL;
}

/* No library: CUDA_ERROR_SHARED_OBJECT_INIT_FAILED ("initialization of a shared object
 * failed"). Library without the symbol (a driver older than the header): _SYMBOL_NOT_FOUND. */
#define FORWARD(name, params, args)                           \
    CUresult CUDAAPI name params                              \
    {                                                         \
        if (!driver_library_found())                          \
            return CUDA_ERROR_SHARED_OBJECT_INIT_FAILED;      \
        if (!p_##name)                                        \
            return CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND; \
        return p_##name args;                                 \
    }
DRIVER_FUNCTIONS(FORWARD)

void *driver_library_handle(void)
{
    return driver_library_found() ? driver_lib : NULL;
}
