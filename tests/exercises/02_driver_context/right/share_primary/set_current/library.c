/* Right, another way: the primary context made current with cuCtxSetCurrent (it already is the
 * application's), given back with one release at the end. */
#include "share_primary.h"
bool library_begin(CUdevice dev, CUcontext *ctx)
{
    if (!checkDriver(cuDevicePrimaryCtxRetain(ctx, dev)))
        return false;
    if (!checkDriver(cuCtxSetCurrent(*ctx))) {
        (void)cuDevicePrimaryCtxRelease(dev);
        return false;
    }
    return true;
}
bool library_end(CUdevice dev, CUcontext ctx)
{
    (void)ctx;
    return checkDriver(cuDevicePrimaryCtxRelease(dev));
}
