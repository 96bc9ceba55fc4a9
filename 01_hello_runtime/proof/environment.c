/*
 * 01_hello_runtime/environment.c - step 0: the CUDA environment variables in effect.
 *
 * The driver reads them when it initialises or makes a context (NVIDIA's CUDA C++ Programming
 * Guide, section "CUDA Environment Variables", lists them): set in the shell, or by the program
 * itself with setenv before its first CUDA call. A lesson that a student runs with one of them
 * set must say so, and check the behaviour the variable produces instead of failing over it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lesson.h"

static const char *value_of(const char *name)
{
    const char *v = getenv(name);
    return v;
}

enum setting launch_blocking(void)
{
    const char *v = value_of("CUDA_LAUNCH_BLOCKING");
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
    const char *v = value_of("CUDA_VISIBLE_DEVICES");
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
    return value_of("CUDA_MODULE_LOADING");
}

static void show(const char *name, const char *what_it_changes)
{
    const char *v = value_of(name);
    char shown[64];
    snprintf(shown, sizeof shown, "%s=%s", name, v ? v : "(not set)");
    printf("   %-34s %s\n", shown, what_it_changes);
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
    show("CUDA_DEVICE_ORDER",
         value_of("CUDA_DEVICE_ORDER")
             ? "PCI_BUS_ID: devices numbered in PCI bus order; FASTEST_FIRST: fastest first"
             : "devices numbered fastest first (PCI_BUS_ID: in PCI bus order)");
    show("CUDA_MODULE_LOADING",
         module_loading()
             ? "EAGER: every kernel loads with the context; LAZY: at its first launch (step 3)"
             : "each kernel loads at its first launch (EAGER: all with the context; step 3)");
}
