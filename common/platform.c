/* common/platform.c - facts about this machine (platform.h says what each is for). */
#define _GNU_SOURCE
#include "platform.h"

#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- under a tool? ------------------------------------------------------------------ */

/* Is a file whose name contains `part` mapped into this process? (/proc/self/maps) */
static bool mapped(const char *part)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return false;
    char line[1024];
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        const char *slash = strrchr(line, '/');
        found = slash && strstr(slash, part);
    }
    fclose(f);
    return found;
}

static const char *env_or_empty(const char *name)
{
    const char *v = getenv(name);
    return v ? v : "";
}

/* The file name of the library CUDA_INJECTION64_PATH names ("" when unset). */
static const char *injected(void)
{
    const char *path = env_or_empty("CUDA_INJECTION64_PATH");
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static bool find_tool(char *why, size_t len);

/* The tools start the program: the answer cannot change while it runs. */
bool under_tool(char *why, size_t len)
{
    static int known = -1;
    static char reason[512];
    if (known < 0)
        known = find_tool(reason, sizeof reason);
    if (known)
        snprintf(why, len, "%s", reason);
    return known;
}

static bool find_tool(char *why, size_t len)
{
    /* What each tool gives the program it starts: compute-sanitizer sets
     * NV_SANITIZER_INJECTION_PORT_BASE and loads libsanitizer-collection.so through
     * CUDA_INJECTION64_PATH (the driver's hook for tools); ncu sets
     * NV_NSIGHT_INJECTION_PORT_BASE; nsys NSYS_PROFILING_SESSION_ID. The mapped libraries
     * catch a tool that exported nothing. */
    const char *tool = NULL, *effect = NULL;
    if (getenv("NV_SANITIZER_INJECTION_PORT_BASE") || strstr(injected(), "sanitizer") ||
        mapped("libsanitizer-collection.so") || mapped("libsanitizer-public.so")) {
        tool = "compute-sanitizer";
        effect = "checks every CUDA call and memory access and slows them many times";
    } else if (getenv("NV_NSIGHT_INJECTION_PORT_BASE")) {
        tool = "Nsight Compute (ncu)";
        effect = "serialises and replays kernels to profile them";
    } else if (getenv("NSYS_PROFILING_SESSION_ID")) {
        tool = "Nsight Systems (nsys)";
        effect = "records every CUDA call and adds its own cost to each";
    } else if (*injected()) {
        tool = "a CUDA tool";
        effect = "was injected through CUDA_INJECTION64_PATH and sees every CUDA call";
    } else if (mapped("vgpreload")) {
        tool = "valgrind";
        effect = "runs the host code many times slower";
    }
    if (!tool)
        return false;
    if (tool[0] == 'a')
        snprintf(why, len,
                 "this run is under %s (%s), which %s: timings say nothing about the "
                 "GPU",
                 tool, injected(), effect);
    else
        snprintf(why, len, "this run is under %s, which %s: timings say nothing about the GPU",
                 tool, effect);
    return true;
}

/* ---- NVML, opened once --------------------------------------------------------------- */

static struct {
    pthread_once_t once;
    void *lib;
    bool usable;
} nvml = {PTHREAD_ONCE_INIT, NULL, false};

static void open_nvml(void)
{
    /* Opened at run time, not linked: a program linked with -lnvidia-ml would not even start
     * on a machine without the driver. */
    nvml.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!nvml.lib)
        return;
    int (*init)(void) = (int (*)(void))dlsym(nvml.lib, "nvmlInit_v2");
    nvml.usable = init && init() == 0;
}

void *platform_nvml(const char *name)
{
    pthread_once(&nvml.once, open_nvml);
    return nvml.usable ? dlsym(nvml.lib, name) : NULL;
}

void *platform_nvml_device(int ordinal)
{
    char bus[32];
    CUdevice dev;
    void *handle = NULL;
    int (*by_bus)(const char *, void **) =
        (int (*)(const char *, void **))platform_nvml("nvmlDeviceGetHandleByPciBusId_v2");
    if (!by_bus || cuDeviceGet(&dev, ordinal) != CUDA_SUCCESS ||
        cuDeviceGetPCIBusId(bus, sizeof bus, dev) != CUDA_SUCCESS || by_bus(bus, &handle) != 0)
        return NULL;
    return handle;
}

