/* Wrong: prints what the grader used to look for; binds nothing. */
#include <stdio.h>
#include "thread_context.h"
bool bind_worker(CUcontext main_ctx)
{
    (void)main_ctx;
    printf("worker's current context: set\nworker uses main's context: yes\n");
    return true;
}
