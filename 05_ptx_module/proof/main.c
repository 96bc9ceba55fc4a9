/*
 * 05_ptx_module - kernels as PTX, loaded and launched through the Driver API.
 *
 * The idea is in ../demo.c and ../core.c (read them first). This is the lesson's program, the
 * instrument: main() is the table of contents: it reads the options and calls one function per
 * numbered step of the output, in the order IN_DEPTH.md annotates it; each step makes the CUDA
 * calls by their names and core.c's longer ones, then times, checks and prints:
 *   1. what the build made: kernels.ptx (nvcc -ptx), kernels.cubin (nvcc -cubin), and copies
 *      of both inside this program; a fresh JIT cache so that "cold" really is cold; CUDA's own
 *      switches (environment.c);
 *   2. loading a module: cuModuleLoad (PTX file), cuModuleLoadData (embedded PTX),
 *      cuModuleLoadDataEx (JIT options and logs), a cubin, a fatbin; cold JIT, cache hit, SASS;
 *   3. cuModuleGetFunction, cuFuncGetAttribute, and cuLaunchKernel with kernelParams and with
 *      the packed `extra` buffer; the same result from every module;
 *   4. PTX made at run time by NVRTC from kernels.cu's text, loaded and launched the same way;
 *   5. the host cost of a launch: cuLaunchKernel against the runtime's <<<>>>, and a CUDA graph;
 *   6. the errors a student meets, each made on purpose and explained, and common mistakes;
 *   7. one load for every context: cuLibraryLoadData against a module per context; the
 *      runtime's cudaLibraryLoadData; cudaGetFuncBySymbol / cudaGetKernel the other way;
 *   8. a part of the GPU: a green context on some of its SMs.
 *
 * Exit status: 0 every check passed; 1 a CUDA or NVRTC call failed or a check failed,
 * including the driver or NVRTC rejecting what --ptx, --kernel or --nvrtc named (the report
 * and the JIT/NVRTC log go to stderr); 2 bad command line, including a --ptx or --nvrtc file
 * that cannot be read (found before any CUDA call); 77 no usable GPU or driver here.
 *
 * Where each step lives (in proof/): main.c (1) and environment.c, step2_loading.c,
 * step3_launching.c, step4_nvrtc.c, step5_launch_cost.c, step6_errors.c and step6_mistakes.c,
 * step7_library.c, step8_green.c; the apparatus: files.c (files, the JIT cache), ptx_text.c
 * (PTX text, fatbinaries, logs), report.c (error names, timing claims, medians); ptx_module.h
 * what they share.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <nvrtc.h>

#include "embedded.h"
#include "platform.h"
#include "ptx_module.h"

static void usage(FILE *to)
{
    fprintf(to,
            "usage: %s [--device N] [--ptx FILE] [--kernel NAME] [--nvrtc FILE] [--launches N]\n"
            "       [--skip-errors]\n"
            "Loads kernels as PTX and as a cubin through the CUDA Driver API, times each way,\n"
            "launches them with cuLaunchKernel, compiles them again with NVRTC, and checks\n"
            "every claim it prints.\n"
            "  -d, --device N     the GPU to use (default 0; see CUDA_VISIBLE_DEVICES)\n"
            "  -p, --ptx FILE     the PTX (or cubin) file step 2 loads with cuModuleLoad\n"
            "                     (default: kernels.ptx next to this program)\n"
            "  -k, --kernel NAME  the kernel to look up in every module (default axpy; it is\n"
            "                     launched as axpy(float a, const float *x, float *y, int n))\n"
            "  -n, --nvrtc FILE   CUDA source for NVRTC in step 4 (default: kernels.cu, built in)\n"
            "  -l, --launches N   launches per timing run in step 5 (1 to 100000, default 10000)\n"
            "  -s, --skip-errors  leave out step 6, whose failing calls are made on purpose\n"
            "                     (compute-sanitizer reports each as an API error)\n"
            "  -h, --help         this text\n"
            "exit status: 0 all checks passed; 1 a check or a CUDA/NVRTC call failed (also when\n"
            "             the driver or NVRTC rejects --ptx, --kernel or --nvrtc; the log is on\n"
            "             stderr); 2 bad command line; 77 no usable GPU or driver here\n",
            lesson_prog);
}

/* Can this driver JIT-compile the PTX of this build (nvcc's, and NVRTC's)? A driver's JIT
 * reads PTX up to the ISA of its own CUDA version; a newer toolkit writes a newer ISA. Minor
 * version compatibility lets a 13.0 driver run a 13.5 program's SASS, not compile its PTX.
 * Decided here from the versions; step 2a checks it against what the driver answers. */