/* ---- /proc and /sys ------------------------------------------------------------------ */

/* The host's PID namespace has a fixed inode number (PROC_PID_INIT_INO in the kernel). */
int platform_pid_namespace(void)
{
    struct stat st;
    if (stat("/proc/self/ns/pid", &st) != 0)
        return -1;
    return st.st_ino != 0xEFFFFFFCu;
}

static bool read_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    bool ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    if (ok)
        buf[strcspn(buf, "\n")] = '\0';
    return ok;
}

/* "0000:1B:00.0" (or "00000000:1B:00.0") as /sys names it: "0000:1b:00.0". */
static void sysfs_bus_id(const char *bus, char *out, size_t len)
{
    if (strlen(bus) > 12 && strncmp(bus, "0000", 4) == 0 && bus[8] == ':')
        bus += 4;
    size_t i;
    for (i = 0; bus[i] && i + 1 < len; i++)
        out[i] = (char)tolower((unsigned char)bus[i]);
    out[i] = '\0';
}

/* A cpulist ("0-15,32-47") into a set. */
static void parse_cpulist(const char *text, cpu_set_t *set)
{
    CPU_ZERO(set);
    while (*text) {
        char *end;
        long a = strtol(text, &end, 10), b = a;
        if (end == text)
            break;
        if (*end == '-')
            b = strtol(end + 1, &end, 10);
        for (long c = a; c <= b && c < CPU_SETSIZE; c++)
            CPU_SET((int)c, set);
        text = *end == ',' ? end + 1 : end;
        if (*end != ',')
            break;
    }
}

static void read_numa(struct platform *p)
{
    char path[128], line[4096];
    p->numa_nodes = 0;
    DIR *nodes = opendir("/sys/devices/system/node");
    for (struct dirent *e; nodes && (e = readdir(nodes));)
        if (strncmp(e->d_name, "node", 4) == 0 && isdigit((unsigned char)e->d_name[4]))
            p->numa_nodes++;
    if (nodes)
        closedir(nodes);
    cpu_set_t allowed, near;
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0)
        p->cpus_allowed = CPU_COUNT(&allowed);
    snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/numa_node", p->bus_id);
    if (!*p->bus_id || !read_line(path, line, sizeof line))
        return;
    p->numa_node = atoi(line); /* -1: the machine does not say (one node, or a VM) */
    snprintf(path, sizeof path, "/sys/devices/system/node/node%d/cpulist", p->numa_node);
    if (p->numa_node < 0 || p->cpus_allowed < 0 || !read_line(path, line, sizeof line))
        return;
    parse_cpulist(line, &near);
    CPU_AND(&near, &near, &allowed);
    p->cpus_near = CPU_COUNT(&near);
}

static void read_thp(struct platform *p)
{
    char line[128];
    if (!read_line("/sys/kernel/mm/transparent_hugepage/enabled", line, sizeof line))
        return;
    const char *open = strchr(line, '['), *close = open ? strchr(open, ']') : NULL;
    if (open && close && (size_t)(close - open - 1) < sizeof p->thp)
        snprintf(p->thp, sizeof p->thp, "%.*s", (int)(close - open - 1), open + 1);
}

