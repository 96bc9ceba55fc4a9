/*
 * 02_driver_context/harness/made_contexts.h - the contexts a student's code created and has not
 * destroyed, followed one by one: cuCtxCreate and cuCtxDestroy reach the harness through the
 * linker's --wrap (harness/NAME/wrap names them), while made_counting is set. Included by the
 * harnesses that count them (share_primary, context_leak), once each: it defines the wrappers.
 */
#ifndef EX02_MADE_CONTEXTS_H
#define EX02_MADE_CONTEXTS_H
#include <cuda.h>

enum { MAX_MADE = 64 };
static int made_counting; /* set around the student's calls: the harness's own are not counted */
static int made_count;    /* created and not destroyed; counts on past MAX_MADE */
static CUcontext made[MAX_MADE];

static void made_add(CUcontext c)
{
    if (made_count < MAX_MADE)
        made[made_count] = c;
    made_count++;
}

/* Destroyed: one of the counted contexts is gone (another context destroyed counts for
 * nothing). */
static void made_remove(CUcontext c)
{
    for (int i = 0; i < made_count && i < MAX_MADE; i++)
        if (made[i] == c) {
            made[i] = made[--made_count < MAX_MADE ? made_count : MAX_MADE - 1];
            return;
        }
}

#if CUDA_VERSION >= 13000
CUresult __real_cuCtxCreate_v4(CUcontext *ctx, CUctxCreateParams *params, unsigned int flags,
                               CUdevice dev);
CUresult __wrap_cuCtxCreate_v4(CUcontext *ctx, CUctxCreateParams *params, unsigned int flags,
                               CUdevice dev)
{
    CUresult r = __real_cuCtxCreate_v4(ctx, params, flags, dev);
    if (made_counting && r == CUDA_SUCCESS)
        made_add(*ctx);
    return r;
}
#else
CUresult __real_cuCtxCreate_v2(CUcontext *ctx, unsigned int flags, CUdevice dev);
CUresult __wrap_cuCtxCreate_v2(CUcontext *ctx, unsigned int flags, CUdevice dev)
{
    CUresult r = __real_cuCtxCreate_v2(ctx, flags, dev);
    if (made_counting && r == CUDA_SUCCESS)
        made_add(*ctx);
    return r;
}
#endif
CUresult __real_cuCtxDestroy_v2(CUcontext ctx);
CUresult __wrap_cuCtxDestroy_v2(CUcontext ctx)
{
    CUresult r = __real_cuCtxDestroy_v2(ctx);
    if (made_counting && r == CUDA_SUCCESS)
        made_remove(ctx);
    return r;
}
#endif
