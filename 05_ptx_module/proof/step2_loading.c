/* 05_ptx_module/step2_loading.c - step 2: what the build made, loaded as a module each way
 * (cuModuleLoad, cuModuleLoadData, core.c's load_module_with_log, cuModuleGetFunction), each timed;
 * which compiler the driver used, what the JIT logged, what the driver took from the fatbin;
 * a cold JIT, a JIT cache hit and SASS, each repeated. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#include "embedded.h"
#include "ptx_module.h"

/* The driver cannot compile this build's PTX (step 1 said so from the versions, or it has
 *  just answered `r` to kernels.ptx): say so, and load the cubin file the build made instead. */
static bool cubin_file_instead(struct lesson *L, CUresult r)
{
    printf("   a) cuModuleLoad(\"kernels.ptx\") -> %s (%d)\n", cu_name(r), (int)r);
    if (!L->jit_ok) {
        claim(r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
              "the driver refuses PTX newer than its JIT: "
              "CUDA_ERROR_UNSUPPORTED_PTX_VERSION, as the versions said");
    } else { /* the versions said yes, the driver said no */
        L->jit_ok = false;
        snprintf(L->jit_why, sizeof L->jit_why,
                 "the driver (CUDA %d.%d) answered CUDA_ERROR_UNSUPPORTED_PTX_VERSION to this "
                 "toolkit's PTX "
                 "(ISA %d.%d): update the driver, or build with the toolkit it came with",
                 L->driver_version / 1000, L->driver_version % 1000 / 10, L->ptx_isa / 10,
                 L->ptx_isa % 10);
        snprintf(L->arch_opt, sizeof L->arch_opt, "--gpu-architecture=sm_%d", L->card_sm);
        printf("      the driver cannot compile this toolkit's PTX: every step below loads SASS "
               "instead\n");
    }
    if (r == CUDA_SUCCESS && !checkDriver(cuModuleUnload(L->mod[M_FILE])))
        return false;
    L->mod[M_FILE] = NULL;
    /* The cubin is for the first architecture of ARCH; the fatbin has SASS for each. */
    const char *file = "kernels.cubin";
    char path[4200];
    beside_program(file, path, sizeof path);
    double t0 = host_ms();
    r = cuModuleLoad(&L->mod[M_FILE], path);
    if (r == CUDA_ERROR_NO_BINARY_FOR_GPU) {
        file = "kernels.fatbin";
        beside_program(file, path, sizeof path);
        t0 = host_ms();
        r = cuModuleLoad(&L->mod[M_FILE], path);
    }
    if (r == CUDA_ERROR_NO_BINARY_FOR_GPU || r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION) {
        fprintf(stderr,
                "%s: this build has no SASS for this sm_%d card, and %s. Build for this card: "
                "make ARCH=%d\n",
                lesson_prog, L->card_sm, L->jit_why, L->card_sm);
        L->exit_code = EXIT_CANNOT_RUN;
        return false;
    }
    if (!check_driver_(r, "cuModuleLoad(&mod[M_FILE], path)", __FILE__, __LINE__))
        return false;
    L->load_ms[M_FILE] = host_ms() - t0;
    t0 = host_ms();
    if (!checkDriver(cuModuleGetFunction(&L->fn[M_FILE], L->mod[M_FILE], L->kernel)))
        return false;
    L->get_ms[M_FILE] = host_ms() - t0;
    printf("      cuModuleLoad(\"%s\") instead, the SASS the build made: load %.3f ms,\n"
           "      cuModuleGetFunction %.3f ms\n",
           file, L->load_ms[M_FILE], L->get_ms[M_FILE]);
    not_judged(L->jit_why, "the JIT is the driver's own compiler, of the driver's version");
    return true;
}

/* 2a) a file, by name. cuModuleLoad reads PTX, cubin or fatbin files alike. When it fails,
 *     the same text through cuModuleLoadDataEx gives the JIT's error log. */
