/*
 * 04_streams_overlap/breaks.c - step 5 of the lesson: what breaks the overlap. Pageable host
 * memory (and why: the calls block the host), and one operation on the legacy default stream
 * between the streams' work (and which streams it joins: the per-thread default stream too).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lesson.h"
#include "work.h"

/* The kernel that the copies of 5a and the memsets of 5b queue behind: all the elements, with
 * enough work to last about 10 ms (at least step 1's kernel), so that a call that returns at
 * once and one that waits for it differ by far more than a call's own cost. */
static int long_work(const struct findings *f)
{
    double w = L.work * (10.0 / f->tk);
    return w < L.work ? L.work : w > 1000000 ? 1000000 : (int)w;
}

/* The kernel of long_work over all the elements, as one chunk (issue_stage). */
static struct pipeline long_kernel(const struct findings *f)
{
    struct pipeline k = lesson_pipeline(L.n, 1, PINNED, L.stream);
    k.work = long_work(f);
    return k;
}

/* The snapshot taken when the call returned equals the buffer now, and holds no poison. */
static bool landed_whole(const float *snapshot, const float *now, size_t n)
{
    uint32_t poison = 0xffffffffu, bits;
    bool same = memcmp(snapshot, now, n * sizeof(float)) == 0;
    for (size_t i = 0; same && i < n; i++) {
        memcpy(&bits, &now[i], sizeof bits);
        same = bits != poison;
    }
    return same;
}

/* How long one cudaMemcpyAsync keeps the host, queued in stream s behind that kernel: host clock
 * around the call alone, and the kernel's own time from events; medians of 3 after a warm-up.
 * With `landed` (a copy from the device): whether the copy was done when the call returned, in
 * every repetition: the host buffer, poisoned before, already held what it holds once the stream
 * has synchronised (a snapshot taken the moment the call returned, compared after), and none of
 * the poison is left. */
static bool call_behind_kernel(const struct findings *f, cudaStream_t s, int op, bool pageable,
                               size_t bytes, double *call_ms, double *kernel_ms, bool *landed)
{
    double t[3], k[3];
    struct pipeline kernel = long_kernel(f);
    /* one chunk of `bytes`, at the buffers' start */
    struct pipeline copy =
        lesson_pipeline(bytes / sizeof(float), 1, pageable ? PAGEABLE : PINNED, L.stream);
    float *snapshot = L.h_out; /* free here: not the pageable copy's own buffer */
    bool check = landed && op == OP_D2H && copy.host_out != snapshot;
    if (landed)
        *landed = check;
    for (int rep = -1; rep < 3; rep++) {
        if (check)
            memset(copy.host_out, 0xff, copy.n * sizeof(float));
        if (!checkRuntime(cudaEventRecord(L.start, s)) || !issue_stage(&kernel, OP_KERNEL, 0, s) ||
            !checkRuntime(cudaEventRecord(L.stop, s)))
            return false;
        double t0 = host_ms();
        bool ok = issue_stage(&copy, op, 0, s);
        double t1 = host_ms();
        if (check)
            memcpy(snapshot, copy.host_out, copy.n * sizeof(float));
        if (!ok || !checkRuntime(cudaStreamSynchronize(s)))
            return false;
        if (check)
            *landed = *landed && landed_whole(snapshot, copy.host_out, copy.n);
        if (rep >= 0) {
            t[rep] = t1 - t0;
            if (!elapsed(L.start, L.stop, &k[rep]))
                return false;
        }
    }
    *call_ms = median_of(t, 3);
    *kernel_ms = median_of(k, 3);
    return true;
}

/* Where the GPU reads pageable memory through the host's own page tables (Grace Hopper's
 * coherent link, ATS) or shares the host's memory (an integrated GPU, Jetson), the driver need
 * not stage a pageable copy through a pinned buffer: what 5a shows is then the driver's choice,
 * not a rule. True, with why, on such a GPU. (HMM on a PCIe card, cudaDevAttrPageableMemoryAccess
 * alone, lets kernels touch pageable memory; its copies are still staged.) */
