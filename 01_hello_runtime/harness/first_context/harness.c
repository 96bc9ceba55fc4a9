/*
 * 01_hello_runtime/harness/first_context - the grader's side of exercise first_context: it
 * calls make_context() and primary_context() (exercises/first_context/first_context.c) and
 * reports what the driver says (common/exercise_harness.h: it judges nothing; tests/exercises does).
 */
#include "01_harness.h"
#include "first_context.h"

int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    uint32_t seed = harness_seed(argc, argv,
                                 "Exercise first_context: calls make_context() and "
                                 "primary_context(), reports the driver's view.");
    int count = 0;
    CUdevice dev;
    CUcontext before = NULL, current = NULL, top = NULL, truth = NULL, named = NULL;
    if (!requireRuntime(cudaGetDeviceCount(&count)) || !checkDriver(cuDeviceGet(&dev, 0)) ||
        !checkDriver(cuCtxGetCurrent(&before)))
        return EXIT_CHECK;
    harness_report("context_before", "%s", before ? "set" : "none");
    bool made = make_context();
    harness_report("make_context", "%s", made ? "true" : "false");
    if (!checkDriver(cuCtxGetCurrent(&current)))
        return EXIT_CHECK;
    int depth = harness_stack_depth(&top);
    bool ok = primary_context(&named);
    if (!checkDriver(cuDevicePrimaryCtxRetain(&truth, dev)) ||
        !checkDriver(cuDevicePrimaryCtxRelease(dev)))
        return EXIT_CHECK;
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
