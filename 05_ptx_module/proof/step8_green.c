/* 05_ptx_module/step8_green.c - step 8: a part of the GPU. A green context (core.c:
 * green_context; cuGreenCtxCreate, CUDA 12.4) is provisioned with a set of the device's SMs,
 * split off with cuDevSmResourceSplitByCount; a kernel launched in it runs on those SMs (never
 * fewer; in a few cases the Driver API names, more: MPS with CUDA_MPS_ACTIVE_THREAD_PERCENTAGE,
 * or a 9.x GPU once a module with dynamic parallelism is loaded). The same kernel, with more
 * blocks than fit at once, timed on the part and on the whole GPU: the part takes longer, about
 * as many times as the whole has SMs more (our model: the time goes with the number of waves of
 * blocks). The two are timed round by round (one run of each per round, medians), so that a
 * burst of other work slows a round of both. */
#include <stdio.h>
#include <stdlib.h>

#include <cuda.h>
#include <nvrtc.h>

#include "ptx_module.h"

#if CUDA_VERSION >= 12040

/* A green context (CUDA 12.4) on a group of at least a quarter of the device's SMs: the SMs
 * (a resource), a group split off them, a descriptor, the green context, and a CUcontext for
 * it to make current. Its kernels get those SMs, never fewer (more in the cases the Driver
 * API's "Green Contexts" section names: MPS with CUDA_MPS_ACTIVE_THREAD_PERCENTAGE, a 9.x GPU
 * once a module using dynamic parallelism is loaded). The first failure is returned (where
 * green contexts are not to be had: an older driver, MIG, a tool). */
static CUresult green_context(CUdevice dev, unsigned *all_sms, unsigned *part_sms,
                              CUgreenCtx *green, CUcontext *ctx)
{
    CUdevResource all = {0}, part = {0};
    CUdevResourceDesc desc;
    unsigned groups = 1;
    CUresult r = cuDeviceGetDevResource(dev, &all, CU_DEV_RESOURCE_TYPE_SM);
    if (r == CUDA_SUCCESS) {
        *all_sms = all.sm.smCount;
        r = cuDevSmResourceSplitByCount(&part, &groups, &all, NULL, 0, all.sm.smCount / 4);
    }
    if (r == CUDA_SUCCESS && (r = cuDevResourceGenerateDesc(&desc, &part, 1)) == CUDA_SUCCESS &&
        (r = cuGreenCtxCreate(green, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM)) == CUDA_SUCCESS)
        r = cuCtxFromGreenCtx(ctx, *green);
    *part_sms = part.sm.smCount;
    return r;
}

/* Each thread spins for `cycles` clock cycles: work that takes an SM's time, not memory's. */
static const char spin_source[] = "extern \"C\" __global__ void spin(long long cycles)\n"
                                  "{\n"
                                  "    long long t0 = clock64();\n"
                                  "    while (clock64() - t0 < cycles) {\n"
                                  "    }\n"
                                  "}\n";

enum { SPIN_THREADS = 1024, WAVES_PER_SM = 16 };

/* The spin kernel (`image`: its PTX, or its cubin) loaded in ctx: a module is its context's. */
static bool spin_module(const char *image, CUcontext ctx, CUmodule *mod, CUfunction *f)
{
    return checkDriver(cuCtxSetCurrent(ctx)) && checkDriver(cuModuleLoadData(mod, image)) &&
           checkDriver(cuModuleGetFunction(f, *mod, "spin"));
}

/* One host-timed run of `blocks` blocks of spin in ctx, in ms; < 0 when a call failed. */
static double spin_once(CUcontext ctx, CUfunction f, unsigned blocks)
{
    long long cycles = 100000;
    void *args[] = {&cycles};
    if (!checkDriver(cuCtxSetCurrent(ctx)))
        return -1.0;
    double t0 = host_ms();
    bool ok =
        checkDriver(cuLaunchKernel(f, blocks, 1, 1, SPIN_THREADS, 1, 1, 0, NULL, args, NULL)) &&
        checkDriver(cuCtxSynchronize());
    return ok ? host_ms() - t0 : -1.0;
}

/* The whole GPU (the primary context) and the part (the green context), round by round after a
 * warm-up of each: whole[k] and part[k] for k < REPEATS. Left with the primary current. */
