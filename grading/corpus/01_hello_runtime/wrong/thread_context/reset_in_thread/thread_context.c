/* Wrong: the worker resets the device "to get a clean context", then binds: the reset ends the
 * primary context that main's thread was using, and everything it held. */
#include "thread_context.h"

bool bind_worker(CUcontext main_ctx)
{
    (void)main_ctx;
    return checkRuntime(cudaSetDevice(0)) && checkRuntime(cudaDeviceReset()) &&
           checkRuntime(cudaSetDevice(0)) && checkRuntime(cudaFree(NULL));
}