static bool load_from_file(struct lesson *L)
{
    char path[4200];
    if (L->ptx_arg)
        snprintf(path, sizeof path, "%s", L->ptx_arg);
    else
        beside_program("kernels.ptx", path, sizeof path);
    char jit[256] = "", driver[256] = "";
    bool had_jit = mapped_library("libnvidia-ptxjitcompiler", jit, sizeof jit);
    double t0 = host_ms();
    CUresult r = cuModuleLoad(&L->mod[M_FILE], path);
    L->load_ms[M_FILE] = host_ms() - t0;
    if (!L->ptx_arg && (!L->jit_ok || r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION))
        return cubin_file_instead(L, r);
    char *file_ptx = NULL;
    if (r != CUDA_SUCCESS) {
        check_driver_(r, "cuModuleLoad(&mod[M_FILE], path)", __FILE__, __LINE__);
        fprintf(stderr, "%s: cuModuleLoad could not load '%s': %s\n", lesson_prog,
                L->ptx_arg ? L->ptx_arg : "kernels.ptx", cu_name(r));
        CUmodule tmp = NULL;
        if (r != CUDA_ERROR_FILE_NOT_FOUND &&
            (file_ptx = read_file(path, PTX_FILE_LIMIT, NULL)) != NULL &&
            load_module_with_log(&tmp, file_ptx, L->log) != CUDA_SUCCESS) {
            fprintf(stderr, "%s: the JIT's error log (from cuModuleLoadDataEx on the same text):\n",
                    lesson_prog);
            print_log(stderr, L->log->error[0] ? L->log->error : "(empty)");
        }
        if (tmp)
            checkDriver(cuModuleUnload(tmp));
        free(file_ptx);
        return false;
    }
    t0 = host_ms();
    r = cuModuleGetFunction(&L->fn[M_FILE], L->mod[M_FILE], L->kernel);
    L->get_ms[M_FILE] = host_ms() - t0;
    if (r != CUDA_SUCCESS) {
        check_driver_(r, "cuModuleGetFunction(&fn[M_FILE], mod[M_FILE], kernel)", __FILE__,
                      __LINE__);
        struct ptx_facts ff = {0};
        if ((file_ptx = read_file(path, PTX_FILE_LIMIT, NULL)) != NULL)
            read_ptx_facts(file_ptx, &ff);
        fprintf(stderr, "%s: the module has no kernel named '%s' (%s); its PTX entries are: %s\n",
                lesson_prog, L->kernel, cu_name(r), ff.entries[0] ? ff.entries : "(unknown)");
        fprintf(
            stderr,
            "%s: (a kernel that is not extern \"C\" has a C++-mangled name, like _Z4axpyfPKfPfi)\n",
            lesson_prog);
        free(file_ptx);
        return false;
    }
    printf("   a) cuModuleLoad(\"%s\")\n", L->ptx_arg ? L->ptx_arg : "kernels.ptx");
    printf("      the first JIT in this process (cache empty, JIT compiler %s): load %.3f ms,\n"
           "      cuModuleGetFunction %.3f ms\n",
           had_jit ? "mapped already" : "not loaded yet", L->load_ms[M_FILE], L->get_ms[M_FILE]);
    if (L->ptx_arg) /* it may be a cubin: no JIT */
        return true;
    /* Which compiler did that? The one the driver maps into the process, from its own files. */
    bool has_jit = mapped_library("libnvidia-ptxjitcompiler", jit, sizeof jit);
    mapped_library("libcuda.so", driver, sizeof driver);
    const char *jit_ver = strstr(jit, ".so."), *driver_ver = strstr(driver, ".so.");
    printf("      the JIT that compiled it: %s, %s; the driver: %s\n",
           has_jit ? jit : "(none mapped)",
           had_jit ? "mapped before this load" : "mapped by this load",
           driver[0] ? driver : "(not found)");
    if (has_jit && jit_ver && driver_ver && strcmp(driver_ver, ".so.1") != 0)
        claim(strcmp(jit_ver, driver_ver) == 0,
              "the JIT is the driver's own compiler, of the driver's version "
              "(%s), not the toolkit's ptxas",
              driver_ver + 4);
    else
        not_judged("the driver's files carry no version in their names here",
                   "the JIT is the driver's own compiler, of the driver's version");
    return true;
}

