/* 03_pinned_memory/proof/step4_staging.c - step 4: why pageable memory is slower. The driver stages a
 * pageable copy through a pinned buffer of its own; the host waits in the call; the CPU's
 * memcpy feeds the copy; and what the CPU measures of write-combined memory. (4b, the copies
 * queued behind a kernel, is in step4b_behind_a_kernel.c.) */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "lesson.h"

#define CALL_REPS 3 /* a): timed calls per kind and direction, after one warm-up */

/* a) How long the host waits in each call (core.c's call_ms), against the whole copy. Each
 * buffer goes to the device (checked there) and comes back into the cleared buffer (checked on
 * the host). call_ms[k][d] / total_ms[k][d]: k 0 pageable, 1 pinned; the medians. */
static bool call_and_copy(struct lesson *L, void *buf[2], size_t bytes, double call[2][DIRS],
                          double total[2][DIRS])
{
    size_t words = bytes / 4, bad = 0;
    for (int k = 0; k < 2; k++) {
        fill_host(buf[k], words, 1);
        if (!checkRuntime(cudaMemsetAsync(L->dev, 0, bytes, L->stream)))
            return false;
        for (int d = 0; d < DIRS; d++) {
            double c[CALL_REPS + 1], t[CALL_REPS + 1];
            unsigned long long bad_dev = 0;
            if (d == D2H)
                memset(buf[k], 0, bytes);
            for (int r = 0; r <= CALL_REPS; r++) /* the first is a warm-up */
                if (!(d == H2D ? call_ms(L->dev, buf[k], bytes, cudaMemcpyHostToDevice, L->stream,
                                         &c[r], &t[r])
                               : call_ms(buf[k], L->dev, bytes, cudaMemcpyDeviceToHost, L->stream,
                                         &c[r], &t[r])))
                    return false;
            call[k][d] = median_of(c + 1, CALL_REPS);
            total[k][d] = median_of(t + 1, CALL_REPS);
            if (d == H2D && !device_mismatches(L, L->dev, words, 1, &bad_dev))
                return false;
            bad += d == H2D ? (size_t)bad_dev : host_mismatches(buf[k], words, 1);
        }
    }
    for (int k = 0; k < 2; k++)
        for (int d = 0; d < DIRS; d++)
            printf("   %-8s %s: cudaMemcpyAsync returned after %.3f ms (%.1f us), the copy was "
                   "done after %.3f ms (%.1f%%)\n",
                   k ? "pinned" : "pageable", dir_name[d], call[k][d], 1e3 * call[k][d],
                   total[k][d], 100 * call[k][d] / total[k][d]);
    claim(bad == 0, "every one of these copies delivered its data intact (%zu wrong words)", bad);
    return true;
}

static void judge_calls(struct lesson *L, size_t bytes, double call_ms[2][DIRS],
                        double total_ms[2][DIRS])
{
    double most = call_ms[1][H2D] > call_ms[1][D2H] ? call_ms[1][H2D] : call_ms[1][D2H];
    double frac =
        most / (total_ms[1][H2D] < total_ms[1][D2H] ? total_ms[1][H2D] : total_ms[1][D2H]);
    L->copies_block = frac >= 0.5;
    const char *pageable =
                   "at this size, from pageable memory cudaMemcpyAsync returns only when the "
                   "copy is done",
               *pinned = "from pinned memory it returns at once";
    char why[300];
    if (bytes < WIDE)
        snprintf(why, sizeof why,
                 "copies under 16 MiB are too short to time against the call "
                 "(--max 16M or more)");
    if (bytes < WIDE || under_tool(why, sizeof why)) {
        not_judged(why, "%s", pageable);
        not_judged(why, "%s", pinned);
        return;
    }
    double least = call_ms[0][H2D] / total_ms[0][H2D];
    double d2h = call_ms[0][D2H] / total_ms[0][D2H];
    least = d2h < least ? d2h : least;
    if (L->pageable_direct)
        not_judged("this GPU reaches pageable memory itself: the driver need not stage the copy",
                   "%s (here at %.1f%% of it)", pageable, 100 * least);
    else
        claim(least >= 0.9,
              "at %s, from pageable memory cudaMemcpyAsync returned only when the copy "
              "was (nearly) done: at %.1f%% of it or later",
              fmt_size(bytes), 100 * least);
    if (L->launch_blocking && frac >= 0.05)
        not_judged("CUDA_LAUNCH_BLOCKING=1 is set and this call waited for its copy",
                   "%s (here it returned at %.1f%% of the copy)", pinned, 100 * frac);
    else
        claim(frac < 0.05, "%s: after %.1f us at most, %.2f%% of the copy's time", pinned,
              1e3 * most, 100 * frac);
}

