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

/* Why the driver did not compile kernels.ptx (answer `r`): the versions (step 1), a switch
 * (CUDA_DISABLE_PTX_JIT), or the driver's own answer; L->jit_ok and jit_why say so from here on. */
static void why_no_jit(struct lesson *L, CUresult r)
{
    printf("   a) cuModuleLoad(\"kernels.ptx\") -> %s (%d)\n", cu_name(r), (int)r);
    if (!L->jit_ok) {
        claim(r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
              "the driver refuses PTX newer than its JIT: "
              "CUDA_ERROR_UNSUPPORTED_PTX_VERSION, as the versions said");
        return;
    }
    L->jit_ok = false;
    if (L->no_jit) {
        snprintf(L->jit_why, sizeof L->jit_why, "%s is set: the driver compiles no PTX", L->no_jit);
        claim(r == CUDA_ERROR_JIT_COMPILATION_DISABLED,
              "with %s the driver refuses to compile PTX: CUDA_ERROR_JIT_COMPILATION_DISABLED",
              L->no_jit);
    } else { /* the versions said yes, the driver said no */
        snprintf(L->jit_why, sizeof L->jit_why,
                 "the driver (CUDA %d.%d) answered CUDA_ERROR_UNSUPPORTED_PTX_VERSION to this "
                 "toolkit's PTX (ISA %d.%d): update the driver, or build with the toolkit it "
                 "came with",
                 L->driver_version / 1000, L->driver_version % 1000 / 10, L->ptx_isa / 10,
                 L->ptx_isa % 10);
    }
    snprintf(L->arch_opt, sizeof L->arch_opt, "--gpu-architecture=sm_%d", L->card_sm);
    printf(
        "      the driver does not compile this PTX here: every step below loads SASS instead\n");
}

/* The driver does not compile this build's PTX (step 1 said so from the versions, a switch
 * turned the JIT off, or it has just answered `r` to kernels.ptx): say so, and load the cubin
 * file the build made instead (the fatbin where the cubin is for another card). */
