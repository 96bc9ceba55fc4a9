/* 02_driver_context/proof/peers.c - step 8, contexts and peers: a kernel on one GPU working on the
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

/* Step 8's two contexts, one on each GPU, and what they hold. */
struct pair {
    int a_ord, b_ord;
    CUdevice da, db;
    CUcontext cp, cq; /* ctxP on device A, ctxQ on device B */
    CUdeviceptr pbuf, qbuf;
    void *pinned;
    bool enabled; /* ctxP has peer access to ctxQ */
};

/* Both contexts idle: the copies below return before they are done in some cases. */
static bool sync_both(CUcontext p, CUcontext q)
{
    CUcontext popped;
    return checkDriver(cuCtxPushCurrent(p)) && checkDriver(cuCtxSynchronize()) &&
           checkDriver(cuCtxPopCurrent(&popped)) && checkDriver(cuCtxPushCurrent(q)) &&
           checkDriver(cuCtxSynchronize()) && checkDriver(cuCtxPopCurrent(&popped));
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

/* One copy of COPY_BYTES from qbuf (ctxQ) to pbuf (ctxP), directly or through pinned host
 * memory, timed on the host around the copy and the synchronisation of both contexts. */
static bool copy_once(bool direct, struct pair *P, double *ms)
{
    CUcontext popped;
    double t0 = host_ms();
    bool ok = direct ? checkDriver(cuMemcpyPeer(P->pbuf, P->cp, P->qbuf, P->cq, COPY_BYTES))
                     : checkDriver(cuCtxPushCurrent(P->cq)) &&
                           checkDriver(cuMemcpyDtoH(P->pinned, P->qbuf, COPY_BYTES)) &&
                           checkDriver(cuCtxPopCurrent(&popped)) &&
                           checkDriver(cuCtxPushCurrent(P->cp)) &&
                           checkDriver(cuMemcpyHtoD(P->pbuf, P->pinned, COPY_BYTES)) &&
                           checkDriver(cuCtxPopCurrent(&popped));
    TRY(ok && sync_both(P->cp, P->cq));
    *ms = host_ms() - t0;
    return true;
}

/* ctxP's buffer cleared (and idle), so that each copy's data is its own. */
static bool clear_p(struct pair *P)
{
    CUcontext popped;
    TRY(checkDriver(cuCtxPushCurrent(P->cp)));
    bool ok =
        checkDriver(cuMemsetD32(P->pbuf, 0, COPY_BYTES / 4)) && checkDriver(cuCtxSynchronize());
    return checkDriver(cuCtxPopCurrent(&popped)) && ok;
}

/* Median GB/s each way over COPY_ROUNDS rounds after a warm-up round; a round copies once
 * directly and once through the host, in turn, so that a burst of other traffic slows one
 * repetition of each way. Every copy's data is checked. */
static bool copy_rates(struct lesson *L, struct pair *P, double *direct, double *via_host)
{
    double ms[2][COPY_ROUNDS + 1];
    for (int i = 0; i <= COPY_ROUNDS; i++) {
        for (int way = 0; way < 2; way++) {
            TRY(clear_p(P) && copy_once(way == 0, P, &ms[way][i]));
            int wrong = wrong_in(L, P->cp, P->pbuf, 8, 0);
            if (wrong != 0) {
                fprintf(stderr, "%s: a copy %s to device %d arrived wrong: %d words\n", lesson_prog,
                        way == 0 ? "direct" : "through the host", P->a_ord, wrong);
                return false;
            }
        }
    }
    *direct = (double)COPY_BYTES / 1e9 / (median_of(ms[0] + 1, COPY_ROUNDS) / 1e3);
    *via_host = (double)COPY_BYTES / 1e9 / (median_of(ms[1] + 1, COPY_ROUNDS) / 1e3);
    return true;
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

/* a) ctxP on A, ctxQ on B, 64 MiB in each (the first 1 MiB of ctxQ's a known pattern); with
 * ctxP current, peer access to ctxQ twice; ctxP's kernel over ctxQ's buffer. */
static bool kernel_across(struct lesson *L, struct pair *P)
{
    CUcontext popped;
    /* each created (pushed) and popped at once */
    TRY(CREATE_CONTEXT(&P->cp, P->da) && checkDriver(cuCtxPopCurrent(&popped)) &&
        CREATE_CONTEXT(&P->cq, P->db) && checkDriver(cuCtxPopCurrent(&popped)));
    fill(L->host_in, 7);
    TRY(checkDriver(cuCtxPushCurrent(P->cq)));
    bool ok = checkDriver(cuMemAlloc(&P->qbuf, COPY_BYTES)) &&
              checkDriver(cuMemsetD32(P->qbuf, 0, COPY_BYTES / 4)) &&
              checkDriver(cuMemcpyHtoD(P->qbuf, L->host_in, BYTES));
    TRY(checkDriver(cuCtxPopCurrent(&popped)) && ok && checkDriver(cuCtxPushCurrent(P->cp)));
    CUresult first = cuCtxEnablePeerAccess(P->cq, 0);
    P->enabled = first == CUDA_SUCCESS;
    CUresult second = cuCtxEnablePeerAccess(P->cq, 0);
    CUdevice kdev = -1;
    ok = checkDriver(cuCtxGetDevice(&kdev)) && checkDriver(cuMemAlloc(&P->pbuf, COPY_BYTES));
    TRY(checkDriver(cuCtxPopCurrent(&popped)) && ok);
    if (P->enabled) /* ctxP's kernel: pattern 8 over 7 */
        TRY(kernel_in_context(P->cp, P->qbuf, WORDS, 8));
    int ordinal = -1;
    TRY(checkDriver(cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, P->qbuf)));
    int wrong = wrong_in(L, P->cq, P->qbuf, 8, 0);
    printf("   a) ctxP on device %d, ctxQ on device %d, 64 MiB in each\n", P->a_ord, P->b_ord);
    printf("      with ctxP current: cuCtxEnablePeerAccess(ctxQ, 0) -> %s; again -> %s\n",
           error_name(first), error_name(second));
    printf("      write_pattern<<<>>> in ctxP (device %d) on ctxQ's buffer (device %d): %d wrong\n",
           kdev, ordinal, wrong);
    claim(P->enabled && kdev == P->da && ordinal == P->b_ord && wrong == 0, "%s", peer_claims[0]);
    claim(second == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, "%s", peer_claims[1]);
    return true;
}

/* c) the copies, each way, in turn. */
static bool copies(struct lesson *L, struct pair *P)
{
    double direct = 0.0, via_host = 0.0;
    TRY(checkDriver(cuMemHostAlloc(&P->pinned, COPY_BYTES, CU_MEMHOSTALLOC_PORTABLE)) &&
        copy_rates(L, P, &direct, &via_host));
    printf("   c) 64 MiB from device %d to device %d, median of %d rounds, one copy each way a "
           "round\n"
           "      (data checked after every copy):\n"
           "      directly, cuMemcpyPeer:                          %.1f GB/s\n"
           "      through pinned host memory, DtoH then HtoD:      %.1f GB/s\n",
           P->b_ord, P->a_ord, COPY_ROUNDS, direct, via_host);
    char tool[256];
    if (under_tool(tool, sizeof tool))
        not_judged(tool, "%s (%.1f vs %.1f GB/s)", peer_claims[3], direct, via_host);
    else
        claim(direct > via_host, "%s (%.1f vs %.1f GB/s)", peer_claims[3], direct, via_host);
    return true;
}

/* Everything step 8 made, undone in its own context. */
static bool undo_pair(struct pair *P)
{
    CUcontext popped;
    bool ok = true;
    if (P->enabled) {
        bool off =
            checkDriver(cuCtxPushCurrent(P->cp)) && checkDriver(cuCtxDisablePeerAccess(P->cq));
        ok = checkDriver(cuCtxPopCurrent(&popped)) && off;
    }
    if (P->pinned)
        ok = checkDriver(cuMemFreeHost(P->pinned)) && ok;
    ok = (!P->pbuf || free_in(P->cp, &P->pbuf)) && ok;
    ok = (!P->qbuf || free_in(P->cq, &P->qbuf)) && ok;
    if (P->cq)
        ok = checkDriver(cuCtxDestroy(P->cq)) && ok;
    if (P->cp)
        ok = checkDriver(cuCtxDestroy(P->cp)) && ok;
    return ok;
}

static bool two_contexts(struct lesson *L, struct pair *P)
{
    bool ok = kernel_across(L, P) && runtime_peer(L, P->db, P->b_ord) && copies(L, P);
    return undo_pair(P) && ok;
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
    struct pair P = {.a_ord = (int)L->device, .b_ord = (int)((L->device + 1) % L->count)};
    int a_ord = P.a_ord, b_ord = P.b_ord, ab = 0, ba = 0;
    TRY(checkDriver(cuDeviceGet(&P.da, a_ord)) && checkDriver(cuDeviceGet(&P.db, b_ord)) &&
        checkDriver(cuDeviceCanAccessPeer(&ab, P.da, P.db)) &&
        checkDriver(cuDeviceCanAccessPeer(&ba, P.db, P.da)));
    printf("   cuDeviceCanAccessPeer: device %d -> %d: %d, device %d -> %d: %d\n", a_ord, b_ord, ab,
           b_ord, a_ord, ba);
    if (!ab) {
        none_judged("cuDeviceCanAccessPeer says these two GPUs cannot reach each other's memory");
        return true;
    }
    return two_contexts(L, &P);
}
