/*
 * 02_driver_context/core.h - the calls the lesson is about (core.c), and the two kernels'
 * C launchers (kernel.cu). demo.c and the lesson's program (proof/) both include it; it
 * includes nothing of proof/.
 */
#ifndef LESSON02_CORE_H
#define LESSON02_CORE_H

#include <stdbool.h>
#include <stddef.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "check.h"

/* 1. What the driver tells about a device before any context exists. */
struct device_info {
    CUdevice dev;
    char name[256], bus[32];
    int major, minor, compute_mode;
    size_t total;
};
bool describe_device(int ordinal, struct device_info *d);

/* 2. cuCtxCreate in the form of the headers the lesson is built with (CUDA 13 or 12). */
CUresult create_context(CUcontext *ctx, CUdevice dev);

/* 3. How many entries the calling thread's context stack holds (-1: a push back failed). */
int stack_depth(void);

/* 4. cuMemAlloc's and cudaMalloc's memory belongs to the context current when it is made. */
bool alloc_in_context(CUcontext ctx, CUdeviceptr *p, const void *host, size_t bytes);
CUresult read_in_context(CUcontext ctx, void *host, CUdeviceptr p, size_t bytes);
bool free_in(CUcontext ctx, CUdeviceptr *p);
bool kernel_in_context(CUcontext ctx, CUdeviceptr buf, int n, unsigned int seed);

/* 5. The runtime and the Driver API on one thread. */
bool runtime_alloc_owner(void **p, size_t bytes, CUcontext *owner);
bool runtime_round_trip(void **p, CUcontext *owner, const unsigned int *in, unsigned int *out,
                        int n);

struct primary_life { /* 5a: what the Driver API sees of the primary context */
    int active_before, active_retained, active_released;
    CUcontext primary, current;
};
bool primary_retain_release(CUdevice dev, struct primary_life *s);

struct runtime_primary { /* 5c: cudaSetDevice with no context current */
    double set_ms;       /* how long cudaSetDevice took */
    CUcontext current, retained;
    int active_set, active_ours, active_back;
};
bool runtime_primary(int ordinal, CUdevice dev, struct runtime_primary *s);

struct replaced_top { /* 5d: cudaSetDevice over two pushed contexts */
    CUcontext after_push, after_set, popped, after_pop;
};
bool set_device_over_stack(CUcontext a, CUcontext b, int ordinal, struct replaced_top *s);

/* kernel.cu: the launchers return the launch's own error (faults show at synchronisation). */
cudaError_t launch_add_one(unsigned int *data, int n);
cudaError_t launch_write_pattern(unsigned int *data, int n, unsigned int seed);
/* kernel.cu: can the current context load add_one (cudaFuncGetAttributes' error)? */
cudaError_t kernel_image_check(void);

#endif
