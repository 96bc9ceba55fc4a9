/* tests/watch/probe.c - makes and releases resources through the libcuda.so.1 it finds, and
 * prints what the stand-in driver (grading/harness/driver_watch) counted.
 * usage: probe direct|proc|async|entry [N]
 *   direct  the functions dlsym finds (as common/driver_loader.c does)
 *   proc    the functions cuGetProcAddress_v2 answers (as the CUDA runtime does)
 *   async   cuMemAllocAsync, cuMemAllocFromPoolAsync (per-thread default stream and legacy),
 *           cuMemAllocPitch and cuMemFreeAsync, through cuGetProcAddress_v2
 *   entry   cuGetProcAddress_v2's answer for functions not watched (cuMemGetInfo, whose ABI is
 *           cuMemGetInfo_v2, and cuCtxGetCurrent): the stand-in's own function of that name,
 *           as dlsym finds it, or the made-up driver's; then the call's result
 *   N       the Nth watched call fails
 * Prints each call's result, then "live KIND=N ..." after the makes and after the releases. */
#define _GNU_SOURCE
#include "driver_watch/driver_watch.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
static void *lib;
static int by_proc;

static unsigned long long proc_flags; /* cuGetProcAddress's flags: 1 legacy, 2 per-thread */

static void *fn(const char *name)
{
    void *p = NULL;
    if (by_proc) {
        CUresult (*get)(const char *, void **, int, unsigned long long, int *);
        *(void **)&get = dlsym(lib, "cuGetProcAddress_v2");
        if (!get || get(name, &p, 12080, proc_flags, NULL) != 0)
            p = NULL;
    } else {
        p = dlsym(lib, strcmp(name, "cuStreamDestroy") == 0     ? "cuStreamDestroy_v2"
                       : strcmp(name, "cuEventDestroy") == 0    ? "cuEventDestroy_v2"
                       : strcmp(name, "cuMemHostRegister") == 0 ? "cuMemHostRegister_v2"
                       : strcmp(name, "cuMemAlloc") == 0        ? "cuMemAlloc_v2"
                       : strcmp(name, "cuMemFree") == 0         ? "cuMemFree_v2"
                                                                : name);
    }
    if (!p) {
        fprintf(stderr, "probe: no %s\n", name);
        exit(1);
    }
    return p;
}

static void counts(const char *when)
{
    long (*live)(int, void *);
    const char *(*name)(int);
    *(void **)&live = dlsym(lib, "driver_watch_live");
    *(void **)&name = dlsym(lib, "driver_watch_kind_name");
    if (!live || !name) {
        printf("%s: no driver_watch_live\n", when);
        return;
    }
    printf("%s:", when);
    for (int k = 0; k < DRIVER_WATCH_KINDS; k++)
        printf(" %s=%ld", name(k), live(k, NULL));
    printf("\n");
}

typedef CUresult (*alloc_async)(unsigned long long *, size_t, void *);
typedef CUresult (*alloc_pool)(unsigned long long *, size_t, void *, void *);
typedef CUresult (*free_async)(unsigned long long, void *);

/* The stream-ordered allocations, per-thread (odd addresses from the made-up driver) and legacy. */
static int async(void)
{
    unsigned long long d[4] = {0}, pitched = 0;
    size_t pitch = 0;
    for (int i = 0; i < 2; i++) {
        proc_flags = i ? 1 : 2;
        CUresult rc = ((alloc_async)fn("cuMemAllocAsync"))(&d[i], 64, NULL);
        printf("cuMemAllocAsync=%d per_thread=%d\n", rc, (int)(d[i] & 1));
        rc = ((alloc_pool)fn("cuMemAllocFromPoolAsync"))(&d[2 + i], 64, NULL, NULL);
        printf("cuMemAllocFromPoolAsync=%d per_thread=%d\n", rc, (int)(d[2 + i] & 1));
    }
    printf("cuMemAllocPitch=%d\n",
           ((CUresult(*)(unsigned long long *, size_t *, size_t, size_t, unsigned))fn(
               "cuMemAllocPitch"))(&pitched, &pitch, 64, 2, 4));
    counts("made");
    for (int i = 0; i < 4; i++) {
        proc_flags = i % 2 ? 1 : 2;
        printf("cuMemFreeAsync=%d\n", ((free_async)fn("cuMemFreeAsync"))(d[i], NULL));
    }
    printf("cuMemFree=%d\n", ((CUresult(*)(unsigned long long))fn("cuMemFree"))(pitched));
    counts("released");
    return 0;
}