static bool pageable_read_directly(char *why, size_t len)
{
    if (!L.integrated && !L.host_page_tables)
        return false;
    snprintf(why, len, "this GPU %s: the driver need not stage pageable copies here",
             L.integrated ? "is integrated, sharing the host's memory"
                          : "reads pageable memory through the host's page tables "
                            "(pageableMemoryAccessUsesHostPageTables 1)");
    return true;
}

/* 5a's claims on the calls: ms[kind][direction] (pinned, pageable chunk, pageable small; to,
 * from the device) against the kernel ahead of each, k. */
static void judge_the_calls(double ms[3][2], double k[3][2], bool landed, const char *chunk_s)
{
    if (L.launch_blocking) {
        not_judged("CUDA_LAUNCH_BLOCKING=1: the kernel's launch itself waited for the kernel",
                   "a pageable copy from the device waits for earlier work in its stream");
        return;
    }
    tclaim(ms[0][0] < 0.1 * k[0][0] && ms[0][1] < 0.1 * k[0][1],
           "pinned: both calls returned at once (%.3f and %.3f ms) while the kernel ran", ms[0][0],
           ms[0][1]);
    char why[200];
    if (pageable_read_directly(why, sizeof why)) {
        not_judged(why,
                   "a pageable copy from the device keeps the host until earlier work is done");
        return;
    }
    /* Both halves of "until the kernel and the copy were done" are tested: the call lasted at
     * least 0.9 of the kernel's time, and the copied data was in host memory when it returned. */
    tclaim(ms[1][1] > 0.9 * k[1][1] && landed,
           "pageable, %s from the device: the call kept the host %.2f ms, until the %.2f ms kernel "
           "ahead of it and the copy were done (%s): the next chunk's work is issued only then",
           chunk_s, ms[1][1], k[1][1],
           landed ? "the data was in host memory when the call returned"
                  : "the data was NOT all in host memory when the call returned");
}

/* 5a, the reason: each kind of copy queued behind a kernel, and how long its call blocks. */
static bool why_pageable_blocks(struct findings *f)
{
    size_t chunk = L.bytes / (size_t)f->maxn, small = 64 << 10;
    if (small > chunk)
        small = chunk;
    char chunk_s[32], small_s[32];
    format_bytes(chunk, chunk_s, sizeof chunk_s);
    format_bytes(small, small_s, sizeof small_s);
    double ms[3][2], k[3][2];
    bool landed = false; /* the pageable chunk-sized copy from the device, when its call returned */
    const char *kinds[3] = {"pinned  ", "pageable", "pageable"};
    size_t sizes[3] = {chunk, chunk, small};
    for (int i = 0; i < 3; i++)
        if (!call_behind_kernel(f, L.stream[0], OP_H2D, i > 0, sizes[i], &ms[i][0], &k[i][0],
                                NULL) ||
            !call_behind_kernel(f, L.stream[0], OP_D2H, i > 0, sizes[i], &ms[i][1], &k[i][1],
                                i == 1 ? &landed : NULL))
            return false;
    printf("      why: one cudaMemcpyAsync queued behind a %.2f ms kernel in its stream; how long\n"
           "      the call kept the host (host clock around the call):\n"
           "                           to the device   from the device\n",
           k[0][0]);
    for (int i = 0; i < 3; i++)
        printf("        %s %-9s %9.3f ms      %9.3f ms\n", kinds[i], i == 2 ? small_s : chunk_s,
               ms[i][0], ms[i][1]);
    printf(
        "      (a pageable copy to the device may return early: the driver stages it through a\n"
        "      pinned buffer of its own. NVIDIA's Runtime API reference, \"API synchronization\n"
        "      behavior\": \"If pageable memory must first be staged to pinned memory, the driver\n"
        "      may synchronize with the stream and stage the copy into pinned memory\": the wait\n"
        "      measured above)\n");
    judge_the_calls(ms, k, landed, chunk_s);
    return true;
}

