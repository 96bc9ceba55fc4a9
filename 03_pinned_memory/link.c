/* 03_pinned_memory/link.c - the PCIe link probe: which generation and width the GPU's link
 * runs at, read from sysfs (/sys/bus/pci/devices/<bus id>/current_link_*) or, where sysfs has
 * nothing, from NVML opened with dlopen. Apparatus for step 1: the lesson compares copies
 * with the link's theoretical rate, it does not teach how to read the link. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dlfcn.h>
#include <string.h>

#include "lesson.h"

double gen_gts(int gen)
{
    static const double gts[] = {0, 2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
    return gen >= 1 && gen <= 6 ? gts[gen] : 0;
}

static int gts_gen(double gts)
{
    for (int g = 1; g <= 6; g++)
        if (gts > gen_gts(g) * 0.9 && gts < gen_gts(g) * 1.1)
            return g;
    return 0;
}

/* Payload bits per transferred bit: 8b/10b up to Gen2, 128b/130b for Gen3-5, FLIT for Gen6. */
double gen_encoding(int gen)
{
    return gen <= 2 ? 8.0 / 10.0 : gen <= 5 ? 128.0 / 130.0 : 242.0 / 256.0;
}

const char *gen_encoding_text(int gen)
{
    return gen <= 2 ? "8b/10b" : gen <= 5 ? "128b/130b" : "242B/256B FLIT";
}

static bool read_sysfs_number(const char *dir, const char *file, double *v)
{
    char path[256];
    snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/%s", dir, file);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    bool ok = fscanf(f, "%lf", v) == 1;
    fclose(f);
    return ok;
}

/* cudaDeviceGetPCIBusId gives "0000:1B:00.0"; sysfs names it "0000:1b:00.0". */
static void sysfs_name(const char *bus_id, char *dir, size_t len)
{
    const char *id = bus_id;
    if (strlen(id) > 12 && strncmp(id, "0000", 4) == 0 && id[8] == ':')
        id += 4; /* an 8-digit domain */
    size_t i;
    for (i = 0; id[i] && i < len - 1; i++)
        dir[i] = (char)tolower((unsigned char)id[i]);
    dir[i] = '\0';
}

static bool link_from_sysfs(struct lesson *L, const char *bus_id)
{
    char dir[64];
    sysfs_name(bus_id, dir, sizeof dir);
    double gts, width, max_gts, max_width;
    if (!read_sysfs_number(dir, "current_link_speed", &gts) ||
        !read_sysfs_number(dir, "current_link_width", &width) ||
        !read_sysfs_number(dir, "max_link_speed", &max_gts) ||
        !read_sysfs_number(dir, "max_link_width", &max_width) || !gts_gen(gts) || width < 1)
        return false;
    L->link_gen = gts_gen(gts);
    L->link_width = (int)width;
    L->link_max_gen = gts_gen(max_gts);
    L->link_max_width = (int)max_width;
    L->link_source = "sysfs";
    return true;
}

typedef int (*nvml_void_fn)(void);
typedef int (*nvml_handle_fn)(const char *, void **);
typedef int (*nvml_uint_fn)(void *, unsigned int *);

static bool link_from_nvml(struct lesson *L, const char *bus_id)
{
    /* Opened at run time, not linked: a program linked with -lnvidia-ml would not even start
     * on a machine without the driver (and could not exit 77 with an explanation). */
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return false;
    nvml_void_fn init = (nvml_void_fn)dlsym(lib, "nvmlInit_v2");
    nvml_void_fn shutdown = (nvml_void_fn)dlsym(lib, "nvmlShutdown");
    nvml_handle_fn by_bus = (nvml_handle_fn)dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2");
    nvml_uint_fn gen = (nvml_uint_fn)dlsym(lib, "nvmlDeviceGetCurrPcieLinkGeneration");
    nvml_uint_fn width = (nvml_uint_fn)dlsym(lib, "nvmlDeviceGetCurrPcieLinkWidth");
    nvml_uint_fn max_gen = (nvml_uint_fn)dlsym(lib, "nvmlDeviceGetMaxPcieLinkGeneration");
    nvml_uint_fn max_width = (nvml_uint_fn)dlsym(lib, "nvmlDeviceGetMaxPcieLinkWidth");
    bool ok = false;
    if (init && shutdown && by_bus && gen && width && max_gen && max_width && init() == 0) {
        void *dev = NULL;
        unsigned g = 0, w = 0, mg = 0, mw = 0;
        ok = by_bus(bus_id, &dev) == 0 && gen(dev, &g) == 0 && width(dev, &w) == 0 &&
             max_gen(dev, &mg) == 0 && max_width(dev, &mw) == 0 && g >= 1 && g <= 6 && w >= 1;
        if (ok) {
            L->link_gen = (int)g;
            L->link_width = (int)w;
            L->link_max_gen = (int)mg;
            L->link_max_width = (int)mw;
            L->link_source = "NVML";
        }
        shutdown();
    }
    dlclose(lib);
    return ok;
}

bool link_probe(struct lesson *L, const char *bus_id)
{
    return link_from_sysfs(L, bus_id) || link_from_nvml(L, bus_id);
}