double platform_gen_gts(int gen)
{
    static const double rate[] = {0, 2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
    return gen >= 1 && gen <= 6 ? rate[gen] : 0;
}

double platform_gen_encoding(int gen)
{
    return gen <= 2 ? 8.0 / 10.0 : gen <= 5 ? 128.0 / 130.0 : 242.0 / 256.0;
}

const char *platform_gen_encoding_text(int gen)
{
    return gen <= 2 ? "8b/10b" : gen <= 5 ? "128b/130b" : "242B/256B FLIT";
}

static int gts_gen(double gts)
{
    for (int g = 1; g <= 6; g++)
        if (gts > platform_gen_gts(g) * 0.9 && gts < platform_gen_gts(g) * 1.1)
            return g;
    return -1;
}

static int sysfs_link(const struct platform *p, const char *file)
{
    char path[160], line[64];
    snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/%s", p->bus_id, file);
    if (!*p->bus_id || !read_line(path, line, sizeof line))
        return -1;
    double v = atof(line); /* "32.0 GT/s PCIe", "16" */
    return strstr(file, "speed") ? gts_gen(v) : v >= 1 ? (int)v : -1;
}

double platform_link_gbps(int gen, int width)
{
    if (width < 1)
        return 0;
    return platform_gen_gts(gen) * width * platform_gen_encoding(gen) / 8.0;
}

void platform_read_link(struct platform *p)
{
    p->link_gen = sysfs_link(p, "current_link_speed");
    p->link_width = sysfs_link(p, "current_link_width");
    p->link_gen_max = sysfs_link(p, "max_link_speed");
    p->link_width_max = sysfs_link(p, "max_link_width");
    p->link_source = "sysfs";
    if (p->link_gen > 0 && p->link_width > 0 && p->link_gen_max > 0 && p->link_width_max > 0)
        return;
    /* NVML where sysfs lacks any of the four (some VMs, containers) */
    void *dev = platform_nvml_device(p->ordinal);
    if (dev) {
        typedef int (*uint_fn)(void *, unsigned int *);
        const char *names[] = {
            "nvmlDeviceGetCurrPcieLinkGeneration", "nvmlDeviceGetCurrPcieLinkWidth",
            "nvmlDeviceGetMaxPcieLinkGeneration", "nvmlDeviceGetMaxPcieLinkWidth"};
        int v[4] = {-1, -1, -1, -1};
        for (int i = 0; i < 4; i++) {
            uint_fn f = (uint_fn)platform_nvml(names[i]);
            unsigned u = 0;
            if (f && f(dev, &u) == 0 && u > 0)
                v[i] = (int)u;
        }
        if (v[0] > 0 && v[1] > 0 && v[2] > 0 && v[3] > 0) {
            p->link_gen = v[0], p->link_width = v[1], p->link_gen_max = v[2],
            p->link_width_max = v[3];
            p->link_source = "NVML";
            return;
        }
    }
    /* what sysfs had: the link now without its maximum, or nothing */
    if (p->link_gen < 0 || p->link_width < 0) {
        p->link_gen = p->link_width = -1;
        p->link_source = NULL;
    }
}

/* ---- the facts ------------------------------------------------------------------------- */

struct nvml_memory {
    unsigned long long total, free, used;
}; /* nvmlMemory_t */
struct nvml_process {
    unsigned int pid;
    unsigned long long used;
    unsigned int gi, ci;
};

static void read_nvml(struct platform *p)
{
    void *dev = platform_nvml_device(p->ordinal);
    if (!dev)
        return;
    int (*release)(char *, unsigned) =
        (int (*)(char *, unsigned))platform_nvml("nvmlSystemGetDriverVersion");
    if (release && release(p->driver_release, sizeof p->driver_release) != 0)
        p->driver_release[0] = '\0';
    int (*mig)(void *, unsigned *, unsigned *) =
        (int (*)(void *, unsigned *, unsigned *))platform_nvml("nvmlDeviceGetMigMode");
    unsigned cur = 0, pending = 0;
    if (mig) {
        int rc = mig(dev, &cur, &pending);
        if (p->mig != 1)
            p->mig = rc == 0 ? cur == 1 : rc == 3 /* NOT_SUPPORTED: no MIG on this GPU */ ? 0 : -1;
    }
    int (*memory)(void *, struct nvml_memory *) =
        (int (*)(void *, struct nvml_memory *))platform_nvml("nvmlDeviceGetMemoryInfo");
    struct nvml_memory m;
    if (!p->mem_free && memory && memory(dev, &m) == 0)
        p->mem_free = m.free;
    int (*procs)(void *, unsigned *, struct nvml_process *) =
        (int (*)(void *, unsigned *, struct nvml_process *))platform_nvml(
            "nvmlDeviceGetComputeRunningProcesses_v3");
    struct nvml_process list[64];
    unsigned n = 64;
    CUcontext ctx = NULL;
    if (procs && procs(dev, &n, list) == 0) {
        bool self = false;
        p->others = 0;
        for (unsigned i = 0; i < n; i++) {
            if (list[i].pid == (unsigned)getpid())
                self = true;
            else
                p->others++;
        }
        bool have_context = cuCtxGetCurrent(&ctx) == CUDA_SUCCESS && ctx != NULL;
        p->nvml_lists_self = self ? 1 : have_context ? 0 : -1;
    }
}

/* Whether every visible device reaches registered memory at its host pointer: only then does
 * cudaHostGetDevicePointer / cuMemHostGetDevicePointer give that pointer back (cuda.h and
 * cuda_runtime_api.h: "If all devices visible to the application have a non-zero value for the
 * device attribute, the device pointer returned ... will match the original pointer"). */
static int host_pointer_registered(void)
{
    int count = 0, all = 1;
    if (cuDeviceGetCount(&count) != CUDA_SUCCESS || count < 1)
        return -1;
    for (int i = 0; i < count; i++) {
        CUdevice d;
        int v = -1;
        if (cuDeviceGet(&d, i) != CUDA_SUCCESS ||
            cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM,
                                 d) != CUDA_SUCCESS)
            return -1;
        all = all && v == 1;
    }
    return all;
}

