/*
 * 02_driver_context/proof/main.c - the Driver API's explicit contexts against the runtime's primary context.
 *
 * "cuCtxCreate or cudaSetDevice?" The program answers with one numbered step per idea, and a
 * claim(...) line for every fact it states (IN_DEPTH.md annotates the output). The story is
 * in ../core.c; the steps call it, or CUDA by name, then print, measure and judge:
 *   1. the explicit start: cuInit, the devices, the environment (environment.c), the compute
 *      mode;                                                                         start.c
 *   2. a context of our own: what it costs in time and device memory;         own_context.c
 *   3. the context stack of one thread: create, pop, push, set, as it changes;      stack.c
 *   4. memory belongs to a context, but is not fenced off: a copy and a kernel in
 *      ctxB reach ctxA's buffer;                                                     stack.c
 *   5. the runtime on the same thread: it works in the user context that is current, and goes
 *      back to the primary context (shared with cuDevicePrimaryCtxRetain) once it is popped;
 *                                                                                    runtime.c
 *   6. contexts are per thread: a new thread has none until it binds one;           runtime.c
 *   7. every device: one context per GPU, an allocation and a copy in each, verified; devices.c
 *   8. contexts and peers: a kernel on one GPU changing another's memory, peer access
 *      through both APIs, GPU-to-GPU copies direct and through the host (two GPUs);  peers.c
 *   9. reaching the Driver API from a runtime program: cuGetProcAddress and
 *      cudaGetDriverEntryPointByVersion against dlsym;                        entry_points.c
 *  10. what a context holds, and when to choose which API.                         devices.c
 * main() below is the table of contents and frees everything at the end; machine.c takes the
 * decisions that depend on the machine; apparatus.c holds the instruments (names for the
 * contexts, the stack printout, buffers, free memory). Every CUDA call is checked
 * (checkDriver, checkRuntime, requireDriver for cuInit): one that fails prints its error, and
 * common/check.c adds what the error means where it knows (a process limit, for one).
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lesson.h"
#include "platform.h"

static void usage(FILE *to)
{
    fprintf(
        to,
        "usage: %s [--device N] [--repeat N] [--help]\n"
        "Creates Driver API contexts next to the runtime's primary context and checks\n"
        "every claim it prints: the context stack, who owns an allocation, threads, devices.\n"
        "  -d, --device N   the GPU for steps 2 to 6, and the first of step 8's pair\n"
        "                   (default 0; see CUDA_VISIBLE_DEVICES)\n"
        "  -r, --repeat N   context create/destroy rounds to time in step 2 (1 to %d, default 3)\n"
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

/* ctxA and ctxB, with what was made in them: no step after 6 needs them, so they end there,
 * and the lesson never holds more than three contexts on one GPU (ctxA, ctxB and the primary;
 * each takes device memory, and the driver's files). */
static bool end_user_contexts(struct lesson *L)
{
    bool ok = true;
    if (L->rt_in_a)
        ok = cuda_free_in(ctx_a, &L->rt_in_a) && ok;
    if (L->buf_b)
        ok = free_in(ctx_b, &L->buf_b) && ok;
    if (L->buf_a)
        ok = free_in(ctx_a, &L->buf_a) && ok;
    if (ctx_b)
        ok = checkDriver(cuCtxDestroy(ctx_b)) && ok;
    if (ctx_a)
        ok = checkDriver(cuCtxDestroy(ctx_a)) && ok;
    ctx_a = ctx_b = NULL;
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
    if (L->rt_in_primary && primary_ctx)
        ok = cuda_free_in(primary_ctx, &L->rt_in_primary) && ok;
    ok = end_user_contexts(L) && ok;
    free(L->host_in);
    free(L->host_out);
    return ok;
}

/* The driver refused the lesson a context (make_context kept why): say so, exit 77. */
static int cannot_run(CUresult refused)
{
    if (refused == CUDA_ERROR_DEVICE_UNAVAILABLE) {
        fprintf(stderr,
                "%s: cannot run here: the driver refused this lesson a context "
                "(CUDA_ERROR_DEVICE_UNAVAILABLE): a GPU whose compute mode lets one process at a "
                "time use it (EXCLUSIVE_PROCESS: NVIDIA documents one context at a time) or none "
                "(PROHIBITED).\n%s: this lesson makes several contexts: run it where every GPU is "
                "in DEFAULT compute mode (nvidia-smi -q shows the mode), or hide the others with "
                "CUDA_VISIBLE_DEVICES.\n",
                lesson_prog, lesson_prog);
        return EXIT_CANNOT_RUN;
    }
    const char *limit = getenv("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT");
    fprintf(stderr,
            "%s: cannot run here: the GPU's free memory does not hold one more context "
            "(CUDA_ERROR_OUT_OF_MEMORY); this lesson keeps up to three at once on one GPU.\n%s: "
            "stop the "
            "programs that hold its memory (nvidia-smi lists them), or choose another GPU with "
            "--device%s%s%s.\n",
            lesson_prog, lesson_prog,
            limit ? "; this MPS client's memory is limited: "
                    "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT="
                  : "",
            limit ? limit : "", limit ? ", raise or unset it" : "");
    return EXIT_CANNOT_RUN;
}

int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    argv[0] = (char *)lesson_prog; /* getopt's own messages name the program as usage does */
    struct lesson L = {.device = 0, .repeat = 3};
    int rc = parse_options(argc, argv, &L);
    if (rc >= 0)
        return rc;

    printf("02_driver_context: cuCtxCreate or cudaSetDevice? Contexts made by hand\n");
    rc = step_1_explicit_start(&L);
    if (rc >= 0)
        return rc;
    bool ok = step_2_a_context_of_our_own(&L) && step_3_context_stack(&L) &&
              step_4_memory_belongs_to_a_context(&L) &&
              step_5_runtime_and_driver_on_one_thread(&L) && step_6_contexts_are_per_thread(&L) &&
              end_user_contexts(&L) && step_7_every_device(&L) && step_8_contexts_and_peers(&L) &&
              step_9_entry_points(&L);
    if (ok)
        step_10_what_a_context_holds();

    ok = cleanup(&L) && ok;
    if (context_refused)
        return cannot_run(context_refused);
    if (!ok && jit_refusal(&L))
        return EXIT_CANNOT_RUN;
    printf("\n");
    return verdict(ok);
}
