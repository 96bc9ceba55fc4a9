/* tests/common/platform_probe.c - drives common/platform.c from the command line, so that
 * tests/common.bats (and tests/shims' tests) can check its decisions without a GPU:
 *   platform_probe tool         under_tool()'s answer: "tool: <why>" or "no tool"
 *   platform_probe facts [N]    platform_read(N) (requireDriver: exit 77 where CUDA cannot
 *                               run), its fields as name=value lines, then platform_describe
 *   platform_probe shared S     on device 0, idle but for a copy, samples gpu_shared for S
 *                               seconds, then prints "shared: <why>" or "alone", and
 *                               "blind: <why>" or "sees" (gpu_shared_blind)
 *   platform_probe driver-shared S   the same through the Driver API only (a primary context
 *                               made current, no copy): runs over tests/shims' emulated device
 *   platform_probe cuinit       checkDriver(cuInit(0)): over the stub, check.c's "cannot run here"
 *   platform_probe unknown      checkDriver of an error code no driver knows (9999): check.c's
 *                               report of a failed call whose name and message are NULL
 *   platform_probe ptx-isa V... platform_ptx_isa(V) for each CUDA version V (13000 ...) */
#define _GNU_SOURCE
#include "check.h"
#include "platform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu_shared.h"

static int facts(int ordinal)
{
    struct platform p;
    if (!requireDriver(platform_read(ordinal, &p)))
        return EXIT_CHECK;
    printf("name=%s\nbus_id=%s\ncc=%d.%d\ndriver_version=%d\nbuilt_with=%d\ncan_jit=%d\n"
           "compute_mode=%d\nasync_engines=%d\nintegrated=%d\npageable_access=%d\n"
           "host_page_tables=%d\nregistered_ptr=%d\nmig=%d\nnuma_node=%d\nnuma_nodes=%"
           "d\ncpus_allowed=%d\n"
           "cpus_near=%d\nthp=%s\nlink=%d %d\nlink_max=%d %d\nmem_total=%llu\nmem_free=%llu\n"
           "pid_namespace=%d\nnvml_lists_self=%d\nothers=%d\n",
           p.name, p.bus_id, p.cc_major, p.cc_minor, p.driver_version, p.built_with,
           platform_driver_can_jit(&p), p.compute_mode, p.async_engines, p.integrated,
           p.pageable_access, p.host_page_tables, p.registered_ptr, p.mig, p.numa_node,
           p.numa_nodes, p.cpus_allowed, p.cpus_near, p.thp, p.link_gen, p.link_width,
           p.link_gen_max, p.link_width_max, p.mem_total, p.mem_free, p.pid_namespace,
           p.nvml_lists_self, p.others);
    platform_describe(&p, PF_ALL);
    return EXIT_OK;
}

static void sample_and_say(double seconds)
{
    char why[512];
    for (double t0 = host_ms(); host_ms() - t0 < seconds * 1e3;) {
        gpu_shared_sample(); /* this program copies nothing now */
        usleep(100000);
    }
    if (gpu_shared(why, sizeof why))
        printf("shared: %s\n", why);
    else
        printf("alone\n");
    if (gpu_shared_blind(why, sizeof why))
        printf("blind: %s\n", why);
    else
        printf("sees\n");
}

static int shared(double seconds)
{
    void *d = NULL;
    if (!requireRuntime(cudaSetDevice(0)) || !checkRuntime(cudaMalloc(&d, 1 << 20)) ||
        !checkRuntime(cudaMemset(d, 0, 1 << 20)) || !checkRuntime(cudaDeviceSynchronize()))
        return EXIT_CHECK;
    sample_and_say(seconds);
    return checkRuntime(cudaFree(d)) ? EXIT_OK : EXIT_CHECK;
}

static int driver_shared(double seconds)
{
    CUdevice dev;
    CUcontext ctx;
    if (!requireDriver(cuInit(0)) || !checkDriver(cuDeviceGet(&dev, 0)) ||
        !checkDriver(cuDevicePrimaryCtxRetain(&ctx, dev)) || !checkDriver(cuCtxSetCurrent(ctx)))
        return EXIT_CHECK;
    sample_and_say(seconds);
    return checkDriver(cuCtxSetCurrent(NULL)) && checkDriver(cuDevicePrimaryCtxRelease(dev))
               ? EXIT_OK
               : EXIT_CHECK;
}

int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    if (argc == 2 && strcmp(argv[1], "tool") == 0) {
        char why[512];
        if (under_tool(why, sizeof why))
            printf("tool: %s\n", why);
        else
            printf("no tool\n");
        return EXIT_OK;
    }
    if ((argc == 2 || argc == 3) && strcmp(argv[1], "facts") == 0)
        return facts(argc == 3 ? atoi(argv[2]) : 0);
    if (argc >= 3 && strcmp(argv[1], "ptx-isa") == 0) {
        for (int i = 2; i < argc; i++)
            printf("%s %d\n", argv[i], platform_ptx_isa(atoi(argv[i])));
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "cuinit") == 0)
        return checkDriver(cuInit(0)) ? EXIT_OK : EXIT_CHECK;
    if (argc == 2 && strcmp(argv[1], "unknown") == 0)
        return checkDriver((CUresult)9999) ? EXIT_OK : EXIT_CHECK;
    if (argc == 3 && strcmp(argv[1], "shared") == 0)
        return shared(atof(argv[2]));
    if (argc == 3 && strcmp(argv[1], "driver-shared") == 0)
        return driver_shared(atof(argv[2]));
    fprintf(stderr, "usage: %s tool | facts [N] | shared S | driver-shared S | cuinit | unknown\n",
            lesson_prog);
    return EXIT_USAGE;
}
