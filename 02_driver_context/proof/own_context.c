/* 02_driver_context/proof/own_context.c - step 2, a context of our own: what it costs in time
 * and in device memory. Each round makes and destroys one context and times a batch of push +
 * pop pairs, the yardstick, so that a burst of other work slows one repetition of each and the
 * medians absorb it; the memory is judged against a control sample of free memory, against
 * the company NVML sees on the GPU, and against MPS (environment.c). The last round's context
 * also shows what part of that memory is for: the threads' stacks. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_shared.h"
#include "lesson.h"
#include "platform.h"

enum { PAIRS = 200 }; /* push + pop pairs of ctxA timed in each round */

struct rounds {
    int n;
    double create_ms[MAX_REPEAT], destroy_ms[MAX_REPEAT], taken_mib[MAX_REPEAT];
    double pair_us[MAX_REPEAT];
    double worst_return_mib, spread;
    bool back_to_a;
    size_t stack_b, fifo_b, heap_b; /* ctxA's limits */
    double stack_grew;              /* MiB that doubling the stack limit took (last round) */
};

/* The yardstick: PAIRS pushes and pops of ctxA, microseconds a pair. */
static double push_pop_us(bool *ok)
{
    CUcontext popped;
    double t0 = host_ms();
    for (int i = 0; i < PAIRS && *ok; i++)
        *ok = checkDriver(cuCtxPushCurrent(ctx_a)) && checkDriver(cuCtxPopCurrent(&popped));
    return (host_ms() - t0) * 1000.0 / PAIRS;
}

/* With the round's context current: double its stack limit and see how much free memory the
 * driver took for it. */
static bool raise_stack_limit(struct rounds *R)
{
    bool ok = true;
    size_t before = free_memory(&ok);
    ok = checkDriver(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 2 * R->stack_b)) && ok;
    size_t after = free_memory(&ok);
    R->stack_grew = ((double)before - (double)after) / MIB;
    return ok;
}

/* Round i: create a context (timed), read free memory, [last round: the stack limit], destroy
 * it (timed), read free memory again; then the push + pop yardstick. */
static bool one_round(struct lesson *L, struct rounds *R, int i)
{
    bool ok = true;
    CUcontext tmp = NULL;
    gpu_shared_sample();
    size_t before = free_memory(&ok);
    double t0 = host_ms();
    TRY(CREATE_CONTEXT(&tmp, L->dev));
    R->create_ms[i] = host_ms() - t0;
    size_t with_it = free_memory(&ok); /* device-wide figure; tmp is current now */
    bool probe_ok = i < R->n - 1 || raise_stack_limit(R);
    t0 = host_ms();
    TRY(checkDriver(cuCtxDestroy(tmp)) && probe_ok);
    R->destroy_ms[i] = host_ms() - t0;
    R->back_to_a = R->back_to_a && current(&ok) == ctx_a;
    size_t after = free_memory(&ok);
    gpu_shared_sample();
    R->pair_us[i] = push_pop_us(&ok);
    R->taken_mib[i] = ((double)before - (double)with_it) / MIB;
    double not_returned = ((double)before - (double)after) / MIB;
    if (not_returned > R->worst_return_mib)
        R->worst_return_mib = not_returned;
    if (i == 0)
        printf("     round 1: free device memory %.1f MiB before, %.1f MiB with the new context, "
               "%.1f MiB after destroying it\n",
               before / MIB, with_it / MIB, after / MIB);
    return ok;
}

/* The three memory claims: judged, or not with the reason (another program on the GPU, MPS,
 * free memory that moved by itself). */
static void memory_claims(struct lesson *L, struct rounds *R, const char *company, double taken)
{
    char why[512];
    const char *other = *L->mps ? L->mps : *company ? company : NULL;
    snprintf(why, sizeof why,
             "free device memory moved by %.1f MiB by itself (the control): another "
             "program allocates on this GPU",
             R->spread);
    if (other)
        not_judged(other, "every new context took device memory");
    else if (memory_judgeable(R->spread, R->taken_mib[0]))
        claim(R->taken_mib[0] > 0.0, "every new context took device memory: %.1f MiB or more",
              R->taken_mib[0]);
    else
        not_judged(why, "every new context took device memory");
    const char *back = "cuCtxDestroy gave that memory back (within 1% of what it took, each round)";
    if (other)
        not_judged(other, "%s", back);
    else if (memory_judgeable(R->spread, 0.01 * taken))
        claim(R->worst_return_mib <= 0.01 * taken, "%s", back);
    else
        not_judged(why, "%s", back);
}

