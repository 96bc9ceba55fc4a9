/*
 * 04_streams_overlap/work.h - the work every element gets, shared by the host (.c) and the
 * device (.cu) code of the lesson and of its exercises.
 *
 * Each element goes through `work` dependent multiply-adds, x = x * WORK_A + WORK_B, each
 * one a single correctly rounded fused multiply-add (fmaf on the host, __fmaf_rn on the
 * GPU), so the host can recompute any element bit for bit. `work` sets how long the
 * kernel runs: the lesson picks it so the kernel takes about as long as a copy.
 */
#ifndef LESSON04_WORK_H
#define LESSON04_WORK_H

#include <math.h>
#include <stddef.h>
#include <cuda_runtime_api.h>

#define WORK_A 0.9999f
#define WORK_B 0.0001f

#ifdef __cplusplus
extern "C" {
#endif

/* kernel.cu: out[i] = `work` multiply-adds applied to in[i], for i < n, in `stream`.
 * Returns the launch's error (cudaGetLastError), so the caller can check it. */
cudaError_t launch_work(const float *in, float *out, size_t n, int work, cudaStream_t stream);

/* kernel.cu: the kernel loaded now (lazy loading would load it at its first launch). */
cudaError_t preload_work(void);

#ifdef __cplusplus
}
#endif

/* The same computation on the host, for verification. */
static inline float work_on_host(float x, int work)
{
    for (int k = 0; k < work; k++)
        x = fmaf(x, WORK_A, WORK_B);
    return x;
}

/* The input the lesson and the exercises use: values in [-1, 1). */
static inline float work_input(size_t i)
{
    return (float)(i % 65536) / 32768.0f - 1.0f;
}

#endif
