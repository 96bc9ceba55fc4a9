/*
 * common/gpu_shared.c - is another program using this GPU? (gpu_shared.h says how to use it)
 * Timing claims compare measurements made seconds apart; another program's copies or kernels
 * in between (another lesson running beside this one, say) can move them by far more than the
 * claims allow. NVML (the library behind nvidia-smi, opened with dlopen through platform.c: no
 * link-time dependency, and a machine without it simply cannot tell) lists the processes with
 * a context on the GPU: this program is one; two or more means company. In a container's PID
 * namespace the list shows that namespace's processes at most (often none, this program
 * included): the GPU-wide memory in use at the start and the PCIe traffic stand in.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "gpu_shared.h"
#include "platform.h"

struct nvml_process { /* nvmlProcessInfo_t, as nvmlDeviceGetComputeRunningProcesses_v3 fills it */
    unsigned int pid;
    unsigned long long used_memory;
    unsigned int gpu_instance, compute_instance;
};
struct nvml_memory_v2 { /* nvmlMemory_v2_t */
    unsigned int version;
    unsigned long long total, reserved, free, used;
};
struct nvml_utilization {
    unsigned int gpu, memory;
}; /* percent of the last sample period */

#define COMPANY_MIB   64  /* memory in use before this program's context: someone else's */
#define TRAFFIC_GBPS  1.0 /* PCIe traffic while this program copies nothing: someone else's */
#define START_DEVICES 64

/* What the GPUs showed when this program started, before it made a context (the utilisation
 * is only traced: a program that ended a moment ago still shows in it). */
static struct start {
    void *device;
    unsigned long long used;
    struct nvml_utilization util;
    bool memory_known, util_known;
} at_start[START_DEVICES];
static int at_start_count;

static bool tracing(void)
{
    const char *t = getenv("GPU_SHARED_TRACE");
    return t && *t == '1';
}

static bool memory_used(void *dev, unsigned long long *used)
{
    int (*info)(void *, struct nvml_memory_v2 *) =
        (int (*)(void *, struct nvml_memory_v2 *))platform_nvml("nvmlDeviceGetMemoryInfo_v2");
    struct nvml_memory_v2 m = {.version = (unsigned)sizeof m | 2u << 24};
    if (!info || info(dev, &m) != 0)
        return false;
    *used = m.used; /* without the driver's own reserve */
    return true;
}

/* Only in a PID namespace, where the list will be blind: NVML before main(). */
__attribute__((constructor)) static void gpu_shared_at_start(void)
{
    if (platform_pid_namespace() != 1)
        return;
    int (*count)(unsigned *) = (int (*)(unsigned *))platform_nvml("nvmlDeviceGetCount_v2");
    int (*by_index)(unsigned, void **) =
        (int (*)(unsigned, void **))platform_nvml("nvmlDeviceGetHandleByIndex_v2");
    int (*util)(void *, struct nvml_utilization *) =
        (int (*)(void *, struct nvml_utilization *))platform_nvml("nvmlDeviceGetUtilizationRates");
    unsigned n = 0;
    if (!count || !by_index || count(&n) != 0)
        return;
    for (unsigned i = 0; i < n && at_start_count < START_DEVICES; i++) {
        struct start *s = &at_start[at_start_count];
        if (by_index(i, &s->device) != 0)
            continue;
        s->memory_known = memory_used(s->device, &s->used);
        s->util_known = util && util(s->device, &s->util) == 0;
        if (tracing())
            fprintf(stderr,
                    "gpu_shared: at start, NVML device %u: %llu MiB used, utilisation "
                    "%u%% (kernels) %u%% (memory)\n",
                    i, s->used >> 20, s->util.gpu, s->util.memory);
        at_start_count++;
    }
}

static struct {
    bool tried, usable;
    void *device;
    int (*processes)(void *, unsigned int *, struct nvml_process *);
    int (*pcie)(void *, int, unsigned int *);
    unsigned int seen;   /* the most processes seen at once */
    bool stopped;        /* from step 6 on: its child process is this lesson too */
    bool blind;          /* NVML's list cannot show others: not this program, or a namespace */
    bool self_listed;    /* NVML's list showed this program once: it can see */
    bool in_namespace;   /* a PID namespace of its own: the list shows that namespace at most */
    double traffic_gbps; /* the most PCIe traffic seen while this program sampled */
    const struct start *start;
} N;

