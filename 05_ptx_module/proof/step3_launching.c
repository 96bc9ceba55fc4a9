/* 05_ptx_module/step3_launching.c - step 3: what the loaded function needs (core.c's
 * function_attributes) and two ways to pass its arguments (launch_axpy, kernelParams;
 * launch_axpy_with_extra, the packed buffer), each result checked on the host; and the data
 * axpy runs on in every step. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#include "ptx_module.h"

/* Host data, exact in float so that every correct path gives the same bits; x on the device. */
bool prepare_axpy_data(struct lesson *L)
{
    struct data *d = &L->d;
    d->x = malloc(N * sizeof(float));
    d->y0 = malloc(N * sizeof(float));
    d->expect = malloc(N * sizeof(float));
    d->out = malloc(N * sizeof(float));
    if (!d->x || !d->y0 || !d->expect || !d->out) {
        fprintf(stderr, "%s: out of host memory\n", lesson_prog);
        return false;
    }
    for (int i = 0; i < N; i++) {
        d->x[i] = (float)(i % 1000);
        d->y0[i] = (float)(i % 7) - 3.0f;
        d->expect[i] = AXPY_A * d->x[i] + d->y0[i];
    }
    return checkDriver(cuMemAlloc(&d->dx, N * sizeof(float))) &&
           checkDriver(cuMemAlloc(&d->dy, N * sizeof(float))) &&
           checkDriver(cuMemcpyHtoD(d->dx, d->x, N * sizeof(float)));
}

/* y on the device back to y0, before each launch of axpy. */
bool axpy_reset(struct data *d)
{
    return checkDriver(cuMemcpyHtoD(d->dy, d->y0, N * sizeof(float)));
}

/* Wait for the GPU, copy y back into d->out, count the elements that differ from the host's
 * answer. -1 when a CUDA call failed. */
int axpy_wrong(struct data *d)
{
    if (!checkDriver(cuCtxSynchronize()) ||
        !checkDriver(cuMemcpyDtoH(d->out, d->dy, N * sizeof(float))))
        return -1;
    int wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += d->out[i] != d->expect[i];
    return wrong;
}

/* Reset y, launch y = A*x + y (through kernelParams or through `extra`: core.c), copy y back
 * into d->out. Returns the number of wrong elements, or -1 when a CUDA call failed. */
int run_axpy(CUfunction f, struct data *d, bool use_extra)
{
    if (!axpy_reset(d))
        return -1;
    if (!use_extra && !checkDriver(launch_axpy(f, AXPY_A, d->dx, d->dy, N)))
        return -1;
    if (use_extra && !checkDriver(launch_axpy_with_extra(f, AXPY_A, d->dx, d->dy, N)))
        return -1;
    return axpy_wrong(d);
}

/* 3. What the loaded function needs, and two ways to pass its arguments. */
bool step_3_get_function_and_launch(struct lesson *L)
{
    printf("\n3. cuModuleGetFunction, cuFuncGetAttribute, cuLaunchKernel\n");
    struct fn_attrs at;
    int from = L->fn[M_EX] ? M_EX : L->fn[M_CUBIN] ? M_CUBIN : M_FATBIN; /* no JIT: SASS */
    if (!function_attributes(L->fn[from], &at))
        return false;
    int regs = at.regs, shared = at.shared, local = at.local, max_threads = at.max_threads;
    int ptx_ver = at.ptx_version, bin_ver = at.binary_version;
    printf("   %s (from step 2%c): %d registers per thread, %d bytes of static shared memory,\n"
           "   %d bytes of local memory, at most %d threads per block; PTX version %d, SASS for "
           "sm_%d\n",
           L->kernel,
           from == M_EX      ? 'c'
           : from == M_CUBIN ? 'd'
                             : 'e',
           regs, shared, local, max_threads, ptx_ver, bin_ver);
    if (L->log_regs >= 0)
        claim(regs == L->log_regs, "cuFuncGetAttribute and the JIT log agree: %d registers", regs);
    else
        not_judged(L->jit_ok ? "the JIT's log named no register count" : L->jit_why,
                   "cuFuncGetAttribute and the JIT log agree on the registers");
    claim(max_threads >= BLOCK && bin_ver == L->card_sm,
          "the function can take %d-thread blocks, and %s SASS for "
          "this card (sm_%d)",
          BLOCK, from == M_EX ? "the JIT made" : "the build made", bin_ver);

    int wrong = run_axpy(L->fn[M_FILE], &L->d, false);
    if (wrong < 0)
        return false;
    printf("   cuLaunchKernel(%s, grid %d, block %d, kernelParams = {&a, &x, &y, &n}):\n"
           "      y = %.1f * x + y on %d floats, %d wrong\n",
           L->kernel, (N + BLOCK - 1) / BLOCK, BLOCK, (double)AXPY_A, N, wrong);
    claim(wrong == 0, "the kernelParams launch computed every element right");
    wrong = run_axpy(L->fn[M_FILE], &L->d, true);
    if (wrong < 0)
        return false;
    printf("   cuLaunchKernel(..., extra = {BUFFER_POINTER, &args, BUFFER_SIZE, &size, END}):\n"
           "      args packed as the parameters lie: a at %zu, x at %zu, y at %zu, n at %zu; size "
           "%zu, the end\n"
           "      of n (a C struct of the four is %zu bytes, with tail padding); %d wrong\n",
           offsetof(struct axpy_args, a), offsetof(struct axpy_args, x),
           offsetof(struct axpy_args, y), offsetof(struct axpy_args, n),
           offsetof(struct axpy_args, n) + sizeof(int), sizeof(struct axpy_args), wrong);
    claim(wrong == 0, "the extra (packed buffer) launch computed every element right");
    return true;
}