CUresult platform_read(int ordinal, struct platform *p)
{
    memset(p, 0, sizeof *p);
    p->ordinal = ordinal;
    p->built_with = CUDA_VERSION;
    p->compute_mode = p->async_engines = p->integrated = p->pageable_access = -1;
    p->host_page_tables = p->mig = p->numa_node = p->cpus_allowed = p->cpus_near = -1;
    p->registered_ptr = -1;
    p->link_gen = p->link_width = p->link_gen_max = p->link_width_max = -1;
    p->nvml_lists_self = p->others = -1;
    p->pid_namespace = platform_pid_namespace();
    read_thp(p);

    CUresult rc = cuInit(0);
    CUdevice dev;
    if (rc == CUDA_SUCCESS)
        rc = cuDriverGetVersion(&p->driver_version);
    if (rc == CUDA_SUCCESS)
        rc = cuDeviceGet(&dev, ordinal);
    if (rc != CUDA_SUCCESS) {
        read_numa(p);
        return rc;
    }
    if (cuDeviceGetName(p->name, sizeof p->name, dev) != CUDA_SUCCESS)
        p->name[0] = '\0';
    if (strstr(p->name, " MIG ")) /* a MIG slice's name: "NVIDIA A100-SXM4-40GB MIG 1g.5gb" */
        p->mig = 1;
    struct {
        CUdevice_attribute a;
        int *v;
    } attrs[] = {
        {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &p->cc_major},
        {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &p->cc_minor},
        {CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, &p->compute_mode},
        {CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT, &p->async_engines},
        {CU_DEVICE_ATTRIBUTE_INTEGRATED, &p->integrated},
        {CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, &p->pageable_access},
        {CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES, &p->host_page_tables},
    };
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++)
        if (cuDeviceGetAttribute(attrs[i].v, attrs[i].a, dev) != CUDA_SUCCESS)
            *attrs[i].v = -1;
    p->registered_ptr = host_pointer_registered();
    size_t total = 0;
    if (cuDeviceTotalMem(&total, dev) == CUDA_SUCCESS)
        p->mem_total = total;
    CUcontext ctx = NULL;
    CUdevice ctx_dev = -1;
    size_t free_b = 0, total_b = 0;
    if (cuCtxGetCurrent(&ctx) == CUDA_SUCCESS && ctx && cuCtxGetDevice(&ctx_dev) == CUDA_SUCCESS &&
        ctx_dev == dev && cuMemGetInfo(&free_b, &total_b) == CUDA_SUCCESS)
        p->mem_free = free_b; /* a context on this device is current: ask it (else NVML) */
    char bus[32];
    if (cuDeviceGetPCIBusId(bus, sizeof bus, dev) == CUDA_SUCCESS)
        sysfs_bus_id(bus, p->bus_id, sizeof p->bus_id);
    read_numa(p);
    read_nvml(p);
    platform_read_link(p);
    return CUDA_SUCCESS;
}

