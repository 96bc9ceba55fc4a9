/* 02_driver_context/peers.c - step 8, contexts and peers: a kernel on one GPU working on the
 * other GPU's memory, peer access between two contexts and between the runtime's primary
 * contexts, and a copy from GPU to GPU directly against one through the host. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lesson.h"
#include "platform.h"

enum { COPY_ROUNDS = 5 };
#define COPY_BYTES ((size_t)64 << 20) /* 64 MiB for the copies */

static const char *const peer_claims[] = {
    "a kernel on the first GPU changed the second GPU's memory once its context had peer access",
    "peer access belongs to the pair of contexts: enabling it again says ALREADY_ENABLED",
    "cudaDeviceEnablePeerAccess is cuCtxEnablePeerAccess between the two primary contexts",
    "the direct GPU-to-GPU copy was faster than the copy through pinned host memory",
};

static void none_judged(const char *why)
{
    for (size_t i = 0; i < sizeof peer_claims / sizeof peer_claims[0]; i++)
        not_judged(why, "%s", peer_claims[i]);
}

/* Both contexts idle: the copies below return before they are done in some cases. */
static bool sync_both(CUcontext p, CUcontext q)
{
    CUcontext popped;
    return checkDriver(cuCtxPushCurrent(p)) && checkDriver(cuCtxSynchronize()) &&
           checkDriver(cuCtxPopCurrent(&popped)) && checkDriver(cuCtxPushCurrent(q)) &&
           checkDriver(cuCtxSynchronize()) && checkDriver(cuCtxPopCurrent(&popped));
}

/* Median GB/s of COPY_ROUNDS copies of COPY_BYTES from qbuf (ctxQ) to pbuf (ctxP), directly or
 * through pinned host memory; one warm-up round first. Timed on the host around each copy
 * and the synchronisation of both contexts. */
static bool copy_rate(bool direct, CUcontext p, CUdeviceptr pbuf, CUcontext q, CUdeviceptr qbuf,
                      void *pinned, double *gbps)
{
    double ms[COPY_ROUNDS + 1];
    for (int i = 0; i <= COPY_ROUNDS; i++) {
        double t0 = host_ms();
        CUcontext popped;
        bool ok = direct ? checkDriver(cuMemcpyPeer(pbuf, p, qbuf, q, COPY_BYTES))
                         : checkDriver(cuCtxPushCurrent(q)) &&
                               checkDriver(cuMemcpyDtoH(pinned, qbuf, COPY_BYTES)) &&
                               checkDriver(cuCtxPopCurrent(&popped)) &&
                               checkDriver(cuCtxPushCurrent(p)) &&
                               checkDriver(cuMemcpyHtoD(pbuf, pinned, COPY_BYTES)) &&
                               checkDriver(cuCtxPopCurrent(&popped));
        if (!ok || !sync_both(p, q))
            return false;
        ms[i] = host_ms() - t0;
    }
    *gbps = (double)COPY_BYTES / 1e9 / (median_of(ms + 1, COPY_ROUNDS) / 1e3);
    return true;
}

/* The first WORDS words of buf (ctx's), read back in ctx: how many differ from seed + plus. */
static int wrong_in(struct lesson *L, CUcontext ctx, CUdeviceptr buf, unsigned int seed,
                    unsigned int plus)
{
    CUcontext popped;
    memset(L->host_out, 0, BYTES);
    if (!checkDriver(cuCtxPushCurrent(ctx)))
        return -1;
    bool ok = checkDriver(cuMemcpyDtoH(L->host_out, buf, BYTES));
    if (!checkDriver(cuCtxPopCurrent(&popped)) || !ok)
        return -1;
    return wrong_words(L->host_out, seed, plus);
}

/* b) the runtime's side: cudaDeviceEnablePeerAccess with the primary context of A current. */
static bool runtime_peer(struct lesson *L, CUdevice db, int b_ord)
{
    CUcontext pb = NULL;
    TRY(checkRuntime(cudaDeviceEnablePeerAccess(b_ord, 0)));
    bool ok = checkDriver(cuDevicePrimaryCtxRetain(&pb, db));
    CUresult again = ok ? cuCtxEnablePeerAccess(pb, 0) : CUDA_SUCCESS;
    if (ok && again == CUDA_SUCCESS) /* not the same thing after all: undo ours */
        ok = checkDriver(cuCtxDisablePeerAccess(pb));
    if (pb)
        ok = checkDriver(cuDevicePrimaryCtxRelease(db)) && ok;
    ok = checkRuntime(cudaDeviceDisablePeerAccess(b_ord)) && ok;
    printf(
        "   b) cudaDeviceEnablePeerAccess(%d, 0) with device %ld's primary context current, then\n"
        "      cuCtxEnablePeerAccess(primary of device %d) -> %s (%d)\n",
        b_ord, L->device, b_ord, error_name(again), (int)again);
    claim(again == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, "%s", peer_claims[2]);
    return ok;
}

