/*
 * 02_driver_context - the Driver API's explicit contexts against the runtime's primary context.
 *
 * "cuCtxCreate or cudaSetDevice?" The program answers with one numbered step per idea, and a
 * claim(...) line for every fact it states (README.md annotates the output):
 *   1. the explicit start: cuInit, then the devices, their names, capability and memory;
 *   2. a context of our own with cuCtxCreate (the CUDA 13 signature), what it costs in time
 *      and in device memory;
 *   3. the context stack of one thread: create, pop, push, set, as it changes;      stack.c
 *   4. memory belongs to a context: cuMemAlloc in two contexts, the owner of each;   stack.c
 *   5. the runtime on the same thread: it works in the user context that is current, and goes
 *      back to the primary context (shared with cuDevicePrimaryCtxRetain) once it is popped;
 *                                                                                    runtime.c
 *   6. contexts are per thread: a new thread has none until it binds one;           runtime.c
 *   7. every device: one context per GPU, an allocation and a copy in each, verified; devices.c
 *   8. what a context holds, and when to choose which API.                          devices.c
 * main() below is the table of contents; tools.c holds the apparatus (names, stack printout).
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lesson.h"

static void usage(FILE *to)
{
    fprintf(to,
            "usage: %s [--device N] [--repeat N] [--help]\n"
            "Creates Driver API contexts next to the runtime's primary context and checks\n"
            "every claim it prints: the context stack, who owns an allocation, threads, devices.\n"
            "  -d, --device N   the GPU for steps 2 to 6 (default 0; see CUDA_VISIBLE_DEVICES)\n"
            "  -r, --repeat N   context create/destroy rounds to time in step 2 (1 to %d, default 5)\n"
            "  -h, --help       this text\n"
            "exit status: 0 all checks passed, 1 a check or CUDA call failed,\n"
            "             2 bad command line, 77 no usable GPU or driver here\n",
            lesson_prog, MAX_REPEAT);
}

/* Returns -1 when the options are good, else the exit code. */
static int parse_options(int argc, char **argv, struct lesson *L)
{
    static const struct option options[] = {
        {"device", required_argument, NULL, 'd'},
        {"repeat", required_argument, NULL, 'r'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int opt;
    while ((opt = getopt_long(argc, argv, "d:r:h", options, NULL)) != -1) {
        switch (opt) {
        case 'd':
            if (!parse_long(optarg, 0, MAX_DEVICES - 1, "--device", &L->device)) {
                usage(stderr);
                return EXIT_USAGE;
            }
            break;
        case 'r':
            if (!parse_long(optarg, 1, MAX_REPEAT, "--repeat", &L->repeat)) {
                usage(stderr);
                return EXIT_USAGE;
            }
            break;
        case 'h': usage(stdout); return EXIT_OK;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "%s: unexpected argument '%s'\n", lesson_prog, argv[optind]);
        usage(stderr);
        return EXIT_USAGE;
    }
    return -1;
}

/* 1. Returns -1 to go on, else the exit code (77: no driver or no device here). */
static int step_1_explicit_start(struct lesson *L)
{
    printf("\n1. The explicit start: cuInit, then the devices\n");
    int count = 0;
    CUresult r = cuDeviceGetCount(&count);
    if (r != CUDA_ERROR_NOT_INITIALIZED) /* no driver library, stub driver ... -> exit 77 */
        require_driver_(r, "cuDeviceGetCount(&count)", __FILE__, __LINE__);
    printf("   before cuInit: cuDeviceGetCount -> %s (%d)\n", error_name(r), (int)r);
    claim(r == CUDA_ERROR_NOT_INITIALIZED,
          "the Driver API does nothing before cuInit (CUDA_ERROR_NOT_INITIALIZED)");
    double t0 = host_ms();
    if (!requireDriver(cuInit(0)))
        return verdict(false);
    double init_ms = host_ms() - t0;
    int driver_version = 0;
    if (!checkDriver(cuDriverGetVersion(&driver_version)) ||
        !checkDriver(cuDeviceGetCount(&count)))
        return verdict(false);
    if (count < 1) {
        fprintf(stderr, "%s: cannot run here: the driver reports no CUDA device\n", lesson_prog);
        return EXIT_CANNOT_RUN;
    }
    if (L->device >= count) {
        fprintf(stderr,
                "%s: --device %ld does not exist: this machine shows %d device(s), 0 to %d\n",
                lesson_prog, L->device, count, count - 1);
        return EXIT_USAGE;
    }
    L->count = count;
    printf("   cuInit(0) took %.1f ms; the driver supports CUDA %d.%d; cuDeviceGetCount -> %d device(s)\n",
           init_ms, driver_version / 1000, driver_version % 1000 / 10, count);
    int listed = 0;
    char name[256];
    for (int d = 0; d < count && d < MAX_DEVICES; d++) {
        CUdevice cd;
        int major = 0, minor = 0;
        size_t total = 0;
        if (!checkDriver(cuDeviceGet(&cd, d)) ||
            !checkDriver(cuDeviceGetName(name, (int)sizeof name, cd)) ||
            !checkDriver(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, cd)) ||
            !checkDriver(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, cd)) ||
            !checkDriver(cuDeviceTotalMem(&total, cd)))
            return verdict(false);
        printf("   [device %d] \"%s\", compute capability %d.%d, %.2f GiB\n", d, name, major, minor,
               (double)total / (MIB * 1024.0));
        listed += name[0] != '\0' && major > 0 && total > 0;
    }
    claim(listed == count, "cuInit found %d device(s), each with a name, a compute capability and memory",
          count);
    if (!checkDriver(cuDeviceGet(&L->dev, (int)L->device)) ||
        !checkDriver(cuDeviceGetName(L->name, (int)sizeof L->name, L->dev)))
        return verdict(false);
    printf("   steps 2 to 6 use device %ld, \"%s\"\n", L->device, L->name);
    return -1;
}