/* 2c) with JIT options. One extra line makes the text new, so the JIT really runs and has
 *     something to log. */
static bool load_with_options(struct lesson *L)
{
    L->log_regs = -1;
    if (!L->jit_ok) {
        printf("   c) cuModuleLoadDataEx(kernels_ptx + one line, 7 options: the JIT's logs and "
               "time): not tried\n");
        not_judged(L->jit_why, "the JIT reports its own time, a part of the load");
        not_judged(L->jit_why, "the JIT's info log names the kernel %s", L->kernel);
        return true;
    }
    char *cold_ptx = ptx_edit((const char *)kernels_ptx, NULL, NULL,
                              "\n// one line more, so the cache has not seen this text\n"
                              ".visible .global .align 4 .u32 lesson_with_options;\n");
    if (!cold_ptx) {
        fprintf(stderr, "%s: out of host memory\n", lesson_prog);
        return false;
    }
    double t0 = host_ms();
    CUresult r = load_module_with_log(&L->mod[M_EX], cold_ptx, L->log);
    L->load_ms[M_EX] = host_ms() - t0;
    free(cold_ptx);
    if (!check_driver_(r, "cuModuleLoadDataEx(&mod[M_EX], cold_ptx, 7, options, values)", __FILE__,
                       __LINE__)) {
        print_log(stderr, L->log->error);
        return false;
    }
    if (!checkDriver(cuModuleGetFunction(&L->fn[M_EX], L->mod[M_EX], L->kernel)))
        return false;
    printf(
        "   c) cuModuleLoadDataEx(kernels_ptx + one line, 7 options: info and error log buffers,\n"
        "      verbose log, optimisation level 4, wall time)\n");
    printf("      load %.3f ms, of which the JIT itself reports %.3f ms; its info log:\n",
           L->load_ms[M_EX], (double)L->log->wall_ms);
    print_log(stdout, L->log->info[0] ? L->log->info : "(empty)");
    claim(L->log->wall_ms > 0 && L->log->wall_ms <= L->load_ms[M_EX],
          "the JIT reported its own time (%.3f ms), a part of the %.3f ms the load took",
          (double)L->log->wall_ms, L->load_ms[M_EX]);
    claim(strstr(L->log->info, L->kernel) != NULL, "the JIT's info log names the kernel %s",
          L->kernel);
    /* "Compiling entry function 'axpy' ... Used 10 registers": the kernel's own line. */
    char entry[300];
    snprintf(entry, sizeof entry, "entry function '%s'", L->kernel);
    const char *used = strstr(L->log->info, entry);
    if (used && (used = strstr(used, "Used ")) != NULL)
        sscanf(used, "Used %d registers", &L->log_regs);
    return true;
}

/* Can SASS for sm_`sass` run on an sm_`card` card? Only within one major architecture, on the
 * same or a higher minor version (CUDA C++ Programming Guide, "Binary Compatibility"). */
static bool sass_runs_on(int sass, int card)
{
    return sass / 10 == card / 10 && sass <= card;
}

/* 2d) the cubin: SASS already, nothing to compile; for one architecture only (the first of
 *     ARCH), so on another card it does not load, and the fatbin (2e) carries the others. */
