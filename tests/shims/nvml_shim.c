/*
 * tests/shims/nvml_shim.c - a made-up libnvidia-ml.so.1 for CPU tests: NVML as the environment
 * describes it, for the code in common/ that asks NVML (platform.c, gpu_shared.c) and for
 * make doctor. Together with the forwarding driver over the toolkit's stub (cuda_shim.c), a
 * machine without a GPU shows what a container, a neighbour, a MIG slice or a slow link show.
 *
 *     LD_LIBRARY_PATH=DIR NVML_SHIM_PROCESSES= ./program     (DIR from tests/shims/build)
 *
 * One device, whatever bus id or index is asked for. The environment (each optional):
 *   NVML_SHIM_PROCESSES=self,4242   the compute processes listed ("self": the caller's pid);
 *                                   empty: none, as in a container's PID namespace (default:
 *                                   self)
 *   NVML_SHIM_USED_MIB=600          memory in use on the GPU (default 0)
 *   NVML_SHIM_TOTAL_MIB=15360       the GPU's memory in all (default 81559, an H100's)
 *   NVML_SHIM_PCIE_MBPS=20000       PCIe traffic each way, MB/s (default 0)
 *   NVML_SHIM_MIG=1                 MIG mode on (default: MIG not supported)
 *   NVML_SHIM_LINK="4 16 5 16"      PCIe generation and width now, and at most (default 5 16 5 16)
 *   NVML_SHIM_DRIVER=580.00.01      the driver's version string (default 580.00.00)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int nvmlReturn_t;
enum { OK = 0, ERR_NOT_SUPPORTED = 3, ERR_INSUFFICIENT_SIZE = 7 };
static int device_marker;
#define DEVICE ((void *)&device_marker)

static long env_long(const char *name, long dflt)
{
    const char *v = getenv(name);
    char *end;
    long n = v && *v ? strtol(v, &end, 10) : dflt;
    return v && *v && *end ? dflt : n;
}

nvmlReturn_t nvmlInit_v2(void)
{
    return OK;
}
nvmlReturn_t nvmlShutdown(void)
{
    return OK;
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned *n)
{
    *n = 1;
    return OK;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned i, void **dev)
{
    *dev = DEVICE;
    return i == 0 ? OK : 2 /* INVALID_ARGUMENT */;
}

nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *bus, void **dev)
{
    (void)bus;
    *dev = DEVICE;
    return OK;
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *buf, unsigned len)
{
    const char *v = getenv("NVML_SHIM_DRIVER");
    snprintf(buf, len, "%s", v && *v ? v : "580.00.00");
    return OK;
}

struct process {
    unsigned pid;
    unsigned long long used;
    unsigned gi, ci;
};

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(void *dev, unsigned *n, struct process *p)
{
    (void)dev;
    const char *v = getenv("NVML_SHIM_PROCESSES");
    char list[256];
    snprintf(list, sizeof list, "%s", v ? v : "self");
    unsigned count = 0, room = *n;
    for (char *save = NULL, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (count < room) {
            p[count].pid = strcmp(t, "self") == 0 ? (unsigned)getpid() : (unsigned)atol(t);
            p[count].used = 500ull << 20;
            p[count].gi = p[count].ci = 0xFFFFFFFF;
        }
        count++;
    }
    *n = count;
    return count > room ? ERR_INSUFFICIENT_SIZE : OK;
}

struct memory {
    unsigned long long total, free, used;
};
struct memory_v2 {
    unsigned version;
    unsigned long long total, reserved, free, used;
};
#define TOTAL ((unsigned long long)env_long("NVML_SHIM_TOTAL_MIB", 81559) << 20)

nvmlReturn_t nvmlDeviceGetMemoryInfo(void *dev, struct memory *m)
{
    (void)dev;
    m->used = (unsigned long long)env_long("NVML_SHIM_USED_MIB", 0) << 20;
    m->total = TOTAL;
    m->free = TOTAL - m->used;
    return OK;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(void *dev, struct memory_v2 *m)
{
    (void)dev;
    if (m->version != ((unsigned)sizeof *m | 2u << 24))
        return 25; /* NVML_ERROR_ARGUMENT_VERSION_MISMATCH */
    m->used = (unsigned long long)env_long("NVML_SHIM_USED_MIB", 0) << 20;
    m->reserved = 0;
    m->total = TOTAL;
    m->free = TOTAL - m->used;
    return OK;
}

struct utilization {
    unsigned gpu, memory;
};
nvmlReturn_t nvmlDeviceGetUtilizationRates(void *dev, struct utilization *u)
{
    (void)dev;
    u->gpu = u->memory = 0;
    return OK;
}

nvmlReturn_t nvmlDeviceGetPcieThroughput(void *dev, int counter, unsigned *kbps)
{
    (void)dev;
    (void)counter;
    *kbps = (unsigned)env_long("NVML_SHIM_PCIE_MBPS", 0) * 1000u;
    return OK;
}

nvmlReturn_t nvmlDeviceGetMigMode(void *dev, unsigned *current, unsigned *pending)
{
    (void)dev;
    if (env_long("NVML_SHIM_MIG", -1) < 0)
        return ERR_NOT_SUPPORTED;
    *current = *pending = (unsigned)env_long("NVML_SHIM_MIG", 0);
    return OK;
}

static nvmlReturn_t link_field(int i, unsigned *v)
{
    const char *l = getenv("NVML_SHIM_LINK");
    unsigned f[4] = {5, 16, 5, 16};
    if (l && *l)
        sscanf(l, "%u %u %u %u", &f[0], &f[1], &f[2], &f[3]);
    *v = f[i];
    return OK;
}
#define LINK_FIELD(name, i)                 \
    nvmlReturn_t name(void *d, unsigned *v) \
    {                                       \
        (void)d;                            \
        return link_field(i, v);            \
    }
LINK_FIELD(nvmlDeviceGetCurrPcieLinkGeneration, 0)
LINK_FIELD(nvmlDeviceGetCurrPcieLinkWidth, 1)
LINK_FIELD(nvmlDeviceGetMaxPcieLinkGeneration, 2)
LINK_FIELD(nvmlDeviceGetMaxPcieLinkWidth, 3)
