/* Right, another way: library_begin() sets the primary context current in place of the
 * caller's, which it keeps, and library_end() puts that one back before its release. */
#include "share_primary.h"

static CUcontext caller; /* current when library_begin() was called */

bool library_begin(CUdevice dev, CUcontext *ctx)
{
    if (!checkDriver(cuCtxGetCurrent(&caller)) || !checkDriver(cuDevicePrimaryCtxRetain(ctx, dev)))
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
    bool back = checkDriver(cuCtxSetCurrent(caller));
    return checkDriver(cuDevicePrimaryCtxRelease(dev)) && back;
}