static bool load_cubin(struct lesson *L)
{
    double t0 = host_ms();
    CUresult r = cuModuleLoadData(&L->mod[M_CUBIN], kernels_cubin);
    L->load_ms[M_CUBIN] = host_ms() - t0;
    if (r == CUDA_ERROR_NO_BINARY_FOR_GPU) {
        L->mod[M_CUBIN] = NULL;
        printf(
            "   d) cuModuleLoadData(kernels_cubin) -> %s (%d): it holds SASS for sm_%d only\n"
            "      (the first of ARCH), and SASS runs only on its own major architecture, at the\n"
            "      same or a higher minor version; this card is sm_%d. The fatbin (e) has the "
            "rest.\n",
            cu_name(r), (int)r, kernels_arch, L->card_sm);
        claim(!sass_runs_on(kernels_arch, L->card_sm),
              "SASS for sm_%d does not load on this sm_%d card", kernels_arch, L->card_sm);
        return true;
    }
    if (!check_driver_(r, "cuModuleLoadData(&mod[M_CUBIN], kernels_cubin)", __FILE__, __LINE__))
        return false;
    t0 = host_ms();
    if (!checkDriver(cuModuleGetFunction(&L->fn[M_CUBIN], L->mod[M_CUBIN], L->kernel)))
        return false;
    L->get_ms[M_CUBIN] = host_ms() - t0;
    printf("   d) cuModuleLoadData(kernels_cubin): load %.3f ms, cuModuleGetFunction %.3f ms\n",
           L->load_ms[M_CUBIN], L->get_ms[M_CUBIN]);
    return true;
}

/* 2e) the fatbinary: SASS for every architecture of ARCH and PTX for the last. The driver
 *     takes SASS that fits the card where there is some, else compiles the PTX (CUDA C++
 *     Programming Guide, "Binary Compatibility" and "Application Compatibility").
 *     CU_FUNC_ATTRIBUTE_BINARY_VERSION is the card's either way, so the JIT's own log tells
 *     which it did: the fatbin's PTX carries one variable more than kernels.ptx (KERNELS_FATBIN
 *     in kernels.cu), a text no JIT cache has seen, so compiling it would leave "Compiling
 *     entry function" lines in the info log. */
