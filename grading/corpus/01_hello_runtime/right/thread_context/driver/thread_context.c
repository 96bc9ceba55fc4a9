/* Right, the driver way: main's context made current on this thread. */
#include "thread_context.h"
bool bind_worker(CUcontext main_ctx)
{
    return checkDriver(cuCtxSetCurrent(main_ctx));
}
