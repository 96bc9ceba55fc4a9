/*
 * 02_driver_context/harness/context_leak - the grader's side of exercise context_leak: from an
 * "observer" context it runs four do_task() (task.c) on fresh data of odd sizes and reports
 * the results, the contexts the tasks created and did not destroy (each one the tasks' own
 * cuCtxCreate made, followed through their cuCtxDestroy by the linker's --wrap), then a task
 * whose allocation fails (what it returned, the contexts it left), the stack at the end, and the device
 * memory the tasks did not give back beside a control sample: what one context with one such
 * buffer takes on this GPU, measured first. The grader reads the same memory from outside the
 * process (NVML, harness_measure) at the moments this harness reads cuMemGetInfo, so that run
 * has the GPU alone. With --big first (a run of its own, which judges no memory and may share
 * the GPU): only a task of more than 2^31 bytes, where the machine has the memory. It judges
 * nothing (grading/harness/exercise_harness.h).
 */
#define _GNU_SOURCE /* sysconf(_SC_AVPHYS_PAGES) */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* The control sample: one context with one buffer of `bytes`, made and destroyed by the
 * harness; mib[0..2]: free memory before, with it, after. False: a call failed. */
static bool control_sample(CUdevice dev, size_t bytes, double mib[3])
{
    CUcontext probe = NULL;
    CUdeviceptr d = 0;
    mib[0] = free_mib();
    harness_measure("probe_before");
    bool ok = make_context(&probe, dev) && checkDriver(cuMemAlloc(&d, bytes));
    mib[1] = free_mib();
    harness_measure("probe_with");
    ok = ok && checkDriver(cuCtxDestroy(probe)); /* frees d too; pops it: observer is current */
    mib[2] = free_mib();
    harness_measure("probe_after");
    return ok;
}

/* Task k on n values of case k: "caseK N SUM" or "caseK failed". */
static void one_task(CUdevice dev, float *in, float *out, size_t n, uint32_t seed, int k)
{
    harness_fill(in, n, seed, k);
    for (size_t i = 0; i < n; i++)
        out[i] = -1;
    struct harness_state state; /* do_task() leaves all of it as it found it */
    char name[16];
    harness_state_take(&state);
    made_counting = 1;
    bool done = do_task(dev, in, out, n);
    made_counting = 0;
    harness_case(k, done, out, n, "failed");
    snprintf(name, sizeof name, "task%d", k);
    harness_state_check(name, &state);
}

/* Task 4: more than 2^31 bytes (2 GiB and a few KiB), where this machine has the memory for
 * it (else "case4 untried"): a byte count kept in 32 bits wraps or goes negative past the
 * sizes of the other tasks. */
static void big_task(CUdevice dev, uint32_t seed)
{
    size_t n = ((size_t)1 << 29) + 1 + seed % 4096, bytes = n * sizeof(float);
    size_t free_b = 0, total = 0;
    long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    bool room = cuMemGetInfo(&free_b, &total) == CUDA_SUCCESS && free_b > 2 * bytes && pages > 0 &&
                page > 0 && (double)pages * (double)page > 3.0 * (double)bytes;
    float *in = room ? malloc(bytes) : NULL, *out = room ? malloc(bytes) : NULL;
    if (in && out)
        one_task(dev, in, out, n, seed, 4);
    else
        harness_report("case4", "untried (%zu bytes of host and device memory not free here)",
                       2 * bytes);
    free(in);
    free(out);
}

/* --big: from the observer context, the task of more than 2^31 bytes alone. */
static int big_run(void)
{
    CUdevice dev;
    CUcontext observer = NULL;
    bool ok = requireDriver(cuInit(0)) && last_device(&dev, NULL) && make_context(&observer, dev);
    uint32_t seed = harness_seed_now();
    if (ok)
        big_task(dev, seed);
    ok = ok && checkDriver(cuCtxDestroy(observer));
    return harness_end(seed, ok);
}

int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    bool big = argc > 1 && strcmp(argv[1], "--big") == 0;
    if (big) { /* the option first, then what harness_start reads */
        argv[1] = argv[0];
        argv++;
        argc--;
    }
    harness_start(argc, argv,
                  "Exercise context_leak: runs four do_task(), reports results, contexts and "
                  "memory left behind; with --big first (usage: context_leak --big [SEED]), "
                  "only a task of more than 2^31 bytes.");
    if (big)
        return big_run();
    CUdevice dev;
    CUcontext observer = NULL;
    const char *const names[1] = {"observer"};
    char stack[256];
    double probe[3];
    size_t most = 300000 + TASKS;
    float *in = malloc(most * sizeof(float)), *out = malloc(most * sizeof(float));
    bool ok = in && out && requireDriver(cuInit(0)) && last_device(&dev, NULL) && /* tasks' */
              make_context(&observer, dev) && control_sample(dev, most * sizeof(float), probe);
    double before = free_mib();
    uint32_t seed = harness_seed_now(); /* each task's data is made from it before your call */
    harness_measure("tasks_before");
    for (int k = 0; ok && k < TASKS; k++)
        one_task(dev, in, out, 200000 + (seed + 7u * (unsigned)k) % 100000, seed, k);
    if (ok) {
        harness_report("contexts_left", "%d", made_count);
        /* A task whose allocation fails (more memory than any GPU has): it must say so and
         * still destroy its context. "error_task RETURNED CONTEXTS_IT_LEFT" */
        int left_before = made_count;
        made_counting = 1;
        bool failed_task = do_task(dev, in, out, (size_t)1 << 46);
        made_counting = 0;
        harness_report("error_task", "%s %d", failed_task ? "true" : "false",
                       made_count - left_before);
        double after = free_mib();
        harness_measure("tasks_after");
        stack_names(stack, sizeof stack, &observer, names, 1);
        harness_report("stack", "%s", stack);
        harness_report("memory_lost_mib", "%.1f %.1f %.1f", before - after, probe[0] - probe[1],
                       fabs(probe[2] - probe[0]));
    }
    free(in);
    free(out);
    ok = ok && checkDriver(cuCtxDestroy(observer));
    return harness_end(seed, ok);
}
