/*
 * Reference solution of exercise 4 - library_shutdown.
 */
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
    /* Free the workspace in the library's context, then give back the one reference that
     * lib_init took. No reset: the context is the runtime's too, and the application's. */
    return checkDriver(cuCtxPushCurrent(lib->ctx)) && checkDriver(cuMemFree(lib->workspace)) &&
           checkDriver(cuCtxPopCurrent(NULL)) && checkDriver(cuDevicePrimaryCtxRelease(lib->dev));
}
