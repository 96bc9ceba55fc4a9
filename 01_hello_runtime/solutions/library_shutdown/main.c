/*
 * Reference solution of exercise 4 - library_shutdown.
 *
 * The program plays two parts on device 0. The application uses the runtime: cudaSetDevice,
 * a buffer from cudaMalloc. A library uses the Driver API: lib_init() retains the device's
 * primary context (the runtime's own) and allocates a workspace in it. lib_shutdown() should
 * undo lib_init() - but as given it "cleans up" with cudaDeviceReset(), which destroys the
 * application's buffer as well, so the program prints "no" on the first line.
 * TODO: rewrite lib_shutdown() so that it frees the library's workspace and gives back the
 *       library's reference to the primary context, checking each call. Then all three lines
 *       say "yes".
 * Grade it: make check   (from 01_hello_runtime/)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "check.h"

struct library {
    CUdevice dev;
    CUcontext ctx;         /* the primary context, retained */
    CUdeviceptr workspace; /* allocated in it */
};

static bool lib_init(struct library *lib)
{
    return checkDriver(cuDeviceGet(&lib->dev, 0)) &&
           checkDriver(cuDevicePrimaryCtxRetain(&lib->ctx, lib->dev)) &&
           checkDriver(cuCtxPushCurrent(lib->ctx)) &&
           checkDriver(cuMemAlloc(&lib->workspace, 1 << 20)) && checkDriver(cuCtxPopCurrent(NULL));
}

static bool lib_shutdown(struct library *lib)
{
    /* Free the workspace in the library's context, then give back the one reference that
     * lib_init took. No reset: the context is the runtime's too, and the application's. */
    return checkDriver(cuCtxPushCurrent(lib->ctx)) && checkDriver(cuMemFree(lib->workspace)) &&
           checkDriver(cuCtxPopCurrent(NULL)) && checkDriver(cuDevicePrimaryCtxRelease(lib->dev));
}

int main(int argc, char **argv)
{
    (void)argc;
    lesson_init(argv[0]);
    enum { BYTES = 1 << 20 };
    unsigned char *app = NULL, *host = malloc(BYTES);
    struct library lib = {0};
    if (!host || !requireRuntime(cudaSetDevice(0)) || !checkRuntime(cudaMalloc((void **)&app, BYTES)) ||
        !checkRuntime(cudaMemset(app, 1, BYTES)) || !lib_init(&lib) || !lib_shutdown(&lib)) {
        free(host);
        return EXIT_CHECK;
    }
    /* 1. the application's buffer: still there, still holding its data? */
    cudaError_t copied = cudaMemcpy(host, app, BYTES, cudaMemcpyDeviceToHost);
    (void)cudaGetLastError();
    int wrong = 0;
    for (int i = 0; i < BYTES; i++)
        wrong += host[i] != 1;
    free(host);
    bool intact = copied == cudaSuccess && wrong == 0;
    printf("the application's buffer survived the library's shutdown: %s\n", intact ? "yes" : "no");
    /* 2. the library's workspace: no context owns it any more */
    CUcontext owner = NULL;
    CUresult r = cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, lib.workspace);
    printf("the library's workspace is freed: %s\n", r == CUDA_ERROR_INVALID_VALUE ? "yes" : "no");
    /* 3. only the runtime's reference is left: giving that one back deactivates the context */
    if (intact && !checkRuntime(cudaFree(app)))
        return EXIT_CHECK;
    unsigned int flags;
    int active = -1;
    if (!checkDriver(cuDevicePrimaryCtxRelease(lib.dev)) ||
        !checkDriver(cuDevicePrimaryCtxGetState(lib.dev, &flags, &active)))
        return EXIT_CHECK;
    printf("the library left no reference behind: %s\n", active == 0 ? "yes" : "no");
    return EXIT_OK;
}
