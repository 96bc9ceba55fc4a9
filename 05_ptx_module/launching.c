/* 05_ptx_module/launching.c - steps 3 to 5: cuModuleGetFunction, cuFuncGetAttribute and
 * cuLaunchKernel (kernelParams and the packed `extra` buffer); PTX made at run time by NVRTC;
 * what a launch costs the host, cuLaunchKernel against the runtime's <<<>>>. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <nvrtc.h>

#include "embedded.h"
#include "ptx_module.h"

/* kernels.cu: one <<<1, 1>>> launch of `empty`, the runtime's way. */
void launch_empty_runtime(void);

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

/* What `extra` packs: the parameters, each at its natural alignment, the way the kernel's
 * parameter list is laid out. A C struct with the same members puts them at the same offsets;
 * its sizeof (32) adds tail padding after n, so the size to pass is the end of n (28). */
struct axpy_args {
    float a;       /* offset 0, then 4 bytes of padding */
    CUdeviceptr x; /* offset 8 */
    CUdeviceptr y; /* offset 16 */
    int n;         /* offset 24 */
};

/* Reset y, launch y = A*x + y (through kernelParams or through `extra`), copy y back into
 * d->out. Returns the number of wrong elements, or -1 when a CUDA call failed. */
static int run_axpy(CUfunction f, struct data *d, bool use_extra)
{
    int n = N;
    float a = AXPY_A;
    unsigned grid = (N + BLOCK - 1) / BLOCK;
    if (!axpy_reset(d))
        return -1;
    if (!use_extra) {
        /* kernelParams: one pointer per parameter, pointing at its value. */
        void *params[] = {&a, &d->dx, &d->dy, &n};
        if (!checkDriver(cuLaunchKernel(f, grid, 1, 1, BLOCK, 1, 1, 0, NULL, params, NULL)))
            return -1;
    } else {
        /* extra: the parameters packed into one buffer (struct axpy_args above). */
        struct axpy_args args = {a, d->dx, d->dy, n};
        size_t size = offsetof(struct axpy_args, n) + sizeof args.n; /* 28, not sizeof args (32) */
        void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &args, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                         CU_LAUNCH_PARAM_END};
        if (!checkDriver(cuLaunchKernel(f, grid, 1, 1, BLOCK, 1, 1, 0, NULL, NULL, extra)))
            return -1;
    }
    return axpy_wrong(d);
}

/* 3. What the loaded function needs, and two ways to pass its arguments. */
bool step_3_get_function_and_launch(struct lesson *L)
{
    printf("\n3. cuModuleGetFunction, cuFuncGetAttribute, cuLaunchKernel\n");
    int regs = 0, shared = 0, max_threads = 0, ptx_ver = 0, bin_ver = 0, local = 0;
    int from = L->fn[M_EX] ? M_EX : L->fn[M_CUBIN] ? M_CUBIN : M_FATBIN; /* no JIT: SASS */
    CUfunction f = L->fn[from];
    if (!checkDriver(cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, f)) ||
        !checkDriver(cuFuncGetAttribute(&shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f)) ||
        !checkDriver(cuFuncGetAttribute(&local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, f)) ||
        !checkDriver(
            cuFuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f)) ||
        !checkDriver(cuFuncGetAttribute(&ptx_ver, CU_FUNC_ATTRIBUTE_PTX_VERSION, f)) ||
        !checkDriver(cuFuncGetAttribute(&bin_ver, CU_FUNC_ATTRIBUTE_BINARY_VERSION, f)))
        return false;
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