static bool spin_rounds(const char *image, struct lesson *L, CUcontext gctx, unsigned blocks,
                        double *whole, double *part)
{
    CUmodule mw = NULL, mp = NULL;
    CUfunction fw, fp;
    bool ok = spin_module(image, L->primary, &mw, &fw) && spin_module(image, gctx, &mp, &fp) &&
              spin_once(L->primary, fw, blocks) >= 0 && spin_once(gctx, fp, blocks) >= 0;
    for (int k = 0; k < REPEATS && ok; k++)
        ok = (whole[k] = spin_once(L->primary, fw, blocks)) >= 0 &&
             (part[k] = spin_once(gctx, fp, blocks)) >= 0;
    if (mp)
        ok = checkDriver(cuCtxSetCurrent(gctx)) && checkDriver(cuModuleUnload(mp)) && ok;
    ok = checkDriver(cuCtxSetCurrent(L->primary)) && ok;
    if (mw)
        ok = checkDriver(cuModuleUnload(mw)) && ok;
    return ok;
}

/* The part against the whole: judged unless the whole GPU's own runs differ (another program). */
static void judge_part(const struct lesson *L, double *whole, double *part, unsigned all_sms,
                       unsigned part_sms)
{
    double w = median_of(whole, REPEATS), p = median_of(part, REPEATS); /* sorted now */
    double model = (double)all_sms / part_sms, ratio = p / w;
    printf("      the whole GPU (primary context)     %8.3f ms   (its rounds: %.3f-%.3f)\n"
           "      %u of %u SMs (green context)       %8.3f ms   %.2fx as long; the SM ratio is "
           "%.2fx\n",
           w, whole[0], whole[REPEATS - 1], part_sms, all_sms, p, ratio, model);
    if (whole[REPEATS - 1] > 1.15 * whole[0]) {
        char why[200];
        snprintf(why, sizeof why,
                 "the whole GPU took from %.3f to %.3f ms across the rounds: something else "
                 "(another program on this GPU?) changed what the kernel gets",
                 whole[0], whole[REPEATS - 1]);
        not_judged(why, "a kernel on a part of the SMs takes as much longer as the SM ratio says");
        return;
    }
    timing_claim(
        L, ratio > 0.75 * model && ratio < 1.33 * model,
        "on %u of %u SMs the kernel took %.2fx as long, within a third of the SM ratio (%.2fx)",
        part_sms, all_sms, ratio, model);
}

/* green_context answered r: "not here" (an old driver, MIG, a tool) is not judged; the process's
 * limits (304, out of memory) are a failure, through check_driver_ (which names the limit). */
static bool no_green_context(CUresult r, CUgreenCtx green)
{
    bool ok = !green || checkDriver(cuGreenCtxDestroy(green));
    if (r == CUDA_ERROR_OPERATING_SYSTEM || r == CUDA_ERROR_OUT_OF_MEMORY)
        return check_driver_(r, "green_context(dev, ...)", __FILE__, __LINE__) && false;
    printf("   the green context could not be made here: %s\n", cu_name(r));
    not_judged("green contexts are not available here",
               "a kernel on a part of the SMs takes longer");
    return ok;
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
    char *ptx = nvrtc_image(spin_source, "spin.cu", L, NULL); /* PTX, or a cubin (step 1) */
    if (!ptx)
        return false;
    /* A failure here is "not supported here" (an old driver, MIG, a tool), reported as such. */
    CUresult r = green_context(L->dev, &all_sms, &part_sms, &green, &gctx);
    if (r != CUDA_SUCCESS) {
        free(ptx);
        return no_green_context(r, green);
    }
    unsigned blocks = WAVES_PER_SM * all_sms;
    double whole[REPEATS], part[REPEATS];
    bool ok = spin_rounds(ptx, L, gctx, blocks, whole, part);
    ok = checkDriver(cuGreenCtxDestroy(green)) && ok;
    free(ptx);
    if (!ok)
        return false;
    printf("   cuDeviceGetDevResource: %u SMs; cuDevSmResourceSplitByCount(min %u): a group of %u "
           "SMs;\n"
           "   cuDevResourceGenerateDesc, cuGreenCtxCreate, cuCtxFromGreenCtx\n"
           "   spin(100000 cycles) in %u blocks of %d threads, round by round, median of %d:\n",
           all_sms, all_sms / 4, part_sms, blocks, SPIN_THREADS, REPEATS);
    judge_part(L, whole, part, all_sms, part_sms);
    return true;
#else
    (void)L;
    not_judged("built with CUDA older than 12.4", "a kernel on a part of the SMs takes longer");
    return true;
#endif
}
