/* Exercise thread_context: what your thread_context.c defines (the harness calls it). */
#ifndef EX_THREAD_CONTEXT_H
#define EX_THREAD_CONTEXT_H
#include <stdbool.h>
#include <cuda.h>
#include <cuda_runtime_api.h>
#include "check.h"

/* Called on a new worker thread (no context current yet): make the calling thread use the
 * context that is current on main's thread, main_ctx (device 0's primary context). False: a
 * call failed (the grader also calls it on a thread where every call that could bind a
 * context fails, and expects false). */
bool bind_worker(CUcontext main_ctx);
#endif
