/*
 * common/gate.h - hold a stream until the host has queued a whole timed repetition.
 *
 * An event is stamped when its stream reaches it on the GPU. If the host thread is held up
 * between queueing the start event and the work after it (another job on the host's CPUs, a
 * virtual machine that lost its CPU for a while), the GPU reaches the start event, waits for
 * the work, and the time between the events counts the host's delay as the GPU's. A gate
 * queues a one-thread kernel first that spins on a flag in mapped host memory; the host queues
 * the events and the work behind it, then opens the flag: the GPU runs the repetition as one
 * queued block, as nvbandwidth does with its spin kernel. Used by lessons 03 and 04:
 *
 *     gate_open(&g, device);            once, after the device is chosen (mapped memory)
 *     gate_hold(&g, stream);            before the start event
 *     ... cudaEventRecord(start, stream); work; cudaEventRecord(stop, stream);
 *     gate_release(&g);                 once everything is queued
 *     cudaEventSynchronize(stop); gate_check(&g);
 *     gate_close(&g);
 *
 * Only for work whose queueing does not wait for the GPU: not for copies from or to pageable
 * memory (the driver stages them through its own buffers and waits for the stream), not under
 * CUDA_LAUNCH_BLOCKING=1 or a tool that serialises launches (the kernel's launch itself would
 * wait for the flag). gate_open leaves the gate off, with the reason in g->off, where it cannot
 * work (no mapped host memory, CUDA_LAUNCH_BLOCKING=1, a tool); then hold and release do
 * nothing and the timings are taken as before. A kernel that waited longer than GATE_WAIT_NS
 * gives up (the work then ran as it was queued): gate_check turns the gate off for the rest of
 * the run and says why, so a gate that does not work costs one wait, not one per timing.
 * A zeroed struct gate (never opened) is off too: hold, release and check do nothing.
 */
#ifndef COMMON_GATE_H
#define COMMON_GATE_H

#include <stdbool.h>
#include <cuda_runtime_api.h>

#define GATE_WAIT_NS 1000000000ull /* one second */

struct gate {
    volatile int *flag;    /* mapped host memory: 0 hold, 1 go */
    volatile int *expired; /* mapped host memory: set by a kernel that gave up waiting */
    int *flag_dev, *expired_dev;
    bool held;     /* a kernel is queued and the flag not yet opened */
    char off[300]; /* empty: the gate works; else why it is off */
};

#ifdef __cplusplus
extern "C" {
#endif
bool gate_open(struct gate *g, int device);
bool gate_hold(struct gate *g, cudaStream_t stream);
void gate_release(struct gate *g);
bool gate_check(struct gate *g);
bool gate_close(struct gate *g);
/* the spinning kernel, one thread, in `stream`; the launch's error */
cudaError_t gate_launch(int *flag, int *expired, unsigned long long wait_ns, cudaStream_t stream);
#ifdef __cplusplus
}
#endif

#endif
