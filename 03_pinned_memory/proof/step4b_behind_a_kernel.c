/* 03_pinned_memory/proof/step4b_behind_a_kernel.c - step 4 b): when does cudaMemcpyAsync return?
 * Each copy is queued behind a kernel of about 20 ms in the same stream; the host clock says
 * whether the call came back at once (the copy queued) or only after the kernel; for a copy into
 * pageable memory the host buffer, checked the moment the call returns, says whether the copy
 * was done too; for a copy from pageable memory, the host buffer overwritten the moment the call
 * returns says whether the driver had taken the data already (staged it). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "lesson.h"

#define SPIN_NS     20000000ull /* the kernel ahead of each copy: 20 ms */
#define ASYNC_SIZES 4

struct behind {
    double kernel_ms;                      /* the kernel alone, events */
    double returned[2][DIRS][ASYNC_SIZES]; /* [pageable, pinned]: ms until the call returned */
    double launch_ms;                      /* the longest kernel launch call, host clock */
    size_t d2h_missing; /* pageable D2H: words not yet in host memory when the call returned */
    size_t h2d_changed[ASYNC_SIZES]; /* pageable H2D: words the device got from after the call */
    size_t sizes[ASYNC_SIZES];
    int n;
};

static bool enqueue_spin(struct lesson *L, void *arg)
{
    (void)arg;
    return checkRuntime(launch_spin(SPIN_NS, L->stream));
}

/* One row: a kernel of spin_ns, then the copy, in L->stream. With `missing` (a copy into pageable
 * memory), the device buffer gets a pattern first and the cleared host buffer is checked as soon
 * as the call returns, before anything synchronises: *missing counts the words not there yet.
 * With `changed` (a copy from pageable memory), the host buffer holds a pattern at the call and
 * is overwritten as soon as the call returns: *changed counts the device's words that are not
 * the pattern, after the stream is done (0: the copy took the data as it was at the call). */
static bool one_copy(struct lesson *L, void *host, size_t bytes, enum dir d,
                     unsigned long long spin_ns, double *launch, double *returned, size_t *missing,
                     size_t *changed)
{
    size_t words = bytes / 4;
    uint32_t seed = 41 + (uint32_t)words;
    if (missing) {
        memset(host, 0, bytes);
        if (!checkRuntime(launch_fill_pattern(L->dev, words, seed, L->stream)))
            return false;
    }
    if (changed)
        fill_host(host, words, seed);
    double t0 = host_ms();
    if (!checkRuntime(launch_spin(spin_ns, L->stream)))
        return false;
    double t1 = host_ms();
    if (!checkRuntime(copy_dir(host, L->dev, bytes, d, L->stream)))
        return false;
    double t2 = host_ms();
    *launch = t1 - t0;
    *returned = t2 - t1;
    if (missing)
        *missing = host_mismatches(host, words, seed);
    if (changed) /* a DMA that reads the host buffer later would take these bytes */
        memset(host, 0xa5, bytes);
    unsigned long long bad = 0;
    bool ok = checkRuntime(cudaStreamSynchronize(L->stream)) &&
              (!changed || device_mismatches(L, L->dev, words, seed, &bad));
    if (changed)
        *changed = (size_t)bad;
    return ok;
}

static bool measure_rows(struct lesson *L, struct behind *b, void *buf[2])
{
    double ms[3],
        launch; /* the kernel alone: the median of 3, so one slow reading decides nothing */
    if (!time_events(L, 1, 3, enqueue_spin, NULL, ms))
        return false;
    b->kernel_ms = median_of(ms, 3);
    b->launch_ms = 0;
    b->d2h_missing = 0;
    /* an untimed round first, behind short kernels: the driver sets up its staging buffers at
     * the first copies */
    for (int round = 0; round < 2; round++)
        for (int k = 0; k < 2; k++)
            for (int si = 0; si < b->n; si++)
                for (int d = 0; d < DIRS; d++) {
                    double *r = &b->returned[k][d][si];
                    size_t missing = 0, changed = 0;
                    bool check = k == 0 && d == D2H; /* pageable, into host memory */
                    bool from = k == 0 && d == H2D;  /* pageable, from host memory */
                    if (!one_copy(L, buf[k], b->sizes[si], (enum dir)d,
                                  round ? SPIN_NS : SPIN_NS / 20, &launch, r,
                                  check ? &missing : NULL, from ? &changed : NULL))
                        return false;
                    if (round)
                        b->d2h_missing += missing;
                    if (round && from)
                        b->h2d_changed[si] = changed;
                    b->launch_ms = launch > b->launch_ms ? launch : b->launch_ms;
                }
    return true;
}

static void print_rows(const struct behind *b)
{
    printf(
        "   b) each copy queued behind a %.1f ms kernel in the same stream; ms until "
        "cudaMemcpyAsync\n"
        "   returned (at once: the copy was queued; about the kernel's time or more: it waited):\n",
        b->kernel_ms);
    printf("   %10s  %12s  %12s  %12s  %12s\n", "size", "pageable H2D", "pageable D2H",
           "pinned H2D", "pinned D2H");
    for (int si = 0; si < b->n; si++)
        printf("   %10s  %12.3f  %12.3f  %12.3f  %12.3f\n", fmt_size(b->sizes[si]),
               b->returned[0][H2D][si], b->returned[0][D2H][si], b->returned[1][H2D][si],
               b->returned[1][D2H][si]);
}

