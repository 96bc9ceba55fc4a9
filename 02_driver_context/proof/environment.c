/* 02_driver_context/proof/environment.c - the CUDA environment variables that change what this
 * lesson observes (CUDA Programming Guide, "CUDA Environment Variables",
 * https://docs.nvidia.com/cuda/cuda-programming-guide/05-appendices/environment-variables.html;
 * the MPS ones in NVIDIA's Multi-Process Service guide, https://docs.nvidia.com/deploy/mps/).
 * Step 1 prints them before the first CUDA call and checks, after cuInit, what each changed;
 * the steps they change ask here (mps_client, jit_refusal). The driver reads them when it
 * initialises or makes a context: changed later, they change nothing in this process. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lesson.h"
#include "platform.h"

/* Printed always: what the lesson's steps 1, 4, 5 and 7 show depends on them. */
static const struct env_note {
    const char *name, *what;
} always[] = {
    {"CUDA_VISIBLE_DEVICES", "which GPUs the process sees, numbered from 0 in the order listed"},
    {"CUDA_DEVICE_ORDER", "FASTEST_FIRST (default) or PCI_BUS_ID: how the GPUs are numbered"},
    {"CUDA_MODULE_LOADING",
     "LAZY (default) or EAGER: when the runtime loads a kernel into a context"},
};

