/* common/platform.c - facts about this machine (platform.h says what each is for). */
#define _GNU_SOURCE
#include "platform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

bool under_tool(char *why, size_t len)
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
        snprintf(why, len, "this run is under %s (%s), which %s: timings say nothing about the "
                 "GPU", tool, injected(), effect);
    else
        snprintf(why, len, "this run is under %s, which %s: timings say nothing about the GPU",
                 tool, effect);
    return true;
}
