/* zeroes_workspace: a variant for the grader's tests (the workspace's handle zeroed, the memory kept). */
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
    /* the workspace is not freed: its handle is only forgotten */
    lib->workspace = 0;
    return checkDriver(cuDevicePrimaryCtxRelease(lib->dev));
}