static void judge_rows(const struct lesson *L, const struct behind *b)
{
    double k = b->kernel_ms, pinned_most = 0, d2h_least = 1e30;
    for (int si = 0; si < b->n; si++)
        for (int d = 0; d < DIRS; d++)
            pinned_most = b->returned[1][d][si] > pinned_most ? b->returned[1][d][si] : pinned_most;
    for (int si = 0; si < b->n; si++)
        d2h_least = b->returned[0][D2H][si] < d2h_least ? b->returned[0][D2H][si] : d2h_least;
    char why[300] = "the kernel launch itself waited for the kernel (CUDA_LAUNCH_BLOCKING=1, or a "
                    "tool that serialises launches), so no copy queued behind it";
    bool launch_waited = b->launch_ms >= 0.5 * k;
    double small = b->returned[0][H2D][0], large = b->returned[0][H2D][b->n - 1];
    size_t large_size = b->sizes[b->n - 1];
    const char *pinned =
                   "from pinned memory every copy returned before the kernel ahead of it ended",
               *d2h = "device to pageable memory: every size waited for the kernel and the copy";
    char small_text[120], large_text[120];
    snprintf(small_text, sizeof small_text, "pageable host-to-device copies of %s returned at once",
             fmt_size(b->sizes[0]));
    snprintf(large_text, sizeof large_text,
             "pageable host-to-device copies of %s waited for the "
             "kernel ahead",
             fmt_size(large_size));
    if (L->launch_blocking)
        claim(launch_waited,
              "with CUDA_LAUNCH_BLOCKING=1 the kernel launch itself waited for the "
              "kernel (%.1f ms of %.1f ms): nothing can queue behind it",
              b->launch_ms, k);
    if (launch_waited || under_tool(why, sizeof why)) {
        not_judged(why, "%s", pinned);
        not_judged(why, "%s", d2h);
        not_judged(why, "%s", small_text);
        not_judged(why, "%s", large_text);
        return;
    }
    claim(pinned_most < 0.5 * k, "%s (%.3f ms at most, of %.1f ms)", pinned, pinned_most, k);
    if (L->pageable_direct) {
        const char *direct = "this GPU reaches pageable memory itself: the driver need not stage "
                             "pageable copies";
        not_judged(direct, "%s", d2h);
        not_judged(direct, "%s", small_text);
        not_judged(direct, "%s", large_text);
        return;
    }
    claim(d2h_least >= 0.9 * k && b->d2h_missing == 0,
          "%s (%.1f ms or more, and the data was in host memory when the call returned: %zu words "
          "missing, checked before any synchronisation): the wait NVIDIA documents for a copy "
          "that must be staged, \"the driver may synchronize with the stream and stage the copy "
          "into pinned memory\", here at every size",
          d2h, d2h_least, b->d2h_missing);
    claim(small < 0.5 * k && b->h2d_changed[0] == 0,
          "%s (%.3f ms), and the GPU got the data as it was at the call, though the host buffer "
          "was overwritten as soon as the call returned (%zu words differ): the driver staged "
          "the data and queued the DMA",
          small_text, small, b->h2d_changed[0]);
    if (large_size >= WIDE)
        claim(large >= 0.9 * k,
              "%s (%.1f ms): the host thread was held until earlier work was done", large_text,
              large);
    else
        not_judged("no copy of 16 MiB or more here (--max 16M or more)",
                   "pageable host-to-device copies of 16 MiB or more waited for the kernel");
}

bool step_4b_behind_a_kernel(struct lesson *L)
{
    static const size_t want[ASYNC_SIZES] = {4 * KiB, 64 * KiB, 1 * MiB, 16 * MiB};
    size_t side = side_bytes(L, SIDE_MAX);
    struct behind b = {0};
    for (int i = 0; i < ASYNC_SIZES; i++)
        if (want[i] <= side)
            b.sizes[b.n++] = want[i];
    void *buf[2] = {NULL, NULL};
    size_t bytes = b.sizes[b.n - 1];
    bool ok = true;
    if (!alloc_kind(PAGEABLE, bytes, &buf[0]))
        return false;
    memset(buf[0], 0, bytes);
    if (!alloc_kind(PINNED, bytes, &buf[1]) || !measure_rows(L, &b, buf)) {
        ok = false;
        goto cleanup;
    }
    print_rows(&b);
    judge_rows(L, &b);
    printf("   A copy that waits holds the host thread: it cannot queue other streams' work "
           "meanwhile,\n"
           "   which is why lesson 04 overlaps copies and kernels from pinned memory only.\n");
cleanup:
    ok = free_kind(PAGEABLE, buf[0]) && ok;
    if (buf[1])
        ok = free_kind(PINNED, buf[1]) && ok;
    return ok;
}
