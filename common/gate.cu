// common/gate.cu - common/gate.h: the kernel, one thread that waits until the host opens the
// flag, or GATE_WAIT_NS has passed by the GPU's global timer (then it says so in *expired), and
// the host's side. Compiled into the lessons that name it in COMMON_CU (common/lesson.mk).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gate.h"
#include "platform.h"

__global__ void gate_wait(volatile int *flag, volatile int *expired, unsigned long long wait_ns)
{
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    while (*flag == 0) {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        if (now - start > wait_ns) {
            *expired = 1;
            __threadfence_system();
            return;
        }
    }
}

extern "C" cudaError_t gate_launch(int *flag, int *expired, unsigned long long wait_ns,
                                   cudaStream_t stream)
{
    gate_wait<<<1, 1, 0, stream>>>(flag, expired, wait_ns);
    return cudaGetLastError();
}

extern "C" bool gate_open(struct gate *g, int device)
{
    memset(g, 0, sizeof *g);
    const char *lb = getenv("CUDA_LAUNCH_BLOCKING");
    int can_map = 0;
    char tool[256];
    if (under_tool(tool, sizeof tool)) {
        snprintf(g->off, sizeof g->off, "%s", tool);
        return true;
    }
    if (lb && strcmp(lb, "1") == 0) {
        snprintf(g->off, sizeof g->off,
                 "CUDA_LAUNCH_BLOCKING=1: the gate's own launch would wait "
                 "for it");
        return true;
    }
    if (!checkRuntime(cudaDeviceGetAttribute(&can_map, cudaDevAttrCanMapHostMemory, device)))
        return false;
    if (!can_map) {
        snprintf(g->off, sizeof g->off, "this GPU cannot map host memory");
        return true;
    }
    void *p = NULL, *d = NULL;
    if (!checkRuntime(cudaHostAlloc(&p, 2 * sizeof(int), cudaHostAllocMapped)))
        return false;
    memset(p, 0, 2 * sizeof(int));
    if (!checkRuntime(cudaHostGetDevicePointer(&d, p, 0))) {
        checkRuntime(cudaFreeHost(p));
        return false;
    }
    cudaFuncAttributes a; /* the kernel loaded now, not at its first launch (lazy loading) */
    if (!checkRuntime(cudaFuncGetAttributes(&a, gate_wait))) {
        checkRuntime(cudaFreeHost(p));
        return false;
    }
    g->flag = (volatile int *)p;
    g->expired = (volatile int *)p + 1;
    g->flag_dev = (int *)d;
    g->expired_dev = (int *)d + 1;
    return true;
}

extern "C" bool gate_hold(struct gate *g, cudaStream_t stream)
{
    if (g->off[0] || !g->flag)
        return true;
    *g->flag = 0;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (!checkRuntime(gate_launch(g->flag_dev, g->expired_dev, GATE_WAIT_NS, stream)))
        return false;
    g->held = true;
    return true;
}

extern "C" void gate_release(struct gate *g)
{
    if (!g->held)
        return;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    *g->flag = 1;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    g->held = false;
}

extern "C" bool gate_check(struct gate *g)
{
    if (!g->expired || !*g->expired)
        return true;
    *g->expired = 0;
    snprintf(g->off, sizeof g->off,
             "the GPU waited more than %.0f s for the host to queue one "
             "repetition",
             GATE_WAIT_NS / 1e9);
    printf("   (timings: %s; the repetitions from here on are timed as the host queues them)\n",
           g->off);
    return false;
}

extern "C" bool gate_close(struct gate *g)
{
    gate_release(g);
    bool ok = true;
    /* a kernel still waiting (a run stopped by an error between hold and release) sees the
     * flag open and ends: wait for it before its flag is freed */
    if (g->flag)
        ok = checkRuntime(cudaDeviceSynchronize()) && checkRuntime(cudaFreeHost((void *)g->flag));
    g->flag = g->expired = NULL;
    return ok;
}
