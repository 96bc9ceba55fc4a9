/*
 * 01_hello_runtime/harness/thread_context - the grader's side of exercise thread_context:
 * main's thread makes device 0's primary context current; a worker thread calls bind_worker()
 * (exercises/thread_context/thread_context.c), then the harness asks the driver, on the worker,
 * which context is current and how deep the worker's stack is, and copies fresh data through
 * that context; a buffer of main's context made before must survive the worker (a reset there
 * loses it). A second worker calls bind_worker() with every call that could bind a context
 * failing (--wrap, on that thread only): it must return false. Last, the references to the
 * primary context left. It judges nothing.
 */
#include <pthread.h>

#include "01_harness.h"
#include "thread_context.h"

struct work {
    uint32_t seed;
    CUcontext main_ctx;
};

/* A worker whose every call that could bind a context fails (the wrappers below, on that
 * thread only): bind_worker() must say so. */
static _Thread_local int failing;
#define FAIL_ON_WORKER(ret, name, params, args, error) \
    ret __real_##name params;                          \
    ret __wrap_##name params                           \
    {                                                  \
        return failing ? error : __real_##name args;   \
    }
FAIL_ON_WORKER(CUresult, cuCtxSetCurrent, (CUcontext c), (c), CUDA_ERROR_INVALID_CONTEXT)
FAIL_ON_WORKER(CUresult, cuCtxPushCurrent_v2, (CUcontext c), (c), CUDA_ERROR_INVALID_CONTEXT)
FAIL_ON_WORKER(CUresult, cuDevicePrimaryCtxRetain, (CUcontext * c, CUdevice d), (c, d),
               CUDA_ERROR_OUT_OF_MEMORY)
FAIL_ON_WORKER(cudaError_t, cudaSetDevice, (int d), (d), cudaErrorDevicesUnavailable)
FAIL_ON_WORKER(cudaError_t, cudaInitDevice, (int d, unsigned f, unsigned g), (d, f, g),
               cudaErrorDevicesUnavailable)
FAIL_ON_WORKER(cudaError_t, cudaFree, (void *p), (p), cudaErrorDevicesUnavailable)
FAIL_ON_WORKER(cudaError_t, cudaDeviceSynchronize, (void), (), cudaErrorDevicesUnavailable)
FAIL_ON_WORKER(cudaError_t, cudaMemGetInfo, (size_t * f, size_t *t), (f, t),
               cudaErrorDevicesUnavailable)

static void *failing_worker(void *arg)
{
    struct work *w = arg;
    CUcontext current = NULL;
    failing = 1;
    bool ok = bind_worker(w->main_ctx);
    failing = 0;
    (void)cuCtxGetCurrent(&current);
    harness_report("bind_failing", "%s %s", ok ? "true" : "false", current ? "set" : "none");
    return NULL;
}

static void *worker(void *arg)
{
    struct work *w = arg;
    CUcontext before = NULL, current = NULL, top = NULL;
    (void)cuCtxGetCurrent(&before);
    harness_report("worker_before", "%s", before ? "set" : "none");
    /* bind_worker() leaves main's context current on the worker, one deep, and nothing else
     * changed (the primary context's state, the current device) */
    struct harness_state state;
    harness_state_take(&state);
    harness_state_set_top(&state, w->main_ctx);
    bool ok = bind_worker(w->main_ctx);
    harness_report("bind_worker", "%s", ok ? "true" : "false");
    harness_state_check("bind_worker", &state);
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
    harness_start(argc, argv,
                  "Exercise thread_context: calls bind_worker() on a new thread, reports that "
                  "thread's context.");
    struct work w = {.seed = 0};
    CUdevice dev;
    pthread_t t;
    if (!requireRuntime(cudaSetDevice(0)) || !checkDriver(cuCtxGetCurrent(&w.main_ctx)) ||
        !checkDriver(cuDeviceGet(&dev, 0)))
        return EXIT_CHECK;
    /* a buffer of main's context: a reset of the context on the worker loses it. The seed is
     * asked before bind_worker(): the canary must exist before your first call */
    uint32_t seed = harness_seed_now();
    w.seed = seed;
    size_t canary_n = 512 + seed % 1024;
    CUdeviceptr canary = canary_make(w.main_ctx, canary_n, seed, 7);
    if (pthread_create(&t, NULL, worker, &w) != 0) {
        fprintf(stderr, "%s: could not start a thread\n", lesson_prog);
        return EXIT_CHECK;
    }
    pthread_join(t, NULL);
    canary_check("canary", w.main_ctx, canary, canary_n);
    if (pthread_create(&t, NULL, failing_worker, &w) != 0) {
        fprintf(stderr, "%s: could not start a thread\n", lesson_prog);
        return EXIT_CHECK;
    }
    pthread_join(t, NULL);
    harness_report("refs_beyond_runtime", "%d", harness_primary_refs_beyond_runtime(dev));
    return harness_end(seed, true);
}
