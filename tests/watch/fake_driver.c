/* tests/watch/fake_driver.c - a made-up driver for tests/watch.bats: the few functions the
 * probe calls through the stand-in (grading/harness/driver_watch), each answering success with
 * a new made-up handle, and cuGetProcAddress that finds them by name. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef int CUresult;
static uintptr_t next = 0x1000;
static void *handle(void)
{
    return (void *)(next += 16);
}

CUresult cuDriverGetVersion(int *v)
{
    *v = 12345;
    return 0;
}
CUresult cuStreamCreate(void **s, unsigned flags)
{
    (void)flags;
    *s = handle();
    return 0;
}
CUresult cuStreamDestroy_v2(void *s)
{
    return s ? 0 : 400; /* CUDA_ERROR_INVALID_HANDLE */
}
CUresult cuEventCreate(void **e, unsigned flags)
{
    (void)flags;
    *e = handle();
    return 0;
}
CUresult cuEventDestroy_v2(void *e)
{
    return e ? 0 : 400;
}
CUresult cuLibraryLoadData(void **l, const void *code, void *a, void *b, unsigned c, void *d,
                           void *e, unsigned f)
{
    (void)code, (void)a, (void)b, (void)c, (void)d, (void)e, (void)f;
    *l = handle();
    return 0;
}
CUresult cuLibraryUnload(void *l)
{
    return l ? 0 : 400;
}
CUresult cuMemHostAlloc(void **p, size_t bytes, unsigned flags)
{
    (void)bytes, (void)flags;
    *p = handle();
    return 0;
}
CUresult cuMemFreeHost(void *p)
{
    return p ? 0 : 1;
}
CUresult cuMemHostRegister_v2(void *p, size_t bytes, unsigned flags)
{
    (void)bytes, (void)flags;
    return p ? 0 : 1;
}
CUresult cuMemHostUnregister(void *p)
{
    return p ? 0 : 1;
}
CUresult cuMemAlloc_v2(unsigned long long *d, size_t bytes)
{
    (void)bytes;
    *d = (unsigned long long)(uintptr_t)handle();
    return 0;
}
CUresult cuMemFree_v2(unsigned long long d)
{
    return d ? 0 : 1;
}
/* the per-thread default stream's variants hand out odd addresses, so a probe can tell */
static CUresult alloc_async(unsigned long long *d, int per_thread)
{
    *d = (unsigned long long)(uintptr_t)handle() + (unsigned)per_thread;
    return 0;
}
CUresult cuMemAllocAsync(unsigned long long *d, size_t bytes, void *s)
{
    (void)bytes, (void)s;
    return alloc_async(d, 0);
}
CUresult cuMemAllocAsync_ptsz(unsigned long long *d, size_t bytes, void *s)
{
    (void)bytes, (void)s;
    return alloc_async(d, 1);
}
CUresult cuMemAllocFromPoolAsync(unsigned long long *d, size_t bytes, void *pool, void *s)
{
    (void)bytes, (void)pool, (void)s;
    return alloc_async(d, 0);
}
CUresult cuMemAllocFromPoolAsync_ptsz(unsigned long long *d, size_t bytes, void *pool, void *s)
{
    (void)bytes, (void)pool, (void)s;
    return alloc_async(d, 1);
}
CUresult cuMemFreeAsync(unsigned long long d, void *s)
{
    (void)s;
    return d && !(d & 1) ? 0 : 1; /* a legacy free of a per-thread allocation: an error */
}
CUresult cuMemFreeAsync_ptsz(unsigned long long d, void *s)
{
    (void)s;
    return d ? 0 : 1;
}
CUresult cuMemAllocPitch_v2(unsigned long long *d, size_t *pitch, size_t w, size_t h, unsigned e)
{
    (void)h, (void)e;
    *pitch = w;
    *d = (unsigned long long)(uintptr_t)handle();
    return 0;
}
CUresult cuCtxGetCurrent(void **ctx)
{
    *ctx = (void *)(uintptr_t)0xc0;
    return 0;
}
CUresult cuMemGetInfo_v2(size_t *free_b, size_t *total_b)
{
    *free_b = 1u << 20;
    *total_b = 2u << 20;
    return 0;
}
/* This library itself, as a real driver answers its own functions (not those of a library
 * loaded before it, such as the stand-in, whose names are the same). */
static void *self(void)
{
    static void *lib;
    Dl_info info;
    if (!lib && dladdr((void *)self, &info) && info.dli_fname)
        lib = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    return lib;
}
/* the name (its _ptsz where asked for per-thread ones and there is one), else its _v2 */
CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, unsigned long long flags,
                             int *status)
{
    (void)version;
    char v2[128];
    void *p = NULL, *lib = self();
    if (!lib)
        return 999;
    if ((flags & 2) && snprintf(v2, sizeof v2, "%s_ptsz", symbol) < (int)sizeof v2)
        p = dlsym(lib, v2);
    if (!p)
        p = dlsym(lib, symbol);
    if (!p && snprintf(v2, sizeof v2, "%s_v2", symbol) < (int)sizeof v2)
        p = dlsym(lib, v2);
    *pfn = p;
    if (status)
        *status = p ? 0 : 1;
    return p ? 0 : 500;
}
