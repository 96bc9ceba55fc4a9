/*
 * common/gpu_shared.c - is another program using this GPU? (gpu_shared.h says how to use it)
 * Timing claims compare measurements made seconds apart; another program's copies or kernels
 * in between (another lesson running beside this one, say) can move them by far more than the
 * claims allow. NVML (the library behind nvidia-smi, opened with dlopen: no link-time
 * dependency, and a machine without it simply cannot tell) lists the processes with a context
 * on the GPU: this program is one; two or more means company.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>

#include <cuda_runtime_api.h>

#include "gpu_shared.h"

struct nvml_process { /* nvmlProcessInfo_t, as nvmlDeviceGetComputeRunningProcesses_v3 fills it */
    unsigned int pid;
    unsigned long long used_memory;
    unsigned int gpu_instance, compute_instance;
};

static struct {
    bool tried, usable;
    void *device;
    int (*processes)(void *, unsigned int *, struct nvml_process *);
    unsigned int seen; /* the most processes seen at once */
    bool stopped;      /* from step 6 on: its child process is this lesson too */
} N;

static void open_nvml(void)
{
    N.tried = true;
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    if (!lib)
        return;
    int (*init)(void) = (int (*)(void))dlsym(lib, "nvmlInit_v2");
    int (*by_bus)(const char *, void **) =
        (int (*)(const char *, void **))dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2");
    *(void **)&N.processes = dlsym(lib, "nvmlDeviceGetComputeRunningProcesses_v3");
    char bus[32];
    int dev = 0;
    if (!init || !by_bus || !N.processes || cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetPCIBusId(bus, sizeof bus, dev) != cudaSuccess || init() != 0 ||
        by_bus(bus, &N.device) != 0)
        return;
    N.usable = true;
}

void gpu_shared_stop_sampling(void) { N.stopped = true; }

void gpu_shared_sample(void)
{
    if (!N.tried && !N.stopped)
        open_nvml();
    if (N.usable && !N.stopped) {
        struct nvml_process p[64];
        unsigned int n = 64;
        int rc = N.processes(N.device, &n, p);
        if ((rc == 0 || rc == 7 /* NVML_ERROR_INSUFFICIENT_SIZE: more than 64 */) && n > N.seen)
            N.seen = n;
    }
}

bool gpu_shared(char *why, size_t len)
{
    gpu_shared_sample();
    if (N.seen < 2)
        return false;
    snprintf(why, len, "NVML listed %u processes on this GPU during the run: another program "
             "shares it, and timings taken seconds apart are not comparable", N.seen);
    return true;
}
