/* 05_ptx_module/step8_green.c - step 8: a part of the GPU. A green context (core.c:
 * green_context; cuGreenCtxCreate, CUDA 12.4) is provisioned with a set of the device's SMs,
 * split off with cuDevSmResourceSplitByCount; a kernel launched in it runs on those SMs (never
 * fewer; in a few cases the Driver API names, more: MPS with CUDA_MPS_ACTIVE_THREAD_PERCENTAGE,
 * or a 9.x GPU once a module with dynamic parallelism is loaded). The same kernel, with more
 * blocks than fit at once, timed on the part and on the whole GPU: the part takes longer, about
 * as many times as the whole has SMs more (our model: the time goes with the number of waves of
 * blocks). */
#include <stdio.h>
#include <stdlib.h>

#include <cuda.h>
#include <nvrtc.h>

#include "ptx_module.h"

#if CUDA_VERSION >= 12040
/* Each thread spins for `cycles` clock cycles: work that takes an SM's time, not memory's. */
static const char spin_source[] = "extern \"C\" __global__ void spin(long long cycles)\n"
                                  "{\n"
                                  "    long long t0 = clock64();\n"
                                  "    while (clock64() - t0 < cycles) {\n"
                                  "    }\n"
                                  "}\n";

enum { SPIN_THREADS = 1024, WAVES_PER_SM = 16, SPIN_RUNS = 3 };

/* The spin kernel in the current context (`ptx`: its PTX, or its cubin): load, launch `blocks`
 * blocks, median of SPIN_RUNS host-timed runs in ms (after one warm-up). < 0 when a call failed. */
static double time_spin(const char *ptx, unsigned blocks)
{
    CUmodule mod = NULL;
    CUfunction f;
    long long cycles = 100000;
    void *args[] = {&cycles};
    double ms[SPIN_RUNS];
    bool ok = checkDriver(cuModuleLoadData(&mod, ptx)) &&
              checkDriver(cuModuleGetFunction(&f, mod, "spin"));
    for (int k = -1; k < SPIN_RUNS && ok; k++) {
        double t0 = host_ms();
        ok =
            checkDriver(cuLaunchKernel(f, blocks, 1, 1, SPIN_THREADS, 1, 1, 0, NULL, args, NULL)) &&
            checkDriver(cuCtxSynchronize());
        if (k >= 0)
            ms[k] = host_ms() - t0;
    }
    if (mod)
        ok = checkDriver(cuModuleUnload(mod)) && ok;
    return ok ? median_of(ms, SPIN_RUNS) : -1.0;
}

#endif

bool step_8_a_part_of_the_gpu(struct lesson *L)
{
    printf("\n8. A part of the GPU: a green context on some of its SMs (cuGreenCtxCreate, CUDA "
           "12.4)\n");
#if CUDA_VERSION >= 12040
    unsigned all_sms = 0, part_sms = 0;
    CUgreenCtx green = NULL;
    CUcontext gctx = NULL;
    const char *why = NULL;
    char *ptx = nvrtc_image(spin_source, "spin.cu", L, NULL); /* PTX, or a cubin (step 1) */
    if (!ptx)
        return false;
    /* A failure here is "not supported here" (an old driver, MIG, a tool), reported as such. */
    CUresult r = green_context(L->dev, &all_sms, &part_sms, &green, &gctx);
    if (r != CUDA_SUCCESS)
        why = cu_name(r);
    if (why) {
        printf("   the green context could not be made here: %s\n", why);
        not_judged("green contexts are not available here",
                   "a kernel on a part of the SMs takes longer");
        free(ptx);
        return !green || checkDriver(cuGreenCtxDestroy(green));
    }
    /* The whole GPU before and after the part: if the two differ, something else (another
     * program on this GPU) changed what the kernel gets, and the ratio is not judged. */
    unsigned blocks = WAVES_PER_SM * all_sms;
    double before = time_spin(ptx, blocks);
    bool ok = before >= 0 && checkDriver(cuCtxSetCurrent(gctx));
    double part = ok ? time_spin(ptx, blocks) : -1.0;
    ok = checkDriver(cuCtxSetCurrent(L->primary)) && part >= 0 && ok;
    double after = ok ? time_spin(ptx, blocks) : -1.0;
    ok = checkDriver(cuGreenCtxDestroy(green)) && after >= 0 && ok;
    free(ptx);
    if (!ok)
        return false;
    double whole = (before + after) / 2, model = (double)all_sms / part_sms, ratio = part / whole;
    printf("   cuDeviceGetDevResource: %u SMs; cuDevSmResourceSplitByCount(min %u): a group of %u "
           "SMs;\n"
           "   cuDevResourceGenerateDesc, cuGreenCtxCreate, cuCtxFromGreenCtx\n"
           "   spin(100000 cycles) in %u blocks of %d threads, median of %d runs:\n"
           "      the whole GPU (primary context)     %8.3f ms   (before the part: %.3f, after: "
           "%.3f)\n"
           "      %u of %u SMs (green context)       %8.3f ms   %.2fx as long; the SM ratio is "
           "%.2fx\n",
           all_sms, all_sms / 4, part_sms, blocks, SPIN_THREADS, SPIN_RUNS, whole, before, after,
           part_sms, all_sms, part, ratio, model);
    if (after > 1.15 * before || before > 1.15 * after) {
        char why[200];
        snprintf(why, sizeof why,
                 "the whole GPU took %.3f ms before the part and %.3f ms after: "
                 "something else (another program on this GPU?) changed what the kernel gets",
                 before, after);
        not_judged(why, "a kernel on a part of the SMs takes as much longer as the SM ratio says");
        return true;
    }
    timing_claim(
        L, ratio > 0.75 * model && ratio < 1.33 * model,
        "on %u of %u SMs the kernel took %.2fx as long, within a third of the SM ratio (%.2fx)",
        part_sms, all_sms, ratio, model);
    return true;
#else
    (void)L;
    not_judged("built with CUDA older than 12.4", "a kernel on a part of the SMs takes longer");
    return true;
#endif
}