/* 5b, which streams the legacy stream joins: a kernel in the per-thread default stream, or in a
 * non-blocking stream, then a 4-byte memset in the legacy stream: how long until the memset is
 * done (host clock), against the kernel's own time (events in its stream). */
static bool legacy_waits_for(const struct findings *f, cudaStream_t s, double *ms, double *kernel)
{
    struct pipeline k = long_kernel(f);
    double t0 = host_ms();
    if (!checkRuntime(cudaEventRecord(L.start, s)) || !issue_stage(&k, OP_KERNEL, 0, s) ||
        !checkRuntime(cudaEventRecord(L.stop, s)) ||
        !checkRuntime(cudaMemsetAsync(L.d_flag, 0, sizeof(int), 0)) || /* a library's, stream 0 */
        !checkRuntime(cudaStreamSynchronize(0)))
        return false;
    *ms = host_ms() - t0;
    return checkRuntime(cudaDeviceSynchronize()) && elapsed(L.start, L.stop, kernel);
}

static void judge_non_blocking(double nbt, double knb);

static bool per_thread_stream(struct findings *f)
{
    cudaStream_t nb = NULL;
    double pt, nbt, kpt, knb;
    bool ok = streams_create(&nb, 1, NON_BLOCKING) &&
              legacy_waits_for(f, cudaStreamPerThread, &pt, &kpt) &&
              legacy_waits_for(f, nb, &nbt, &knb);
    ok = streams_destroy(&nb, 1, NON_BLOCKING) && ok;
    if (!ok)
        return false;
    printf(
        "      your work in the per-thread default stream (cudaStreamPerThread, what stream 0\n"
        "      means in a file compiled with --default-stream per-thread), a library's 4-byte\n"
        "      memset still in the legacy stream: a %.2f ms kernel there, then the memset: done\n"
        "      after %.2f ms; the kernel in a cudaStreamNonBlocking stream instead: done after\n"
        "      %.2f ms. (Compile ALL the code that uses stream 0 per-thread and there is no\n"
        "      legacy stream left to wait: that is a way out, not measured here)\n",
        kpt, pt, nbt);
    tclaim(pt > 0.9 * kpt,
           "the per-thread default stream is a blocking stream: the legacy stream waited for its "
           "kernel (%.2f of %.2f ms)",
           pt, kpt);
    judge_non_blocking(nbt, knb);
    return true;
}

/* 5b: the legacy stream and a non-blocking stream's kernel (nbt of knb ms). */
static void judge_non_blocking(double nbt, double knb)
{
    char why[480];
    if (L.launch_blocking)
        not_judged("CUDA_LAUNCH_BLOCKING=1: the launch itself waited for the kernel",
                   "the legacy stream does not wait for a non-blocking stream");
    else if (L.connections == 1)
        tclaim(nbt > 0.9 * knb,
               "one hardware queue: the memset waited behind the non-blocking stream's kernel all "
               "the same (%.2f of %.2f ms): a false dependency in the queue, not stream semantics",
               nbt, knb);
    else if (queues_shared(L.nstreams, why, sizeof why))
        not_judged(why,
                   "the legacy stream does not wait for a non-blocking stream (%.2f of the "
                   "kernel's %.2f ms here)",
                   nbt, knb);
    else
        tclaim(nbt < 0.5 * knb,
               "the legacy stream does not wait for a non-blocking stream: done after %.2f of the "
               "kernel's %.2f ms",
               nbt, knb);
}