static bool load_fatbin(struct lesson *L)
{
    struct fatbin_entry e[32];
    int n = fatbin_list(kernels_fatbin, kernels_fatbin_size, e, 32);
    char sass[160] = "", ptx[64] = "";
    int expect = 0, ptx_arch = 0; /* the SASS the driver should take; the PTX it could JIT */
    for (int i = 0; i < n; i++) {
        char *list = e[i].sass ? sass : ptx;
        size_t used = strlen(list);
        snprintf(list + used, (e[i].sass ? sizeof sass : sizeof ptx) - used, "%s%s_%d",
                 used ? " " : "", e[i].sass ? "sm" : "compute", e[i].arch);
        if (e[i].sass && sass_runs_on(e[i].arch, L->card_sm) && e[i].arch > expect)
            expect = e[i].arch;
        if (!e[i].sass && e[i].arch <= L->card_sm && e[i].arch > ptx_arch)
            ptx_arch = e[i].arch;
    }
    L->fatbin_has_sass = expect > 0;
    if (!expect && ptx_arch)
        expect = L->card_sm; /* no SASS fits: the JIT compiles the PTX for this card */
    struct jit_log *log = malloc(sizeof *log);
    if (!log) {
        fprintf(stderr, "%s: out of host memory\n", lesson_prog);
        return false;
    }
    double t0 = host_ms();
    CUresult r = load_module_with_log(&L->mod[M_FATBIN], kernels_fatbin, log);
    L->load_ms[M_FATBIN] = host_ms() - t0;
    if (r != CUDA_SUCCESS && !L->fatbin_has_sass && !L->jit_ok) {
        fprintf(stderr,
                "%s: cuModuleLoadData(kernels_fatbin) -> %s: it holds SASS for %s, none for this "
                "sm_%d card, "
                "and %s. Build for this card: make ARCH=%d\n",
                lesson_prog, cu_name(r), sass[0] ? sass : "(none)", L->card_sm, L->jit_why,
                L->card_sm);
        L->exit_code = EXIT_CANNOT_RUN;
        free(log);
        return false;
    }
    struct fn_attrs at = {0};
    bool ok =
        check_driver_(r, "cuModuleLoadDataEx(&mod[M_FATBIN], kernels_fatbin, 7, options, values)",
                      __FILE__, __LINE__);
    t0 = host_ms();
    ok = ok && checkDriver(cuModuleGetFunction(&L->fn[M_FATBIN], L->mod[M_FATBIN], L->kernel));
    L->get_ms[M_FATBIN] = host_ms() - t0;
    ok = ok && checkDriver(cuModuleGetFunction(&L->empty_fn, L->mod[M_FATBIN], "empty")) &&
         function_attributes(L->fn[M_FATBIN], &at);
    int bin = at.binary_version;
    bool jit_ran = strstr(log->info, "Compiling entry function") != NULL;
    float jit_ms = log->wall_ms;
    free(log);
    if (!ok)
        return false;
    printf(
        "   e) cuModuleLoadDataEx(kernels_fatbin, the options of c), nvcc -fatbin for every "
        "architecture\n"
        "      of ARCH: SASS for %s; PTX for %s, with one variable more than kernels.ptx: a\n"
        "      text no JIT cache has seen\n"
        "      load %.3f ms, cuModuleGetFunction %.3f ms; CU_FUNC_ATTRIBUTE_BINARY_VERSION: %d;\n"
        "      the JIT's info log: %s (JIT time %.3f ms)\n",
        sass[0] ? sass : "(none)", ptx[0] ? ptx : "(none)", L->load_ms[M_FATBIN],
        L->get_ms[M_FATBIN], bin, jit_ran ? "it compiled the kernels" : "no kernel compiled",
        (double)jit_ms);
    if (L->fatbin_has_sass)
        claim(bin == expect && !jit_ran,
              "from the fatbin the driver took the SASS that fits this sm_%d card (sm_%d): "
              "the JIT did not run",
              L->card_sm, bin);
    else
        claim(bin == expect && jit_ran,
              "no SASS in the fatbin fits this sm_%d card, so the driver compiled its "
              "PTX (%s): the JIT's log shows it",
              L->card_sm, ptx);
    return true;
}

/* The three costs again, each repeated: a cold JIT (new text every time), a cache hit (text
 * already compiled), SASS (the cubin, or the fatbin where the cubin is for another card).
 * Module load plus cuModuleGetFunction. Where the driver cannot JIT, only the SASS. */
