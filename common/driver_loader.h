/*
 * common/driver_loader.h - the Driver API without -lcuda.
 *
 * A program linked with -lcuda does not even start on a machine without the NVIDIA driver:
 * the dynamic loader fails before main() (exit 127), so the lesson could not say "cannot run
 * here" (exit 77). driver_loader.c therefore defines the cu* functions the lessons call and
 * forwards each one to libcuda.so.1, which it opens with dlopen on first use. Lesson code
 * calls cuInit, cuCtxCreate, ... exactly as it would with -lcuda.
 *
 * How this differs from what the CUDA runtime does (and from -lcuda):
 *  - the runtime asks the driver for each entry point with cuGetProcAddress, naming the
 *    CUDA version it was built for, per function; this loader uses dlsym on the symbol that
 *    cuda.h's macros select at build time (cuMemAlloc -> cuMemAlloc_v2), so the ABI version
 *    of each function is fixed when the lesson is compiled, as it is for a -lcuda build;
 *  - it never picks the per-thread-default-stream variants (cuMemcpyAsync_ptsz, ...): a
 *    Driver API call that takes a stream argument of 0 means the legacy default stream here.
 * Lesson 02 shows cuGetProcAddress and cudaGetDriverEntryPointByVersion side by side.
 */
#ifndef LESSON_DRIVER_LOADER_H
#define LESSON_DRIVER_LOADER_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* true when libcuda.so.1 could be opened (the real driver or a stub). */
bool driver_library_found(void);

/* The handle of libcuda.so.1 from dlopen, or NULL when it could not be opened. */
void *driver_library_handle(void);

#ifdef __cplusplus
}
#endif

#endif
