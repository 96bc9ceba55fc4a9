/* Exercise share_primary: the library your library.c defines (the harness calls it). */
#ifndef EX_SHARE_PRIMARY_H
#define EX_SHARE_PRIMARY_H
#include <stdbool.h>
#include <cuda.h>
#include "check.h"

/* Makes a context current for the library's work on device dev and returns it in *ctx. */
bool library_begin(CUdevice dev, CUcontext *ctx);
/* Ends the library's use of ctx: the application's context is current again. */
bool library_end(CUdevice dev, CUcontext ctx);
#endif