int platform_ptx_isa(int cuda_version)
{
    int major = cuda_version / 1000, minor = cuda_version % 1000 / 10;
    /* The PTX ISA manual's release notes: ISA 7.x came with CUDA 11.x, 8.0-8.4 with 12.0-12.4,
     * 8.5 with 12.5 and 12.6, 8.6-8.8 with 12.7-12.9, 9.x with 13.x. */
    if (major >= 14)
        return 1000; /* newer than this suite: taken to read whatever it was built with */
    if (major == 13)
        return 90 + minor;
    if (major == 12)
        return minor <= 4 ? 80 + minor : minor <= 6 ? 85 : 79 + minor;
    if (major == 11)
        return 70 + minor;
    return 0;
}

bool platform_driver_can_jit(const struct platform *p)
{
    return platform_ptx_isa(p->driver_version) >= platform_ptx_isa(p->built_with);
}

static void version_text(int v, char *buf, size_t len)
{
    snprintf(buf, len, "CUDA %d.%d", v / 1000, v % 1000 / 10);
}

static const char *compute_mode_text(int mode)
{
    switch (mode) {
    case CU_COMPUTEMODE_DEFAULT: return "Default: any number of processes may use the GPU at once";
    case CU_COMPUTEMODE_EXCLUSIVE_PROCESS:
        return "Exclusive-process: one process at a time may hold a context on this GPU; a "
               "second one is refused";
    case CU_COMPUTEMODE_PROHIBITED: return "Prohibited: no process may use this GPU";
    default: return "unknown";
    }
}

static const char *thp_text(const char *thp)
{
    if (strcmp(thp, "always") == 0)
        return "always (malloc'd buffers get 2 MiB pages: their first touch costs less)";
    if (strcmp(thp, "madvise") == 0)
        return "madvise (only memory advised MADV_HUGEPAGE gets 2 MiB pages)";
    return *thp ? thp : "unknown";
}

static void describe_numa(const struct platform *p)
{
    const char *bind = "host memory may be far from the GPU; numactl --cpunodebind --membind "
                       "binds near it";
    if (p->numa_nodes <= 1)
        printf("   NUMA: one node: every CPU is as near the GPU as any other\n");
    else if (p->numa_node < 0 || p->cpus_near < 0)
        printf("   NUMA: %d nodes; the machine does not say which one the GPU hangs off\n",
               p->numa_nodes);
    else
        printf("   NUMA: the GPU hangs off node %d of %d; %d of the %d CPUs this process may use "
               "are on it%s%s%s\n",
               p->numa_node, p->numa_nodes, p->cpus_near, p->cpus_allowed,
               p->cpus_near < p->cpus_allowed ? " (" : "",
               p->cpus_near < p->cpus_allowed ? bind : "",
               p->cpus_near < p->cpus_allowed ? ")" : "");
}

static void describe_link(const struct platform *p)
{
    if (p->link_gen < 0) {
        printf("   PCIe link: unknown (neither /sys nor NVML says)\n");
        return;
    }
    bool below = p->link_gen < p->link_gen_max || p->link_width < p->link_width_max;
    printf("   PCIe link: Gen%d x%d now (%.1f GB/s each way in theory), Gen%d x%d at most%s\n",
           p->link_gen, p->link_width, platform_link_gbps(p->link_gen, p->link_width),
           p->link_gen_max, p->link_width_max,
           below ? " (an idle link may slow down to save power and speed up under load)" : "");
}

/* The device address of registered and write-combined memory, as the attribute decides it. */
static void describe_addresses(const struct platform *p)
{
    if (p->registered_ptr == 1)
        printf("   registered and write-combined memory: every visible device reaches it at "
               "its host pointer\n   (cudaDevAttrCanUseHostPointerForRegisteredMem 1), so "
               "cudaHostGetDevicePointer gives that pointer\n");
    else if (p->registered_ptr == 0)
        printf("   registered and write-combined memory: a visible device cannot reach it at "
               "its host pointer\n   (cudaDevAttrCanUseHostPointerForRegisteredMem 0), so "
               "cudaHostGetDevicePointer gives a device address\n   of its own\n");
}

