/*
 * 01_hello_runtime/proof/first_calls.c - step 2b: which runtime calls, made first, start the
 * primary context? A process makes its first call only once, so each row is a fresh child
 * process (this program again, with --first-call NAME). The children run side by side, or
 * one at a time on a GPU that lets one process at a time use it (EXCLUSIVE_PROCESS); a child
 * that got no context (the GPU taken, or its memory full with the others' contexts) is tried
 * again alone. make_first_call below makes the child's one call.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "lesson.h"

/* The calls, in the order of the table. `default_device`: the call names no device and acts
 * on the thread's current device, which is device 0 until cudaSetDevice says otherwise. */
static const struct first_call {
    const char *name;
    bool default_device;
} calls[] = {
    {"cudaRuntimeGetVersion", false},
    {"cudaDriverGetVersion", false},
    {"cudaGetDeviceCount", false},
    {"cudaGetDeviceProperties", false},
    {"cudaDeviceGetAttribute", false},
    {"cudaMemGetInfo", true},
    {"cudaFree(0)", true},
    {"cudaSetDevice", false},
    {"cudaInitDevice", false},
};
enum { N_CALLS = sizeof calls / sizeof calls[0] };

/* What a child reports, as its exit status: FIRST_CALL_SEEN plus these bits. */
enum { DRIVER_INITIALISED = 1, PRIMARY_ACTIVE = 2, CONTEXT_CURRENT = 4, FIRST_CALL_SEEN = 100 };

/* Each of these, made first in a fresh process (the child, below). The queries need no
 * context; the calls that need one start the primary context. */
static cudaError_t make_first_call(const char *name, int device)
{
    int value = 0;
    size_t free_bytes, total_bytes;
    struct cudaDeviceProp prop;
    if (strcmp(name, "cudaRuntimeGetVersion") == 0)
        return cudaRuntimeGetVersion(&value);
    if (strcmp(name, "cudaDriverGetVersion") == 0)
        return cudaDriverGetVersion(&value);
    if (strcmp(name, "cudaGetDeviceCount") == 0)
        return cudaGetDeviceCount(&value);
    if (strcmp(name, "cudaGetDeviceProperties") == 0)
        return cudaGetDeviceProperties(&prop, device);
    if (strcmp(name, "cudaDeviceGetAttribute") == 0)
        return cudaDeviceGetAttribute(&value, cudaDevAttrMultiProcessorCount, device);
    if (strcmp(name, "cudaMemGetInfo") == 0)
        return cudaMemGetInfo(&free_bytes, &total_bytes);
    if (strcmp(name, "cudaFree(0)") == 0)
        return cudaFree(0);
    if (strcmp(name, "cudaSetDevice") == 0)
        return cudaSetDevice(device);
#if CUDART_VERSION >= 12000
    if (strcmp(name, "cudaInitDevice") == 0) /* CUDA 12.0 */
        return cudaInitDevice(device, 0, 0);
#endif
    return cudaErrorNotSupported;
}

/* The child (--first-call NAME): the one runtime call, then a look through the Driver API
 * (whose calls start nothing). */
int first_call_child(const char *name, int device)
{
    int i = 0;
    while (i < N_CALLS && strcmp(calls[i].name, name) != 0)
        i++;
    if (i == N_CALLS)
        return EXIT_USAGE;
    int acts_on = calls[i].default_device ? 0 : device;
    cudaError_t err = make_first_call(name, acts_on);
    if (no_context_for_child(err))
        return err == cudaErrorDevicesUnavailable ? CHILD_GPU_TAKEN : CHILD_NO_MEMORY;
    CUcontext current = (CUcontext)(uintptr_t)0x5eed;
    CUresult r = cuCtxGetCurrent(&current);
    int status = FIRST_CALL_SEEN;
    if (r == CUDA_SUCCESS) {
        CUdevice dev;
        unsigned int flags;
        int active = 0;
        if (!checkDriver(cuDeviceGet(&dev, acts_on)) ||
            !checkDriver(cuDevicePrimaryCtxGetState(dev, &flags, &active)))
            return EXIT_CHECK;
        status +=
            DRIVER_INITIALISED + (active ? PRIMARY_ACTIVE : 0) + (current ? CONTEXT_CURRENT : 0);
    }
    return checkRuntime(err) ? status : EXIT_CHECK;
}

static bool row_is(const int *seen, const char *name, int bits)
{
    for (int i = 0; i < N_CALLS; i++)
        if (strcmp(calls[i].name, name) == 0)
            return seen[i] >= FIRST_CALL_SEEN && seen[i] - FIRST_CALL_SEEN == bits;
    return false;
}

