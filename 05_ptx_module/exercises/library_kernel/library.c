/*
 * Exercise library_kernel: one load of a kernel, used in every context.
 *
 * This file is yours (the only one graded). A module (cuModuleLoadData) belongs to the context
 * that was current when it was loaded; its functions do not run in another context. A library
 * (cuLibraryLoadData, CUDA 12.0) is loaded once and serves every context, those that exist and
 * those created later: cuLibraryGetKernel gives a context-free CUkernel, and
 * cuKernelGetFunction turns it into the CUfunction of the current context.
 *
 * The harness (harness/library_kernel/) calls kernel_load() once with the primary context
 * current, then kernel_function() and the kernel in the primary context and in two contexts it
 * creates after the load, then kernel_unload(); it counts your loads and unloads.
 * YOUR TASK: as given, the code is loaded as a MODULE, so the contexts created after the load
 * cannot run it. Load it once as a LIBRARY instead: cuLibraryLoadData (its JIT and library
 * option arrays may be NULL with counts 0) and cuLibraryGetKernel after it; in
 * kernel_function(), cuKernelGetFunction; unload with cuLibraryUnload.
 * Check: make check (from 05_ptx_module).
 */
#include <stdlib.h>

#include "library_kernel.h"

struct loaded {
    CUmodule module; /* FIXME: a CUlibrary and a CUkernel instead */
    CUfunction f;
};

bool kernel_load(const void *image, void **handle)
{
    struct loaded *l = calloc(1, sizeof *l);
    if (!l)
        return false;
    /* FIXME: a library, not a module. */
    if (!checkDriver(cuModuleLoadData(&l->module, image)) ||
        !checkDriver(cuModuleGetFunction(&l->f, l->module, "twice"))) {
        free(l);
        return false;
    }
    *handle = l;
    return true;
}

bool kernel_function(void *handle, CUfunction *f)
{
    struct loaded *l = handle;
    /* FIXME: the function of the kernel for the context current now. */
    *f = l->f;
    return true;
}

bool kernel_unload(void *handle)
{
    struct loaded *l = handle;
    bool ok = checkDriver(cuModuleUnload(l->module)); /* FIXME: unload the library */
    free(l);
    return ok;
}