bool step_5_what_breaks_the_overlap(struct findings *f)
{
    const struct run *seq = f->seq;
    int maxn = f->maxn;
    printf("\n5. What breaks the overlap\n");
    printf("   a) pageable host memory (malloc): the copies go through the driver's staging\n"
           "      buffer, and a call can keep the host until earlier work and its copy are done\n");
    struct run *pseq = new_run(1, PER_STREAM, PAGEABLE, true, false);
    struct run *pstr = new_run(maxn, PER_STREAM, PAGEABLE, false, false);
    if (!measure_rounds((struct run *[]){pseq, pstr}, 2)) /* round by round */
        return false;
    char size_s[32];
    format_bytes(pstr->n * sizeof(float), size_s, sizeof size_s);
    printf("      %s each way (pageable copies are slow: %s), in sequence %.2f ms, %d streams\n"
           "      per stream %.2f ms: %.2fx; overlap %.0f%%\n",
           size_s, pstr->n < L.n ? "a quarter of the data" : "all of it", pseq->median, maxn,
           pstr->median, pseq->median / pstr->median, 100 * pstr->overlap);
    print_timeline("pageable, per stream", pstr);
    claim(pseq->identical && pstr->identical,
          "pageable runs returned the sequential result bit for bit");
    char why[480];
    double spread = run_spread(pseq) > run_spread(pstr) ? run_spread(pseq) : run_spread(pstr);
    printf(
        "      pageableMemoryAccess %d, ...UsesHostPageTables %d, integrated %d: %s\n",
        L.pageable_access, L.host_page_tables, L.integrated,
        L.integrated || L.host_page_tables ? "the GPU can read pageable\n      memory itself, so "
                                             "the driver may copy it without staging"
        : L.pageable_access
            ? "kernels may touch pageable\n      memory (HMM), but copies from it are still staged"
            : "the GPU cannot read pageable\n      memory: every copy from it is staged");
    if (pageable_read_directly(why, sizeof why))
        not_judged(why, "pageable memory loses the overlap: overlap %.0f%%", 100 * pstr->overlap);
    else if (L.untimed[0])
        not_judged(L.untimed, "pageable memory loses the overlap: overlap %.0f%%",
                   100 * pstr->overlap);
    else if (!steady(spread, why, sizeof why))
        claim(pstr->overlap < 0.1,
              "pageable memory loses the overlap: overlap %.0f%% (the times "
              "are not compared: %s)",
              100 * pstr->overlap, why);
    else
        claim(
            pstr->overlap < 0.1,
            "pageable memory loses the overlap: %.2fx over its own sequential run, overlap %.0f%%",
            pseq->median / pstr->median, 100 * pstr->overlap);
    if (!why_pageable_blocks(f))
        return false;

    printf(
        "   b) pinned memory again, but after each stream's work one cudaMemsetAsync of 4 bytes\n"
        "      on the legacy default stream (stream 0); the streams are blocking streams\n");
    struct run *leg = new_run(maxn, PER_STREAM, PINNED, false, true);
    if (!measure_rounds((struct run *[]){leg, f->seq}, 2)) /* the sequence: same rounds */
        return false;
    printf("      %d streams %.2f ms against %.2f ms in sequence: %.2fx; overlap %.0f%%\n", maxn,
           leg->median, seq->median, seq->median / leg->median, 100 * leg->overlap);
    print_timeline("legacy stream between", leg);
    f->legacy_ratio = f->wide ? leg->median / f->wide->median : 1;
    claim(leg->identical,
          "the run with the legacy-stream operations returned the sequential result");
    spread = run_spread(leg) > run_spread(seq) ? run_spread(leg) : run_spread(seq);
    if (L.untimed[0])
        not_judged(L.untimed,
                   "one legacy-stream operation between streams serialises them: "
                   "overlap %.0f%%",
                   100 * leg->overlap);
    else if (!steady(spread, why, sizeof why))
        claim(leg->overlap < 0.1,
              "one legacy-stream operation between streams serialises them: "
              "overlap %.0f%% (the times are not compared: %s)",
              100 * leg->overlap, why);
    else
        claim(leg->overlap < 0.1 && leg->median > 0.9 * seq->median,
              "one legacy-stream operation between streams serialises them: %.2f of the sequential "
              "time",
              leg->median / seq->median);
    return per_thread_stream(f);
}
