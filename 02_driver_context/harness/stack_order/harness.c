/*
 * 02_driver_context/harness/stack_order - the grader's side of exercise stack_order: creates
 * ctxA then ctxB (the stack is [ctxA ctxB]), calls allocate_in_a() (stack_order.c) and reports
 * the buffer's owner, the stack afterwards (top first) and data copied through the buffer.
 * It judges nothing (grading/harness/exercise_harness.h).
 */
#include "02_harness.h"
#include "stack_order.h"

HARNESS_FOLLOW_DEVICE_ALLOCATIONS()

int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    harness_start(argc, argv,
                  "Exercise stack_order: calls allocate_in_a() with [ctxA ctxB] on the stack, "
                  "reports owner and stack.");
    CUdevice dev;
    CUcontext ctx[2] = {NULL, NULL};
    const char *const names[2] = {"ctxA", "ctxB"};
    CUdeviceptr buf = 0;
    char stack[256];
    if (!requireDriver(cuInit(0)) || !checkDriver(cuDeviceGet(&dev, 0)) ||
        !make_context(&ctx[0], dev) || !make_context(&ctx[1], dev))
        return EXIT_CHECK;
    /* asked before allocate_in_a(): the size you allocate comes from it */
    uint32_t seed = harness_seed_now();
    size_t n = 1000 + seed % 8192;
    struct harness_state state; /* allocate_in_a() leaves all of it as it found it */
    harness_state_take(&state);
    harness_device_allocs.counting = 1;
    bool ok = allocate_in_a(ctx[0], ctx[1], &buf, n * sizeof(float));
    harness_device_allocs.counting = 0;
    harness_report("allocate_in_a", "%s", ok ? "true" : "false");
    harness_state_check("allocate_in_a", &state);
    stack_names(stack, sizeof stack, ctx, names, 2);
    harness_report("owner", "%s", buf ? owner_name(buf, ctx, names, 2) : "none");
    harness_report("stack", "%s", stack);
    if (buf) {
        copy_through("case0", buf, n, seed, 0);
        (void)cuMemFree(buf);
    }
    /* the one buffer handed back is freed now: any other allocation of allocate_in_a() leaked */
    harness_report("allocations_left", "%d", harness_device_allocs_alive());
    bool clean = checkDriver(cuCtxDestroy(ctx[1])) && checkDriver(cuCtxDestroy(ctx[0]));
    return harness_end(seed, clean);
}
