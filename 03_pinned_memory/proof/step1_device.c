/* 03_pinned_memory/proof/step1_device.c - step 1: the device, its link to the host and the CUDA
 * environment variables that change what the lesson shows. */
#include <stdlib.h>
#include <sys/resource.h>

#include "lesson.h"

/* The process's limits that bound what it may lock and map (getrlimit): a low one makes
 * cudaMallocHost, cudaHostRegister, malloc or the context itself fail, and the failure's line
 * names it (measure.c's limits_text). */
static void print_limits(void)
{
    static const struct {
        int resource;
        const char *what;
    } limits[] = {{RLIMIT_MEMLOCK, "locked memory (ulimit -l)"},
                  {RLIMIT_AS, "address space (ulimit -v)"},
                  {RLIMIT_DATA, "data (ulimit -d)"}};
    printf("   process limits (getrlimit):");
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
        struct rlimit r;
        bool set = getrlimit(limits[i].resource, &r) == 0 && r.rlim_cur != RLIM_INFINITY;
        printf("%s %s %s", i ? "," : "", limits[i].what,
               set ? fmt_size((size_t)r.rlim_cur) : "unlimited");
    }
    printf("\n");
}

/* The CUDA environment variables (CUDA Programming Guide, "CUDA Environment Variables") that
 * change what this lesson shows, and how it judges where they are set. The driver reads them when
 * it initialises, at this program's first CUDA call, which comes right after this. */
void step_1_environment(struct lesson *L)
{
    static const struct {
        const char *name, *what;
    } vars[] = {
        {"CUDA_VISIBLE_DEVICES", "the GPUs this process sees, in that order, numbered from 0 "
                                 "(--device counts among them; step 7 needs two)"},
        {"CUDA_DEVICE_ORDER",
         "FASTEST_FIRST (the default) or PCI_BUS_ID: the order the visible GPUs are numbered in"},
        {"CUDA_LAUNCH_BLOCKING",
         "1 makes kernel launches synchronous: step 4 b) cannot queue a copy behind a kernel "
         "(not judged), and where a pinned copy waits too, steps 4 a) and 6 judge that instead"},
        {"CUDA_DEVICE_MAX_CONNECTIONS",
         "hardware queues the streams share; 1 may serialise step 6's two streams (then not "
         "judged)"},
    };
    printf("\n1. The device and its link to the host\n");
    printf(
        "   environment (read when the driver initialises, at this program's first CUDA call):\n");
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i].name);
        printf("   %s=%s: %s\n", vars[i].name, v ? v : "(unset)", vars[i].what);
    }
    const char *lb = getenv("CUDA_LAUNCH_BLOCKING"), *mc = getenv("CUDA_DEVICE_MAX_CONNECTIONS");
    const char *cc = getenv("CUDA_DEVICE_MAX_COPY_CONNECTIONS"); /* when set */
    if (cc)
        printf("   CUDA_DEVICE_MAX_COPY_CONNECTIONS=%s: copy queues the streams share; 1 may "
               "serialise step 6's two copies (then not judged)\n",
               cc);
    print_limits();
    L->launch_blocking = lb && atoi(lb) == 1;
    L->one_connection = (mc && atoi(mc) == 1) || (cc && atoi(cc) == 1);
}

/* What of this machine changes what the lesson can show (common/platform: no context made),
 * and what the lesson decides from it. */
bool step_1_platform(struct lesson *L)
{
    struct platform *p = &L->platform;
    if (!checkRuntime(cudaGetDeviceProperties(&L->prop, (int)L->opt.device)) ||
        !checkDriver(platform_read((int)L->opt.device, p)))
        return false;
    platform_describe(p,
                      PF_COPY_ENGINES | PF_PAGEABLE | PF_ADDRESSES | PF_NUMA | PF_THP | PF_MEMORY);
    if (L->prop.asyncEngineCount < 2)
        printf("   so here the two copies of step 6 take turns, and step 5's pipeline adds its "
               "copies\n");
    /* Through the host's page tables (ATS) or in shared memory, the copy engine can take
     * pageable memory as it is; with HMM alone kernels reach it, and copies from it are still
     * the driver's to stage (steps 2 and 4 judge what it does), as lesson 04 decides too. */
    L->pageable_direct = p->integrated == 1 || p->host_page_tables == 1;
    if (L->pageable_direct)
        printf("   so the claims that rest on staging (steps 2 and 4) are not judged here\n");
    else if (p->pageable_access == 1)
        printf("   (with HMM, kernels reach malloc'd memory; copies from it are still the driver's "
               "to\n"
               "   stage, and steps 2 and 4 judge what it does)\n");
    printf("   unified addressing: %s; can map host memory: %s\n",
           L->prop.unifiedAddressing ? "yes" : "no", L->prop.canMapHostMemory ? "yes" : "no");
    return true;
}

/* Some copies each way, so that the link runs at its working speed when it is read. */
static bool wake_link(struct lesson *L)
{
    size_t warm = L->opt.max < 16 * MiB ? L->opt.max : 16 * MiB;
    void *host = NULL;
    bool ok = alloc_kind(PINNED, warm, &host);
    for (int i = 0; ok && i < 8; i++)
        ok = checkRuntime(cudaMemcpyAsync(L->dev, host, warm, cudaMemcpyHostToDevice, L->stream)) &&
             checkRuntime(cudaMemcpyAsync(host, L->dev, warm, cudaMemcpyDeviceToHost, L->stream));
    ok = ok && checkRuntime(cudaStreamSynchronize(L->stream));
    if (host)
        ok = free_kind(PINNED, host) && ok;
    return ok;
}

/* The link, read right after some copies (an idle GPU lowers its link speed to save power). */
bool step_1_link(struct lesson *L)
{
    if (L->sizes_cut[0])
        printf("   sizes: %s\n", L->sizes_cut);
    if (!wake_link(L))
        return false;

    struct platform *p = &L->platform;
    platform_read_link(p);
    L->link_known = p->link_source && p->link_gen_max > 0 && p->link_width_max > 0;
    if (!L->link_known) {
        printf("   PCIe link: unknown (no /sys/bus/pci/devices/<bus id>/current_link_speed, no "
               "NVML):\n"
               "   the fractions of the link below are left out\n");
        return true;
    }
    L->link_gbps = platform_link_gbps(p->link_gen, p->link_width);
    L->link_max_gbps = platform_link_gbps(p->link_gen_max, p->link_width_max);
    printf("   PCIe link (%s, read right after a copy): now Gen%d x%d; the card's maximum: Gen%d "
           "x%d\n",
           p->link_source, p->link_gen, p->link_width, p->link_gen_max, p->link_width_max);
    printf("   theoretical rate now: %.1f GT/s x %d lanes x %s encoding / 8 bits = %.1f GB/s per "
           "direction\n",
           platform_gen_gts(p->link_gen), p->link_width, platform_gen_encoding_text(p->link_gen),
           L->link_gbps);
    if (L->link_max_gbps > L->link_gbps * 1.01)
        printf("   at the card's maximum: %.1f GB/s per direction (a link that idles at a lower "
               "generation\n"
               "   speeds up under load; one that trained lower, in a slower slot, stays there)\n",
               L->link_max_gbps);
    printf("   (packet headers and flow control take their share on top: step 2 expects large "
           "pinned copies\n   to reach 70-100%% of it)\n");
    return true;
}
