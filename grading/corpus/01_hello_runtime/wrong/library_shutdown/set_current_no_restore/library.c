/* set_current_no_restore: a variant for the grader's tests (lib_shutdown() sets its context
 * current for the free and never puts the caller's back). */
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
           checkDriver(cuDevicePrimaryCtxRelease(lib->dev));
}
