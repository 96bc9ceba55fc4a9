/* load_unchecked: kernel_load() does not check what cuLibraryLoadData answered and says true;
 * the kernel is looked up later, in kernel_function(). With the driver working every test of a
 * correct solution passes; with the load made to fail (--fail-at 1) kernel_load() hides the
 * failure: "kernel_load true" where false was due (a silent success). */
#include <stdlib.h>

#include "library_kernel.h"

bool kernel_load(const void *image, void **handle)
{
    CUlibrary *library = calloc(1, sizeof *library);
    if (!library)
        return false;
    (void)cuLibraryLoadData(library, image, NULL, NULL, 0, NULL, NULL, 0); /* unchecked */
    *handle = library;
    return true;
}

bool kernel_function(void *handle, CUfunction *f)
{
    CUkernel kernel = NULL;
    return checkDriver(cuLibraryGetKernel(&kernel, *(CUlibrary *)handle, "twice")) &&
           checkDriver(cuKernelGetFunction(f, kernel));
}

bool kernel_unload(void *handle)
{
    bool ok = checkDriver(cuLibraryUnload(*(CUlibrary *)handle));
    free(handle);
    return ok;
}
