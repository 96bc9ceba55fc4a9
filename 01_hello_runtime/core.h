/*
 * 01_hello_runtime/core.h - the functions of core.c, the lesson itself, in step order (core.c
 * says what each shows). The steps and the child processes call them.
 */
#ifndef HELLO_RUNTIME_CORE_H
#define HELLO_RUNTIME_CORE_H

#include <stdbool.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

/* 1-2: the first calls */
CUresult current_context(CUcontext *ctx);
cudaError_t count_devices(int *count);
cudaError_t make_first_call(const char *name, int device);

/* 3: the primary context */
cudaError_t make_primary_context_current(int device);
bool primary_context_of(CUdevice dev, CUcontext *ctx);

/* 4: versions */
struct versions {
    int runtime, driver;                   /* cudaRuntimeGetVersion, cudaDriverGetVersion */
    unsigned int api_primary, api_current; /* cuCtxGetApiVersion of the primary, of NULL */
};
bool read_versions(CUcontext primary, struct versions *v);

/* 5-6: launches from C, their errors, a fault */
cudaError_t launch_error_of(float *data, int n, int threads_per_block);
cudaError_t launch_a_faulting_kernel(void);
void calls_after_a_fault(cudaError_t *at_sync, cudaError_t *afterwards);
bool add_one_on_device(float *host, int n, int threads_per_block);
cudaError_t launch_spinning_kernel(unsigned long long ns);

/* 8: the primary context's lifecycle */
CUresult record_schedule_flag(CUdevice dev, unsigned int flag);
cudaError_t start_without_making_current(int device);
bool change_live_schedule(CUdevice dev, unsigned int *after_runtime, unsigned int *after_driver);
bool library_borrows_primary_context(CUdevice dev, CUcontext *ctx);
bool library_holds_primary_context(CUdevice dev, CUcontext *ctx, CUdeviceptr *workspace);
CUresult release_primary_context(CUdevice dev);
bool reset_primary_context(CUdevice dev, bool the_runtime_way);
cudaError_t start_primary_context_again(int device);

/* kernel.cu: the extern "C" launchers (C cannot write <<<>>>) */
void launch_add_one(float *data, int n, int threads_per_block);
void launch_trap(void);
void launch_spin(unsigned long long ns);

#endif
