/*
 * Reference solution of exercise 3 - thread_context.
 *
 * main() makes device 0's primary context current, then starts a worker thread that asks the
 * Driver API for ITS current context. A new thread starts with none, so the worker prints
 * "NULL" and "no". Make the worker use the same context as main():
 * TODO: in worker(), before the cuCtxGetCurrent call, bind the context to this thread. There
 * are two ways; either passes: the runtime way (select the device in this thread) or the driver
 * way (make main's context current here: it is in w->main_ctx). Check the call.
 * Grade it: make check   (from 01_hello_runtime/)
 */
#include <pthread.h>
#include <stdio.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "check.h"

struct work {
    CUcontext main_ctx;   /* main thread's current context */
    CUcontext worker_ctx; /* what the worker sees */
    bool ok;
};

static void *worker(void *arg)
{
    struct work *w = arg;
    w->ok = true;

    w->ok = checkRuntime(cudaSetDevice(0)); /* or: checkDriver(cuCtxSetCurrent(w->main_ctx)) */

    w->ok = w->ok && checkDriver(cuCtxGetCurrent(&w->worker_ctx));
    return NULL;
}

int main(int argc, char **argv)
{
    (void)argc;
    lesson_init(argv[0]);
    struct work w = {0};
    pthread_t t;
    if (!requireRuntime(cudaSetDevice(0)) || !checkDriver(cuCtxGetCurrent(&w.main_ctx)))
        return EXIT_CHECK;
    if (pthread_create(&t, NULL, worker, &w) != 0)
        return EXIT_CHECK;
    pthread_join(t, NULL);
    if (!w.ok)
        return EXIT_CHECK;
    printf("worker's current context: %s\n", w.worker_ctx ? "set" : "NULL");
    printf("worker uses main's context: %s\n", w.worker_ctx == w.main_ctx ? "yes" : "no");
    return EXIT_OK;
}
