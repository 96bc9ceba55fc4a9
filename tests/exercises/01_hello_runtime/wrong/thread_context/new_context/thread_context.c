/* Wrong: a new context for the worker, not main's. */
#include "thread_context.h"
bool bind_worker(CUcontext main_ctx)
{
    (void)main_ctx;
    CUdevice dev;
    CUcontext ctx;
    return checkDriver(cuDeviceGet(&dev, 0)) && checkDriver(cuCtxCreate(&ctx, NULL, 0, dev));
}
