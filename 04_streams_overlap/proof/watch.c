/*
 * 04_streams_overlap/watch.c - how the instrument sees core.c's pipelines run, from its own side.
 *
 * core.c writes each stage as CUDA writes it and holds no hook. The lesson's Makefile links the
 * program with the linker's --wrap for cudaMemcpyAsync and launch_work: every call to them in
 * the program's own code comes here first (__wrap_NAME), and goes on to CUDA's (__real_NAME)
 * unchanged. Between watch_begin and watch_end, each call also records an event in its own
 * stream, where the stream reaches it: before a copy in, after it, after a kernel, after a copy
 * out (enum mark). The n-th copy in, kernel and copy out of a run are chunk n's, in both issue
 * orders: a chunk's stages are issued in order, and chunk i before chunk i + 1. Outside a watch
 * the wrappers only pass the call on. (The exercises' harness counts the same calls the same
 * way: harness/observe.c.)
 */
#include "lesson.h"
#include "work.h"

cudaError_t __real_cudaMemcpyAsync(void *dst, const void *src, size_t bytes,
                                   enum cudaMemcpyKind kind, cudaStream_t s);
cudaError_t __real_launch_work(const float *in, float *out, size_t n, int work, cudaStream_t s);

static struct {
    struct pipeline_events *ev; /* NULL: nothing watched */
    int seen[OPS];              /* copies in, kernels, copies out issued since watch_begin */
    bool failed;                /* an event could not be recorded, or more chunks than events */
} w;

void watch_begin(struct pipeline_events *ev)
{
    w.ev = ev;
    w.seen[OP_H2D] = w.seen[OP_KERNEL] = w.seen[OP_D2H] = 0;
    w.failed = false;
}

bool watch_end(void)
{
    w.ev = NULL;
    return !w.failed;
}

/* The event at `mark` of the chunk whose stage `op` this is, in stream s. */
static void mark(int op, enum mark mark, cudaStream_t s)
{
    int chunk = w.seen[op];
    if (chunk >= MAX_STREAMS)
        w.failed = true;
    else if (!checkRuntime(cudaEventRecord(w.ev->at[chunk][mark], s)))
        w.failed = true;
}

cudaError_t __wrap_cudaMemcpyAsync(void *dst, const void *src, size_t bytes,
                                   enum cudaMemcpyKind kind, cudaStream_t s)
{
    int op = kind == cudaMemcpyHostToDevice ? OP_H2D : OP_D2H;
    bool watched = w.ev && (kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToHost);
    if (watched && op == OP_H2D)
        mark(op, BEFORE_COPY_IN, s);
    cudaError_t e = __real_cudaMemcpyAsync(dst, src, bytes, kind, s);
    if (watched && e == cudaSuccess)
        mark(op, op == OP_H2D ? AFTER_COPY_IN : AFTER_COPY_OUT, s);
    if (watched)
        w.seen[op]++;
    return e;
}

cudaError_t __wrap_launch_work(const float *in, float *out, size_t n, int work, cudaStream_t s)
{
    cudaError_t e = __real_launch_work(in, out, n, work, s);
    if (w.ev && e == cudaSuccess)
        mark(OP_KERNEL, AFTER_KERNEL, s);
    if (w.ev)
        w.seen[OP_KERNEL]++;
    return e;
}
