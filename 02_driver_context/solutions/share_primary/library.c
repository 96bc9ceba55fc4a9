/*
 * Reference solution of exercise 2 - share_primary.
 */
#include "share_primary.h"

bool library_begin(CUdevice dev, CUcontext *ctx)
{
    if (!checkDriver(cuDevicePrimaryCtxRetain(ctx, dev)))
        return false;
    if (!checkDriver(cuCtxPushCurrent(*ctx))) {
        checkDriver(cuDevicePrimaryCtxRelease(dev));
        return false;
    }
    return true;
}

bool library_end(CUdevice dev, CUcontext ctx)
{
    CUcontext popped = NULL;
    bool ok = checkDriver(cuCtxPopCurrent(&popped)) && popped == ctx;
    return checkDriver(cuDevicePrimaryCtxRelease(dev)) && ok;
}