static bool three_costs(struct lesson *L)
{
    double cold[REPEATS], hit[REPEATS], cub[REPEATS];
    const void *sass_image =
        L->mod[M_CUBIN] ? (const void *)kernels_cubin : (const void *)kernels_fatbin;
    bool ok = true;
    for (int k = L->jit_ok ? 0 : 2 * REPEATS; k < 3 * REPEATS && ok; k++) {
        int i = k % REPEATS;
        char *text = NULL;
        const void *image = sass_image;
        if (k < REPEATS) {
            char line[128];
            snprintf(line, sizeof line, "\n.visible .global .align 4 .u32 lesson_cold_load_%d;\n",
                     i);
            text = ptx_edit((const char *)kernels_ptx, NULL, NULL, line);
            image = text;
        } else if (k < 2 * REPEATS) {
            image = kernels_ptx;
        }
        CUmodule tmp = NULL;
        CUfunction f;
        double t0 = host_ms();
        ok = image && checkDriver(cuModuleLoadData(&tmp, image)) &&
             checkDriver(cuModuleGetFunction(&f, tmp, L->kernel));
        double ms = host_ms() - t0;
        free(text);
        (k < REPEATS ? cold : k < 2 * REPEATS ? hit : cub)[i] = ms;
        if (tmp)
            ok = checkDriver(cuModuleUnload(tmp)) && ok;
    }
    if (!ok)
        return false;
    printf("   each way %d times (module load + cuModuleGetFunction; median, min-max):\n", REPEATS);
    const char *sass_label = L->mod[M_CUBIN] ? "      cubin, no JIT                    "
                                             : "      fatbin's SASS, no JIT            ";
    if (!L->jit_ok) {
        print_median(sass_label, cub, 8, 3, "ms");
        printf("      (a cold JIT and a JIT cache hit: not measured, the driver cannot compile "
               "this PTX)\n");
        not_judged(L->jit_why, "a cold JIT is more than 10x slower than loading SASS");
        not_judged(L->jit_why, "a JIT cache hit costs less than half a cold JIT");
        return true;
    }
    double cold_ms = print_median("      cold JIT, a new text each time   ", cold, 8, 3, "ms");
    double hit_ms = print_median("      JIT cache hit, the same text     ", hit, 8, 3, "ms");
    double cubin_ms = print_median(sass_label, cub, 8, 3, "ms");
    if (L->mod[M_CUBIN] || L->fatbin_has_sass)
        timing_claim(L, cold_ms > 10 * cubin_ms,
                     "a cold JIT (%.3f ms) is more than 10x slower than loading the cubin "
                     "(%.3f ms)",
                     cold_ms, cubin_ms);
    else
        not_judged("no SASS built for this card (see ARCH)",
                   "a cold JIT is more than 10x slower than SASS");
    if (L->cache_off)
        not_judged("CUDA_CACHE_DISABLE=1 turns the JIT cache off",
                   "a JIT cache hit (%.3f ms) costs less than "
                   "half a cold JIT (%.3f ms)",
                   hit_ms, cold_ms);
    else
        timing_claim(L, hit_ms < cold_ms / 2,
                     "a JIT cache hit (%.3f ms) costs less than half a cold JIT (%.3f ms)", hit_ms,
                     cold_ms);
    if (!L->ptx_arg) /* --ptx may name a cubin, which needs no JIT */
        timing_claim(L, L->load_ms[M_FILE] > 10 * cubin_ms,
                     "the very first load from the PTX file (%.3f ms) was a cold JIT too",
                     L->load_ms[M_FILE]);
    return true;
}

/* 2. Loading the module: three ways from PTX, and a cubin. */
bool step_2_loading_the_module(struct lesson *L)
{
    printf("\n2. Loading the module: three ways from PTX, a cubin and a fatbin\n");
    if (!load_from_file(L))
        return false;

    /* b) the same bytes from memory: the JIT cache now has them. */
    if (!L->jit_ok) {
        printf("   b) cuModuleLoadData(kernels_ptx), the copy built into the program: not tried\n");
        return load_with_options(L) && load_cubin(L) && load_fatbin(L) && three_costs(L);
    }
    double t0 = host_ms();
    if (!checkDriver(cuModuleLoadData(&L->mod[M_EMBEDDED], kernels_ptx)))
        return false;
    L->load_ms[M_EMBEDDED] = host_ms() - t0;
    t0 = host_ms();
    if (!checkDriver(cuModuleGetFunction(&L->fn[M_EMBEDDED], L->mod[M_EMBEDDED], L->kernel)))
        return false;
    L->get_ms[M_EMBEDDED] = host_ms() - t0;
    printf("   b) cuModuleLoadData(kernels_ptx), the copy built into the program\n");
    printf("      %s: load %.3f ms, cuModuleGetFunction %.3f ms\n",
           L->ptx_arg ? "(--ptx named another file, so this may be the first JIT of this text)"
           : L->cache_off
               ? "the same text again, but CUDA_CACHE_DISABLE=1: no cache, compiled again"
               : "the same text again, so the JIT cache serves it",
           L->load_ms[M_EMBEDDED], L->get_ms[M_EMBEDDED]);

    if (!load_with_options(L) || !load_cubin(L) || !load_fatbin(L))
        return false;
    return three_costs(L);
}
