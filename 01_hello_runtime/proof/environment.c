/*
 * 01_hello_runtime/proof/environment.c - step 0: the CUDA environment variables in effect.
 *
 * The driver reads them when it initialises or makes a context (NVIDIA's CUDA Programming
 * Guide, "CUDA Environment Variables", lists them): set in the shell, or by the program itself
 * with setenv before its first CUDA call. A lesson that a student runs with one of them set must
 * say so where it matters, and check the behaviour the variable produces instead of failing over
 * it. The four that change what this lesson shows are always printed; the others of the guide's
 * table that touch it (the JIT, the fault handling, the error log, the work queues) only when set.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lesson.h"

enum setting launch_blocking(void)
{
    const char *v = getenv("CUDA_LAUNCH_BLOCKING");
    if (!v)
        return NOT_SET;
    if (strcmp(v, "0") == 0)
        return SET_OFF;
    if (strcmp(v, "1") == 0)
        return SET_ON;
    return SET_OTHER;
}

int visible_devices_listed(void)
{
    const char *v = getenv("CUDA_VISIBLE_DEVICES");
    if (!v)
        return -1;
    if (!*v)
        return 0;
    int n = 1;
    for (; *v; v++)
        n += *v == ',';
    return n;
}

const char *module_loading(void)
{
    return getenv("CUDA_MODULE_LOADING");
}

/* The variables that decide whether the driver may, or must, JIT-compile the kernels' PTX: with
 * one set, a GPU whose code this build does not hold in the form allowed cannot load the
 * kernels. The first one set, as NAME=VALUE, or NULL. */
const char *jit_setting(void)
{
    static const char *names[] = {"CUDA_FORCE_PTX_JIT", "CUDA_DISABLE_PTX_JIT", "CUDA_FORCE_JIT",
                                  "CUDA_DISABLE_JIT"};
    static char shown[96];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *v = getenv(names[i]);
        if (v && *v && strcmp(v, "0") != 0) {
            snprintf(shown, sizeof shown, "%s=%.60s", names[i], v);
            return shown;
        }
    }
    return NULL;
}

/* The variables of the guide's table that touch this lesson only when set. */
static const struct {
    const char *name, *here;
} when_set[] = {
    {"CUDA_FORCE_PTX_JIT", "the kernels are JIT-compiled from PTX, if this build holds PTX the "
                           "GPU can take (step 3 says whether they load)"},
    {"CUDA_FORCE_JIT", "the kernels are JIT-compiled from PTX (step 3 says whether they load)"},
    {"CUDA_DISABLE_PTX_JIT", "no PTX is JIT-compiled: the GPU needs SASS of its own in this "
                             "build (step 3 says whether the kernels load)"},
    {"CUDA_DISABLE_JIT", "no JIT: the GPU needs SASS of its own in this build (step 3)"},
    {"CUDA_CACHE_DISABLE", "JIT results are not cached; no claim here depends on it"},
    {"CUDA_CACHE_PATH", "where JIT results are cached; no claim here depends on it"},
    {"CUDA_CACHE_MAXSIZE", "the JIT cache's size; no claim here depends on it"},
    {"CUDA_DEVICE_WAITS_ON_EXCEPTION", "a fault waits for a debugger: step 5c removes it from "
                                       "the children that fault on purpose"},
    {"CUDA_ENABLE_COREDUMP_ON_EXCEPTION", "a fault writes a GPU core dump: step 5c removes it "
                                          "from the children that fault on purpose"},
    {"CUDA_ENABLE_CPU_COREDUMP_ON_EXCEPTION", "step 5c removes it from its faulting children"},
    {"CUDA_LOG_FILE",
     "the driver's error log goes there: step 5's errors on purpose may show in it"},
    {"CUDA_DEVICE_MAX_CONNECTIONS", "work queues per device: this lesson uses one stream, "
                                    "nothing changes"},
};

static void show(const char *name, const char *what_it_changes)
{
    const char *v = getenv(name);
    char shown[64];
    snprintf(shown, sizeof shown, "%s=%s", name, v ? v : "(not set)");
    printf("   %-34s %s\n", shown, what_it_changes);
}

static const char *device_order(void)
{
    const char *v = getenv("CUDA_DEVICE_ORDER");
    if (!v)
        return "device 0 is the GPU a simple heuristic guesses fastest, the others' order is "
               "unspecified (PCI_BUS_ID: PCI bus order)";
    if (strcmp(v, "FASTEST_FIRST") == 0)
        return "device 0 is the GPU a simple heuristic guesses fastest, the others' order is "
               "unspecified";
    if (strcmp(v, "PCI_BUS_ID") == 0)
        return "devices numbered in ascending PCI bus order";
    return "not a value the guide lists (FASTEST_FIRST, PCI_BUS_ID)";
}

/* Step 5c's children fault on purpose: a variable that makes a fault wait for a debugger or
 * write core dumps would hang them or slow them down. Each child removes them before its first
 * CUDA call (the driver reads them when it initialises); the parent says which it had. */
static const char *const fault_handling[] = {"CUDA_DEVICE_WAITS_ON_EXCEPTION",
                                             "CUDA_ENABLE_COREDUMP_ON_EXCEPTION",
                                             "CUDA_ENABLE_CPU_COREDUMP_ON_EXCEPTION"};

int fault_handling_set(char *names, size_t len)
{
    int n = 0;
    names[0] = '\0';
    for (size_t i = 0; i < sizeof fault_handling / sizeof fault_handling[0]; i++)
        if (getenv(fault_handling[i])) {
            size_t used = strlen(names);
            snprintf(names + used, len - used, "%s%s", n++ ? ", " : "", fault_handling[i]);
        }
    return n;
}

void remove_fault_handling(void)
{
    for (size_t i = 0; i < sizeof fault_handling / sizeof fault_handling[0]; i++)
        unsetenv(fault_handling[i]);
}

void step_0_environment(void)
{
    printf(
        "\n0. The CUDA environment variables this lesson reads (the driver reads them when it "
        "initialises or\n"
        "   makes a context: set them in the shell, or with setenv before the first CUDA call)\n");
    static const char *blocking[] = {
        [NOT_SET] = "launches return before their kernel ends (=1: each waits; steps 5c, 6)",
        [SET_OFF] = "0: launches return before their kernel ends, as when not set (steps 5c, 6)",
        [SET_ON] = "1: each launch waits for its kernel to end (steps 5c, 6 show it)",
        [SET_OTHER] = "neither 0 nor 1: this lesson does not judge what it does",
    };
    show("CUDA_LAUNCH_BLOCKING", blocking[launch_blocking()]);
    show("CUDA_VISIBLE_DEVICES",
         visible_devices_listed() < 0
             ? "every GPU is visible (a list: only those, renumbered from 0; step 2)"
             : "only the GPUs listed, renumbered from 0 (step 2 counts them)");
    show("CUDA_DEVICE_ORDER", device_order());
    show("CUDA_MODULE_LOADING",
         module_loading()
             ? "EAGER: every kernel loads with the context; LAZY: at its first launch (step 3)"
             : "each kernel loads at its first launch (EAGER: all with the context; step 3)");
    for (size_t i = 0; i < sizeof when_set / sizeof when_set[0]; i++)
        if (getenv(when_set[i].name))
            show(when_set[i].name, when_set[i].here);
}
