/* Wrong: never pops: the stack keeps the library's entry. */
#include "share_primary.h"
bool library_begin(CUdevice dev, CUcontext *ctx)
{
    return checkDriver(cuDevicePrimaryCtxRetain(ctx, dev)) && checkDriver(cuCtxPushCurrent(*ctx));
}
bool library_end(CUdevice dev, CUcontext ctx)
{
    (void)ctx;
    return checkDriver(cuDevicePrimaryCtxRelease(dev));
}
