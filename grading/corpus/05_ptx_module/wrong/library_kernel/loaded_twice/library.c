/* loaded_twice: kernel_load() loads the image once to see that it loads, then again to keep;
 * the first library is never unloaded. Every kernel runs right and kernel_unload() unloads what
 * it keeps; the stand-in driver counts two libraries made and one left:
 * resources_library_kernel "left: library 1 made twice: library 2". */
#include <stdlib.h>

#include "library_kernel.h"

struct loaded {
    CUlibrary library;
    CUkernel kernel;
};

bool kernel_load(const void *image, void **handle)
{
    struct loaded *l = calloc(1, sizeof *l);
    CUlibrary probe = NULL; /* "does it load?": never unloaded */
    if (!l)
        return false;
    if (!checkDriver(cuLibraryLoadData(&probe, image, NULL, NULL, 0, NULL, NULL, 0)) ||
        !checkDriver(cuLibraryLoadData(&l->library, image, NULL, NULL, 0, NULL, NULL, 0))) {
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
    return checkDriver(cuKernelGetFunction(f, l->kernel));
}

bool kernel_unload(void *handle)
{
    struct loaded *l = handle;
    bool ok = checkDriver(cuLibraryUnload(l->library));
    free(l);
    return ok;
}