static void open_nvml(void)
{
    N.tried = true;
    int dev = 0;
    CUdevice current;
    /* the runtime's current device; a Driver API program's: its current context's device */
    if (cudaGetDevice(&dev) != cudaSuccess) {
        if (cuCtxGetDevice(&current) != CUDA_SUCCESS)
            return;
        dev = (int)current;
    }
    if (!(N.device = platform_nvml_device(dev)))
        return;
    *(void **)&N.processes = platform_nvml("nvmlDeviceGetComputeRunningProcesses_v3");
    *(void **)&N.pcie = platform_nvml("nvmlDeviceGetPcieThroughput");
    for (int i = 0; i < at_start_count; i++)
        if (at_start[i].device == N.device)
            N.start = &at_start[i];
    N.usable = N.processes != NULL;
    N.in_namespace = platform_pid_namespace() == 1;
    N.blind = N.in_namespace;
}

void gpu_shared_stop_sampling(void)
{
    N.stopped = true;
}

void gpu_shared_sample(void)
{
    if (!N.tried && !N.stopped)
        open_nvml();
    if (!N.usable || N.stopped)
        return;
    struct nvml_process p[64];
    unsigned int n = 64;
    int rc = N.processes(N.device, &n, p);
    if (rc == 0 || rc == 7 /* NVML_ERROR_INSUFFICIENT_SIZE: more than 64 */) {
        if (n > N.seen)
            N.seen = n;
        bool self = false;
        for (unsigned i = 0; rc == 0 && i < n; i++)
            self = self || p[i].pid == (unsigned)getpid();
        CUcontext ctx = NULL;
        if (self)
            N.self_listed = true;
        else if (cuCtxGetCurrent(&ctx) == CUDA_SUCCESS && ctx && rc == 0)
            N.blind = true; /* this program holds a context, and the list does not show it */
        /* In a PID namespace NVML lists at most the processes of that namespace (this driver
         * showed this program there, and no neighbour outside it): the list can never clear
         * the GPU of company, so the GPU-wide signals stay on. Elsewhere a list that showed
         * this program can see. */
        N.blind = N.blind && (N.in_namespace || !N.self_listed);
    }
    /* The link's traffic over the next 20 ms, each way, in KB/s. */
    unsigned tx = 0, rx = 0;
    if (N.blind && N.pcie && N.pcie(N.device, 0, &tx) == 0 && N.pcie(N.device, 1, &rx) == 0) {
        double gbps = (tx > rx ? tx : rx) / 1e6;
        if (gbps > N.traffic_gbps)
            N.traffic_gbps = gbps;
        if (tracing())
            fprintf(stderr, "gpu_shared: PCIe traffic %.2f GB/s out, %.2f GB/s in\n", tx / 1e6,
                    rx / 1e6);
    }
}

bool gpu_shared_evidence(char *seen, size_t len)
{
    gpu_shared_sample();
    if (N.seen >= 2) {
        snprintf(seen, len, "NVML listed %u processes on this GPU during the run", N.seen);
        return true;
    }
    if (!N.blind)
        return false;
    const char *blind = "NVML cannot list processes outside this container's PID namespace, but";
    const struct start *s = N.start;
    if (s && s->memory_known && s->used >= (unsigned long long)COMPANY_MIB << 20) {
        snprintf(seen, len,
                 "%s %llu MiB of the GPU's memory were in use before this program started", blind,
                 s->used >> 20);
        return true;
    }
    if (N.traffic_gbps >= TRAFFIC_GBPS) {
        snprintf(seen, len, "%s the PCIe link carried %.1f GB/s while this program copied nothing",
                 blind, N.traffic_gbps);
        return true;
    }
    return false;
}

bool gpu_shared(char *why, size_t len)
{
    char seen[400];
    if (!gpu_shared_evidence(seen, sizeof seen))
        return false;
    snprintf(why, len,
             "%s: another program shares %s, and timings taken seconds apart are not comparable",
             seen, N.seen >= 2 ? "it" : "this GPU");
    return true;
}

bool gpu_shared_blind(char *why, size_t len)
{
    char company[512];
    if (gpu_shared(company, sizeof company) || !N.blind)
        return false; /* company seen (gpu_shared says so), or NVML can see */
    snprintf(why, len,
             "cannot tell whether another program shares this GPU: NVML cannot see "
             "processes outside this container's PID namespace; %s",
             N.start
                 ? "neither the GPU's memory in use at the start nor its PCIe traffic showed one"
                 : "its PCIe traffic showed none");
    return true;
}