/* c) The CPU half of staging: memcpy from pageable into pinned memory, the whole buffer at once
 * and in STAGE_CHUNK pieces into one small pinned buffer (as the driver's staging buffer is
 * reused); the faster of the two is what the CPU can feed. Round by round with the staged
 * (pageable) and the pinned copy to the device, so that a slow moment reaches all four alike:
 * rate[] = memcpy whole, memcpy in pieces, staged copy, pinned copy (GB/s, medians). */
static bool feed_rates(struct lesson *L, void *pageable, void *pinned, size_t bytes, double rate[4])
{
    double t[4][CALL_REPS], unused;
    size_t chunk = bytes < STAGE_CHUNK ? bytes : STAGE_CHUNK;
    for (int r = 0; r <= CALL_REPS; r++) { /* the first is a warm-up */
        double t0 = host_ms(), done[2];
        memcpy(pinned, pageable, bytes);
        double t1 = host_ms();
        for (size_t off = 0; off < bytes; off += chunk)
            memcpy(pinned, (char *)pageable + off, bytes - off < chunk ? bytes - off : chunk);
        double t2 = host_ms();
        for (int k = 0; k < 2; k++)
            if (!call_ms(L->dev, k ? pinned : pageable, bytes, cudaMemcpyHostToDevice, L->stream,
                         &unused, &done[k]))
                return false;
        if (r > 0) {
            t[0][r - 1] = gbps(bytes, t1 - t0);
            t[1][r - 1] = gbps(bytes, t2 - t1);
            t[2][r - 1] = gbps(bytes, done[0]);
            t[3][r - 1] = gbps(bytes, done[1]);
        }
    }
    for (int i = 0; i < 4; i++)
        rate[i] = median_of(t[i], CALL_REPS);
    return true;
}

static bool memcpy_feeds(struct lesson *L, void *pageable, void *pinned, size_t bytes)
{
    double rate[4];
    if (!feed_rates(L, pageable, pinned, bytes, rate))
        return false;
    double w = rate[0], c = rate[1], staged = rate[2], pinned_gbps = rate[3];
    double best = w > c ? w : c;
    printf("   c) the CPU copies pageable into pinned memory (memcpy) at %.1f GB/s whole, %.1f "
           "GB/s in\n"
           "   %s pieces into one pinned buffer; the staged pageable H2D copy ran at %.1f GB/s,\n"
           "   the pinned one at %.1f GB/s (the four in turn, %d rounds)\n",
           w, c, fmt_size(bytes < STAGE_CHUNK ? bytes : STAGE_CHUNK), staged, pinned_gbps,
           CALL_REPS);
    /* Which does the staged copy run like: the CPU's memcpy or the pinned copy? (ratios on a
     * log scale: 0.8x of one is closer than 0.2x of the other). Only where the two paces are
     * apart: where memcpy is about as fast as the link (PCIe Gen3, x8, laptops) either answer
     * is a coin flip. */
    const char *what = "the staged copy runs at the CPU's pace, not the link's";
    double to_cpu = staged / best, to_dma = staged / pinned_gbps, apart = best / pinned_gbps;
    double off_cpu = to_cpu > 1 ? to_cpu : 1 / to_cpu, off_dma = to_dma > 1 ? to_dma : 1 / to_dma;
    apart = apart > 1 ? apart : 1 / apart;
    char why[300];
    if (!timings_comparable(L, bytes, why, sizeof why))
        not_judged(why, "%s", what);
    else if (L->pageable_direct)
        not_judged("this GPU reaches pageable memory itself: the driver need not stage the copy",
                   "%s", what);
    else if (apart < 1.5)
        not_judged(
            "the CPU's memcpy and the pinned copy are within 1.5x of each other here, so the "
            "staged copy cannot show whose pace it keeps",
            "%s (%.0f%% of the faster memcpy, "
            "%.0f%% of the pinned copy)",
            what, 100 * to_cpu, 100 * to_dma);
    else
        claim(off_cpu < off_dma, "%s: %.0f%% of the faster memcpy, %.0f%% of the pinned copy", what,
              100 * to_cpu, 100 * to_dma);
    return true;
}

static volatile uint64_t read_sink;

