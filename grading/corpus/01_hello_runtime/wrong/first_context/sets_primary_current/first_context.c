/* sets_primary_current: a variant for the grader's tests (primary_context() makes the context
 * it names current, and leaves it so). */
#include "first_context.h"

bool make_context(void)
{
    return checkRuntime(cudaSetDevice(0));
}

bool primary_context(CUcontext *primary)
{
    CUdevice dev;
    if (!checkDriver(cuDeviceGet(&dev, 0)) || !checkDriver(cuDevicePrimaryCtxRetain(primary, dev)))
        return false;
    return checkDriver(cuCtxSetCurrent(*primary)) && checkDriver(cuDevicePrimaryCtxRelease(dev));
}
