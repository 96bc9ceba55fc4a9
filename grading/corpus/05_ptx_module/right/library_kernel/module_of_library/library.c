/* Right, another way: one library loaded once; for the current context, the library's module
 * (cuLibraryGetModule: the module of this library in the context current now) and the
 * function from it (cuModuleGetFunction). */
#include <stdlib.h>

#include "library_kernel.h"

bool kernel_load(const void *image, void **handle)
{
    CUlibrary lib = NULL;
    if (!checkDriver(cuLibraryLoadData(&lib, image, NULL, NULL, 0, NULL, NULL, 0)))
        return false;
    *handle = lib;
    return true;
}

bool kernel_function(void *handle, CUfunction *f)
{
    CUmodule mod = NULL;
    return checkDriver(cuLibraryGetModule(&mod, (CUlibrary)handle)) &&
           checkDriver(cuModuleGetFunction(f, mod, "twice"));
}

bool kernel_unload(void *handle)
{
    return checkDriver(cuLibraryUnload((CUlibrary)handle));
}
