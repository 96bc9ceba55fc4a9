/* Wrong: the library borrows whatever context is current instead of retaining the primary
 * one: it works while the application's context happens to be the primary one, and holds no
 * reference of its own (the application's next reset or release ends it under the library). */
#include "share_primary.h"

bool library_begin(CUdevice dev, CUcontext *ctx)
{
    (void)dev;
    return checkDriver(cuCtxGetCurrent(ctx)) && *ctx != NULL;
}

bool library_end(CUdevice dev, CUcontext ctx)
{
    (void)dev;
    (void)ctx;
    return true;
}
