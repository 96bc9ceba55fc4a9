/* 03_pinned_memory/proof/step5_zero_copy.c - step 5: mapped (zero-copy) memory, a kernel that reads and
 * writes host memory directly, against copy in + kernel + copy out. */
#include <string.h>

#include "lesson.h"
#include "pattern.h"

/* The kernel out = 3 * in + 1: over mapped host memory (core.c's mapped_pass: in and out are
 * the host pointers), or over device memory. */
struct pass {
    const uint32_t *in;
    uint32_t *out;
    size_t words;
};

static bool enqueue_mapped(struct lesson *L, void *arg)
{
    const struct pass *p = arg;
    return mapped_pass(p->in, p->out, p->words, L->stream);
}

static bool enqueue_kernel(struct lesson *L, void *arg)
{
    const struct pass *p = arg;
    return checkRuntime(launch_triple_plus_one(p->in, p->out, p->words, L->stream));
}

/* Copy in, the kernel in device memory, copy out: in and out are the host buffers here. */
static bool enqueue_explicit(struct lesson *L, void *arg)
{
    const struct pass *p = arg;
    return explicit_pass(p->in, p->out, L->dev, L->dev2, p->words, L->stream);
}

static bool enqueue_copy_in(struct lesson *L, void *arg)
{
    const struct pass *p = arg;
    return checkRuntime(
        cudaMemcpyAsync(L->dev, p->in, p->words * 4, cudaMemcpyHostToDevice, L->stream));
}

static bool enqueue_copy_out(struct lesson *L, void *arg)
{
    const struct pass *p = arg;
    return checkRuntime(
        cudaMemcpyAsync(p->out, L->dev2, p->words * 4, cudaMemcpyDeviceToHost, L->stream));
}

/* Copy in (L->stream) and copy out (L->stream2) at the same time, as step 6 does (core.c's
 * copy_both_ways): the pair of events spans both. */
static bool enqueue_in_and_out(struct lesson *L, void *arg)
{
    const struct pass *p = arg;
    return copy_both_ways((void *)p->in, L->dev, p->out, L->dev2, p->words * 4, L->stream,
                          L->stream2, L->start, L->stop2);
}

/* Against explicit copies pipelined in chunks over several streams (lesson 04): in a pipeline
 * the copies in and out run at the same time, so they take what both directions at once take
 * (measured here, as step 6 does: with one asynchronous engine that is both copies one after
 * the other), and the pipeline at best as long as that or the kernel, whichever is longer. An
 * estimate from this run's rates, without per-chunk costs; the four runs timed round by round. */
static bool pipeline_estimate(struct lesson *L, struct pass *host, struct pass *on_device,
                              double zc_ms)
{
    const struct way ways[4] = {{enqueue_copy_in, host},
                                {enqueue_copy_out, host},
                                {enqueue_in_and_out, host},
                                {enqueue_kernel, on_device}};
    double ms[4];
    if (!time_rounds(L, 1, 4, ways, IN_TURN, ms, NULL))
        return false;
    double in_ms = ms[0], out_ms = ms[1], both_ms = ms[2], kernel_ms = ms[3];
    double best = both_ms > kernel_ms ? both_ms : kernel_ms;
    size_t bytes = host->words * 4;
    printf("   pipelined explicit copies (estimate): copy in %.3f ms and copy out %.3f ms alone;\n"
           "   both at once %.3f ms (%.1f GB/s each way); the kernel %.3f ms\n"
           "   -> at best %.3f ms (%s); zero-copy took %.3f ms: %s wins by %.2fx\n",
           in_ms, out_ms, both_ms, gbps(bytes, both_ms), kernel_ms, best,
           both_ms >= kernel_ms ? "both copies at once" : "the kernel", zc_ms,
           zc_ms < best ? "zero-copy" : "the pipeline", zc_ms < best ? best / zc_ms : zc_ms / best);
    return true;
}

static size_t wrong_results(const uint32_t *out, size_t words)
{
    size_t bad = 0;
    for (size_t i = 0; i < words; i++)
        bad += out[i] != 3u * pattern_word(i, 5) + 1u;
    return bad;
}

/* Each way once, its results checked in host memory (cleared before each), then both timed in
 * turn, one of each per round (time_in_turn), so that a slow moment of the host reaches both (an
 * H100 once ran the kernel over mapped memory at 22.1 GB/s each way, half its usual rate, while
 * copies timed just after it kept theirs). */
static bool two_ways(struct lesson *L, struct pass *mapped, struct pass *explicit, double *zc_ms,
                     double *explicit_ms)
{
    size_t words = mapped->words;
    double unused;
    memset(explicit->out, 0, words * 4);
    if (!time_events(L, 1, 0, enqueue_mapped, mapped, &unused))
        return false;
    size_t bad = wrong_results(explicit->out, words);
    claim(bad == 0, "the kernel's results in host memory are right (%zu wrong words)", bad);
    memset(explicit->out, 0, words * 4);
    if (!time_events(L, 1, 0, enqueue_explicit, explicit, &unused))
        return false;
    bad = wrong_results(explicit->out, words);
    claim(bad == 0, "the explicit way gives the same results (%zu wrong words)", bad);
    if (!time_in_turn(L, 0, enqueue_mapped, mapped, enqueue_explicit, explicit, zc_ms, explicit_ms))
        return false;
    printf(
        "   the kernel over mapped memory: %.3f ms, %.1f GB/s read + %.1f GB/s written at once\n",
        *zc_ms, gbps(words * 4, *zc_ms), gbps(words * 4, *zc_ms));
    return true;
}

