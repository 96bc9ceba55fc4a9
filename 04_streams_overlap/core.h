/*
 * 04_streams_overlap/core.h - the pipeline the lesson teaches (core.c), as the instrument
 * (proof/) calls it. struct pipeline has the fields, in the same order, of the one the
 * exercises fill (harness/harness.h; a CPU test keeps the two alike), so a reference solution's
 * exercise_issue() and pipeline_per_stream() below read the same.
 */
#ifndef LESSON04_CORE_H
#define LESSON04_CORE_H

#include <stdbool.h>
#include <stddef.h>

#include "check.h"
#include "work.h" /* launch_work: work_kernel<<<blocks, 256, 0, stream>>> (work.cuh) */

#define PIPELINE_MAX_STREAMS 64

enum { OP_H2D, OP_KERNEL, OP_D2H, OPS }; /* a chunk's three stages: copy in, compute, copy out */

/* One job: n floats copied in, computed, copied out; cut into `streams` chunks, chunk i in
 * stream[i]. */
struct pipeline {
    int streams;          /* how many chunks (and streams) to use */
    size_t n;             /* floats in all */
    int work;             /* the kernel's multiply-adds per element (launch_work) */
    float *host_in;       /* n floats: pinned for the copies to overlap (pageable in step 5a) */
    float *host_out;      /* n floats */
    float *dev_in;        /* n floats on the device */
    float *dev_out;       /* n floats on the device */
    int *dev_counter;     /* one int on the device for a library's memset (NULL: no memset) */
    cudaStream_t *stream; /* `streams` streams (stream[0] == 0: the legacy default stream) */
};

/* cudaStreamCreate; cudaStreamCreateWithFlags(cudaStreamNonBlocking); cuStreamCreate with
 * CU_STREAM_NON_BLOCKING (step 8). */
enum stream_kind { BLOCKING, NON_BLOCKING, DRIVER_NON_BLOCKING };

/* Chunk i of p->streams: its first element, its number of elements; both at once as the
 * exercises' harness.h has it. */
static inline size_t chunk_first(const struct pipeline *p, int i)
{
    return p->n * (size_t)i / (size_t)p->streams;
}

static inline size_t chunk_size(const struct pipeline *p, int i)
{
    return chunk_first(p, i + 1) - chunk_first(p, i);
}

static inline void pipeline_chunk(const struct pipeline *p, int i, size_t *first, size_t *count)
{
    *first = chunk_first(p, i);
    *count = chunk_size(p, i);
}

/* kernel.cu: the lesson's kernel (work.cuh) as a function handle, for cuLaunchKernel. */
cudaError_t work_function(cudaFunction_t *f);

/* core.c, in the order of the steps */
bool buffers_alloc(struct pipeline *p);
bool buffers_free(struct pipeline *p);
bool streams_create(cudaStream_t *s, int n, enum stream_kind kind);
bool streams_destroy(cudaStream_t *s, int n, enum stream_kind kind);
bool pipeline_sequential(const struct pipeline *p);
bool pipeline_per_stream(const struct pipeline *p);
bool pipeline_by_stage(const struct pipeline *p);
bool pipeline_driver_api(const struct pipeline *p, CUfunction kernel);

#endif
