/* Wrong: a context of its own (cuCtxCreate), not the primary context. */
#include "first_context.h"
bool make_context(void)
{
    CUdevice dev;
    CUcontext ctx;
    return checkDriver(cuInit(0)) && checkDriver(cuDeviceGet(&dev, 0)) &&
           checkDriver(cuCtxCreate(&ctx, NULL, 0, dev));
}
bool primary_context(CUcontext *primary) { return checkDriver(cuCtxGetCurrent(primary)); }
