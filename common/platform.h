/*
 * common/platform.h - facts about this machine that change what a lesson can judge, and what
 * `make doctor` reports.
 *
 * 1. under_tool(why, len)
 *    Is this program running under a tool that slows every CUDA call many times
 *    (compute-sanitizer; Nsight Compute, which replays kernels; Nsight Systems, which traces
 *    every call; any other CUDA tool injected with CUDA_INJECTION64_PATH; valgrind)? Then a
 *    claim that compares timings cannot be judged:
 *        char why[256];
 *        if (under_tool(why, sizeof why)) not_judged(why, "...timing claim...");
 *    why reads like "this run is under compute-sanitizer, which checks every CUDA call and
 *    memory access and slows them many times: timings say nothing about the GPU". Nothing
 *    CUDA is called: it reads the environment the tools give the program they start and the
 *    libraries mapped into it (/proc/self/maps), so it may be called at any time.
 *
 * 2. platform_read(ordinal, &p) fills struct platform for CUDA device `ordinal` (as
 *    cudaGetDevice numbers it): from the Driver API (cuInit, cuDeviceGetAttribute, ... through
 *    common/driver_loader.c), NVML (opened with dlopen; absent in some containers), /sys and
 *    /proc. It calls cuInit (a lesson that shows the driver before initialisation reads the
 *    platform after that), creates no context, and returns cuInit's or cuDeviceGet's error
 *    when the driver cannot be used (call it with requireDriver() as the first CUDA call, or
 *    with checkDriver() later). A fact it cannot read is -1 (or "" / 0). Over the toolkit's
 *    stub, tests/shims' forwarding driver answers it (an emulated device): a lesson that reads
 *    the platform first can print what it decides before the stub stops it (the runtime stops
 *    at its first call there).
 *
 * 3. platform_describe(&p, facts) prints "This machine:" and one indented line per fact asked
 *    for (PF_* flags, OR-ed), each with what it means for what a program can show here:
 *        struct platform p;
 *        if (!requireDriver(platform_read(device, &p))) return EXIT_CHECK;
 *        platform_describe(&p, PF_COMPUTE_MODE | PF_COPY_ENGINES);
 *    A lesson's own decisions (judge, or not judge and why) stay in the lesson; it reads the
 *    fields. platform_link_gbps() gives a link's theoretical rate per direction, from
 *    platform_gen_gts() and platform_gen_encoding(); platform_read_link(&p) reads the link
 *    again (an idle GPU lowers its link's generation: read it right after some copies).
 *
 * 4. For common/ code: platform_nvml(name) is NVML's function `name` (NULL without NVML) after
 *    nvmlInit, opened once; platform_nvml_device(ordinal) the NVML handle of a CUDA device;
 *    platform_pid_namespace() whether this process is in a PID namespace other than the host's
 *    (a container's): NVML then cannot list the processes on the GPU, this one included.
 */
#ifndef LESSON_PLATFORM_H
#define LESSON_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <cuda.h>

