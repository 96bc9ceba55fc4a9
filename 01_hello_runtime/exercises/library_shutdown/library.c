/*
 * Exercise 4 - library_shutdown: a library that borrows the primary context gives back
 * exactly what it took, and nothing more (step 8 of the lesson).
 *
 * This file is yours (the only one graded): a library that uses the Driver API. lib_init()
 * retains device 0's primary context (the runtime's own) and allocates a workspace in it. The
 * harness (harness/library_shutdown/) plays the application: it uses the runtime
 * (cudaSetDevice, a cudaMalloc buffer holding fresh data), calls lib_init() and lib_shutdown(),
 * then checks that its buffer still holds its data, that the workspace is freed, that the
 * context stack is as it was, and that the library left no reference to the primary context
 * behind. As given, lib_shutdown() "cleans up" with cudaDeviceReset(), which destroys the
 * application's buffer as well.
 * FIXME: rewrite lib_shutdown() so that it frees the library's workspace and gives back the
 *       library's reference to the primary context, checking each call.
 * Grade it: make check   (from 01_hello_runtime/)
 */
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
    /* FIXME: undo lib_init() and nothing more: free the workspace, release the reference. */
    (void)lib;
    return checkRuntime(cudaDeviceReset());
}
