/*
 * 01_hello_runtime/core.h - the functions of core.c, the lesson itself, in the order of its
 * story (core.c says what each shows). demo.c and the instrument (proof/) call them.
 */
#ifndef HELLO_RUNTIME_CORE_H
#define HELLO_RUNTIME_CORE_H

#include <stdbool.h>
#include <stdint.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

/* What the Driver API shows of one device's contexts; its queries start nothing. */
struct context_view {
    CUresult query;    /* what cuCtxGetCurrent returned (before cuInit: NOT_INITIALIZED) */
    CUcontext current; /* the current context, NULL for none; left as it was when query fails */
    int active;        /* cuDevicePrimaryCtxGetState: 1 the primary context is active, -1 unread */
    bool seen;         /* every query of the look succeeded */
    double call_ms;    /* how long cudaSetDevice took, in the look after it */
};

/* 1-3: the story: no context, the first runtime call, the primary context current */
#define CONTEXT_MARKER ((CUcontext)(uintptr_t)0x5eed) /* to see whether a query writes ctx */
CUresult look_at_contexts(int device, struct context_view *v);
CUresult before_any_call(struct context_view *v);
cudaError_t after_first_runtime_call(int device, int *count, struct context_view *v);
cudaError_t after_first_call_that_needs_a_context(int device, struct context_view *v,
                                                  CUcontext *retained);
bool primary_context_of(CUdevice dev, CUcontext *ctx);

/* 4: versions */
struct versions {
    int runtime, driver;                   /* cudaRuntimeGetVersion, cudaDriverGetVersion */
    unsigned int api_primary, api_current; /* cuCtxGetApiVersion of the primary, of NULL */
};
bool read_versions(CUcontext primary, struct versions *v);

/* 5-6: launches from C, their errors, a fault */
void calls_after_a_fault(cudaError_t *at_sync, cudaError_t *afterwards);
bool add_one_on_device(float *host, int n, int threads_per_block);

/* 8: the primary context's lifecycle */
bool change_live_schedule(CUdevice dev, unsigned int *after_runtime, unsigned int *after_driver);
bool library_borrows_primary_context(CUdevice dev, CUcontext *ctx);
bool library_holds_primary_context(CUdevice dev, CUcontext *ctx, CUdeviceptr *workspace);
bool reset_primary_context(CUdevice dev, bool the_runtime_way);

/* kernel.cu: the extern "C" launchers (C cannot write <<<>>>) */
void launch_add_one(float *data, int n, int threads_per_block);
void launch_trap(void);
void launch_spin(unsigned long long ns);
cudaError_t kernels_load(void); /* cudaFuncGetAttributes of each kernel */

#endif
