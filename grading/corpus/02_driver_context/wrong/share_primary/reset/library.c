/* Wrong: "cleans up" the primary context with a reset: the application's buffer goes too. */
#include "share_primary.h"
bool library_begin(CUdevice dev, CUcontext *ctx)
{
    return checkDriver(cuDevicePrimaryCtxRetain(ctx, dev)) && checkDriver(cuCtxPushCurrent(*ctx));
}
bool library_end(CUdevice dev, CUcontext ctx)
{
    (void)ctx;
    return checkDriver(cuCtxPopCurrent(NULL)) && checkDriver(cuDevicePrimaryCtxRelease(dev)) &&
           checkDriver(cuDevicePrimaryCtxReset(dev));
}