static bool cubin_file_instead(struct lesson *L, CUresult r)
{
    why_no_jit(L, r);
    if (r == CUDA_SUCCESS && !checkDriver(cuModuleUnload(L->mod[M_FILE])))
        return false;
    L->mod[M_FILE] = NULL;
    const char *file = "kernels.cubin";
    char path[4200];
    double t0 = 0;
    for (int k = 0; k < 2; k++) {
        file = k ? "kernels.fatbin" : "kernels.cubin";
        beside_program(file, path, sizeof path);
        t0 = host_ms();
        if ((r = cuModuleLoad(&L->mod[M_FILE], path)) != CUDA_ERROR_NO_BINARY_FOR_GPU)
            break;
    }
    if (r == CUDA_ERROR_NO_BINARY_FOR_GPU || r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION ||
        (L->no_jit && r == CUDA_ERROR_JIT_COMPILATION_DISABLED)) {
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

/* cuModuleLoad of the file failed (`r`): say why, and where the text is PTX, the JIT's log. */
static bool file_failed(struct lesson *L, const char *path, CUresult r)
{
    check_driver_(r, "cuModuleLoad(&mod[M_FILE], path)", __FILE__, __LINE__);
    fprintf(stderr, "%s: cuModuleLoad could not load '%s': %s\n", lesson_prog,
            L->ptx_arg ? L->ptx_arg : "kernels.ptx", cu_name(r));
    CUmodule tmp = NULL;
    char *file_ptx = NULL;
    if (r != CUDA_ERROR_FILE_NOT_FOUND && (file_ptx = read_file(path, PTX_FILE_LIMIT, NULL)) &&
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

/* cuModuleGetFunction found no kernel of that name (`r`): say so, with the PTX's entries. */
static bool kernel_missing(struct lesson *L, const char *path, CUresult r)
{
    check_driver_(r, "cuModuleGetFunction(&fn[M_FILE], mod[M_FILE], kernel)", __FILE__, __LINE__);
    struct ptx_facts ff = {0};
    char *file_ptx = read_file(path, PTX_FILE_LIMIT, NULL);
    if (file_ptx)
        read_ptx_facts(file_ptx, &ff);
    fprintf(stderr, "%s: the module has no kernel named '%s' (%s); its PTX entries are: %s\n",
            lesson_prog, L->kernel, cu_name(r), ff.entries[0] ? ff.entries : "(unknown)");
    fprintf(stderr,
            "%s: (a kernel that is not extern \"C\" has a C++-mangled name, like "
            "_Z4axpyfPKfPfi)\n",
            lesson_prog);
    free(file_ptx);
    return false;
}

/* Which compiler did the first JIT? The one the driver maps into the process, from its own
 * files (had_jit: it was mapped before that load). */
static void which_jit(bool had_jit)
{
    char jit[256] = "", driver[256] = "";
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
}

/* 2a) a file, by name. cuModuleLoad reads PTX, cubin or fatbin files alike. When it fails,
 *     the same text through cuModuleLoadDataEx gives the JIT's error log. */
static bool load_from_file(struct lesson *L)
{
    char path[4200], jit[256];
    if (L->ptx_arg)
        snprintf(path, sizeof path, "%s", L->ptx_arg);
    else
        beside_program("kernels.ptx", path, sizeof path);
    bool had_jit = mapped_library("libnvidia-ptxjitcompiler", jit, sizeof jit);
    double t0 = host_ms();
    CUresult r = cuModuleLoad(&L->mod[M_FILE], path);
    L->load_ms[M_FILE] = host_ms() - t0;
    if (!L->ptx_arg &&
        (!L->jit_ok || r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION || (L->no_jit && r != CUDA_SUCCESS)))
        return cubin_file_instead(L, r);
    if (r != CUDA_SUCCESS)
        return file_failed(L, path, r);
    t0 = host_ms();
    r = cuModuleGetFunction(&L->fn[M_FILE], L->mod[M_FILE], L->kernel);
    L->get_ms[M_FILE] = host_ms() - t0;
    if (r != CUDA_SUCCESS)
        return kernel_missing(L, path, r);
    printf("   a) cuModuleLoad(\"%s\")\n", L->ptx_arg ? L->ptx_arg : "kernels.ptx");
    printf("      the first JIT in this process (cache empty, JIT compiler %s): load %.3f ms,\n"
           "      cuModuleGetFunction %.3f ms\n",
           had_jit ? "mapped already" : "not mapped after cuInit", L->load_ms[M_FILE],
           L->get_ms[M_FILE]);
    if (!L->ptx_arg) /* --ptx may name a cubin: no JIT */
        which_jit(had_jit);
    return true;
}

/* 2c's info log and the JIT's own time, against the load's; the kernel's register count. */
static void read_jit_log(struct lesson *L)
{
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
    read_jit_log(L);
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
    if (r != CUDA_SUCCESS && L->force_jit) { /* documented for fatbins; a cubin holds no PTX */
        L->mod[M_CUBIN] = NULL;
        printf("   d) cuModuleLoadData(kernels_cubin) -> %s (%d): under %s the driver\n"
               "      takes no SASS, and a cubin holds no PTX\n",
               cu_name(r), (int)r, L->force_jit);
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

/* What the fatbin holds: its SASS (sass) and PTX (ptx) as text; *expect the SASS the driver
 * should take for this card (the card's own architecture where only PTX can serve it, 0 where
 * nothing can); L->fatbin_has_sass. */
static void fatbin_contents(struct lesson *L, char *sass, size_t ls, char *ptx, size_t lp,
                            int *expect)
{
    struct fatbin_entry e[32];
    int n = fatbin_list(kernels_fatbin, kernels_fatbin_size, e, 32), ptx_arch = 0;
    *expect = 0;
    for (int i = 0; i < n; i++) {
        char *list = e[i].sass ? sass : ptx;
        size_t used = strlen(list), len = e[i].sass ? ls : lp;
        snprintf(list + used, len - used, "%s%s_%d", used ? " " : "", e[i].sass ? "sm" : "compute",
                 e[i].arch);
        if (e[i].sass && sass_runs_on(e[i].arch, L->card_sm) && e[i].arch > *expect)
            *expect = e[i].arch;
        if (!e[i].sass && e[i].arch <= L->card_sm && e[i].arch > ptx_arch)
            ptx_arch = e[i].arch;
    }
    L->fatbin_has_sass = *expect > 0;
    if ((!*expect || L->force_jit) && ptx_arch)
        *expect = L->card_sm; /* no SASS fits, or none is taken: the JIT compiles for this card */
}

/* 2e's claim: which the driver took, the SASS or the PTX (the JIT's log shows whether it ran). */
static void fatbin_claim(const struct lesson *L, int bin, int expect, bool jit_ran, const char *ptx)
{
    if (L->force_jit)
        claim(bin == expect && jit_ran,
              "under %s the driver ignored the fatbin's SASS and compiled its PTX (%s): the "
              "JIT's log shows it",
              L->force_jit, ptx);
    else if (L->fatbin_has_sass)
        claim(bin == expect && !jit_ran,
              "from the fatbin the driver took the SASS that fits this sm_%d card (sm_%d): "
              "the JIT did not run",
              L->card_sm, bin);
    else
        claim(bin == expect && jit_ran,
              "no SASS in the fatbin fits this sm_%d card, so the driver compiled its "
              "PTX (%s): the JIT's log shows it",
              L->card_sm, ptx);
}

/* The fatbin did not load (`r`), it holds no SASS for this card and the driver does not JIT
 * here: nothing in the build can run on it. Exit 77, saying what to build. */
static bool no_sass_here(struct lesson *L, CUresult r, const char *sass)
{
    fprintf(stderr,
            "%s: cuModuleLoadData(kernels_fatbin) -> %s: it holds SASS for %s, none for this "
            "sm_%d card, and %s. Build for this card: make ARCH=%d\n",
            lesson_prog, cu_name(r), sass[0] ? sass : "(none)", L->card_sm, L->jit_why, L->card_sm);
    L->exit_code = EXIT_CANNOT_RUN;
    return false;
}

/* 2e) the fatbinary: SASS for every architecture of ARCH and ARCH_ALSO (common/config.mk: a
 *     T4's sm_75 beside a default ARCH) and PTX for the last of ARCH. The driver
 *     takes SASS that fits the card where there is some, else compiles the PTX (CUDA C++
 *     Programming Guide, "Binary Compatibility" and "Application Compatibility"; under
 *     CUDA_FORCE_PTX_JIT=1 it ignores the SASS). CU_FUNC_ATTRIBUTE_BINARY_VERSION is the card's
 *     either way, so the JIT's own log tells which it did: the fatbin's PTX carries one
 *     variable more than kernels.ptx (KERNELS_FATBIN in kernels.cu), a text no JIT cache has
 *     seen, so compiling it leaves "Compiling entry function" lines in the info log. */
static bool load_fatbin(struct lesson *L)
{
    char sass[160] = "", ptx[64] = "";
    int expect = 0;
    fatbin_contents(L, sass, sizeof sass, ptx, sizeof ptx, &expect);
    struct jit_log *log = malloc(sizeof *log);
    if (!log) {
        fprintf(stderr, "%s: out of host memory\n", lesson_prog);
        return false;
    }
    double t0 = host_ms();
    CUresult r = load_module_with_log(&L->mod[M_FATBIN], kernels_fatbin, log);
    L->load_ms[M_FATBIN] = host_ms() - t0;
    if (r != CUDA_SUCCESS && !L->fatbin_has_sass && !L->jit_ok) {
        free(log);
        return no_sass_here(L, r, sass);
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
    bool jit_ran = strstr(log->info, "Compiling entry function") != NULL;
    float log_ms = log->wall_ms;
    free(log);
    if (!ok)
        return false;
    printf("   e) cuModuleLoadDataEx(kernels_fatbin, the options of c), nvcc -fatbin for every "
           "architecture\n"
           "      of ARCH and ARCH_ALSO: SASS for %s; PTX for %s, with one variable\n"
           "      more than kernels.ptx: a text no JIT cache has seen\n",
           sass[0] ? sass : "(none)", ptx[0] ? ptx : "(none)");
    printf(
        "      load %.3f ms, cuModuleGetFunction %.3f ms; CU_FUNC_ATTRIBUTE_BINARY_VERSION: %d;\n"
        "      the JIT's info log: %s (JIT time %.3f ms)\n",
        L->load_ms[M_FATBIN], L->get_ms[M_FATBIN], at.binary_version,
        jit_ran ? "it compiled the kernels" : "no kernel compiled", (double)log_ms);
    fatbin_claim(L, at.binary_version, expect, jit_ran, ptx);
    return true;
}

/* One load of `image` and cuModuleGetFunction, then unloaded: its milliseconds (< 0: failed). */
static double one_load(const void *image, const char *kernel)
{
    CUmodule tmp = NULL;
    CUfunction f;
    double t0 = host_ms();
    bool ok = image && checkDriver(cuModuleLoadData(&tmp, image)) &&
              checkDriver(cuModuleGetFunction(&f, tmp, kernel));
    double ms = host_ms() - t0;
    if (tmp)
        ok = checkDriver(cuModuleUnload(tmp)) && ok;
    return ok ? ms : -1.0;
}

/* The claims on the three costs (medians in ms; sass < 0: no SASS was loaded). */
static void cost_claims(const struct lesson *L, double cold, double hit, double sass)
{
    if (sass >= 0)
        timing_claim(
            L, cold > 10 * sass,
            "a cold JIT (%.3f ms) is more than 10x slower than loading the cubin (%.3f ms)", cold,
            sass);
    else
        not_judged(L->force_jit ? L->force_jit : "no SASS built for this card (see ARCH)",
                   "a cold JIT is more than 10x slower than SASS");
    const char *why = L->cache_off        ? "CUDA_CACHE_DISABLE=1 turns the JIT cache off"
                      : L->cache_small[0] ? L->cache_small
                      : L->force_jit      ? L->force_jit
                                          : NULL;
    char reason[160];
    snprintf(reason, sizeof reason, "%s is set: the JIT cache is not what this measures",
             why ? why : "");
    if (why)
        not_judged(L->cache_off ? why : reason,
                   "a JIT cache hit (%.3f ms) costs less than half a cold JIT (%.3f ms)", hit,
                   cold);
    else
        timing_claim(L, hit < cold / 2,
                     "a JIT cache hit (%.3f ms) costs less than half a cold JIT (%.3f ms)", hit,
                     cold);
    if (!L->ptx_arg && sass >= 0) /* --ptx may name a cubin, which needs no JIT */
        timing_claim(L, L->load_ms[M_FILE] > 10 * sass,
                     "the very first load from the PTX file (%.3f ms) was a cold JIT too",
                     L->load_ms[M_FILE]);
}

/* The three costs again, taken round by round (a cold JIT, a cache hit and SASS once each per
 * round, so that a burst of other work slows one round of all three, and the medians absorb
 * it): a cold JIT (a new text every time), a cache hit (the text already compiled), SASS (the
 * cubin, or the fatbin where the cubin is for another card). Module load plus
 * cuModuleGetFunction. Where the driver does not JIT, only the SASS. */
static bool three_costs(struct lesson *L)
{
    double cold[REPEATS], hit[REPEATS], cub[REPEATS];
    const void *sass_image = L->mod[M_CUBIN]                       ? (const void *)kernels_cubin
                             : L->fatbin_has_sass && !L->force_jit ? (const void *)kernels_fatbin
                                                                   : NULL;
    bool ok = true;
    for (int i = 0; i < REPEATS && ok; i++) {
        if (L->jit_ok) {
            char line[128];
            snprintf(line, sizeof line, "\n.visible .global .align 4 .u32 lesson_cold_load_%d;\n",
                     i);
            char *text = ptx_edit((const char *)kernels_ptx, NULL, NULL, line);
            ok = (cold[i] = one_load(text, L->kernel)) >= 0 &&
                 (hit[i] = one_load(kernels_ptx, L->kernel)) >= 0;
            free(text);
        }
        if (ok && sass_image)
            ok = (cub[i] = one_load(sass_image, L->kernel)) >= 0;
    }
    if (!ok)
        return false;
    printf("   each way %d times, round by round (module load + cuModuleGetFunction; median, "
           "min-max):\n",
           REPEATS);
    const char *sass_label = L->mod[M_CUBIN] ? "      cubin, no JIT                    "
                                             : "      fatbin's SASS, no JIT            ";
    if (!L->jit_ok) {
        print_median(sass_label, cub, 8, 3, "ms");
        printf("      (a cold JIT and a JIT cache hit: not measured, the driver does not compile "
               "this PTX here)\n");
        not_judged(L->jit_why, "a cold JIT is more than 10x slower than loading SASS");
        not_judged(L->jit_why, "a JIT cache hit costs less than half a cold JIT");
        return true;
    }
    double cold_ms = print_median("      cold JIT, a new text each time   ", cold, 8, 3, "ms");
    double hit_ms = print_median("      JIT cache hit, the same text     ", hit, 8, 3, "ms");
    double sass_ms = sass_image ? print_median(sass_label, cub, 8, 3, "ms") : -1.0;
    cost_claims(L, cold_ms, hit_ms, sass_ms);
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
           : L->force_jit || L->cache_small[0] ? "the same text again (the JIT cache: see step 1)"
                                               : "the same text again, so the JIT cache serves it",
           L->load_ms[M_EMBEDDED], L->get_ms[M_EMBEDDED]);

    if (!load_with_options(L) || !load_cubin(L) || !load_fatbin(L))
        return false;
    return three_costs(L);
}