#ifdef __cplusplus
extern "C" {
#endif

bool under_tool(char *why, size_t len);

struct platform {
    int ordinal;              /* the CUDA device number asked for */
    char name[128];           /* "NVIDIA H100 80GB HBM3" */
    char bus_id[32];          /* as /sys names it: "0000:1b:00.0" ("" unknown) */
    int cc_major, cc_minor;   /* compute capability: 9, 0 */
    int driver_version;       /* cuDriverGetVersion: 13000 is CUDA 13.0 */
    char driver_release[32];  /* NVML: "580.159.04" ("" without NVML) */
    int built_with;           /* CUDA_VERSION of the headers this program was built with */
    int compute_mode;         /* CU_COMPUTEMODE_DEFAULT, _PROHIBITED or _EXCLUSIVE_PROCESS */
    int async_engines;        /* asyncEngineCount: 2+ lets the two copy directions overlap */
    int integrated;           /* 1: the GPU shares the host's memory (Jetson, ...) */
    int pageable_access;      /* 1: the GPU reads pageable host memory itself (HMM, ATS) */
    int host_page_tables;     /* 1: ... through the host's page tables (Grace Hopper) */
    int registered_ptr;       /* 1: every visible device reaches registered memory at its host
                                 pointer, which cudaHostGetDevicePointer then gives; 0 not */
    int mig;                  /* 1: the GPU is split into MIG instances; 0 not; -1 unknown */
    int numa_node;            /* the node the GPU hangs off (/sys); -1 none or unknown */
    int numa_nodes;           /* NUMA nodes in this machine (1: nothing to choose) */
    int cpus_allowed;         /* CPUs this process may run on */
    int cpus_near;            /* ... of them on the GPU's node; -1 unknown */
    char thp[16];             /* transparent huge pages: "always", "madvise", "never", "" */
    int link_gen, link_width; /* PCIe link now: 5, 16 (-1 unknown; an idle link slows) */
    int link_gen_max, link_width_max; /* the most this card and slot allow (-1 unknown) */
    const char *link_source;          /* where the link came from: "sysfs", "NVML"; NULL unknown */
    unsigned long long mem_total, mem_free; /* bytes (free: GPU-wide, 0 unknown) */
    int pid_namespace;   /* 1: in a container's PID namespace; 0 not; -1 unknown */
    int nvml_lists_self; /* 1 NVML lists this process; 0 it holds a context and is not
                                   listed (NVML is blind here); -1 no context yet or no NVML */
    int others;          /* other processes NVML lists on this GPU; -1 unknown */
};

CUresult platform_read(int ordinal, struct platform *p);

enum platform_facts {
    PF_DRIVER = 1 << 0,       /* driver and toolkit versions; can the driver JIT our PTX */
    PF_COMPUTE_MODE = 1 << 1, /* default / exclusive-process / prohibited */
    PF_COPY_ENGINES = 1 << 2, /* asynchronous engines */
    PF_MIG = 1 << 3,
    PF_PAGEABLE = 1 << 4, /* integrated, pageable memory access */
    PF_NUMA = 1 << 5,
    PF_THP = 1 << 6,        /* transparent huge pages */
    PF_LINK = 1 << 7,       /* PCIe link now and at most */
    PF_MEMORY = 1 << 8,     /* free / total GPU memory */
    PF_PROCESSES = 1 << 9,  /* other processes; a PID namespace that hides them */
    PF_ADDRESSES = 1 << 10, /* the device address of registered and write-combined memory */
    PF_ALL = (1 << 11) - 1
};

void platform_describe(const struct platform *p, unsigned facts);

/* The PTX ISA version (x10: 90 is ISA 9.0) that CUDA release cuda_version (13000 for 13.0)
 * writes, and that a driver of that release JIT-compiles at most; 0 before CUDA 11. */
int platform_ptx_isa(int cuda_version);

/* true when this driver can compile (JIT) the PTX of the toolkit this program was built with:
 * a driver JIT-compiles PTX up to the ISA of its own CUDA release (a 12.5 driver reads a 12.6
 * toolkit's PTX: both are ISA 8.5). */
bool platform_driver_can_jit(const struct platform *p);

/* cuda.h's name of a compute mode (CU_COMPUTEMODE_*, as cuDeviceGetAttribute gives it): "DEFAULT",
 * "EXCLUSIVE_PROCESS", "PROHIBITED", or "unknown" (a mode this build does not know). */
static inline const char *platform_compute_mode_name(int mode)
{
    switch (mode) {
    case CU_COMPUTEMODE_DEFAULT: return "DEFAULT";
    case CU_COMPUTEMODE_PROHIBITED: return "PROHIBITED";
    case CU_COMPUTEMODE_EXCLUSIVE_PROCESS: return "EXCLUSIVE_PROCESS";
    default: return "unknown";
    }
}

/* Is lazy loading the default for this pair? CUDA Programming Guide, "Lazy Loading" (its
 * requirements and its changes by CUDA version): lazy loading needs both a CUDA runtime of 11.7
 * or newer and a driver that supports it (R515+); from CUDA 12.2 it is the default on Linux
 * (12.3 on Windows), and CUDA_MODULE_LOADING=EAGER turns it off. So a lesson judges the default
 * only where the runtime it was built with and the driver are both 12.2 or newer (a 13.0 build
 * on an older driver cannot run; a 12.x build can, on a 12.0 or 12.1 driver). Lessons 01, 02. */
static inline bool lazy_loading_is_default(int driver_version, int runtime_version)
{
    return driver_version >= 12020 && runtime_version >= 12020;
}

/* A PCIe generation's transfer rate per lane in GT/s (0 unknown), the share of its bits that
 * is payload (8b/10b to Gen2, 128b/130b Gen3-5, FLIT from Gen6) and that encoding's name. */
double platform_gen_gts(int gen);
double platform_gen_encoding(int gen);
const char *platform_gen_encoding_text(int gen);

/* A PCIe link's theoretical rate per direction in GB/s (1e9 bytes/s): GT/s x lanes x
 * encoding / 8. 0 for an unknown generation. */
double platform_link_gbps(int gen, int width);

/* The link fields of p (read by platform_read) read again now: from sysfs, else NVML (where
 * sysfs lacks them: some VMs and containers); link_source says which. */
void platform_read_link(struct platform *p);

void *platform_nvml(const char *name);
void *platform_nvml_device(int ordinal);
int platform_pid_namespace(void);

#ifdef __cplusplus
}
#endif

#endif
