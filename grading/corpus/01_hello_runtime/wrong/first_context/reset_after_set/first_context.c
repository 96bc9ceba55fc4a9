/* Wrong: make_context() resets the primary context after cudaSetDevice made it current, "to
 * start clean": whatever the context held (another library's memory) is gone. */
#include "first_context.h"

bool make_context(void)
{
    CUdevice dev;
    return checkRuntime(cudaSetDevice(0)) && checkDriver(cuDeviceGet(&dev, 0)) &&
           checkDriver(cuDevicePrimaryCtxReset(dev)) && checkRuntime(cudaFree(NULL));
}

bool primary_context(CUcontext *primary)
{
    CUdevice dev;
    return checkDriver(cuDeviceGet(&dev, 0)) &&
           checkDriver(cuDevicePrimaryCtxRetain(primary, dev)) &&
           checkDriver(cuDevicePrimaryCtxRelease(dev));
}