/* Whether cuGetProcAddress's answer for the unwatched functions is what dlsym gives. */
static int entry(void)
{
    void *mem_info = fn("cuMemGetInfo"), *current = fn("cuCtxGetCurrent");
    printf("cuMemGetInfo: %s\n", mem_info == dlsym(lib, "cuMemGetInfo_v2")
                                     ? "dlsym's cuMemGetInfo_v2"
                                     : "another function");
    printf("cuCtxGetCurrent: %s\n", current == dlsym(lib, "cuCtxGetCurrent")
                                        ? "dlsym's cuCtxGetCurrent"
                                        : "another function");
    size_t free_b = 0, total_b = 0;
    void *ctx = NULL;
    CUresult rc = ((CUresult(*)(size_t *, size_t *))mem_info)(&free_b, &total_b);
    printf("cuMemGetInfo=%d total=%zu\n", rc, total_b);
    rc = ((CUresult(*)(void **))current)(&ctx);
    printf("cuCtxGetCurrent=%d ctx=%p\n", rc, ctx);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "direct") != 0 && strcmp(argv[1], "proc") != 0 &&
                     strcmp(argv[1], "async") != 0 && strcmp(argv[1], "entry") != 0)) {
        fprintf(stderr, "usage: probe direct|proc|async|entry [N]\n");
        return 2;
    }
    by_proc = strcmp(argv[1], "direct") != 0;
    lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib) {
        fprintf(stderr, "probe: %s\n", dlerror());
        return 1;
    }
    if (argc > 2) {
        void (*fail_at)(long);
        *(void **)&fail_at = dlsym(lib, "driver_watch_fail_at");
        if (!fail_at) {
            fprintf(stderr, "probe: no driver_watch_fail_at\n");
            return 1;
        }
        fail_at(strtol(argv[2], NULL, 10));
    }
    if (strcmp(argv[1], "async") == 0)
        return async();
    if (strcmp(argv[1], "entry") == 0)
        return entry();
    int version = 0;
    CUresult rc = ((CUresult(*)(int *))fn("cuDriverGetVersion"))(&version);
    printf("cuDriverGetVersion=%d version=%d\n", rc, version);
    void *stream = NULL, *event = NULL, *library = NULL, *pinned = NULL;
    unsigned long long device = 0;
    static char page[4096];
    printf("cuStreamCreate=%d\n",
           ((CUresult(*)(void **, unsigned))fn("cuStreamCreate"))(&stream, 0));
    printf("cuEventCreate=%d\n", ((CUresult(*)(void **, unsigned))fn("cuEventCreate"))(&event, 0));
    printf("cuLibraryLoadData=%d\n",
           ((CUresult(*)(void **, const void *, void *, void *, unsigned, void *, void *,
                         unsigned))fn("cuLibraryLoadData"))(&library, page, 0, 0, 0, 0, 0, 0));
    printf("cuMemHostAlloc=%d\n",
           ((CUresult(*)(void **, size_t, unsigned))fn("cuMemHostAlloc"))(&pinned, 64, 0));
    printf("cuMemHostRegister=%d\n",
           ((CUresult(*)(void *, size_t, unsigned))fn("cuMemHostRegister"))(page, sizeof page, 0));
    printf("cuMemAlloc=%d\n",
           ((CUresult(*)(unsigned long long *, size_t))fn("cuMemAlloc"))(&device, 64));
    counts("made");
    printf("cuStreamDestroy=%d\n", ((CUresult(*)(void *))fn("cuStreamDestroy"))(stream));
    printf("cuEventDestroy=%d\n", ((CUresult(*)(void *))fn("cuEventDestroy"))(event));
    printf("cuMemFreeHost=%d\n", ((CUresult(*)(void *))fn("cuMemFreeHost"))(pinned));
    printf("cuMemHostUnregister=%d\n", ((CUresult(*)(void *))fn("cuMemHostUnregister"))(page));
    printf("cuMemFree=%d\n", ((CUresult(*)(unsigned long long))fn("cuMemFree"))(device));
    counts("released"); /* the library is left loaded: a leak the counts must show */
    return 0;
}
