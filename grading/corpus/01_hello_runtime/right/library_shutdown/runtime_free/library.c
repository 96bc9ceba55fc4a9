/* runtime_free: a variant for the grader's tests. */
#include <stdint.h>
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
    /* the workspace is in the runtime's own context: cudaFree can free it */
    return checkRuntime(cudaFree((void *)(uintptr_t)lib->workspace)) &&
           checkDriver(cuDevicePrimaryCtxRelease(lib->dev));
}
