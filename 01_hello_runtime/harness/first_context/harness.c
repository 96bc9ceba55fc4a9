/*
 * 01_hello_runtime/harness/first_context - the grader's side of exercise first_context: it
 * calls make_context() and primary_context() (exercises/first_context/first_context.c) and
 * reports what the driver says (grading/harness/exercise_harness.h: it judges nothing; grading/judge does).
 */
#include "01_harness.h"
#include "first_context.h"

/* The context that is current before the harness calls primary_context(): one the harness
 * created, so that the current context is not the answer (pushed; popped and destroyed by
 * another_end). */
static bool another_begin(CUcontext *ctx, CUdevice dev)
{
#if CUDA_VERSION >= 13000
    return checkDriver(cuCtxCreate(ctx, NULL, 0, dev)); /* CUDA 13 signature */
#else
    return checkDriver(cuCtxCreate(ctx, 0, dev));
#endif
}
static void another_end(CUcontext ctx)
{
    CUcontext top = NULL;
    (void)cuCtxGetCurrent(&top);
    if (top == ctx)
        (void)cuCtxPopCurrent(NULL);
    (void)cuCtxDestroy(ctx);
}

/* make_context(), which leaves the primary context (truth) current in place of none, and
 * nothing else changed (its flags, the other devices', the current device). */
static bool make_context_kept(CUcontext truth)
{
    struct harness_state want = harness_state_now();
    harness_state_set_top(&want, truth);
    bool made = make_context();
    harness_report("make_context", "%s", made ? "true" : "false");
    harness_state_check("make_context", &want);
    return made;
}

/* primary_context(), which names a context and changes nothing: the harness's own context
 * stays current, above the primary one, and no device is set. */
static bool primary_context_kept(CUcontext *named)
{
    struct harness_state want = harness_state_now();
    bool ok = primary_context(named);
    harness_state_check("primary_context", &want);
    return ok;
}

int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    harness_start(argc, argv,
                  "Exercise first_context: calls make_context() and primary_context(), reports "
                  "the driver's view.");
    int count = 0;
    CUdevice dev;
    CUcontext before = NULL, current = NULL, top = NULL, truth = NULL, named = NULL, other = NULL;
    if (!requireRuntime(cudaGetDeviceCount(&count)) || !checkDriver(cuDeviceGet(&dev, 0)) ||
        !checkDriver(cuCtxGetCurrent(&before)) ||
        !checkDriver(cuDevicePrimaryCtxRetain(&truth, dev)))
        return EXIT_CHECK;
    harness_report("context_before", "%s", before ? "set" : "none");
    /* asked before make_context(): the canary must exist before your first call */
    uint32_t seed = harness_seed_now();
    size_t canary_n = 512 + seed % 1024;
    /* a buffer of the primary context's, held by the harness's own reference while
     * make_context() runs (a reset loses it), then by the references make_context() took
     * alone while primary_context() runs (one given back before one is taken loses it) */
    CUdeviceptr canary = canary_make(truth, canary_n, seed, 7);
    (void)make_context_kept(truth);
    if (!checkDriver(cuCtxGetCurrent(&current)) || !checkDriver(cuDevicePrimaryCtxRelease(dev)))
        return EXIT_CHECK;
    int depth = harness_stack_depth(&top);
    bool ok = another_begin(&other, dev) && primary_context_kept(&named);
    another_end(other);
    canary_check("canary", truth, canary, canary_n);
    harness_report("current", "%s", !current ? "none" : current == truth ? "primary" : "another");
    harness_report("stack_depth", "%d", depth);
    harness_report("primary_context", "%s %s", ok ? "true" : "false",
                   !named           ? "none"
                   : named == truth ? "primary"
                                    : "another");
    if (current)
        copy_case(seed, 0, 1000 + seed % 4096);
    harness_report("refs_beyond_runtime", "%d", harness_primary_refs_beyond_runtime(dev));
    return harness_end(seed, true);
}