/* NVRTC: source text in, PTX out (L->nvrtc_ptx), inside the running program. */
static bool compile_with_nvrtc(struct lesson *L)
{
    int nv_major = 0, nv_minor = 0;
    const char *nv_opts[] = {L->arch_opt}; /* compute_XX: PTX; sm_XX: a cubin too (step 1) */
    const char *src_name = L->nvrtc_arg ? L->nvrtc_arg : "kernels.cu";
    if (!checkNvrtc(nvrtcVersion(&nv_major, &nv_minor)) ||
        !checkNvrtc(nvrtcCreateProgram(&L->prog,
                                       L->nvrtc_src ? L->nvrtc_src : (const char *)kernels_cu,
                                       src_name, 0, NULL, NULL)))
        return false;
    double t0 = host_ms();
    nvrtcResult nr = nvrtcCompileProgram(L->prog, 1, nv_opts);
    double compile_ms = host_ms() - t0;
    size_t log_size = 0, ptx_size = 0;
    if (!checkNvrtc(nvrtcGetProgramLogSize(L->prog, &log_size)) ||
        !(L->nvrtc_log = malloc(log_size + 1)) ||
        !checkNvrtc(nvrtcGetProgramLog(L->prog, L->nvrtc_log)))
        return false;
    if (!checkNvrtc(nr)) {
        fprintf(stderr, "%s: NVRTC could not compile %s; its log:\n", lesson_prog, src_name);
        print_log(stderr, L->nvrtc_log);
        return false;
    }
    if (!checkNvrtc(nvrtcGetPTXSize(L->prog, &ptx_size)) ||
        !(L->nvrtc_ptx = malloc(ptx_size + 1)) || !checkNvrtc(nvrtcGetPTX(L->prog, L->nvrtc_ptx)))
        return false;
    L->nvrtc_ptx[ptx_size] = '\0';
    size_t cubin_size = 0;
    if (!L->jit_ok && (!checkNvrtc(nvrtcGetCUBINSize(L->prog, &cubin_size)) ||
                       !(L->nvrtc_cubin = malloc(cubin_size)) ||
                       !checkNvrtc(nvrtcGetCUBIN(L->prog, L->nvrtc_cubin))))
        return false;
    struct ptx_facts nf;
    read_ptx_facts(L->nvrtc_ptx, &nf);
    printf("   NVRTC %d.%d, nvrtcCompileProgram(%s): %.3f ms, %zu bytes of PTX, entries: %s\n",
           nv_major, nv_minor, L->arch_opt, compile_ms, strlen(L->nvrtc_ptx), nf.entries);
    if (!L->jit_ok)
        printf("   and, for sm_%d, SASS: nvrtcGetCUBIN gives a cubin of %zu bytes, which needs no "
               "JIT\n",
               L->card_sm, cubin_size);
    return true;
}

/* 4. PTX made at run time, loaded and launched like the others; every module's result. */
bool step_4_ptx_made_at_run_time(struct lesson *L)
{
    printf("\n4. PTX made at run time: NVRTC compiles %s\n",
           L->nvrtc_arg ? L->nvrtc_arg : "kernels.cu's text, built into the program");
    if (!compile_with_nvrtc(L))
        return false;
    double t0 = host_ms();
    CUresult r = cuModuleLoadData(&L->mod[M_NVRTC], L->jit_ok ? L->nvrtc_ptx : L->nvrtc_cubin);
    L->load_ms[M_NVRTC] = host_ms() - t0;
    if (!check_driver_(r, "cuModuleLoadData(&mod[M_NVRTC], image)", __FILE__, __LINE__) ||
        !checkDriver(cuModuleGetFunction(&L->fn[M_NVRTC], L->mod[M_NVRTC], L->kernel)))
        return false;
    bool same_text = strcmp(L->nvrtc_ptx, (const char *)kernels_ptx) == 0;
    printf("   NVRTC's PTX is byte for byte the same as kernels.ptx from nvcc -ptx: %s\n",
           same_text ? "yes" : "no");
    if (L->jit_ok)
        printf("   cuModuleLoadData(NVRTC's PTX): %.3f ms (%s)\n", L->load_ms[M_NVRTC],
               !same_text     ? "new text: a cold JIT"
               : L->cache_off ? "the text of step 2, but CUDA_CACHE_DISABLE=1: compiled again"
                              : "the JIT cache has this text already, from step 2");
    else
        printf("   cuModuleLoadData(NVRTC's cubin): %.3f ms (SASS: the driver cannot compile this "
               "toolkit's PTX)\n",
               L->load_ms[M_NVRTC]);
    struct ptx_facts nf;
    read_ptx_facts(L->nvrtc_ptx, &nf);
    claim(has_word(nf.entries, L->kernel), "NVRTC's PTX names the entry point %s", L->kernel);

    printf("   every module's %s, launched with kernelParams, against the host's answer:\n",
           L->kernel);
    bool all_same = true;
    for (int m = 0; m < M_COUNT; m++) {
        const char *what = m == M_NVRTC && !L->jit_ok ? "NVRTC's cubin" : module_what[m];
        if (!L->fn
                 [m]) { /* the cubin, built for another card (step 2d); PTX the driver cannot JIT */
            if (m == M_CUBIN)
                printf("      %-34s not loaded: SASS for sm_%d\n", what, kernels_arch);
            else
                printf("      %-34s not loaded: the driver cannot compile this PTX\n", what);
            continue;
        }
        int wrong = run_axpy(L->fn[m], &L->d, false);
        if (wrong < 0)
            return false;
        bool same = memcmp(L->d.out, L->d.expect, N * sizeof(float)) == 0;
        all_same = all_same && same;
        printf("      %-34s %d wrong%s\n",
               m == M_FILE && !L->jit_ok && !L->ptx_arg ? "cubin file, cuModuleLoad" : what, wrong,
               same ? "" : " (differs)");
    }
    claim(all_same, "every loading path, NVRTC's included, gives the same result, bit for bit");
    return true;
}

