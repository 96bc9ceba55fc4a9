/* Wrong: a new context for the worker, not main's. */
#include <cuda.h>
#if CUDA_VERSION >= 13000
#define CREATE(c, d) cuCtxCreate(c, NULL, 0, d)
#else
#define CREATE(c, d) cuCtxCreate(c, 0, d)
#endif
#include "thread_context.h"
bool bind_worker(CUcontext main_ctx)
{
    (void)main_ctx;
    CUdevice dev;
    CUcontext ctx;
    return checkDriver(cuDeviceGet(&dev, 0)) && checkDriver(CREATE(&ctx, dev));
}
