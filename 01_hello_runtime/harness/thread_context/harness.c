/*
 * 01_hello_runtime/harness/thread_context - the grader's side of exercise thread_context:
 * main's thread makes device 0's primary context current; a worker thread calls bind_worker()
 * (exercises/thread_context/thread_context.c), then the harness asks the driver, on the worker,
 * which context is current and how deep the worker's stack is, and copies fresh data through
 * that context. Last, the references to the primary context left. It judges nothing.
 */
#include <pthread.h>

#include "01_harness.h"
#include "thread_context.h"

struct work {
    uint32_t seed;
    CUcontext main_ctx;
};

static void *worker(void *arg)
{
    struct work *w = arg;
    CUcontext before = NULL, current = NULL, top = NULL;
    (void)cuCtxGetCurrent(&before);
    harness_report("worker_before", "%s", before ? "set" : "none");
    bool ok = bind_worker(w->main_ctx);
    harness_report("bind_worker", "%s", ok ? "true" : "false");
    (void)cuCtxGetCurrent(&current);
    int depth = harness_stack_depth(&top);
    harness_report("worker_current", "%s",
                   !current                 ? "none"
                   : current == w->main_ctx ? "main"
                                            : "another");
    harness_report("worker_stack_depth", "%d", depth);
    if (current)
        copy_case(w->seed, 0, 2000 + w->seed % 4096);
    return NULL;
}

int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    uint32_t seed = harness_seed(argc, argv,
                                 "Exercise thread_context: calls bind_worker() on a "
                                 "new thread, reports that thread's context.");
    struct work w = {.seed = seed};
    CUdevice dev;
    pthread_t t;
    if (!requireRuntime(cudaSetDevice(0)) || !checkDriver(cuCtxGetCurrent(&w.main_ctx)) ||
        !checkDriver(cuDeviceGet(&dev, 0)))
        return EXIT_CHECK;
    if (pthread_create(&t, NULL, worker, &w) != 0) {
        fprintf(stderr, "%s: could not start a thread\n", lesson_prog);
        return EXIT_CHECK;
    }
    pthread_join(t, NULL);
    harness_report("refs_beyond_runtime", "%d", harness_primary_refs_beyond_runtime(dev));
    return harness_end(seed, true);
}
