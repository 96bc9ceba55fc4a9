/*
 * 01_hello_runtime - the Runtime API's lazy primary context, watched through the Driver API.
 *
 * The lesson itself is core.c: read it first. main() is the table of contents: it parses the
 * options, then calls one function per numbered step of the output (steps.c, first_calls.c,
 * lifecycle.c), in the order of IN_DEPTH.md, which annotates the output of each:
 *   0. the CUDA environment variables in effect, and what each changes here (environment.c);
 *   1. before any CUDA call the driver is not initialised;
 *   2. cudaGetDeviceCount initialises it but creates no context; the device's compute mode
 *      (who may hold a context on it: machine.c decides how the child processes run); which
 *      other first calls start a context (first_calls.c, one child process per call);
 *   3. cudaSetDevice creates the device's primary context and makes it current: the very
 *      context cuDevicePrimaryCtxRetain returns;
 *   4. the runtime and driver versions, and the rule between them;
 *   5. the check macros at work: an invalid call, a launch error caught by cudaGetLastError,
 *      and a device fault, in two child processes: without CUDA_LAUNCH_BLOCKING it shows at
 *      synchronisation, with CUDA_LAUNCH_BLOCKING=1 at the launch itself;
 *   6. a kernel launched from C through an extern "C" launcher, its result verified; a launch
 *      returns before its kernel ends (unless CUDA_LAUNCH_BLOCKING=1);
 *   7. the current context belongs to a host thread;
 *   8. the primary context's lifecycle: flags before and after activation, cudaInitDevice,
 *      reference counting against the runtime's own reference, the two resets (lifecycle.c,
 *      in a child process).
 * child.c runs this program again as a child process; kernel.cu holds the device code. On a
 * GPU that lets one process at a time use it, this process gives its context back before the
 * children of steps 5c and 8 run (give_back_context_for_child, take_context_again).
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "lesson.h"

static void usage(FILE *to)
{
    fprintf(to,
            "usage: %s [--device N] [--help]\n"
            "Shows when the CUDA runtime initialises the driver and creates the primary\n"
            "context, and checks every claim it prints.\n"
            "  -d, --device N   the GPU to use (default 0; see CUDA_VISIBLE_DEVICES)\n"
            "  -h, --help       this text\n"
            "exit status: 0 all checks passed, 1 a check or CUDA call failed,\n"
            "             2 bad command line, 77 no usable GPU or driver here\n",
            lesson_prog);
}

/* ---- the command line, and the table of contents ---------------------------------------- */

enum mode { LESSON, FAULT_DEMO, FIRST_CALL, LIFECYCLE };

/* Returns -1 to go on, or the exit code (help, bad command line). */
static int parse_options(int argc, char **argv, struct lesson *L, enum mode *mode,
                         const char **child_arg)
{
    static const struct option options[] = {
        {"device", required_argument, NULL, 'd'},
        {"help", no_argument, NULL, 'h'},
        {"fault-demo", no_argument, NULL, 'F'},       /* internal: step 5c's child process */
        {"first-call", required_argument, NULL, 'C'}, /* internal: step 2b's child process */
        {"lifecycle-demo", no_argument, NULL, 'L'},   /* internal: step 8's child process */
        {NULL, 0, NULL, 0},
    };
    long device = 0;
    int opt;
    while ((opt = getopt_long(argc, argv, "d:h", options, NULL)) != -1) {
        switch (opt) {
        case 'd':
            if (!parse_long(optarg, 0, 1023, "--device", &device)) {
                usage(stderr);
                return EXIT_USAGE;
            }
            break;
        case 'h': usage(stdout); return EXIT_OK;
        case 'F': *mode = FAULT_DEMO; break;
        case 'L': *mode = LIFECYCLE; break;
        case 'C':
            *mode = FIRST_CALL;
            *child_arg = optarg;
            break;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "%s: unexpected argument '%s'\n", lesson_prog, argv[optind]);
        usage(stderr);
        return EXIT_USAGE;
    }
    /* The child's side is the lesson's own business: from the command line these options are
     * as unknown as any other (a child process of the lesson carries its parent's id). */
    if (*mode != LESSON && !started_by_the_lesson()) {
        fprintf(stderr, "%s: --%s is internal: the lesson itself starts it in a child process\n",
                lesson_prog,
                *mode == FAULT_DEMO   ? "fault-demo"
                : *mode == FIRST_CALL ? "first-call"
                                      : "lifecycle-demo");
        usage(stderr);
        return EXIT_USAGE;
    }
    L->device = (int)device;
    return -1;
}

int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    argv[0] = (char *)lesson_prog; /* getopt's messages name the program as usage does */
    struct lesson L = {0};
    enum mode mode = LESSON;
    const char *child_arg = NULL;
    int rc = parse_options(argc, argv, &L, &mode, &child_arg);
    if (rc >= 0)
        return rc;
    if (mode == FAULT_DEMO)
        return fault_demo(L.device);
    if (mode == FIRST_CALL)
        return first_call_child(child_arg, L.device);
    if (mode == LIFECYCLE)
        return lifecycle_child(L.device);

    printf("01_hello_runtime: when does the CUDA runtime create a context?\n");
    step_0_environment();
    step_1_before_any_call();
    bool no_such_device = false, cannot_run = false;
    bool ok = step_2_first_runtime_call(&L, &no_such_device, &cannot_run) &&
              step_3_first_call_that_needs_a_context(&L) && step_4_versions(&L) &&
              step_5_check_macros_at_work(&L) && step_6_kernel_launched_from_c() &&
              step_7_context_belongs_to_a_thread(&L) && step_8_primary_context_lifecycle(&L);
    if (no_such_device)
        return EXIT_USAGE;
    if (cannot_run)
        return EXIT_CANNOT_RUN;
    printf("\n");
    return verdict(ok);
}
