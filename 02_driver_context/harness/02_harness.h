/* Lesson 02's harnesses share this: contexts made and named, the stack read, data copied. */
#ifndef EX02_HARNESS_H
#define EX02_HARNESS_H
#include <string.h>
#include "exercise_harness.h"

/* The last device the driver lists (a function that is given a device must use that one, not
 * device 0), its ordinal in *ordinal (unless NULL). False: none, or a call failed. */
static inline bool last_device(CUdevice *dev, int *ordinal)
{
    int count = 0;
    if (!checkDriver(cuDeviceGetCount(&count)) || count < 1)
        return false;
    if (ordinal)
        *ordinal = count - 1;
    return checkDriver(cuDeviceGet(dev, count - 1));
}

static inline bool make_context(CUcontext *ctx, CUdevice dev)
{
#if CUDA_VERSION >= 13000
    return checkDriver(cuCtxCreate(ctx, NULL, 0, dev)); /* CUDA 13 signature */
#else
    return checkDriver(cuCtxCreate(ctx, 0, dev));
#endif
}

/* The context stack of this thread, top first ("ctxB ctxA"; "none" when empty), each named by
 * names[i] where it is ctx[i], else "other". Popped and pushed back. */
static inline int stack_names(char *out, size_t len, const CUcontext *ctx, const char *const *names,
                              int count)
{
    CUcontext seen[16];
    int depth = harness_stack_read(seen);
    out[0] = '\0';
    for (int i = 0; i < depth; i++) {
        const char *name = "other";
        for (int j = 0; j < count; j++)
            if (seen[i] == ctx[j])
                name = names[j];
        snprintf(out + strlen(out), len - strlen(out), "%s%s", i ? " " : "", name);
    }
    if (!depth)
        snprintf(out, len, "none");
    return depth;
}

/* The name of the context that owns device pointer p ("gone" when none does). */
static inline const char *owner_name(CUdeviceptr p, const CUcontext *ctx, const char *const *names,
                                     int count)
{
    CUcontext owner = NULL;
    if (cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, p) != CUDA_SUCCESS || !owner)
        return "gone";
    for (int j = 0; j < count; j++)
        if (owner == ctx[j])
            return names[j];
    return "other";
}

/* Case k of the seed through device buffer p (n floats): "KEY N SUM", or "KEY failed". */
static inline void copy_through(const char *key, CUdeviceptr p, size_t n, uint32_t seed, int k)
{
    float *v = malloc(n * sizeof(float));
    CUcontext owner = NULL;
    /* the copies run in the buffer's own context, pushed for them and popped after */
    bool done = v != NULL &&
                cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, p) == CUDA_SUCCESS &&
                owner && cuCtxPushCurrent(owner) == CUDA_SUCCESS;
    if (done) {
        done = harness_round_trip(p, v, n, seed, k);
        done = cuCtxPopCurrent(NULL) == CUDA_SUCCESS && done;
    }
    harness_result(key, done, v, n, "failed");
    free(v);
}
#endif