static bool two_contexts(struct lesson *L, CUdevice da, CUdevice db, int a_ord, int b_ord)
{
    bool ok = true, enabled = false;
    CUcontext cp = NULL, cq = NULL, popped = NULL;
    CUdeviceptr pbuf = 0, qbuf = 0;
    void *pinned = NULL;
    double direct = 0.0, via_host = 0.0;
    /* ctxP on device A, ctxQ on device B; each created (pushed) and popped at once. */
    if (!CREATE_CONTEXT(&cp, da) || !checkDriver(cuCtxPopCurrent(&popped)) ||
        !CREATE_CONTEXT(&cq, db) || !checkDriver(cuCtxPopCurrent(&popped)))
        goto fail;
    /* 64 MiB in each; the first 1 MiB of ctxQ's holds a known pattern. */
    fill(L->host_in, 7);
    if (!checkDriver(cuCtxPushCurrent(cq)))
        goto fail;
    ok = checkDriver(cuMemAlloc(&qbuf, COPY_BYTES)) &&
         checkDriver(cuMemsetD32(qbuf, 0, COPY_BYTES / 4)) &&
         checkDriver(cuMemcpyHtoD(qbuf, L->host_in, BYTES));
    if (!checkDriver(cuCtxPopCurrent(&popped)) || !ok || !checkDriver(cuCtxPushCurrent(cp)))
        goto fail;
    CUresult first = cuCtxEnablePeerAccess(cq, 0);
    enabled = first == CUDA_SUCCESS;
    CUresult second = cuCtxEnablePeerAccess(cq, 0);
    CUdevice kdev = -1;
    ok = checkDriver(cuCtxGetDevice(&kdev)) && checkDriver(cuMemAlloc(&pbuf, COPY_BYTES));
    if (!checkDriver(cuCtxPopCurrent(&popped)) || !ok)
        goto fail;
    if (enabled && !kernel_in_context(cp, qbuf, WORDS, 8)) /* ctxP's kernel: pattern 8 over 7 */
        goto fail;
    int ordinal = -1;
    if (!checkDriver(cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, qbuf)))
        goto fail;
    int wrong = wrong_in(L, cq, qbuf, 8, 0);
    printf("   a) ctxP on device %d, ctxQ on device %d, 64 MiB in each\n", a_ord, b_ord);
    printf("      with ctxP current: cuCtxEnablePeerAccess(ctxQ, 0) -> %s; again -> %s\n",
           error_name(first), error_name(second));
    printf("      write_pattern<<<>>> in ctxP (device %d) on ctxQ's buffer (device %d): %d wrong\n",
           kdev, ordinal, wrong);
    claim(enabled && kdev == da && ordinal == b_ord && wrong == 0, "%s", peer_claims[0]);
    claim(second == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, "%s", peer_claims[1]);

    if (!runtime_peer(L, db, b_ord) ||
        !checkDriver(cuMemHostAlloc(&pinned, COPY_BYTES, CU_MEMHOSTALLOC_PORTABLE)) ||
        !copy_rate(true, cp, pbuf, cq, qbuf, pinned, &direct))
        goto fail;
    int wrong_direct = wrong_in(L, cp, pbuf, 8, 0);
    if (!checkDriver(cuCtxPushCurrent(cp)))
        goto fail;
    ok = checkDriver(cuMemsetD32(pbuf, 0, COPY_BYTES / 4)) && checkDriver(cuCtxSynchronize());
    if (!checkDriver(cuCtxPopCurrent(&popped)) || !ok ||
        !copy_rate(false, cp, pbuf, cq, qbuf, pinned, &via_host))
        goto fail;
    int wrong_via_host = wrong_in(L, cp, pbuf, 8, 0);
    if (wrong_direct != 0 || wrong_via_host != 0) {
        fprintf(stderr, "%s: the copies to device %d arrived wrong: %d and %d words\n", lesson_prog,
                a_ord, wrong_direct, wrong_via_host);
        goto fail;
    }
    printf("   c) 64 MiB from device %d to device %d, median of %d (data checked after each way):\n"
           "      directly, cuMemcpyPeer:                          %.1f GB/s\n"
           "      through pinned host memory, DtoH then HtoD:      %.1f GB/s\n",
           b_ord, a_ord, COPY_ROUNDS, direct, via_host);
    char tool[256];
    if (under_tool(tool, sizeof tool))
        not_judged(tool, "%s (%.1f vs %.1f GB/s)", peer_claims[3], direct, via_host);
    else
        claim(direct > via_host, "%s (%.1f vs %.1f GB/s)", peer_claims[3], direct, via_host);
    goto done;
fail:
    ok = false;
done:
    if (enabled) {
        bool off = checkDriver(cuCtxPushCurrent(cp)) && checkDriver(cuCtxDisablePeerAccess(cq));
        ok = checkDriver(cuCtxPopCurrent(&popped)) && off && ok;
    }
    if (pinned)
        ok = checkDriver(cuMemFreeHost(pinned)) && ok;
    ok = (!pbuf || free_in(cp, &pbuf)) && ok;
    ok = (!qbuf || free_in(cq, &qbuf)) && ok;
    if (cq)
        ok = checkDriver(cuCtxDestroy(cq)) && ok;
    if (cp)
        ok = checkDriver(cuCtxDestroy(cp)) && ok;
    return ok;
}

bool step_8_contexts_and_peers(struct lesson *L)
{
    printf("\n8. Contexts and peers: one GPU working on another GPU's memory\n");
    if (L->count < 2) {
        printf("   %d GPU visible: peer access needs two (the step runs on any two: --device N\n"
               "   and the next one)\n",
               L->count);
        none_judged("one GPU is visible; this needs two");
        return true;
    }
    int a_ord = (int)L->device, b_ord = (int)((L->device + 1) % L->count);
    CUdevice da, db;
    int ab = 0, ba = 0;
    TRY(checkDriver(cuDeviceGet(&da, a_ord)) && checkDriver(cuDeviceGet(&db, b_ord)) &&
        checkDriver(cuDeviceCanAccessPeer(&ab, da, db)) &&
        checkDriver(cuDeviceCanAccessPeer(&ba, db, da)));
    printf("   cuDeviceCanAccessPeer: device %d -> %d: %d, device %d -> %d: %d\n", a_ord, b_ord, ab,
           b_ord, a_ord, ba);
    if (!ab) {
        none_judged("cuDeviceCanAccessPeer says these two GPUs cannot reach each other's memory");
        return true;
    }
    return two_contexts(L, da, db, a_ord, b_ord);
}
