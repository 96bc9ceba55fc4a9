/* Wrong: the lookup's result is never checked: where the kernel cannot be had in the current
 * context, kernel_function() says it has one. */
#include <stdlib.h>
#include "library_kernel.h"

struct loaded {
    CUlibrary library;
    CUkernel kernel;
};

bool kernel_load(const void *image, void **handle)
{
    struct loaded *l = calloc(1, sizeof *l);
    if (!l)
        return false;
    if (!checkDriver(cuLibraryLoadData(&l->library, image, NULL, NULL, 0, NULL, NULL, 0))) {
        free(l);
        return false;
    }
    if (!checkDriver(cuLibraryGetKernel(&l->kernel, l->library, "twice"))) {
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
    (void)cuKernelGetFunction(f, l->kernel);
    return true;
}

bool kernel_unload(void *handle)
{
    struct loaded *l = handle;
    bool ok = checkDriver(cuLibraryUnload(l->library));
    free(l);
    return ok;
}
