/* Wrong: lib_shutdown() sets the library's context current (replacing the application's on
 * top of the stack) and then pops: the application's context is gone from the stack (until a
 * runtime call makes one current again behind its back). */
#include "library_shutdown.h"

bool lib_init(struct library *lib)
{
    return checkDriver(cuDeviceGet(&lib->dev, 0)) &&
           checkDriver(cuDevicePrimaryCtxRetain(&lib->ctx, lib->dev)) &&
           checkDriver(cuCtxPushCurrent(lib->ctx)) &&
           checkDriver(cuMemAlloc(&lib->workspace, LIBRARY_WORKSPACE_BYTES)) &&
           checkDriver(cuCtxPopCurrent(NULL));
}

bool lib_shutdown(struct library *lib)
{
    return checkDriver(cuCtxSetCurrent(lib->ctx)) && checkDriver(cuMemFree(lib->workspace)) &&
           checkDriver(cuCtxPopCurrent(NULL)) && checkDriver(cuDevicePrimaryCtxRelease(lib->dev));
}