/* Printed when set: what each changes here, and what the lesson does about it. */
static const struct env_note when_set[] = {
    {"CUDA_LAUNCH_BLOCKING",
     "1: each launch returns once its kernel is done; no claim here times a launch"},
    {"CUDA_DEVICE_MAX_CONNECTIONS",
     "work queues per context; no claim here counts them, step 2 compares within the run"},
    {"CUDA_MODULE_DATA_LOADING", "when a module's data is loaded; no claim here depends on it"},
    {"CUDA_FORCE_PTX_JIT",
     "1: the kernels' PTX is compiled at load, their SASS ignored; none of it is timed here"},
    {"CUDA_DISABLE_PTX_JIT",
     "1: no PTX is compiled; a GPU this build holds no SASS for cannot run its kernels"},
    {"CUDA_MPS_PIPE_DIRECTORY",
     "where an MPS client finds the MPS control daemon (the MPS line below)"},
    {"CUDA_MPS_PINNED_DEVICE_MEM_LIMIT",
     "an MPS client's device memory limit: a context may not fit (exit 77)"},
    {"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "an MPS client's share of the SMs; nothing timed here"},
};

static void print_var(const struct env_note *v, bool even_unset)
{
    const char *value = getenv(v->name);
    if (!value && !even_unset)
        return;
    printf("     %-20s = %-12s %s\n", v->name, value ? (*value ? value : "(empty)") : "(not set)",
           v->what);
}

void show_environment(void)
{
    printf("   environment:\n");
    for (size_t i = 0; i < sizeof always / sizeof always[0]; i++)
        print_var(&always[i], true);
    for (size_t i = 0; i < sizeof when_set / sizeof when_set[0]; i++)
        print_var(&when_set[i], false);
}

/* A variable set to something other than 0 (the JIT switches take 1). */
static bool set_on(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

/* Is this process an MPS client? The driver says so (CU_DEVICE_ATTRIBUTE_MPS_ENABLED, in the
 * CUDA 13 headers: "contexts created on this device will be shared via MPS"); without that
 * answer, the control daemon's pipe decides: a program runs under MPS when the daemon runs
 * (nvidia-cuda-mps-control(1)), and finds it in CUDA_MPS_PIPE_DIRECTORY (default
 * /tmp/nvidia-mps). Prints what it found where either says MPS; fills why when it is one. */
bool mps_client(CUdevice dev, char *why, size_t len)
{
    int enabled = -1;
#if CUDA_VERSION >= 13000
    if (cuDeviceGetAttribute(&enabled, CU_DEVICE_ATTRIBUTE_MPS_ENABLED, dev) != CUDA_SUCCESS)
        enabled = -1; /* an older driver: not answered */
#else
    (void)dev;
#endif
    const char *dir = getenv("CUDA_MPS_PIPE_DIRECTORY");
    char pipe[400];
    struct stat st;
    snprintf(pipe, sizeof pipe, "%s/control", dir && *dir ? dir : "/tmp/nvidia-mps");
    bool daemon = stat(pipe, &st) == 0 && S_ISFIFO(st.st_mode);
    if (!mps_client_by(enabled, daemon)) {
        if (daemon) /* the driver's word against a pipe: the driver's */
            printf("   MPS: the control daemon's pipe is there (%s), but the driver reports this "
                   "device's\n   contexts are not shared via MPS "
                   "(CU_DEVICE_ATTRIBUTE_MPS_ENABLED = 0): judged as without MPS\n",
                   pipe);
        else if (dir && *dir)
            printf("   MPS: CUDA_MPS_PIPE_DIRECTORY is set, but no control daemon's pipe is there "
                   "(%s):\n   this process runs without MPS\n",
                   pipe);
        return false;
    }
    snprintf(why, len,
             "this process is an MPS client (%s%s): the MPS server, another process, holds the "
             "GPU's contexts for its clients, so free device memory is not this process's alone",
             enabled == 1 ? "CU_DEVICE_ATTRIBUTE_MPS_ENABLED = 1" : "the control daemon's pipe ",
             enabled == 1 ? "" : pipe);
    printf("   MPS: %s; step 2's memory claims are not judged\n", why);
    return true;
}

/* After a failed step: did a JIT switch make the kernels unloadable here? Then the lesson
 * cannot run in this environment: one line naming the variable and the fix. */
bool jit_refusal(const struct lesson *L)
{
    const char *name = set_on("CUDA_FORCE_PTX_JIT")     ? "CUDA_FORCE_PTX_JIT"
                       : set_on("CUDA_DISABLE_PTX_JIT") ? "CUDA_DISABLE_PTX_JIT"
                                                        : NULL;
    if (!name)
        return false;
    cudaError_t e = kernel_image_check();
    if (!kernel_image_refused(e))
        return false;
    fprintf(stderr,
            "%s: cannot run here: %s=%s, and this GPU (compute capability %d.%d) cannot load the "
            "lesson's kernels so (%s): %s. Unset %s, or build for this GPU: make ARCH=%d%d\n",
            lesson_prog, name, getenv(name), L->major, L->minor, cudaGetErrorName(e),
            strcmp(name, "CUDA_FORCE_PTX_JIT") == 0
                ? "the driver ignores their SASS and this build holds no PTX it can compile for it"
                : "the driver compiles no PTX and this build holds no SASS for it",
            name, L->major, L->minor);
    return true;
}

/* CUDA_MODULE_LOADING: what cuModuleGetLoadingMode reports against what was asked for, or
 * the default (lazy from CUDA 12.2 where runtime and driver both are; common/platform.h). */
static bool loading_claims(int driver_version)
{
    const char *loading = getenv("CUDA_MODULE_LOADING");
    bool eager = loading && strcmp(loading, "EAGER") == 0;
    bool lazy = !loading || !*loading || strcmp(loading, "LAZY") == 0;
    bool asked = eager || (loading && *loading && lazy);
    bool by_default = !asked && lazy && lazy_loading_is_default(driver_version, CUDART_VERSION);
    char why[200];
    if (loading && *loading && !eager && !lazy) { /* a value the guide does not list */
        snprintf(why, sizeof why,
                 "CUDA_MODULE_LOADING=%s is neither LAZY nor EAGER, the values NVIDIA documents",
                 loading);
        not_judged(why, "the module loading mode is what CUDA_MODULE_LOADING asks for");
    } else if (lazy && !asked && !by_default) { /* the runtime or the driver is older than 12.2 */
        snprintf(why, sizeof why,
                 "the driver supports CUDA %d.%d and this program's runtime is %d.%d: lazy "
                 "loading is the default only where both are 12.2 or newer",
                 driver_version / 1000, driver_version % 1000 / 10, CUDART_VERSION / 1000,
                 CUDART_VERSION % 1000 / 10);
        not_judged(why, "CUDA_MODULE_LOADING is not set: loading is lazy");
    }
    CUmoduleLoadingMode mode = CU_MODULE_LAZY_LOADING;
    if (!checkDriver(cuModuleGetLoadingMode(&mode)))
        return false;
    printf("   cuModuleGetLoadingMode -> %s\n",
           mode == CU_MODULE_EAGER_LOADING ? "CU_MODULE_EAGER_LOADING" : "CU_MODULE_LAZY_LOADING");
    if (asked)
        claim(mode == (eager ? CU_MODULE_EAGER_LOADING : CU_MODULE_LAZY_LOADING),
              "the module loading mode is what CUDA_MODULE_LOADING asks for (%s)",
              eager ? "EAGER" : "LAZY");
    else if (by_default)
        claim(mode == CU_MODULE_LAZY_LOADING,
              "the module loading mode is what CUDA_MODULE_LOADING asks for (not set: LAZY, the "
              "default on Linux from CUDA 12.2, 12.3 on Windows, runtime and driver both)");
    return true;
}

/* After cuInit: check what the variables shown above changed. */
bool environment_claims(struct lesson *L, bool pci_order)
{
    const char *visible = getenv("CUDA_VISIBLE_DEVICES"), *order = getenv("CUDA_DEVICE_ORDER");
    if (visible && *visible) {
        int listed = 1;
        for (const char *c = visible; *c; c++)
            listed += *c == ',';
        claim(L->count <= listed,
              "CUDA_VISIBLE_DEVICES lists %d entr%s and the driver shows %d device(s): no more "
              "than listed",
              listed, listed == 1 ? "y" : "ies", L->count);
    }
    if (order && strcmp(order, "PCI_BUS_ID") == 0 && !(visible && *visible))
        claim(pci_order, "CUDA_DEVICE_ORDER=PCI_BUS_ID: the devices are numbered in PCI bus order");
    mps_client(L->dev, L->mps, sizeof L->mps);
    return loading_claims(L->driver_version);
}
