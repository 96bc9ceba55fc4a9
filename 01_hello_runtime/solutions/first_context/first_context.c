/*
 * Reference solution of exercise 1 - first_context.
 */
#include "first_context.h"

bool make_context(void)
{
    return checkRuntime(cudaSetDevice(0)); /* CUDA 12+: creates the primary context */
}

bool primary_context(CUcontext *primary)
{
    CUdevice dev;
    if (!checkDriver(cuDeviceGet(&dev, 0)))
        return false;
    return checkDriver(cuDevicePrimaryCtxRetain(primary, dev)) &&
           checkDriver(cuDevicePrimaryCtxRelease(dev));
}