/* 2. ctxA stays current after this step: the observer of step 2, the bottom of step 3. */
static bool step_2_a_context_of_our_own(struct lesson *L)
{
    bool ok = true;
    printf("\n2. A context of our own: cuCtxCreate\n");
    printf("   CUDA %d.%d headers: %s\n", CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10, CREATE_FORM);
    printf("   (the seeds' cuCtxCreate(&ctx, 0, dev) is the CUDA 12 form and no longer compiles)\n");
    double t0 = host_ms();
    TRY(CREATE_CONTEXT(&ctx_a, L->dev));
    double first_ms = host_ms() - t0;
    CUcontext now = current(&ok);
    printf("   ctxA = %p, created in %.1f ms (the first context of this process)\n", (void *)ctx_a,
           first_ms);
    claim(now == ctx_a, "a context is current as soon as cuCtxCreate returns (ctxA)");

    printf("   %ld rounds of create + destroy, watched from ctxA with cuMemGetInfo:\n", L->repeat);
    double create_ms[MAX_REPEAT], destroy_ms[MAX_REPEAT], taken_mib[MAX_REPEAT];
    double worst_return_mib = 0.0;
    bool back_to_a = true;
    for (int i = 0; i < L->repeat; i++) {
        CUcontext tmp = NULL;
        size_t before = free_memory(&ok);
        t0 = host_ms();
        TRY(CREATE_CONTEXT(&tmp, L->dev));
        create_ms[i] = host_ms() - t0;
        size_t with_it = free_memory(&ok); /* device-wide figure; tmp is current now */
        t0 = host_ms();
        TRY(checkDriver(cuCtxDestroy(tmp)));
        destroy_ms[i] = host_ms() - t0;
        back_to_a = back_to_a && current(&ok) == ctx_a;
        size_t after = free_memory(&ok);
        taken_mib[i] = ((double)before - (double)with_it) / MIB;
        double not_returned = ((double)before - (double)after) / MIB;
        if (not_returned > worst_return_mib)
            worst_return_mib = not_returned;
        if (i == 0)
            printf("     round 1: free device memory %.1f MiB before, %.1f MiB with the new context, "
                   "%.1f MiB after destroying it\n",
                   before / MIB, with_it / MIB, after / MIB);
    }
    TRY(ok);
    int n = (int)L->repeat;
    double create_med = median_of(create_ms, n), destroy_med = median_of(destroy_ms, n);
    double taken_med = median_of(taken_mib, n);
    printf("     cuCtxCreate : median %.1f ms (min %.1f, max %.1f)\n", create_med, create_ms[0],
           create_ms[n - 1]);
    printf("     cuCtxDestroy: median %.1f ms (min %.1f, max %.1f)\n", destroy_med, destroy_ms[0],
           destroy_ms[n - 1]);
    printf("     device memory a context takes: median %.1f MiB (min %.1f, max %.1f)\n", taken_med,
           taken_mib[0], taken_mib[n - 1]);
    claim(taken_mib[0] > 0.0, "every new context took device memory: %.1f MiB or more", taken_mib[0]);
    claim(worst_return_mib <= 2.0, "cuCtxDestroy gave that memory back (within 2 MiB each round)");
    claim(back_to_a, "destroying the current context popped it: ctxA was current again each time");
    claim(create_med > 1.0, "a context is costly to make: median %.1f ms, more than 1 ms", create_med);
    return ok;
}

/* Everything the steps made, freed in its own context, youngest first. */
static bool cleanup(struct lesson *L)
{
    bool ok = true;
    for (int d = dev_ctx_count - 1; d >= 0; d--) {
        if (dev_ctx[d]) {
            ok = free_in(dev_ctx[d], &L->dev_buf[d]) && ok;
            ok = checkDriver(cuCtxDestroy(dev_ctx[d])) && ok;
        }
    }
    if (L->rt_in_a)
        ok = cuda_free_in(ctx_a, &L->rt_in_a) && ok;
    if (L->rt_in_primary && primary_ctx)
        ok = cuda_free_in(primary_ctx, &L->rt_in_primary) && ok;
    if (L->buf_b)
        ok = free_in(ctx_b, &L->buf_b) && ok;
    if (L->buf_a)
        ok = free_in(ctx_a, &L->buf_a) && ok;
    if (ctx_b)
        ok = checkDriver(cuCtxDestroy(ctx_b)) && ok;
    if (ctx_a)
        ok = checkDriver(cuCtxDestroy(ctx_a)) && ok;
    free(L->host_in);
    free(L->host_out);
    return ok;
}

int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    argv[0] = (char *)lesson_prog; /* getopt's own messages name the program as usage does */
    struct lesson L = {.device = 0, .repeat = 5};
    int rc = parse_options(argc, argv, &L);
    if (rc >= 0)
        return rc;

    printf("02_driver_context: cuCtxCreate or cudaSetDevice? Contexts made by hand\n");
    rc = step_1_explicit_start(&L);
    if (rc >= 0)
        return rc;
    bool ok = step_2_a_context_of_our_own(&L) &&
              step_3_context_stack(&L) &&
              step_4_memory_belongs_to_a_context(&L) &&
              step_5_runtime_and_driver_on_one_thread(&L) &&
              step_6_contexts_are_per_thread(&L) &&
              step_7_every_device(&L);
    if (ok)
        step_8_what_a_context_holds();

    ok = cleanup(&L) && ok;
    printf("\n");
    return verdict(ok);
}
