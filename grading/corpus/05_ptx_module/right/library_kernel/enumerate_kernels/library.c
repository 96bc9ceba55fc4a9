/* enumerate_kernels: a variant for the grader's tests: the kernel found among the library's
 * by name (cuLibraryGetKernelCount, cuLibraryEnumerateKernels, cuKernelGetName: CUDA 12.4),
 * not asked for by name with cuLibraryGetKernel (which older headers fall back to). */
#include <stdlib.h>
#include <string.h>

#include "library_kernel.h"

struct loaded {
    CUlibrary library;
    CUkernel kernel;
};

#if CUDA_VERSION >= 12040
/* The kernel of l named "twice", among all of the library's. */
static bool find_twice(struct loaded *l)
{
    unsigned int n = 0;
    if (!checkDriver(cuLibraryGetKernelCount(&n, l->library)) || n == 0)
        return false;
    CUkernel *all = calloc(n, sizeof *all);
    if (!all)
        return false;
    bool found = false;
    if (checkDriver(cuLibraryEnumerateKernels(all, n, l->library))) {
        for (unsigned int i = 0; i < n && !found; i++) {
            const char *name = NULL;
            if (!checkDriver(cuKernelGetName(&name, all[i])))
                break;
            if (name && strcmp(name, "twice") == 0) {
                l->kernel = all[i];
                found = true;
            }
        }
    }
    free(all);
    return found;
}
#else
static bool find_twice(struct loaded *l)
{
    return checkDriver(cuLibraryGetKernel(&l->kernel, l->library, "twice"));
}
#endif

bool kernel_load(const void *image, void **handle)
{
    struct loaded *l = calloc(1, sizeof *l);
    if (!l)
        return false;
    if (!checkDriver(cuLibraryLoadData(&l->library, image, NULL, NULL, 0, NULL, NULL, 0))) {
        free(l);
        return false;
    }
    if (!find_twice(l)) {
        checkDriver(cuLibraryUnload(l->library));
        free(l);
        return false;
    }
    *handle = l;
    return true;
}

bool kernel_function(void *handle, CUfunction *f)
{
    struct loaded *l = handle;
    return checkDriver(cuKernelGetFunction(f, l->kernel));
}

bool kernel_unload(void *handle)
{
    struct loaded *l = handle;
    bool ok = checkDriver(cuLibraryUnload(l->library));
    free(l);
    return ok;
}
