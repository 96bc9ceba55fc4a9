/*
 * Lesson 05's harnesses share this: a kernel compiled by NVRTC into SASS for the GPU that is
 * here (a cubin), so that no exercise depends on the driver JIT-compiling this toolkit's PTX (a
 * driver older than the toolkit cannot); PTX only where this NVRTC cannot build SASS for the
 * GPU (a GPU newer than the toolkit), and then the report says so ("harness: image ptx").
 */
#ifndef EX05_HARNESS_H
#define EX05_HARNESS_H
#include <stdlib.h>
#include <string.h>
#include <nvrtc.h>
#include "exercise_harness.h"

/* Compiles `source` for device dev: *image (malloc'd) is a cubin, or PTX when NVRTC cannot
 * target this GPU's SASS ("image" in the report). before/after (may be NULL) run on the program
 * before and after the compile. False (after saying why) when it could not. */
static inline bool nvrtc_image(const char *source, const char *file, CUdevice dev,
                               bool (*before)(nvrtcProgram), bool (*after)(nvrtcProgram, void *),
                               void *arg, char **image)
{
    int major = 0, minor = 0;
    if (!checkDriver(
            cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev)) ||
        !checkDriver(
            cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev)))
        return false;
    *image = NULL;
    for (int sass = 1; sass >= 0 && !*image; sass--) {
        nvrtcProgram prog = NULL;
        char arch[64];
        snprintf(arch, sizeof arch, "--gpu-architecture=%s_%d%d", sass ? "sm" : "compute", major,
                 minor);
        const char *opts[] = {arch};
        size_t size = 0;
        if (nvrtcCreateProgram(&prog, source, file, 0, NULL, NULL) != NVRTC_SUCCESS)
            break;
        bool ok = (!before || before(prog));
        nvrtcResult r = ok ? nvrtcCompileProgram(prog, 1, opts) : NVRTC_ERROR_INVALID_INPUT;
        if (r == NVRTC_SUCCESS) {
            ok = (sass ? nvrtcGetCUBINSize(prog, &size) : nvrtcGetPTXSize(prog, &size)) ==
                     NVRTC_SUCCESS &&
                 (*image = malloc(size)) != NULL &&
                 (sass ? nvrtcGetCUBIN(prog, *image) : nvrtcGetPTX(prog, *image)) == NVRTC_SUCCESS;
            ok = ok && (!after || after(prog, arg));
            if (ok)
                harness_report("image", "%s", sass ? "cubin" : "ptx");
            else {
                free(*image);
                *image = NULL;
                sass = -1; /* the hooks failed: no second try */
            }
        }
        nvrtcDestroyProgram(&prog);
    }
    if (!*image)
        fprintf(stderr, "%s: NVRTC could not compile %s for this GPU\n", lesson_prog, file);
    return *image != NULL;
}

#endif