/* The mapped buffers (core.c's mapped_alloc) and the address the GPU uses for them. Under unified
 * addressing, memory from cudaMallocHost and cudaHostAlloc is reached at its host pointer
 * (cuda_runtime_api.h, "Automatic Mapping of Host Allocated Host Memory"). The check covers this
 * one buffer; registered and write-combined memory: registered_addresses, below. */
static bool mapped_buffers(struct lesson *L, size_t bytes, uint32_t **in, uint32_t **out)
{
    void *din = NULL, *dout = NULL;
    if (!ALLOC(mapped_alloc(PINNED, bytes, (void **)in, &din), "cudaHostAlloc(cudaHostAllocMapped)",
               bytes) ||
        !ALLOC(mapped_alloc(PINNED, bytes, (void **)out, &dout),
               "cudaHostAlloc(cudaHostAllocMapped)", bytes))
        return false;
    printf("   cudaHostAlloc(cudaHostAllocMapped) -> host pointer %p; cudaHostGetDevicePointer -> "
           "%p\n",
           (void *)*in, din);
    if (L->prop.unifiedAddressing)
        claim(din == *in, "under unified addressing the GPU reaches this mapped cudaHostAlloc "
                          "buffer at the CPU's own address");
    return true;
}

/* Registered and write-combined memory are the exceptions of "Exceptions, Disjoint Addressing"
 * (cuda_runtime_api.h): they may have a device address of their own. Which they have is the
 * visible devices' to say: where every one has cudaDevAttrCanUseHostPointerForRegisteredMem,
 * cudaHostGetDevicePointer gives the host pointer back; where one has it 0, another address
 * (cudaHostRegister and cudaHostGetDevicePointer, same header). Step 1 printed the attribute. */
static bool registered_addresses(struct lesson *L)
{
    static const enum kind kinds[2] = {REGISTERED, WRITE_COMBINED};
    static const char *const how[2] = {
        "cudaHostRegister(cudaHostRegisterMapped)",
        "cudaHostAlloc(cudaHostAllocWriteCombined | cudaHostAllocMapped)"};
    int same = L->platform.registered_ptr;
    bool ok = true;
    for (int i = 0; ok && i < 2; i++) {
        void *host = NULL, *dev = NULL;
        ok = ALLOC(mapped_alloc(kinds[i], 64 * KiB, &host, &dev), how[i], 64 * KiB);
        if (ok)
            printf("   %s -> host pointer %p; cudaHostGetDevicePointer -> %p\n", how[i], host, dev);
        if (ok && same >= 0)
            claim(same ? dev == host : dev != host,
                  "%s memory's device address is %s (cudaDevAttrCanUseHostPointerForRegisteredMem "
                  "%s: cuda_runtime_api.h, cudaHostRegister)",
                  kind_name[kinds[i]], same ? "its host pointer" : "one of its own",
                  same ? "1 on every visible device" : "0 on a visible device");
        ok = ok && free_kind(kinds[i], host);
    }
    return ok;
}

bool step_5_zero_copy(struct lesson *L)
{
    size_t bytes = side_bytes(L, ZC_MAX) & ~(size_t)15, words = bytes / 4;
    printf("\n5. Mapped (zero-copy) memory: a kernel reads and writes host memory (%s each way)\n",
           fmt_size(bytes));
    uint32_t *in = NULL, *out = NULL;
    double zc_ms, explicit_ms;
    bool ok = mapped_buffers(L, bytes, &in, &out) && registered_addresses(L);
    struct pass mapped = {in, out, words}, on_device = {L->dev, L->dev2, words},
                explicit = {in, out, words};
    if (ok) {
        fill_host(in, words, 5);
        memset(out, 0, bytes);
    }
    ok = ok && two_ways(L, &mapped, &explicit, &zc_ms, &explicit_ms);
    if (ok) {
        printf("   copy in + the kernel in device memory + copy out: %.3f ms (timed in turn with "
               "zero-copy,\n   %d times each)\n",
               explicit_ms, IN_TURN);
        char why[300];
        if (timings_comparable(L, bytes, why, sizeof why))
            claim(zc_ms < explicit_ms,
                  "for one pass over the data, zero-copy is faster than copy in + kernel "
                  "+ copy out one after the other: %.1fx (its reads and writes use "
                  "the link's two directions at once)",
                  explicit_ms / zc_ms);
        else
            not_judged(why, "for one pass over the data, zero-copy is faster than copy in + "
                            "kernel + copy out");
        ok = pipeline_estimate(L, &explicit, &on_device, zc_ms);
        printf("   Zero-copy suits data the kernel touches once (or only in part), and GPUs that "
               "share the\n"
               "   host's memory; data read many times belongs in device memory, copied once.\n");
    }
    if (in)
        ok = checkRuntime(cudaFreeHost(in)) && ok;
    if (out)
        ok = checkRuntime(cudaFreeHost(out)) && ok;
    return ok;
}
