/* Exercise library_shutdown: the library your library.c defines (the harness calls it). */
#ifndef EX_LIBRARY_SHUTDOWN_H
#define EX_LIBRARY_SHUTDOWN_H
#include <stdbool.h>
#include <cuda.h>
#include <cuda_runtime_api.h>
#include "check.h"

struct library {
    CUdevice dev;
    CUcontext ctx;         /* the primary context, retained */
    CUdeviceptr workspace; /* allocated in it */
};

#define LIBRARY_WORKSPACE_BYTES ((size_t)1 << 20)

/* Retain device 0's primary context and allocate the workspace in it (given). */
bool lib_init(struct library *lib);
/* Undo lib_init(), and nothing more. */
bool lib_shutdown(struct library *lib);
#endif
