/* Wrong: main's context pushed twice: the worker's stack is two deep. */
#include "thread_context.h"
bool bind_worker(CUcontext main_ctx)
{
    return checkDriver(cuCtxPushCurrent(main_ctx)) && checkDriver(cuCtxPushCurrent(main_ctx));
}
