/* Wrong: primary_context() gives a reference back before it takes one. The runtime's was the
 * only one: the primary context is destroyed, and the retain makes a new one (often the same
 * handle), so the count balances while everything the context held is gone. */
#include "first_context.h"

bool make_context(void)
{
    return checkRuntime(cudaSetDevice(0));
}

bool primary_context(CUcontext *primary)
{
    CUdevice dev;
    return checkDriver(cuDeviceGet(&dev, 0)) && checkDriver(cuDevicePrimaryCtxRelease(dev)) &&
           checkDriver(cuDevicePrimaryCtxRetain(primary, dev));
}
