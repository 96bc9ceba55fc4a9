/* Wrong: a context of its own (cuCtxCreate), not the primary context. */
#include <cuda.h>
#if CUDA_VERSION >= 13000
#define CREATE(c, d) cuCtxCreate(c, NULL, 0, d)
#else
#define CREATE(c, d) cuCtxCreate(c, 0, d)
#endif
#include "first_context.h"
bool make_context(void)
{
    CUdevice dev;
    CUcontext ctx;
    return checkDriver(cuInit(0)) && checkDriver(cuDeviceGet(&dev, 0)) &&
           checkDriver(CREATE(&ctx, dev));
}
bool primary_context(CUcontext *primary)
{
    return checkDriver(cuCtxGetCurrent(primary));
}