static bool can_the_driver_jit(struct lesson *L, const struct ptx_facts *facts)
{
    int nv_major = 0, nv_minor = 0, isa_major = 0, isa_minor = 0;
    if (!checkNvrtc(nvrtcVersion(&nv_major, &nv_minor)))
        return false;
    int nvrtc_isa = platform_ptx_isa(nv_major * 1000 + nv_minor * 10);
    L->ptx_isa = sscanf(facts->version, "%d.%d", &isa_major, &isa_minor) == 2
                     ? isa_major * 10 + isa_minor
                     : 0;
    L->driver_isa = platform_ptx_isa(L->driver_version);
    int newest = L->ptx_isa > nvrtc_isa ? L->ptx_isa : nvrtc_isa; /* the newer of the two */
    L->jit_ok = newest <= L->driver_isa;
    snprintf(L->jit_why, sizeof L->jit_why,
             "the driver (CUDA %d.%d, JIT up to PTX ISA %d.%d) cannot compile this toolkit's PTX "
             "(ISA %d.%d): "
             "update the driver, or build with the toolkit it came with",
             L->driver_version / 1000, L->driver_version % 1000 / 10, L->driver_isa / 10,
             L->driver_isa % 10, newest / 10, newest % 10);
    printf("   the driver's JIT reads PTX up to ISA %d.%d (CUDA %d.%d); this build's PTX is ISA "
           "%s, NVRTC %d.%d\n"
           "   writes ISA %d.%d (built with CUDA %d.%d): %s\n",
           L->driver_isa / 10, L->driver_isa % 10, L->driver_version / 1000,
           L->driver_version % 1000 / 10, facts->version, nv_major, nv_minor, nvrtc_isa / 10,
           nvrtc_isa % 10, CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10,
           L->jit_ok ? "the driver can compile it" : "too new for it");
    if (L->driver_version / 1000 < CUDART_VERSION / 1000)
        printf("   This driver is of an older major version than the toolkit: it cannot run this "
               "toolkit's\n"
               "   programs at all (minor version compatibility holds within one major version): "
               "update it.\n");
    else if (!L->jit_ok && !L->no_jit)
        printf("   This driver can run this toolkit's programs (their SASS) but cannot compile "
               "their PTX: update\n"
               "   the driver, or build with the toolkit the driver came with. Until then every "
               "step below\n"
               "   loads SASS (the cubin, the fatbin, NVRTC's cubin), and what needs the JIT is "
               "not judged.\n");
    snprintf(L->arch_opt, sizeof L->arch_opt, "--gpu-architecture=%s_%d",
             L->jit_ok ? "compute" : "sm", L->card_sm);
    return true;
}

/* cuInit, the device (--device checked against the count), its name and compute capability,
 * the driver's version; prints the device's line. False (L->exit_code set) when it cannot. */
static bool the_device(struct lesson *L, int *count)
{
    char name[256];
    int major = 0, minor = 0;
    if (!requireDriver(cuInit(0)) || !requireDriver(cuDeviceGetCount(count))) {
        L->exit_code = verdict(false);
        return false;
    }
    if (L->device >= *count) {
        fprintf(stderr,
                "%s: --device %ld does not exist: this machine shows %d device(s), 0 to %d\n",
                lesson_prog, L->device, *count, *count - 1);
        L->exit_code = EXIT_USAGE;
        return false;
    }
    if (!checkDriver(cuDeviceGet(&L->dev, (int)L->device)) ||
        !checkDriver(cuDeviceGetName(name, sizeof name, L->dev)) ||
        !checkDriver(
            cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, L->dev)) ||
        !checkDriver(
            cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, L->dev)) ||
        !checkDriver(cuDriverGetVersion(&L->driver_version))) {
        L->exit_code = verdict(false);
        return false;
    }
    L->card_sm = major * 10 + minor;
    printf(
        "   device %ld: \"%s\", compute capability %d.%d (sm_%d); the driver supports CUDA %d.%d\n",
        L->device, name, major, minor, L->card_sm, L->driver_version / 1000,
        L->driver_version % 1000 / 10);
    return true;
}

