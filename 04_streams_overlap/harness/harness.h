/*
 * 04_streams_overlap/harness/harness.h - what an exercise's pipeline.c sees.
 *
 * Every exercise is one file of yours, pipeline.c (exercises/NAME/files names it: the only file
 * a grader takes from you); the rest is the harness's (harness/harness_main.c: options, buffers,
 * the sequential baseline, timing and verification; harness/kernel.cu: the lesson's kernel).
 * The harness calls the four functions below, which pipeline.c defines, times
 * exercise_issue() (from the call until cudaDeviceSynchronize returns, by its own clock),
 * compares the result with the sequential run bit for bit on output it poisoned first, and
 * passes when your pipeline is faster than the sequential run by the pass mark it prints (half
 * way from 1x to the best speed-up the pipeline's model allows, measured in the same run on this
 * card and knowing how many copy engines it has).
 */
#ifndef LESSON04_HARNESS_H
#define LESSON04_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <cuda_runtime_api.h>

#include "check.h"
#include "../work.h" /* launch_work(in, out, n, work, stream) */

#define HARNESS_MAX_STREAMS 64

struct pipeline {
    int streams;          /* how many chunks (and streams) to use */
    size_t n;             /* floats in all */
    int work;             /* the kernel's multiply-adds per element: pass to launch_work */
    float *host_in;       /* n floats, from exercise_host_alloc */
    float *host_out;      /* n floats, from exercise_host_alloc */
    float *dev_in;        /* n floats on the device */
    float *dev_out;       /* n floats on the device */
    int *dev_counter;     /* one int on the device, for the 'legacy' exercise */
    cudaStream_t *stream; /* `streams` streams, from exercise_create_streams */
};

/* Chunk i of `p->streams`: elements [*first, *first + *count). */
static inline void pipeline_chunk(const struct pipeline *p, int i, size_t *first, size_t *count)
{
    size_t a = p->n * (size_t)i / (size_t)p->streams;
    size_t b = p->n * (size_t)(i + 1) / (size_t)p->streams;
    *first = a;
    *count = b - a;
}

/* ---- defined in pipeline.c ---- */

/* Host memory for the input and the output; NULL when it cannot be had. */
float *exercise_host_alloc(size_t bytes);
void exercise_host_free(float *p);
/* Make n streams in s[0..n), each one its own; false when a call failed. */
bool exercise_create_streams(cudaStream_t *s, int n);
/* Issue the whole job: host_in -> dev_in, the kernel dev_in -> dev_out, dev_out -> host_out.
 * Return without waiting: the harness calls cudaDeviceSynchronize. False when a call failed. */
bool exercise_issue(const struct pipeline *p);

#endif
