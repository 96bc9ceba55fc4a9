/* 03_pinned_memory/staging.c - step 4: why pageable memory is slower. The driver stages a
 * pageable copy through a pinned buffer of its own; the CPU's memcpy feeds it; and the CPU
 * reads write-combined memory differently from ordinary pinned memory. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "lesson.h"

static volatile uint64_t read_sink;

static double host_read_gbps(const void *p, size_t bytes)
{
    const volatile uint64_t *w = p;
    double best = 0;
    for (int r = 0; r < 3; r++) {
        uint64_t sum = 0;
        double t0 = host_ms();
        for (size_t i = 0; i < bytes / 8; i++)
            sum += w[i];
        double g = gbps(bytes, host_ms() - t0);
        read_sink = sum;
        best = g > best ? g : best;
    }
    return best;
}

bool step_4_staging(struct lesson *L)
{
    size_t bytes = L->opt.max < SIDE_MAX ? L->opt.max : SIDE_MAX, words = bytes / 4;
    size_t wc_bytes = bytes < WC_READ_MAX ? bytes : WC_READ_MAX;
    printf("\n4. Why pageable memory is slower: the driver stages it (%s copies)\n", fmt_size(bytes));
    printf("   The copy engine can only read and write page-locked memory, so for pageable memory the\n"
           "   driver copies, chunk by chunk, through a pinned buffer of its own (a CPU memcpy plus\n"
           "   DMA), and cudaMemcpyAsync cannot return before the CPU part is done.\n");
    void *pageable = NULL, *pinned = NULL, *wc = NULL;
    bool ok = true;
    double call_ms[2][DIRS], total_ms[2][DIRS], memcpy_gbps = 0;
    if (posix_memalign(&pageable, 4096, bytes) != 0) {
        pageable = NULL;
        fprintf(stderr, "%s: posix_memalign could not allocate %s of pageable memory\n", lesson_prog,
                fmt_size(bytes));
        return false;
    }
    if (!ALLOC(cudaMallocHost(&pinned, bytes), "cudaMallocHost", bytes) ||
        !ALLOC(cudaHostAlloc(&wc, wc_bytes, cudaHostAllocWriteCombined),
               "cudaHostAlloc(cudaHostAllocWriteCombined)", wc_bytes)) {
        ok = false;
        goto cleanup;
    }
    memset(wc, 1, wc_bytes);

    /* a) How long the host waits in the call, against the whole copy. Each buffer goes to the
     * device (checked there) and comes back into the cleared buffer (checked on the host). */
    size_t bad = 0;
    for (int k = 0; k < 2; k++) {
        uint32_t *h = k == 0 ? pageable : pinned;
        fill_host(h, words, 1);
        if (!checkRuntime(cudaMemsetAsync(L->dev, 0, bytes, L->stream))) {
            ok = false;
            goto cleanup;
        }
        for (int d = 0; d < DIRS; d++) {
            double call[5], total[5];
            if (d == D2H)
                memset(h, 0, bytes);
            for (int r = 0; r < 6; r++) { /* the first is a warm-up */
                double t0 = host_ms();
                if (!checkRuntime(copy(h, L->dev, bytes, (enum dir)d, L->stream))) {
                    ok = false;
                    goto cleanup;
                }
                double t1 = host_ms();
                if (!checkRuntime(cudaStreamSynchronize(L->stream))) {
                    ok = false;
                    goto cleanup;
                }
                double t2 = host_ms();
                if (r > 0) {
                    call[r - 1] = t1 - t0;
                    total[r - 1] = t2 - t0;
                }
            }
            call_ms[k][d] = median_of(call, 5);
            total_ms[k][d] = median_of(total, 5);
            unsigned long long bad_dev = 0;
            if (d == H2D && !device_mismatches(L, L->dev, words, 1, &bad_dev)) {
                ok = false;
                goto cleanup;
            }
            bad += d == H2D ? (size_t)bad_dev : host_mismatches(h, words, 1);
        }
    }
    for (int k = 0; k < 2; k++)
        for (int d = 0; d < DIRS; d++)
            printf("   %-8s %s: cudaMemcpyAsync returned after %.3f ms (%.1f us), the copy was done "
                   "after %.3f ms (%.1f%%)\n", k ? "pinned" : "pageable", dir_name[d], call_ms[k][d],
                   1e3 * call_ms[k][d], total_ms[k][d], 100 * call_ms[k][d] / total_ms[k][d]);
    claim(bad == 0, "every one of these copies delivered its data intact (%zu wrong words)", bad);
    if (bytes >= WIDE) {
        double least = call_ms[0][H2D] / total_ms[0][H2D];
        double d2h = call_ms[0][D2H] / total_ms[0][D2H];
        least = d2h < least ? d2h : least;
        claim(least >= 0.9, "from pageable memory cudaMemcpyAsync returns only when the copy is "
                            "(nearly) done: at %.1f%% of it or later", 100 * least);
        double most = call_ms[1][H2D] > call_ms[1][D2H] ? call_ms[1][H2D] : call_ms[1][D2H];
        double frac = most / (total_ms[1][H2D] < total_ms[1][D2H] ? total_ms[1][H2D] : total_ms[1][D2H]);
        claim(frac < 0.05, "from pinned memory it returns at once: after %.1f us at most, %.2f%% of "
                           "the copy's time", 1e3 * most, 100 * frac);
    } else {
        printf("   (copies under 16 MiB are too short to judge: use --max 16M or more)\n");
    }

    /* b) The CPU half of staging: a memcpy from pageable into pinned memory. */
    double rates[5];
    for (int r = 0; r < 6; r++) {
        double t0 = host_ms();
        memcpy(pinned, pageable, bytes);
        double g = gbps(bytes, host_ms() - t0);
        if (r > 0)
            rates[r - 1] = g;
    }
    memcpy_gbps = median_of(rates, 5);
    double staged = gbps(bytes, total_ms[0][H2D]);
    printf("   the CPU copies pageable into pinned memory (memcpy) at %.1f GB/s; the staged pageable\n"
           "   H2D copy ran at %.1f GB/s, the pinned one at %.1f GB/s\n", memcpy_gbps, staged,
           gbps(bytes, total_ms[1][H2D]));
    if (bytes >= WIDE)
        claim(staged <= 1.1 * memcpy_gbps, "the staged copy is no faster than the CPU's memcpy "
                                           "that feeds it (%.1f%% of it)", 100 * staged / memcpy_gbps);

    /* c) Why write-combined memory is for data the CPU only writes. */
    double read_wc = host_read_gbps(wc, wc_bytes), read_pinned = host_read_gbps(pinned, wc_bytes);
    printf("   the CPU reads %s of ordinary pinned memory at %.2f GB/s, of write-combined memory at "
           "%.2f GB/s (%.1fx)\n", fmt_size(wc_bytes), read_pinned, read_wc, read_pinned / read_wc);
    printf("   (write-combined memory is for data the CPU writes and the GPU reads: where the CPU maps\n"
           "   it uncached, as on bare metal, reading it back is very slow; a virtual machine's\n"
           "   hypervisor may map it as ordinary cached memory, and then the two rates are alike)\n");
cleanup:
    free(pageable);
    if (pinned)
        ok = checkRuntime(cudaFreeHost(pinned)) && ok;
    if (wc)
        ok = checkRuntime(cudaFreeHost(wc)) && ok;
    return ok;
}
