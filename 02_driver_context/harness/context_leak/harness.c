/*
 * 02_driver_context/harness/context_leak - the grader's side of exercise context_leak: from an
 * "observer" context it runs four do_task() (task.c) on fresh data of odd sizes and reports
 * the results, the contexts the tasks created and did not destroy (each one the tasks' own
 * cuCtxCreate made, followed through their cuCtxDestroy by the linker's --wrap), then a task
 * whose allocation fails (what it returned, the contexts it left), the stack at the end, and the device
 * memory the tasks did not give back beside a control sample: what one context with one such
 * buffer takes on this GPU, measured first. It judges nothing (common/exercise_harness.h).
 */
#include <math.h>
#include <stdlib.h>

#include "02_harness.h"
#include "context_leak.h"
#include "made_contexts.h" /* the tasks' contexts left: made_count, while made_counting (the
                            * observer destroyed by a task counts for nothing there: it fails
                            * the harness's own destroy at the end) */

enum { TASKS = 4 };

static double free_mib(void)
{
    size_t f = 0, t = 0;
    return cuMemGetInfo(&f, &t) == CUDA_SUCCESS ? (double)f / (1024.0 * 1024.0) : -1;
}

int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    uint32_t seed = harness_seed(argc, argv,
                                 "Exercise context_leak: runs four do_task(), reports "
                                 "results, contexts and memory left behind.");
    CUdevice dev;
    CUcontext observer = NULL, probe = NULL;
    CUdeviceptr d = 0;
    const char *const names[1] = {"observer"};
    char stack[256];
    size_t most = 300000 + TASKS;
    float *in = malloc(most * sizeof(float)), *out = malloc(most * sizeof(float));
    if (!in || !out || !requireDriver(cuInit(0)) || !checkDriver(cuDeviceGet(&dev, 0)) ||
        !make_context(&observer, dev)) {
        free(in);
        free(out);
        return EXIT_CHECK;
    }
    /* The control sample: one context with one buffer, made and destroyed by the harness. */
    double before_probe = free_mib();
    bool ok = make_context(&probe, dev) && checkDriver(cuMemAlloc(&d, most * sizeof(float)));
    double with_probe = free_mib();
    ok = ok && checkDriver(cuCtxDestroy(probe)); /* frees d too; pops it: observer is current */
    double after_probe = free_mib();
    if (!ok) {
        free(in);
        free(out);
        return EXIT_CHECK;
    }
    double before = free_mib();
    for (int k = 0; k < TASKS; k++) {
        size_t n = 200000 + (seed + 7u * (unsigned)k) % 100000;
        harness_fill(in, n, seed, k);
        for (size_t i = 0; i < n; i++)
            out[i] = -1;
        made_counting = 1;
        bool done = do_task(dev, in, out, n);
        made_counting = 0;
        harness_case(k, done, out, n, "failed");
    }
    harness_report("contexts_left", "%d", made_count);
    /* A task whose allocation fails (more memory than any GPU has): it must say so and still
     * destroy its context. "error_task RETURNED CONTEXTS_IT_LEFT" */
    int left_before = made_count;
    made_counting = 1;
    bool failed_task = do_task(dev, in, out, (size_t)1 << 46);
    made_counting = 0;
    harness_report("error_task", "%s %d", failed_task ? "true" : "false", made_count - left_before);
    double after = free_mib();
    stack_names(stack, sizeof stack, &observer, names, 1);
    harness_report("stack", "%s", stack);
    harness_report("memory_lost_mib", "%.1f %.1f %.1f", before - after, before_probe - with_probe,
                   fabs(after_probe - before_probe));
    free(in);
    free(out);
    ok = checkDriver(cuCtxDestroy(observer));
    return harness_end(seed, ok);
}