/* 5. Host time per launch of an empty kernel: cuLaunchKernel, <<<>>>, and with a wait. */
bool step_5_what_a_launch_costs(struct lesson *L)
{
    printf("\n5. What a launch costs the host: empty kernel, %ld launches per run, %d runs\n",
           L->launches, REPEATS);
    double cu_us[REPEATS], rt_us[REPEATS], sync_us[REPEATS];
    long launches = L->launches, sync_launches = launches / 10 > 0 ? launches / 10 : 1;
    bool ok = true;
    /* Warm up both paths: the runtime loads its own copy of `empty` on first use. */
    for (int i = 0; i < 100 && ok; i++) {
        ok = checkDriver(cuLaunchKernel(L->empty_fn, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
        launch_empty_runtime();
    }
    if (!ok || !checkRuntime(cudaGetLastError()) || !checkDriver(cuCtxSynchronize()))
        return false;
    for (int k = 0; k < REPEATS; k++) {
        CUresult first = CUDA_SUCCESS;
        double t0 = host_ms();
        for (long i = 0; i < launches; i++) {
            CUresult lr = cuLaunchKernel(L->empty_fn, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL);
            if (lr != CUDA_SUCCESS && first == CUDA_SUCCESS)
                first = lr;
        }
        cu_us[k] = (host_ms() - t0) * 1e3 / (double)launches;
        if (!checkDriver(first) || !checkDriver(cuCtxSynchronize()))
            return false;
        t0 = host_ms();
        for (long i = 0; i < launches; i++)
            launch_empty_runtime();
        rt_us[k] = (host_ms() - t0) * 1e3 / (double)launches;
        if (!checkRuntime(cudaGetLastError()) || !checkDriver(cuCtxSynchronize()))
            return false;
        t0 = host_ms();
        for (long i = 0; i < sync_launches; i++) {
            CUresult lr = cuLaunchKernel(L->empty_fn, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL);
            if (lr == CUDA_SUCCESS)
                lr = cuCtxSynchronize();
            if (lr != CUDA_SUCCESS && first == CUDA_SUCCESS)
                first = lr;
        }
        sync_us[k] = (host_ms() - t0) * 1e3 / (double)sync_launches;
        if (!checkDriver(first))
            return false;
    }
    double cu_med =
        print_median("   cuLaunchKernel                       ", cu_us, 6, 2, "us per launch");
    double rt_med =
        print_median("   <<<1, 1>>> (the runtime's launch)    ", rt_us, 6, 2, "us per launch");
    double sync_med =
        print_median("   cuLaunchKernel + cuCtxSynchronize    ", sync_us, 6, 2, "us per launch");
    double ratio = cu_med / rt_med;
    timing_claim(L, ratio > 0.5 && ratio < 2.0,
                 "cuLaunchKernel and <<<>>> cost about the same (ratio %.2f, "
                 "within a factor of 2)",
                 ratio);
    timing_claim(L, cu_med < 100.0 && rt_med < 100.0,
                 "a launch costs the host microseconds, not milliseconds");
    timing_claim(L, sync_med > cu_med,
                 "waiting for each launch to finish (%.2f us) costs more than launching "
                 "(%.2f us)",
                 sync_med, cu_med);
    return launch_cost_graphs(L);
}