/* 1. cuInit, the device, what the PTX the program carries says about itself, CUDA's own
 *    switches, then the primary context (the one the runtime uses too). */
bool step_1_what_the_build_made(struct lesson *L)
{
    printf("\n1. What the build made\n");
    int count = 0;
    if (!the_device(L, &count))
        return false;
    struct ptx_facts facts;
    read_ptx_facts((const char *)kernels_ptx, &facts);
    printf("   kernels.ptx    %zu bytes: PTX ISA %s, .target %s, entries: %s\n", kernels_ptx_size,
           facts.version, facts.target, facts.entries);
    printf("   kernels.cubin  %zu bytes: SASS for sm_%d, ready to run on such a card as it is\n",
           kernels_cubin_size, kernels_arch);
    printf(
        "   both lie next to the program, and the program carries a copy of each (embedded.c)\n");
    /* Decided from the environment and the versions alone, before any context: */
    if (!cuda_switches(L, count) || !can_the_driver_jit(L, &facts) ||
        !checkDriver(cuDevicePrimaryCtxRetain(&L->primary, L->dev))) {
        if (L->exit_code < 0)
            L->exit_code = verdict(false);
        return false;
    }
    L->retained = true;
    CUmoduleLoadingMode mode;
    /* The first runtime call: a driver of an older major version than the runtime is exit 77. */
    if (!checkDriver(cuCtxSetCurrent(L->primary)) ||
        !requireRuntime(cudaSetDevice((int)L->device)) ||
        !checkDriver(cuModuleGetLoadingMode(&mode)))
        return false;
    print_loading_mode(mode);
    claim(has_word(facts.entries, "axpy") && has_word(facts.entries, "empty"),
          "the PTX names the entry points axpy and empty: extern \"C\" kept the names plain");
    claim(facts.target_sm > 0 && facts.target_sm <= L->card_sm,
          "its target (%s) is not newer than the card (sm_%d), so code made from it can run here",
          facts.target, L->card_sm);
    return true;
}

/* Why a file named on the command line cannot be used, from read_file's errno. */
static const char *file_error(int err)
{
    return err == EINVAL ? "not a regular file (a FIFO, a device or a socket): name a file"
                         : strerror(err);
}

/* The command line into L. Returns -1 to go on, or the exit code (0 for --help, 2 for a bad
 * command line, with the usage on stderr). */
static int parse_options(int argc, char **argv, struct lesson *L)
{
    static const struct option options[] = {
        {"device", required_argument, NULL, 'd'},   {"ptx", required_argument, NULL, 'p'},
        {"kernel", required_argument, NULL, 'k'},   {"nvrtc", required_argument, NULL, 'n'},
        {"launches", required_argument, NULL, 'l'}, {"help", no_argument, NULL, 'h'},
        {"skip-errors", no_argument, NULL, 's'},    {NULL, 0, NULL, 0},
    };
    int opt;
    while ((opt = getopt_long(argc, argv, "d:p:k:n:l:sh", options, NULL)) != -1) {
        bool good = true;
        switch (opt) {
        case 'd': good = parse_long(optarg, 0, 1023, "--device", &L->device); break;
        case 'l': good = parse_long(optarg, 1, 100000, "--launches", &L->launches); break;
        case 'p': L->ptx_arg = optarg; break;
        case 'k': L->kernel = optarg; break;
        case 'n': L->nvrtc_arg = optarg; break;
        case 's': L->skip_errors = true; break;
        case 'h': usage(stdout); return EXIT_OK;
        default: good = false; break;
        }
        if ((opt == 'p' || opt == 'k' || opt == 'n') && *optarg == '\0') {
            fprintf(stderr, "%s: --%s needs a non-empty value\n", lesson_prog,
                    opt == 'p'   ? "ptx"
                    : opt == 'k' ? "kernel"
                                 : "nvrtc");
            good = false;
        }
        if (!good) {
            usage(stderr);
            return EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "%s: unexpected argument '%s'\n", lesson_prog, argv[optind]);
        usage(stderr);
        return EXIT_USAGE;
    }
    /* A file the user named that cannot be read is a command-line mistake (exit 2), found
     * before any CUDA call: --ptx is opened (cuModuleLoad reads it later), --nvrtc read now. */
    if (L->ptx_arg && !readable_file(L->ptx_arg)) {
        fprintf(stderr, "%s: --ptx %s: %s\n", lesson_prog, L->ptx_arg, file_error(errno));
        usage(stderr);
        return EXIT_USAGE;
    }
    if (L->nvrtc_arg && !(L->nvrtc_src = read_file(L->nvrtc_arg, NVRTC_SOURCE_LIMIT, NULL))) {
        if (errno == EFBIG)
            fprintf(stderr, "%s: --nvrtc %s: more than %zu MiB: not a CUDA source file\n",
                    lesson_prog, L->nvrtc_arg, NVRTC_SOURCE_LIMIT >> 20);
        else
            fprintf(stderr, "%s: --nvrtc %s: %s\n", lesson_prog, L->nvrtc_arg, file_error(errno));
        usage(stderr);
        return EXIT_USAGE;
    }
    return -1;
}

