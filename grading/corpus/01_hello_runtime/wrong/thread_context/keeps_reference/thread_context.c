/* Wrong: retains the primary context to bind it and never gives the reference back. */
#include "thread_context.h"
bool bind_worker(CUcontext main_ctx)
{
    (void)main_ctx;
    CUdevice dev;
    CUcontext ctx;
    return checkDriver(cuDeviceGet(&dev, 0)) && checkDriver(cuDevicePrimaryCtxRetain(&ctx, dev)) &&
           checkDriver(cuCtxSetCurrent(ctx));
}
