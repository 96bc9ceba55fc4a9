/* 03_pinned_memory/step5_zero_copy.c - step 5: mapped (zero-copy) memory, a kernel that reads and
 * writes host memory directly, against copy in + kernel + copy out. */
#include <string.h>

#include "lesson.h"
#include "pattern.h"

/* The kernel out = 3 * in + 1, on whatever memory in and out point to. */
struct pass {
    const uint32_t *in;
    uint32_t *out;
    size_t words;
};

static bool enqueue_kernel(struct lesson *L, void *arg)
{
    const struct pass *p = arg;
    return checkRuntime(kernel_pass(p->in, p->out, p->words, L->stream));
}

/* Copy in, the kernel in device memory, copy out: in and out are the host buffers here. */
static bool enqueue_explicit(struct lesson *L, void *arg)
{
    const struct pass *p = arg;
    return checkRuntime(explicit_pass(p->in, p->out, L->dev, L->dev2, p->words, L->stream));
}

static bool enqueue_copy_in(struct lesson *L, void *arg)
{
    const struct pass *p = arg;
    return checkRuntime(copy((void *)p->in, L->dev, p->words * 4, H2D, L->stream));
}

static bool enqueue_copy_out(struct lesson *L, void *arg)
{
    const struct pass *p = arg;
    return checkRuntime(copy(p->out, L->dev2, p->words * 4, D2H, L->stream));
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
 * estimate from this run's rates, without per-chunk costs. */
static bool pipeline_estimate(struct lesson *L, struct pass *host, double kernel_ms, double zc_ms)
{
    double in_ms, out_ms, both_ms;
    if (!time_median5(L, enqueue_copy_in, host, &in_ms) ||
        !time_median5(L, enqueue_copy_out, host, &out_ms) ||
        !time_median5(L, enqueue_in_and_out, host, &both_ms))
        return false;
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

bool step_5_zero_copy(struct lesson *L)
{
    size_t bytes = side_bytes(L, ZC_MAX) & ~(size_t)15, words = bytes / 4;
    printf("\n5. Mapped (zero-copy) memory: a kernel reads and writes host memory (%s each way)\n",
           fmt_size(bytes));
    uint32_t *in = NULL, *out = NULL, *din = NULL, *dout = NULL;
    bool ok = true;
    if (!host_alloc_mapped(bytes, (void **)&in) || !host_alloc_mapped(bytes, (void **)&out) ||
        !mapped_pointer(in, (void **)&din) || !mapped_pointer(out, (void **)&dout)) {
        ok = false;
        goto cleanup;
    }
    printf("   cudaHostAlloc(cudaHostAllocMapped) -> host pointer %p; cudaHostGetDevicePointer -> "
           "%p\n",
           (void *)in, (void *)din);
    if (L->prop.unifiedAddressing)
        claim(din == in, "with unified addressing the GPU uses the very same address as the CPU");
    fill_host(in, words, 5);
    memset(out, 0, bytes);

    /* Zero-copy: the kernel's loads and stores cross PCIe, no cudaMemcpy at all. */
    double zc_ms, kernel_ms, explicit_ms;
    struct pass mapped = {din, dout, words}, on_device = {L->dev, L->dev2, words},
                explicit = {in, out, words};
    if (!time_median5(L, enqueue_kernel, &mapped, &zc_ms)) {
        ok = false;
        goto cleanup;
    }
    size_t bad = wrong_results(out, words);
    printf(
        "   the kernel over mapped memory: %.3f ms, %.1f GB/s read + %.1f GB/s written at once\n",
        zc_ms, gbps(bytes, zc_ms), gbps(bytes, zc_ms));
    claim(bad == 0, "the kernel's results in host memory are right (%zu wrong words)", bad);

    /* The explicit way: copy in, the same kernel in device memory, copy out. */
    if (!time_median5(L, enqueue_kernel, &on_device, &kernel_ms) ||
        !time_median5(L, enqueue_explicit, &explicit, &explicit_ms)) {
        ok = false;
        goto cleanup;
    }
    bad = wrong_results(out, words);
    printf(
        "   copy in + the kernel in device memory + copy out: %.3f ms (the kernel alone %.3f ms)\n",
        explicit_ms, kernel_ms);
    claim(bad == 0, "the explicit way gives the same results (%zu wrong words)", bad);
    char why[300];
    if (timings_comparable(L, bytes, why, sizeof why)) {
        /* Where zero-copy came out no faster, both are timed again, one of each in turn: a slow
         * moment of the host during one of the two timings above is then in both. (An H100
         * once ran the kernel over mapped memory at 22.1 GB/s each way, half its usual rate,
         * while the copies timed just after kept theirs: a false [FAIL].) */
        if (zc_ms >= explicit_ms) {
            if (!time_in_turn(L, 0, enqueue_kernel, &mapped, enqueue_explicit, &explicit, &zc_ms,
                              &explicit_ms)) {
                ok = false;
                goto cleanup;
            }
            printf("   zero-copy no faster here; timed again, one of each in turn, %d times: "
                   "zero-copy "
                   "%.3f ms, explicit %.3f ms\n",
                   IN_TURN, zc_ms, explicit_ms);
        }
        claim(zc_ms < explicit_ms,
              "for one pass over the data, zero-copy is faster than copy in + kernel "
              "+ copy out one after the other: %.1fx (its reads and writes use "
              "the link's two directions at once)",
              explicit_ms / zc_ms);
    } else
        not_judged(
            why,
            "for one pass over the data, zero-copy is faster than copy in + kernel + copy out");
    if (!pipeline_estimate(L, &explicit, kernel_ms, zc_ms)) {
        ok = false;
        goto cleanup;
    }
    printf("   Zero-copy suits data the kernel touches once (or only in part), and GPUs that share "
           "the\n"
           "   host's memory; data read many times belongs in device memory, copied once.\n");
cleanup:
    if (in)
        ok = host_free(PINNED, in) && ok;
    if (out)
        ok = host_free(PINNED, out) && ok;
    return ok;
}
