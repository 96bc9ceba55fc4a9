/*
 * tools/doctor_probe.c - what tools/doctor asks the driver, in lines a shell script can read.
 * Built by tools/doctor (cc, against common/ and the static CUDA runtime) into a temporary
 * folder; not meant to be run by hand, though it can be:
 *
 *     doctor_probe [--ptx FILE]
 *
 * Prints "driver_version=13000", "driver_release=580.159.04", "built_with=13000",
 * "driver_can_jit=1" (platform_driver_can_jit: the PTX ISA of each release),
 * "devices=N", "pid_namespace=0|1", "thp=madvise", then for each device i the fields of
 * struct platform (common/platform.h) as "dev.i.name=value", and what happened when it made a
 * context there ("dev.i.context=0", a CUresult) and, with --ptx, loaded FILE as a module
 * ("dev.i.ptx=0", or 222 where the driver cannot compile that PTX). Where CUDA cannot run at all
 * (no driver, the stub, no visible device) it prints check.c's explanation on stderr and exits
 * 77; exit 2 for a bad command line.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "platform.h"

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = NULL;
    size_t len = 0, cap = 0, got;
    char buf[4096];
    while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
        if (len + got + 1 > cap) {
            cap = (len + got + 1) * 2;
            char *more = realloc(text, cap);
            if (!more) {
                free(text);
                fclose(f);
                return NULL;
            }
            text = more;
        }
        memcpy(text + len, buf, got);
        len += got;
    }
    fclose(f);
    if (text)
        text[len] = '\0';
    return text;
}

int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    const char *ptx_path = NULL;
    if (argc == 3 && strcmp(argv[1], "--ptx") == 0)
        ptx_path = argv[2];
    else if (argc != 1) {
        fprintf(stderr, "usage: %s [--ptx FILE]\n", lesson_prog);
        return EXIT_USAGE;
    }
    char *ptx = ptx_path ? read_file(ptx_path) : NULL;
    if (ptx_path && !ptx) {
        fprintf(stderr, "%s: cannot read %s\n", lesson_prog, ptx_path);
        return EXIT_USAGE;
    }

    struct platform p;
    if (!requireDriver(platform_read(0, &p))) {
        free(ptx);
        return EXIT_CHECK;
    }
    int count = 0;
    if (!checkDriver(cuDeviceGetCount(&count))) {
        free(ptx);
        return EXIT_CHECK;
    }
    printf("driver_version=%d\ndriver_release=%s\nbuilt_with=%d\ndriver_can_jit=%d\ndevices=%d\n"
           "pid_namespace=%d\nthp=%s\nnuma_nodes=%d\ncpus_allowed=%d\n",
           p.driver_version, p.driver_release, p.built_with, platform_driver_can_jit(&p), count,
           p.pid_namespace, p.thp, p.numa_nodes, p.cpus_allowed);
    for (int i = 0; i < count; i++) {
        if (i > 0 && !checkDriver(platform_read(i, &p)))
            continue;
        CUdevice dev;
        CUcontext ctx = NULL;
        CUresult made = cuDeviceGet(&dev, i);
        if (made == CUDA_SUCCESS)
            made = cuDevicePrimaryCtxRetain(&ctx, dev);
        if (made == CUDA_SUCCESS) {
            /* the facts a context changes: its own process in NVML's list, free memory */
            CUresult current = cuCtxSetCurrent(ctx);
            if (current == CUDA_SUCCESS)
                (void)checkDriver(platform_read(i, &p));
            if (ptx && current == CUDA_SUCCESS) {
                CUmodule mod;
                CUresult loaded = cuModuleLoadData(&mod, ptx);
                printf("dev.%d.ptx=%d\n", i, (int)loaded);
                if (loaded == CUDA_SUCCESS)
                    (void)checkDriver(cuModuleUnload(mod));
            }
            (void)cuCtxSetCurrent(NULL);
            (void)checkDriver(cuDevicePrimaryCtxRelease(dev));
        }
        printf("dev.%d.context=%d\ndev.%d.name=%s\ndev.%d.bus_id=%s\ndev.%d.cc=%d%d\n"
               "dev.%d.compute_mode=%d\ndev.%d.async_engines=%d\ndev.%d.integrated=%d\n"
               "dev.%d.pageable_access=%d\ndev.%d.host_page_tables=%d\ndev.%d.mig=%d\n"
               "dev.%d.numa_node=%d\ndev.%d.cpus_near=%d\ndev.%d.link=%d %d\n"
               "dev.%d.link_max=%d %d\ndev.%d.link_gbps=%.1f\ndev.%d.link_max_gbps=%.1f\n"
               "dev.%d.mem_total_mib=%llu\ndev.%d.mem_free_mib=%llu\n"
               "dev.%d.nvml_lists_self=%d\ndev.%d.others=%d\n",
               i, (int)made, i, p.name, i, p.bus_id, i, p.cc_major, p.cc_minor, i, p.compute_mode,
               i, p.async_engines, i, p.integrated, i, p.pageable_access, i, p.host_page_tables, i,
               p.mig, i, p.numa_node, i, p.cpus_near, i, p.link_gen, p.link_width, i,
               p.link_gen_max, p.link_width_max, i, platform_link_gbps(p.link_gen, p.link_width), i,
               platform_link_gbps(p.link_gen_max, p.link_width_max), i, p.mem_total >> 20, i,
               p.mem_free >> 20, i, p.nvml_lists_self, i, p.others);
    }
    free(ptx);
    return EXIT_OK;
}
