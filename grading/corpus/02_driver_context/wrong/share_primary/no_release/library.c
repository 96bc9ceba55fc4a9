/* Wrong: retains and pushes, pops, but never releases. */
#include "share_primary.h"
bool library_begin(CUdevice dev, CUcontext *ctx)
{
    return checkDriver(cuDevicePrimaryCtxRetain(ctx, dev)) && checkDriver(cuCtxPushCurrent(*ctx));
}
bool library_end(CUdevice dev, CUcontext ctx)
{
    (void)dev;
    (void)ctx;
    return checkDriver(cuCtxPopCurrent(NULL));
}