static int run_child(int i, const char *dev)
{
    return wait_self(spawn_self(
        (char *[]){"--first-call", (char *)calls[i].name, "--device", (char *)dev, NULL}));
}

static bool no_context(int status)
{
    return status == CHILD_GPU_TAKEN || status == CHILD_NO_MEMORY;
}

/* The children, side by side (or one at a time, by the compute mode); one that got no context
 * beside the others, or could not start beside them (a process limit), runs again alone. A child
 * that cannot start even alone stops the lesson with the limit's name (exit 77). Returns how
 * many still got no context. */
static int run_children(const struct lesson *L, int *seen)
{
    char dev[16];
    snprintf(dev, sizeof dev, "%d", L->device);
    pid_t pid[N_CALLS];
    if (child_plan_for(L->compute_mode) == CHILDREN_SIDE_BY_SIDE) {
        for (int i = 0; i < N_CALLS; i++)
            pid[i] = spawn_self(
                (char *[]){"--first-call", (char *)calls[i].name, "--device", dev, NULL});
        for (int i = 0; i < N_CALLS; i++)
            seen[i] = wait_self(pid[i]);
    } else {
        for (int i = 0; i < N_CALLS; i++)
            seen[i] = run_child(i, dev);
    }
    int retried = 0, refused = 0;
    for (int i = 0; i < N_CALLS; i++) {
        if (no_context(seen[i]) || seen[i] < 0) {
            seen[i] = run_child(i, dev); /* alone this time */
            if (seen[i] < 0)
                stop_if_limit(child_start_error());
            retried++;
            refused += no_context(seen[i]);
        }
    }
    if (retried)
        printf("   (%d child process(es) got no context, or could not start, beside the others "
               "and ran again alone)\n",
               retried);
    return refused;
}

static void print_table(const struct lesson *L, const int *seen)
{
    printf("      %-24s %-7s %-19s %-16s %s\n", "first call", "device", "driver initialised",
           "primary context", "made current");
    for (int i = 0; i < N_CALLS; i++) {
        int s = seen[i] - FIRST_CALL_SEEN;
        if (no_context(seen[i]))
            printf("      %-24s (the driver gave the child process no context: %s)\n",
                   calls[i].name,
                   seen[i] == CHILD_GPU_TAKEN ? "cudaErrorDevicesUnavailable"
                                              : "cudaErrorMemoryAllocation");
        else if (seen[i] < FIRST_CALL_SEEN)
            printf("      %-24s (the child process failed: exit %d)\n", calls[i].name, seen[i]);
        else
            printf("      %-24s %-7d %-19s %-16s %s\n", calls[i].name,
                   calls[i].default_device ? 0 : L->device, s & DRIVER_INITIALISED ? "yes" : "no",
                   s & PRIMARY_ACTIVE ? "active" : "inactive", s & CONTEXT_CURRENT ? "yes" : "no");
    }
}

bool step_2b_which_first_calls_start_a_context(const struct lesson *L)
{
    printf(
        "   which runtime calls, made first, start the primary context? Each row is a fresh child\n"
        "   process, since a process makes its first call only once:\n");
    int seen[N_CALLS];
    int refused = run_children(L, seen);
    print_table(L, seen);
    if (refused) {
        not_judged(
            "the driver gave some child processes no context, even alone: another process holds "
            "this GPU, or its memory is full",
            "which first calls start the primary context (step 2's 4 claims)");
        return true;
    }
    claim(row_is(seen, "cudaRuntimeGetVersion", 0),
          "cudaRuntimeGetVersion initialised nothing, not even the driver");
    claim(row_is(seen, "cudaGetDeviceProperties", DRIVER_INITIALISED) &&
              row_is(seen, "cudaDeviceGetAttribute", DRIVER_INITIALISED),
          "device property queries start no context (a widely copied explanation says they need "
          "one)");
    int started = DRIVER_INITIALISED | PRIMARY_ACTIVE | CONTEXT_CURRENT;
    claim(row_is(seen, "cudaMemGetInfo", started) && row_is(seen, "cudaFree(0)", started) &&
              row_is(seen, "cudaSetDevice", started),
          "cudaMemGetInfo, cudaFree(0) and cudaSetDevice each started the primary context and made "
          "it current");
#if CUDART_VERSION >= 12000
    claim(row_is(seen, "cudaInitDevice", DRIVER_INITIALISED | PRIMARY_ACTIVE),
          "cudaInitDevice (CUDA 12.0) started the primary context without making it current");
#else
    not_judged("built with a CUDA older than 12.0",
               "cudaInitDevice starts the context without making it current");
#endif
    for (int i = 0; i < N_CALLS; i++)
        if (seen[i] < FIRST_CALL_SEEN)
            return false;
    return true;
}
