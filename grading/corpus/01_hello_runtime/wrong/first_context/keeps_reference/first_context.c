/* Wrong: retains the primary context and never gives the reference back. */
#include "first_context.h"
bool make_context(void)
{
    return checkRuntime(cudaSetDevice(0));
}
bool primary_context(CUcontext *primary)
{
    CUdevice dev;
    return checkDriver(cuDeviceGet(&dev, 0)) && checkDriver(cuDevicePrimaryCtxRetain(primary, dev));
}