/* Every resource, on every path. Returns false when releasing one failed. */
static bool release_all(struct lesson *L)
{
    bool ok = true;
    for (int m = 0; m < M_COUNT; m++)
        if (L->mod[m])
            ok = checkDriver(cuModuleUnload(L->mod[m])) && ok;
    if (L->d.dx)
        ok = checkDriver(cuMemFree(L->d.dx)) && ok;
    if (L->d.dy)
        ok = checkDriver(cuMemFree(L->d.dy)) && ok;
    if (L->retained)
        ok = checkDriver(cuDevicePrimaryCtxRelease(L->dev)) && ok;
    free(L->d.x);
    free(L->d.y0);
    free(L->d.expect);
    free(L->d.out);
    free(L->log);
    free(L->nvrtc_ptx);
    free(L->nvrtc_cubin);
    free(L->nvrtc_log);
    free(L->nvrtc_src);
    return ok;
}

int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    argv[0] = (char *)lesson_prog; /* getopt's own messages show the short name too */
    struct lesson L = {.device = 0, .launches = 10000, .kernel = "axpy", .exit_code = -1};
    int rc = parse_options(argc, argv, &L);
    /* A fresh, empty JIT cache, set before the driver reads its environment (at cuInit), so
     * that the first JIT of our PTX is really cold. Removed at exit, on every path. */
    const char *user_cache = getenv("CUDA_CACHE_PATH");
    snprintf(L.user_cache, sizeof L.user_cache, "%s", user_cache ? user_cache : "");
    if (rc < 0 && !fresh_jit_cache())
        rc = EXIT_CHECK;
    if (rc >= 0) {
        free(L.nvrtc_src);
        return rc;
    }
    printf("05_ptx_module: kernels as PTX, loaded and launched through the Driver API\n");
    under_tool(L.tool, sizeof L.tool); /* compute-sanitizer, a profiler: timings not judged */

    bool ok = step_1_what_the_build_made(&L);
    if (L.exit_code >= 0) { /* no device, or --device past the last one */
        release_all(&L);
        return L.exit_code;
    }
    ok = ok && (L.log = malloc(sizeof *L.log)) != NULL && prepare_axpy_data(&L);
    ok = ok && step_2_loading_the_module(&L);
    ok = ok && step_3_get_function_and_launch(&L);
    ok = ok && step_4_ptx_made_at_run_time(&L);
    ok = ok && step_5_what_a_launch_costs(&L);
    if (!L.skip_errors)
        ok = ok && step_6_errors_you_will_meet(&L);
    ok = ok && step_7_one_load_for_every_context(&L);
    ok = ok && step_8_a_part_of_the_gpu(&L);

    ok = release_all(&L) && ok;
    if (L.exit_code >= 0) /* step 2e: nothing in the build can run on this card here */
        return L.exit_code;
    printf("\n");
    return verdict(ok);
}