/* What the stack reservation says about the memory a context takes. */
static void stack_claim(struct lesson *L, struct rounds *R, const char *company, double taken)
{
    int sms = 0, threads = 0;
    const char *text = "raising the stack limit reserved it for every thread the device can hold";
    if (!checkDriver(
            cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, L->dev)) ||
        !checkDriver(cuDeviceGetAttribute(
            &threads, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, L->dev))) {
        claim(false, "%s", text);
        return;
    }
    double model = (double)R->stack_b * sms * threads / MIB;
    printf("     in a new context, cuCtxSetLimit(CU_LIMIT_STACK_SIZE, %zu) took %.1f MiB more;\n"
           "     model: %zu B more per thread x %d SMs x %d threads per SM = %.1f MiB\n",
           2 * R->stack_b, R->stack_grew, R->stack_b, sms, threads, model);
    char why[160];
    snprintf(why, sizeof why,
             "free device memory moved by %.1f MiB by itself (the control), more than 10%% of the "
             "model",
             R->spread);
    const char *other = *L->mps ? L->mps : *company ? company : NULL;
    if (other || !memory_judgeable(R->spread, 0.1 * model)) {
        not_judged(other ? other : why, "%s", text);
    } else if (R->stack_grew > 0.0) {
        claim(R->stack_grew > 0.9 * model && R->stack_grew < 1.1 * model,
              "%s: %.1f MiB, the model's %.1f MiB within 10%%", text, R->stack_grew, model);
        printf(
            "     inferred, if the first %zu B per thread are reserved the same way: %.1f of the\n"
            "     %.1f MiB a context takes are stacks; the rest (printf FIFO, malloc heap, the\n"
            "     driver's own buffers) is not measured here\n",
            R->stack_b, model, taken);
    } else {
        not_judged("the driver reserved nothing when the limit was raised", "%s", text);
    }
}

/* The figures of the rounds, then the claims. */
static void report(struct lesson *L, struct rounds *R, const char *company)
{
    int n = R->n;
    double create_med = median_of(R->create_ms, n), destroy_med = median_of(R->destroy_ms, n);
    double taken = median_of(R->taken_mib, n), pair_us = median_of(R->pair_us, n);
    printf("     cuCtxCreate : median %.1f ms (min %.1f, max %.1f)\n", create_med, R->create_ms[0],
           R->create_ms[n - 1]);
    printf("     cuCtxDestroy: median %.1f ms (min %.1f, max %.1f)\n", destroy_med,
           R->destroy_ms[0], R->destroy_ms[n - 1]);
    printf("     device memory a context takes: median %.1f MiB (min %.1f, max %.1f)\n", taken,
           R->taken_mib[0], R->taken_mib[n - 1]);
    printf("     cuCtxPushCurrent + cuCtxPopCurrent: %.2f us a pair (%d pairs a round, median of "
           "the rounds)\n",
           pair_us, PAIRS);
    printf("     the control: free device memory, read 10 times 10 ms apart before the rounds and "
           "again\n"
           "     after them with nothing of this process changing, moved by %.1f MiB\n",
           R->spread);
    memory_claims(L, R, company, taken);
    claim(R->back_to_a,
          "destroying the current context popped it: ctxA was current again each time");
    char tool[256];
    const char *cost = "a context is costly to make: median %.1f ms, %.0fx a push + pop pair (more "
                       "than 100x)";
    if (under_tool(tool, sizeof tool))
        not_judged(tool, cost, create_med, create_med * 1000.0 / pair_us);
    else
        claim(create_med * 1000.0 > 100.0 * pair_us, cost, create_med,
              create_med * 1000.0 / pair_us);
    printf("     ctxA's limits (cuCtxGetLimit): stack %zu B per thread, printf FIFO %.2f MiB, "
           "malloc heap %.2f MiB\n",
           R->stack_b, R->fifo_b / MIB, R->heap_b / MIB);
    stack_claim(L, R, company, taken);
}

/* 2. ctxA stays current after this step: the observer of step 2, the bottom of step 3. */
bool step_2_a_context_of_our_own(struct lesson *L)
{
    bool ok = true;
    struct rounds R = {.n = (int)L->repeat, .back_to_a = true};
    printf("\n2. A context of our own: cuCtxCreate\n");
    printf("   CUDA %d.%d headers: %s\n", CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10,
           CREATE_FORM);
    printf(
        "   (the three-argument cuCtxCreate(&ctx, 0, dev) found in many examples is the CUDA 12\n"
        "   form and no longer compiles with CUDA 13)\n");
    double t0 = host_ms();
    TRY(CREATE_CONTEXT(&ctx_a, L->dev));
    double first_ms = host_ms() - t0;
    CUcontext now = current(&ok);
    printf("   ctxA = %p, created in %.1f ms (the first context of this process)\n", (void *)ctx_a,
           first_ms);
    claim(now == ctx_a, "a context is current as soon as cuCtxCreate returns (ctxA)");
    TRY(checkDriver(cuCtxGetLimit(&R.stack_b, CU_LIMIT_STACK_SIZE)) &&
        checkDriver(cuCtxGetLimit(&R.fifo_b, CU_LIMIT_PRINTF_FIFO_SIZE)) &&
        checkDriver(cuCtxGetLimit(&R.heap_b, CU_LIMIT_MALLOC_HEAP_SIZE)));
    printf("   %ld rounds of create + destroy, watched from ctxA with cuMemGetInfo:\n", L->repeat);
    gpu_shared_sample(); /* who else has a context on this GPU: NVML, before, during, after */
    R.spread = free_memory_spread(&ok); /* the control, before and after the rounds */
    for (int i = 0; i < R.n; i++)
        TRY(one_round(L, &R, i));
    double spread_after = free_memory_spread(&ok);
    char company[512] = "";
    gpu_company(company, sizeof company);
    TRY(ok);
    R.spread = spread_after > R.spread ? spread_after : R.spread;
    report(L, &R, company);
    return true;
}
