/* 02_driver_context/proof/start.c - step 1, the explicit start: what works before cuInit,
 * cuInit, the devices, and the compute mode and environment (environment.c) that change what
 * the lesson shows. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lesson.h"
#include "platform.h"

/* Calls made before cuInit: which of them work. The first is the lesson's first CUDA call:
 * where the driver cannot run at all (no library, the stub), it says why and exits 77. */
static void before_cuinit(void)
{
    int count = 0, version = 0;
    CUresult r = cuDeviceGetCount(&count);
    if (r != CUDA_ERROR_NOT_INITIALIZED) /* no driver library, stub driver ... -> exit 77 */
        require_driver_(r, "cuDeviceGetCount(&count)", __FILE__, __LINE__);
    CUcontext ctx = NULL;
    CUresult r_ctx = cuCtxGetCurrent(&ctx);
    CUresult r_version = cuDriverGetVersion(&version);
    const char *name = NULL;
    CUresult r_name = cuGetErrorName(CUDA_ERROR_NOT_INITIALIZED, &name);
    printf("   before cuInit:\n");
    printf("     cuDeviceGetCount(&count)          -> %s (%d)\n", error_name(r), (int)r);
    printf("     cuCtxGetCurrent(&ctx)             -> %s (%d)\n", error_name(r_ctx), (int)r_ctx);
    printf("     cuDriverGetVersion(&version)      -> %s (%d), version %d\n", error_name(r_version),
           (int)r_version, version);
    printf("     cuGetErrorName(3, &name)          -> %s (%d), \"%s\"\n", error_name(r_name),
           (int)r_name, name ? name : "(none)");
    bool lookup_ok = true;
#if CUDA_VERSION >= 12000
    void *fn = NULL;
    CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CUresult r_proc = cuGetProcAddress("cuInit", &fn, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &found);
    printf("     cuGetProcAddress(\"cuInit\", ...)   -> %s (%d), %s\n", error_name(r_proc),
           (int)r_proc, fn ? "a function pointer" : "no pointer");
    lookup_ok = r_proc == CUDA_SUCCESS && fn != NULL && found == CU_GET_PROC_ADDRESS_SUCCESS;
#endif
    claim(
        r == CUDA_ERROR_NOT_INITIALIZED && r_ctx == CUDA_ERROR_NOT_INITIALIZED,
        "cuDeviceGetCount and cuCtxGetCurrent fail with CUDA_ERROR_NOT_INITIALIZED before cuInit");
    claim(r_version == CUDA_SUCCESS && version > 0 && r_name == CUDA_SUCCESS && name && lookup_ok,
          "cuDriverGetVersion, cuGetErrorName%s work before cuInit: not every call needs it",
          CUDA_VERSION >= 12000 ? " and cuGetProcAddress" : "");
}

/* Who may hold a context on the device of steps 2 to 6. Returns -1 to go on, else the exit code. */
static int compute_mode(struct lesson *L)
{
    printf("   its compute mode (cuDeviceGetAttribute): %s",
           platform_compute_mode_name(L->compute_mode));
    if (!contexts_allowed(L->compute_mode)) {
        printf(": no process may make a context on it\n");
        fprintf(stderr,
                "%s: cannot run here: device %ld's compute mode is PROHIBITED: the driver lets no "
                "process make a context on it.\n%s: choose another GPU with --device, or ask the "
                "machine's "
                "administrator (nvidia-smi -q shows the mode).\n",
                lesson_prog, L->device, lesson_prog);
        return EXIT_CANNOT_RUN;
    }
    if (one_context_at_a_time(L->compute_mode))
        printf(": this GPU lets one process at a time use it, and NVIDIA documents\n"
               "   one context on it at a time; if the driver refuses this lesson a second "
               "context, the\n"
               "   lesson stops and says so (exit 77)\n");
    else
        printf(": any number of contexts and processes may use it\n");
    return -1;
}

/* Every device the driver shows, one line each; keeps --device's. Returns whether their PCI
 * bus ids ascend (-1: a query failed). */
static int list_devices(struct lesson *L)
{
    int listed = 0, ascending = 1;
    char prev_bus[32] = "";
    for (int d = 0; d < L->count && d < MAX_DEVICES; d++) {
        struct device_info info = {0};
        if (!describe_device(d, &info))
            return -1;
        printf("   [device %d] \"%s\", compute capability %d.%d, %.2f GiB, PCI %s\n", d, info.name,
               info.major, info.minor, (double)info.total / (MIB * 1024.0), info.bus);
        listed += info.name[0] != '\0' && info.major > 0 && info.total > 0;
        ascending = ascending && strcmp(prev_bus, info.bus) < 0;
        snprintf(prev_bus, sizeof prev_bus, "%s", info.bus);
        if (d == L->device) {
            L->dev = info.dev;
            L->compute_mode = info.compute_mode;
            L->major = info.major;
            L->minor = info.minor;
            snprintf(L->name, sizeof L->name, "%s", info.name);
        }
    }
    claim(listed == L->count,
          "cuInit found %d device(s), each with a name, a compute capability and memory", L->count);
    printf("   steps 2 to 6 use device %ld, \"%s\"\n", L->device, L->name);
    return ascending;
}

/* 1. Returns -1 to go on, else the exit code (77: no driver or no device here). */
int step_1_explicit_start(struct lesson *L)
{
    printf("\n1. The explicit start: cuInit, then the devices\n");
    show_environment();
    before_cuinit();
    double t0 = host_ms();
    if (!requireDriver(cuInit(0)))
        return verdict(false);
    double init_ms = host_ms() - t0;
    if (!checkDriver(cuDriverGetVersion(&L->driver_version)) ||
        !checkDriver(cuDeviceGetCount(&L->count)))
        return verdict(false);
    if (L->count < 1) {
        fprintf(stderr, "%s: cannot run here: the driver reports no CUDA device\n", lesson_prog);
        return EXIT_CANNOT_RUN;
    }
    if (L->device >= L->count) {
        const char *visible = getenv("CUDA_VISIBLE_DEVICES");
        fprintf(stderr,
                "%s: --device %ld does not exist: this machine shows %d device(s), 0 to %d%s%s%s\n",
                lesson_prog, L->device, L->count, L->count - 1,
                visible ? " (CUDA_VISIBLE_DEVICES=" : "", visible ? visible : "",
                visible ? " chooses which, and numbers them from 0)" : "");
        return EXIT_USAGE;
    }
    printf("   cuInit(0) took %.1f ms; the driver supports CUDA %d.%d; cuDeviceGetCount -> %d "
           "device(s)\n",
           init_ms, L->driver_version / 1000, L->driver_version % 1000 / 10, L->count);
    int ascending = list_devices(L);
    if (ascending < 0)
        return verdict(false);
    int rc = compute_mode(L);
    if (rc >= 0)
        return rc;
    if (!environment_claims(L, ascending == 1))
        return verdict(false);
    return -1;
}
