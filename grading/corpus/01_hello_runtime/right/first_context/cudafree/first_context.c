/* Right, another way: cudaFree(NULL) creates the context too; the retain is given back. */
#include "first_context.h"
bool make_context(void)
{
    return checkRuntime(cudaFree(NULL));
}
bool primary_context(CUcontext *primary)
{
    CUdevice dev;
    if (!checkDriver(cuDeviceGet(&dev, 0)) || !checkDriver(cuDevicePrimaryCtxRetain(primary, dev)))
        return false;
    return checkDriver(cuDevicePrimaryCtxRelease(dev));
}
