/* Wrong: the call that binds the context is not checked: when it fails, the worker says it
 * has a context and has none. */
#include "thread_context.h"

bool bind_worker(CUcontext main_ctx)
{
    (void)cuCtxSetCurrent(main_ctx);
    return true;
}