/* GB/s of the CPU reading p: plain 8-byte loads, or (streaming) 16-byte MOVNTDQA loads, which
 * fetch a whole line of write-combined memory at once (on cached memory they are ordinary
 * loads). Stops after `bytes` or READ_MS, so that slow memory stays quick to measure. */
#if defined(__x86_64__)
#include <immintrin.h>
__attribute__((target("sse4.1"))) static uint64_t stream_sum(const void *p, size_t bytes)
{
    __m128i acc = _mm_setzero_si128();
    for (size_t i = 0; i < bytes / 16; i++)
        acc = _mm_add_epi64(acc, _mm_stream_load_si128((__m128i *)((uintptr_t)p + 16 * i)));
    return (uint64_t)_mm_cvtsi128_si64(acc);
}
static bool have_streaming_loads(void)
{
    return __builtin_cpu_supports("sse4.1");
}
#else
static uint64_t stream_sum(const void *p, size_t bytes)
{
    (void)p;
    (void)bytes;
    return 0;
}
static bool have_streaming_loads(void)
{
    return false;
}
#endif

static uint64_t plain_sum(const void *p, size_t bytes)
{
    const volatile uint64_t *w = p;
    uint64_t sum = 0;
    for (size_t i = 0; i < bytes / 8; i++)
        sum += w[i];
    return sum;
}

static double host_read_gbps(const void *p, size_t bytes, bool streaming)
{
    const size_t piece = 256 * KiB;
    size_t done = 0;
    double t0 = host_ms(), t = t0;
    while (done + piece <= bytes && t - t0 < READ_MS) {
        const char *at = (const char *)p + done;
        read_sink += streaming ? stream_sum(at, piece) : plain_sum(at, piece);
        done += piece;
        t = host_ms();
    }
    return gbps(done, t - t0);
}

static bool cpu_reports_hypervisor(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[4096];
    bool found = false;
    while (f && !found && fgets(line, sizeof line, f))
        found = strncmp(line, "flags", 5) == 0 && strstr(line, " hypervisor");
    if (f)
        fclose(f);
    return found;
}

/* Does the CPU read write-combined memory much slower, as NVIDIA's guidance says? Judged where
 * streaming loads show the CPU treats the pages as write-combining: uncached write-combining
 * memory gains several times more from whole-line loads than cached memory does; no more gain
 * means the CPU cached these pages like any other. rate[pinned, wc][plain, streaming]. */
static void judge_wc(double rate[2][2], bool streaming)
{
    double pinned_plain = rate[0][0], wc_plain = rate[1][0];
    double gain_pinned = streaming ? rate[0][1] / pinned_plain : 0;
    double gain_wc = streaming ? rate[1][1] / wc_plain : 0;
    const char *what =
        "the CPU reads write-combined memory much slower than ordinary pinned memory";
    char why[480];
    if (under_tool(why, sizeof why)) {
        not_judged(why, "%s (%.1fx here)", what, pinned_plain / wc_plain);
    } else if (!streaming) {
        not_judged("no streaming loads on this CPU to tell whether it treats these pages as "
                   "write-combining",
                   "%s (%.1fx here)", what, pinned_plain / wc_plain);
    } else if (gain_wc < 2 * gain_pinned) {
        snprintf(why, sizeof why,
                 "this machine contradicts the guidance: streaming loads read "
                 "it %.1fx as fast as plain loads, and ordinary pinned memory %.1fx (under twice "
                 "that gain; uncached write-combining memory gains several times more), so the "
                 "CPU did not treat these pages as write-combining%s",
                 gain_wc, gain_pinned,
                 cpu_reports_hypervisor() ? "; the CPU reports a hypervisor, and a virtual "
                                            "machine's memory type can be overridden by the "
                                            "host's mapping"
                                          : "");
        not_judged(why, "%s (%.1fx here)", what, pinned_plain / wc_plain);
    } else {
        claim(wc_plain * 2 <= pinned_plain,
              "%s: %.1fx slower with plain loads; streaming loads, "
              "which fetch a whole line, read it %.1fx faster than plain ones (ordinary pinned "
              "memory %.1fx)",
              what, pinned_plain / wc_plain, gain_wc, gain_pinned);
    }
}

/* d) Write-combined memory as the CPU sees it: reading it back (plain and streaming loads, over
 * a buffer larger than the caches), and (step 3) filling it. Ordinary pinned memory read both ways
 * is the control: streaming loads gain a little on cached memory too (16-byte loads), several times
 * more on uncached write-combining memory. Each of the four readings is the fastest of WC_ROUNDS,
 * taken in turn, so that a neighbour busy for a moment slows one round, not one reading. */