void platform_describe(const struct platform *p, unsigned facts)
{
    char a[32], b[32];
    printf("This machine (GPU %d \"%s\", compute capability %d.%d):\n", p->ordinal, p->name,
           p->cc_major, p->cc_minor);
    if (facts & PF_DRIVER) {
        version_text(p->driver_version, a, sizeof a);
        version_text(p->built_with, b, sizeof b);
        printf(
            "   driver %s%s(%s); this program was built with %s%s\n", p->driver_release,
            *p->driver_release ? " " : "", a, b,
            platform_driver_can_jit(p)
                ? ""
                : ": the driver is older than the toolkit, so it runs the program's machine code "
                  "(SASS) but cannot compile (JIT) its PTX");
    }
    if (facts & PF_COMPUTE_MODE)
        printf("   compute mode %s\n", compute_mode_text(p->compute_mode));
    if (facts & PF_COPY_ENGINES) {
        if (p->async_engines >= 2)
            printf("   %d asynchronous engines: copies to and from the GPU can run at the same "
                   "time, beside kernels\n",
                   p->async_engines);
        else if (p->async_engines == 1)
            printf("   1 asynchronous engine: a copy can run beside kernels, but copies to and "
                   "from the GPU take turns\n");
        else
            printf("   asynchronous engines: %s\n",
                   p->async_engines == 0 ? "none: copies do not overlap kernels" : "unknown");
    }
    if (facts & PF_MIG)
        printf("   MIG: %s\n", p->mig == 1   ? "on: the GPU is split into instances, and this "
                                               "program gets a slice of it"
                               : p->mig == 0 ? "off (the whole GPU)"
                                             : "unknown (no NVML)");
    if (facts & PF_PAGEABLE) {
        if (p->integrated == 1)
            printf("   integrated GPU: it shares the host's memory; a copy moves data within "
                   "the same memory\n");
        if (p->pageable_access == 1)
            printf(
                "   the GPU reads pageable host memory itself (%s): its kernels may use "
                "malloc'd memory\n   without cudaHostRegister (cudaDevAttrPageableMemoryAccess); "
                "that says nothing of copies\n",
                p->host_page_tables == 1 ? "through the host's page tables" : "HMM");
        else if (p->pageable_access == 0)
            printf("   the GPU cannot read pageable host memory: the driver stages copies from "
                   "it through pinned buffers\n");
    }
    if (facts & PF_ADDRESSES)
        describe_addresses(p);
    if (facts & PF_NUMA)
        describe_numa(p);
    if (facts & PF_THP)
        printf("   transparent huge pages: %s\n", thp_text(p->thp));
    if (facts & PF_LINK)
        describe_link(p);
    if (facts & PF_MEMORY) {
        if (p->mem_free)
            printf("   GPU memory: %.1f GiB free of %.1f GiB\n", p->mem_free / 1073741824.0,
                   p->mem_total / 1073741824.0);
        else
            printf("   GPU memory: %.1f GiB (how much is free: unknown)\n",
                   p->mem_total / 1073741824.0);
    }
    if (facts & PF_PROCESSES) {
        if (p->nvml_lists_self == 0 || (p->nvml_lists_self < 0 && p->pid_namespace == 1))
            printf("   processes: this program runs in a container's PID namespace, where NVML "
                   "cannot list the processes on the GPU\n");
        else if (p->pid_namespace == 1)
            printf("   processes: this program runs in a PID namespace of its own (a container): "
                   "NVML lists %d other process%s in it, and cannot list those of other "
                   "containers\n",
                   p->others > 0 ? p->others : 0, p->others == 1 ? "" : "es");
        else if (p->others >= 0)
            printf("   processes: NVML lists %d other process%s on this GPU\n", p->others,
                   p->others == 1 ? "" : "es");
        else
            printf("   processes: unknown (no NVML)\n");
    }
}
