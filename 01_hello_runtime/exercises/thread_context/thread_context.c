/*
 * Exercise 3 - thread_context: a context is current per host thread.
 *
 * This file is yours (the only one graded). The harness (harness/thread_context/) makes device
 * 0's primary context current on main's thread, starts a worker thread and calls bind_worker()
 * there. A new thread starts with no current context, so as given the worker has none. Then the
 * harness asks the driver, on the worker: which context is current, how deep its context stack
 * is (one entry), and it copies data through that context; at the end it checks that no
 * reference to the primary context was left behind.
 * FIXME: bind main's context to this thread. There are two ways; either passes: the runtime way
 * (select the device in this thread) or the driver way (make main_ctx current here). Check the
 * call.
 * Grade it: make check   (from 01_hello_runtime/)
 */
#include "thread_context.h"

bool bind_worker(CUcontext main_ctx)
{
    (void)main_ctx;
    /* FIXME: make main_ctx current here (the runtime way or the driver way), checked. */
    return true;
}
