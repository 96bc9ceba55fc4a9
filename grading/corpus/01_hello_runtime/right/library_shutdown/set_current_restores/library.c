/* Right, another way: lib_shutdown() sets its context current for the free, then puts back
 * the one that was current before. */
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
    CUcontext caller = NULL;
    if (!checkDriver(cuCtxGetCurrent(&caller)) || !checkDriver(cuCtxSetCurrent(lib->ctx)))
        return false;
    bool freed = checkDriver(cuMemFree(lib->workspace));
    bool back = checkDriver(cuCtxSetCurrent(caller));
    return checkDriver(cuDevicePrimaryCtxRelease(lib->dev)) && freed && back;
}
