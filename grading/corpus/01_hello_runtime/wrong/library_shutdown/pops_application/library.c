/* pops_application: a variant for the grader's tests (lib_shutdown() pops once more than it
 * pushed: the application's own context goes). */
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
    if (!checkDriver(cuCtxPushCurrent(lib->ctx)) || !checkDriver(cuMemFree(lib->workspace)))
        return false;
    return checkDriver(cuCtxPopCurrent(NULL)) && checkDriver(cuCtxPopCurrent(NULL)) &&
           checkDriver(cuDevicePrimaryCtxRelease(lib->dev));
}
