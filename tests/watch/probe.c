/* tests/watch/probe.c - makes and releases resources through the libcuda.so.1 it finds, and
 * prints what the stand-in driver (grading/harness/driver_watch) counted.
 * usage: probe direct|proc [N]
 *   direct  the functions dlsym finds (as common/driver_loader.c does)
 *   proc    the functions cuGetProcAddress_v2 answers (as the CUDA runtime does)
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

static void *fn(const char *name)
{
    void *p = NULL;
    if (by_proc) {
        CUresult (*get)(const char *, void **, int, unsigned long long, int *);
        *(void **)&get = dlsym(lib, "cuGetProcAddress_v2");
        if (!get || get(name, &p, 12080, 0, NULL) != 0)
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

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "direct") != 0 && strcmp(argv[1], "proc") != 0)) {
        fprintf(stderr, "usage: probe direct|proc [N]\n");
        return 2;
    }
    by_proc = strcmp(argv[1], "proc") == 0;
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