static void read_rates(void *pinned, void *wc, size_t bytes, bool streaming, double rate[2][2])
{
    (void)host_read_gbps(pinned, bytes, false); /* a warm-up for the reading code */
    for (int round = 0; round < WC_ROUNDS; round++)
        for (int kind = 0; kind < 2; kind++)
            for (int way = 0; way < (streaming ? 2 : 1); way++) {
                double r = host_read_gbps(kind ? wc : pinned, bytes, way == 1);
                if (r > rate[kind][way])
                    rate[kind][way] = r;
            }
}

static bool write_combined(struct lesson *L)
{
    size_t bytes = WC_READ_MAX;
    void *pinned = NULL, *wc = NULL;
    bool ok = alloc_kind(PINNED, bytes, &pinned) && alloc_kind(WRITE_COMBINED, bytes, &wc);
    if (ok) {
        memset(pinned, 1, bytes);
        memset(wc, 1, bytes);
        bool streaming = have_streaming_loads();
        double rate[2][2] = {{0, 0}, {0, 0}}; /* [pinned, write-combined][plain, streaming] */
        read_rates(pinned, wc, bytes, streaming, rate);
        printf("   d) the CPU reads ordinary pinned memory at %.2f GB/s, write-combined memory at "
               "%.2f GB/s\n"
               "   (pinned/write-combined %.1fx) with plain loads",
               rate[0][0], rate[1][0], rate[0][0] / rate[1][0]);
        if (streaming)
            printf(", and at %.2f and %.2f GB/s (%.1fx and %.1fx\n   as fast) with streaming loads "
                   "(MOVNTDQA)",
                   rate[0][1], rate[1][1], rate[0][1] / rate[0][0], rate[1][1] / rate[1][0]);
        printf("; each rate the fastest of %d rounds", WC_ROUNDS);
        printf(";\n   it first filled new memory (step 3) at %.2f GB/s pinned, %.2f GB/s "
               "write-combined\n",
               L->fill_gbps[PINNED], L->fill_gbps[WRITE_COMBINED]);
        printf("   NVIDIA's guidance (CUDA C++ Programming Guide, \"Write-Combining Memory\"): "
               "reading it\n"
               "   from the host is \"prohibitively slow\"; use it for buffers the host only "
               "writes.\n");
        judge_wc(rate, streaming);
    }
    if (pinned)
        ok = free_kind(PINNED, pinned) && ok;
    if (wc)
        ok = free_kind(WRITE_COMBINED, wc) && ok;
    return ok;
}

bool step_4_staging(struct lesson *L)
{
    size_t bytes = side_bytes(L, SIDE_MAX);
    printf("\n4. Why pageable memory is slower: the driver stages it (%s copies)\n",
           fmt_size(bytes));
    printf(
        "   The copy engine reads and writes only page-locked memory, so for pageable memory the\n"
        "   driver copies, chunk by chunk, through a pinned buffer of its own (a CPU memcpy plus\n"
        "   DMA). NVIDIA's CUDA Runtime API, \"API synchronization behavior\": \"If pageable "
        "memory\n"
        "   must first be staged to pinned memory, the driver may synchronize with the stream and\n"
        "   stage the copy into pinned memory\"; a) and b) measure that wait.\n");
    void *buf[2] = {NULL, NULL}; /* pageable, pinned */
    bool ok = true;
    double call_ms[2][DIRS], total_ms[2][DIRS];
    if (!alloc_kind(PAGEABLE, bytes, &buf[0]))
        return false;
    if (!alloc_kind(PINNED, bytes, &buf[1])) {
        ok = false;
        goto cleanup;
    }
    printf("   a) one copy at a time, the host clock around the call and around call + "
           "synchronize:\n");
    ok = call_and_copy(L, buf, bytes, call_ms, total_ms);
    if (ok)
        judge_calls(L, bytes, call_ms, total_ms);
    ok = ok && step_4b_behind_a_kernel(L);
    ok = ok && memcpy_feeds(L, buf[0], buf[1], bytes);
    ok = ok && write_combined(L);
cleanup:
    ok = free_kind(PAGEABLE, buf[0]) && ok;
    if (buf[1])
        ok = free_kind(PINNED, buf[1]) && ok;
    return ok;
}
