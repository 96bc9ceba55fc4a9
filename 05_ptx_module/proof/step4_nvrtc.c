/* 05_ptx_module/step4_nvrtc.c - step 4: PTX made at run time. NVRTC (core.c: nvrtc_compile,
 * nvrtc_output) compiles kernels.cu's text inside the program; the PTX is
 * loaded and launched like the build's, and every module of steps 2 and 4 computes axpy
 * against the host's answer. */
#define _GNU_SOURCE /* strdup */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <nvrtc.h>

#include "embedded.h"
#include "ptx_module.h"

/* NVRTC: kernels.cu's text (or --nvrtc's) in, PTX out (L->nvrtc_ptx), inside the running
 * program; with sm_XX (the driver cannot JIT this toolkit's PTX) a cubin too. */
static bool nvrtc_kernels(struct lesson *L)
{
    int nv_major = 0, nv_minor = 0;
    const char *src_name = L->nvrtc_arg ? L->nvrtc_arg : "kernels.cu";
    const char *source = L->nvrtc_src ? L->nvrtc_src : (const char *)kernels_cu;
    nvrtcProgram prog = NULL;
    if (!checkNvrtc(nvrtcVersion(&nv_major, &nv_minor)))
        return false;
    double t0 = host_ms();
    nvrtcResult nr = nvrtc_compile(&prog, source, src_name, L->arch_opt);
    double compile_ms = host_ms() - t0;
    if (!prog)
        return checkNvrtc(nr);
    size_t cubin_size = 0;
    bool built = nr == NVRTC_SUCCESS;
    if (!nvrtc_output(&prog, &L->nvrtc_log, built ? &L->nvrtc_ptx : NULL,
                      built && !L->jit_ok ? &L->nvrtc_cubin : NULL, &cubin_size))
        return false;
    if (!checkNvrtc(nr)) {
        fprintf(stderr, "%s: NVRTC could not compile %s; its log:\n", lesson_prog, src_name);
        print_log(stderr, L->nvrtc_log);
        return false;
    }
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

/* Every module of steps 2 and 4 computes axpy; *all_same: each bit for bit the host's answer. */
static bool every_module(struct lesson *L, bool *all_same)
{
    printf("   every module's %s, launched with kernelParams, against the host's answer:\n",
           L->kernel);
    for (int m = 0; m < M_COUNT; m++) {
        const char *what = m == M_NVRTC && !L->jit_ok ? "NVRTC's cubin" : module_what[m];
        /* not loaded: the cubin built for another card (step 2d), or PTX the driver cannot JIT */
        if (!L->fn[m]) {
            if (m == M_CUBIN && L->force_jit)
                printf("      %-34s not loaded: %s, and a cubin holds no PTX\n", what,
                       L->force_jit);
            else if (m == M_CUBIN)
                printf("      %-34s not loaded: SASS for sm_%d\n", what, kernels_arch);
            else
                printf("      %-34s not loaded: the driver cannot compile this PTX\n", what);
            continue;
        }
        int wrong = run_axpy(L->fn[m], &L->d, false);
        if (wrong < 0)
            return false;
        bool same = memcmp(L->d.out, L->d.expect, N * sizeof(float)) == 0;
        *all_same = *all_same && same;
        printf("      %-34s %d wrong%s\n",
               m == M_FILE && !L->jit_ok && !L->ptx_arg ? "cubin file, cuModuleLoad" : what, wrong,
               same ? "" : " (differs)");
    }
    return true;
}

/* 4. PTX made at run time, loaded and launched like the others; every module's result. */
bool step_4_ptx_made_at_run_time(struct lesson *L)
{
    printf("\n4. PTX made at run time: NVRTC compiles %s\n",
           L->nvrtc_arg ? L->nvrtc_arg : "kernels.cu's text, built into the program");
    if (!nvrtc_kernels(L))
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
               : L->force_jit || L->cache_small[0]
                   ? "the text of step 2 (the JIT cache: see step 1)"
                   : "the JIT cache has this text already, from step 2");
    else
        printf("   cuModuleLoadData(NVRTC's cubin): %.3f ms (SASS: the driver cannot compile this "
               "toolkit's PTX)\n",
               L->load_ms[M_NVRTC]);
    struct ptx_facts nf;
    read_ptx_facts(L->nvrtc_ptx, &nf);
    claim(has_word(nf.entries, L->kernel), "NVRTC's PTX names the entry point %s", L->kernel);

    bool all_same = true;
    if (!every_module(L, &all_same))
        return false;
    claim(all_same, "every loading path, NVRTC's included, gives the same result, bit for bit");
    return true;
}

/* NVRTC's output for `source` (named `name` in messages), compiled with L->arch_opt
 * (--gpu-architecture=compute_XX: PTX, or sm_XX: a cubin and its PTX). Returns the image to
 * load: the PTX where the driver can JIT it, else the cubin. NULL when a call failed. Steps 6
 * and 8 compile their kernels so. */
char *nvrtc_image(const char *source, const char *name, const struct lesson *L, char **ptx)
{
    nvrtcProgram p = NULL;
    size_t cubin_size = 0;
    char *text = NULL, *cubin = NULL;
    bool ok = checkNvrtc(nvrtc_compile(&p, source, name, L->arch_opt));
    if (!p)
        return NULL;
    /* where the driver cannot JIT: SASS for this card, nvrtcGetCUBIN, with -arch=sm_XX */
    ok = nvrtc_output(&p, NULL, ok ? &text : NULL, ok && !L->jit_ok ? &cubin : NULL, &cubin_size) &&
         ok;
    if (!ok) {
        free(text);
        free(cubin);
        return NULL;
    }
    if (!L->jit_ok) { /* load the cubin; the PTX only to read */
        if (ptx)
            *ptx = text;
        else
            free(text);
        return cubin;
    }
    if (ptx && (*ptx = strdup(text)) == NULL) {
        free(text);
        return NULL;
    }
    return text;
}
