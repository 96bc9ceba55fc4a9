/* 05_ptx_module/step6_errors.c - step 6: the errors a student meets, each made on purpose
 * through core.c's calls: a missing file, a PTX syntax error, a missing kernel name, a PTX ISA
 * or a target newer than the driver or the card can take, an NVRTC compile error; each with
 * its code and its log. Then step6_mistakes.c's common mistakes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <nvrtc.h>

#include "embedded.h"
#include "ptx_module.h"

/* Load a broken PTX text with cuModuleLoadDataEx and print the result and the error log.
 * `what` says how the text is broken. Returns the result; the caller claims. */
static CUresult load_broken(struct lesson *L, char *bad_ptx, const char *what)
{
    CUmodule tmp = NULL;
    CUresult r = bad_ptx ? load_module_with_log(&tmp, bad_ptx, L->log) : CUDA_ERROR_OUT_OF_MEMORY;
    printf("   %s -> %s (%d); the JIT's error log:\n", what, cu_name(r), (int)r);
    print_log(stdout, L->log->error[0] ? L->log->error : "(empty)");
    if (r == CUDA_SUCCESS)
        checkDriver(cuModuleUnload(tmp));
    free(bad_ptx);
    return r;
}

/* b) a syntax error: one instruction misspelt ("ret;" -> "rte;"). Where the driver cannot
 *    compile this toolkit's PTX at all, it stops at the .version line, before the syntax. */
static bool syntax_error(struct lesson *L)
{
    if (!L->jit_ok) {
        printf("   b) PTX with \"ret;\" misspelt \"rte;\": not tried\n");
        not_judged(
            L->jit_why,
            "a PTX syntax error is CUDA_ERROR_INVALID_PTX, and only the error log says where "
            "(the line)");
        return true;
    }
    char *bad_ptx = ptx_edit((const char *)kernels_ptx, NULL, NULL, NULL);
    char *ret = bad_ptx ? strstr(bad_ptx, "ret;") : NULL;
    if (!ret) {
        fprintf(stderr, "%s: no 'ret;' in the PTX to break\n", lesson_prog);
        free(bad_ptx);
        return false;
    }
    memcpy(ret, "rte;", 4);
    int line = 1; /* the misspelt line's number in the text, which the log should name */
    for (const char *c = bad_ptx; c < ret; c++)
        line += *c == '\n';
    char where[40];
    snprintf(where, sizeof where, "line %d;", line);
    CUresult r =
        load_broken(L, bad_ptx, "b) PTX with \"ret;\" misspelt \"rte;\", cuModuleLoadDataEx");
    claim(r == CUDA_ERROR_INVALID_PTX && strstr(L->log->error, where) &&
              strstr(L->log->error, "'rte'"),
          "a PTX syntax error is CUDA_ERROR_INVALID_PTX, and only the error log says where: "
          "%.*s of the text, 'rte'",
          (int)strlen(where) - 1, where);
    return true;
}

/* f) NVRTC on source with a mistake. */
static bool nvrtc_error(struct lesson *L)
{
    static const char broken[] = "extern \"C\" __global__ void broken(float *y)\n"
                                 "{\n"
                                 "    y[threadIdx.x] = undefined_name;\n"
                                 "}\n";
    nvrtcProgram bp = NULL;
    nvrtcResult nr = nvrtc_compile(&bp, broken, "broken.cu", L->arch_opt);
    if (!bp)
        return checkNvrtc(nr);
    char *blog = NULL;
    bool ok = true;
    if (nvrtc_output(&bp, &blog, NULL, NULL, NULL)) {
        printf("   f) NVRTC on a source that uses an undeclared name -> %s (%d); its log:\n",
               nvrtcGetErrorString(nr), (int)nr);
        print_log(stdout, blog);
        claim(nr == NVRTC_ERROR_COMPILATION && strstr(blog, "undefined_name"),
              "an NVRTC compile error is NVRTC_ERROR_COMPILATION, explained in the program log");
    } else {
        ok = false;
    }
    free(blog);
    return ok;
}

/* e) a target newer than the card: the next architecture after this one. */
static bool newer_target(struct lesson *L)
{
    CUresult r;
    static const int known_sm[] = {75, 80, 86, 87, 89, 90, 100, 103, 110, 120, 121};
    int newer = 0;
    for (size_t i = 0; i < sizeof known_sm / sizeof known_sm[0] && !newer; i++)
        if (known_sm[i] > L->card_sm)
            newer = known_sm[i];
    if (newer && !L->jit_ok) {
        printf("   e) the same PTX marked \".target sm_%d\" on this sm_%d card: not tried\n", newer,
               L->card_sm);
        not_judged(L->jit_why, "PTX for a newer architecture than the card's does not load");
    } else if (newer) {
        char target[32], what[128];
        snprintf(target, sizeof target, ".target sm_%d", newer);
        snprintf(what, sizeof what, "e) the same PTX marked \"%s\" on this sm_%d card", target,
                 L->card_sm);
        r = load_broken(L, ptx_edit((const char *)kernels_ptx, ".target", target, NULL), what);
        claim(r != CUDA_SUCCESS, "PTX for a newer architecture than the card's does not load");
    }
    return true;
}

/* 6. Errors you will meet, each made here on purpose. */
bool step_6_errors_you_will_meet(struct lesson *L)
{
    printf("\n6. Errors you will meet, each made here on purpose\n");
    CUmodule tmp = NULL;
    CUresult r = cuModuleLoad(&tmp, "no/such/kernels.ptx");
    printf("   a) cuModuleLoad(\"no/such/kernels.ptx\") -> %s (%d)\n", cu_name(r), (int)r);
    claim(r == CUDA_ERROR_FILE_NOT_FOUND, "a missing file is CUDA_ERROR_FILE_NOT_FOUND");
    if (r == CUDA_SUCCESS && !checkDriver(cuModuleUnload(tmp)))
        return false;

    if (!syntax_error(L))
        return false;

    CUfunction missing = NULL;
    r = cuModuleGetFunction(&missing, L->mod[M_FATBIN], "saxpy");
    printf("   c) cuModuleGetFunction(module, \"saxpy\") -> %s (%d)\n", cu_name(r), (int)r);
    claim(r == CUDA_ERROR_NOT_FOUND,
          "a kernel name that is not in the module is CUDA_ERROR_NOT_FOUND");

    /* d) a PTX ISA version newer than this driver's JIT knows. */
    if (!L->jit_ok && L->no_jit) {
        printf("   d) the same PTX marked \".version 99.9\": not tried\n");
        not_judged(L->jit_why, "PTX newer than the driver is CUDA_ERROR_UNSUPPORTED_PTX_VERSION");
        return newer_target(L) && nvrtc_error(L) && common_mistakes(L);
    }
    r = load_broken(L, ptx_edit((const char *)kernels_ptx, ".version", ".version 99.9", NULL),
                    "d) the same PTX marked \".version 99.9\"");
    claim(r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
          "PTX newer than the driver is CUDA_ERROR_UNSUPPORTED_PTX_VERSION: update the driver");

    return newer_target(L) && nvrtc_error(L) && common_mistakes(L);
}
