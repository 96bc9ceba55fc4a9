/* Wrong: primary_context() answers with the current context, which is the primary one only
 * when nothing else was made current. */
#include "first_context.h"

bool make_context(void)
{
    return checkRuntime(cudaSetDevice(0));
}

bool primary_context(CUcontext *primary)
{
    return checkDriver(cuCtxGetCurrent(primary));
}
