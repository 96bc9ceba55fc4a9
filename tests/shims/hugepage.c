/*
 * tests/shims/hugepage.c - LD_PRELOAD: host buffers backed by transparent huge pages, as on a
 * machine whose /sys/kernel/mm/transparent_hugepage/enabled is "always" (RHEL, Rocky, Alma).
 *
 *     LD_PRELOAD=DIR/libhugepage.so ./program      (DIR from: bash tests/shims/build DIR)
 *
 * Every malloc, calloc, realloc, aligned_alloc, posix_memalign, memalign and anonymous mmap of
 * CUDA_SHIM_HUGEPAGE_MIN bytes or more (default 2 MiB) is advised madvise(MADV_HUGEPAGE) over
 * its whole pages, so the kernel backs its aligned 2 MiB blocks with huge pages at first touch
 * (where THP is "madvise" or "always"; "never" turns it off). CUDA_SHIM_HUGEPAGE_TRACE=1
 * prints each advice on stderr ("hugepage: advised N bytes"). Memory the CUDA driver allocates
 * itself (cudaMallocHost) is not touched: it does not come through these calls.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static size_t threshold(void)
{
    static size_t min;
    if (!min) {
        const char *v = getenv("CUDA_SHIM_HUGEPAGE_MIN");
        char *end;
        unsigned long long n = v && *v ? strtoull(v, &end, 10) : 0;
        min = n && !*end ? (size_t)n : (size_t)2 << 20;
    }
    return min;
}

static void advise(void *p, size_t len)
{
    if (!p || p == MAP_FAILED || len < threshold())
        return;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t start = ((uintptr_t)p + page - 1) & ~(page - 1);
    uintptr_t end = ((uintptr_t)p + len) & ~(page - 1);
    if (end <= start)
        return;
    int rc = madvise((void *)start, end - start, MADV_HUGEPAGE);
    const char *t = getenv("CUDA_SHIM_HUGEPAGE_TRACE");
    if (t && *t == '1')
        fprintf(stderr, "hugepage: advised %zu bytes%s\n", (size_t)(end - start),
                rc ? " (madvise failed)" : "");
}

/* glibc's own entry points, which dlsym cannot recurse into. */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

void *malloc(size_t n)
{
    void *p = __libc_malloc(n);
    advise(p, n);
    return p;
}

void *calloc(size_t k, size_t n)
{
    void *p = __libc_calloc(k, n);
    if (p && n && k <= SIZE_MAX / n)
        advise(p, k * n);
    return p;
}

void *realloc(void *old, size_t n)
{
    void *p = __libc_realloc(old, n);
    advise(p, n);
    return p;
}

void *memalign(size_t align, size_t n)
{
    void *p = __libc_memalign(align, n);
    advise(p, n);
    return p;
}

void *aligned_alloc(size_t align, size_t n)
{
    return memalign(align, n);
}

int posix_memalign(void **out, size_t align, size_t n)
{
    if (align < sizeof(void *) || (align & (align - 1)))
        return 22; /* EINVAL */
    void *p = memalign(align, n);
    if (!p && n)
        return 12; /* ENOMEM */
    *out = p;
    return 0;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
    if (!real_mmap)
        *(void **)&real_mmap = dlsym(RTLD_NEXT, "mmap");
    void *p = real_mmap(addr, len, prot, flags, fd, off);
    if (flags & MAP_ANONYMOUS)
        advise(p, len);
    return p;
}
