/* 03_pinned_memory/proof/step2_sweep.c - step 2: the bandwidth of host<->device copies over a
 * sweep of sizes, for four kinds of host memory (core.c's host_alloc), each copy timed by core.c
 * (timed_copies, copies_ms, through time_copies), taken round by round, every copy's data
 * verified, and the claims on it. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lesson.h"

/* ---- step 2: the sweep -------------------------------------------------------------------- */

struct host_buf {
    enum kind kind;
    void *p;
};

/* `bytes` of one kind of host memory, every page in place: pageable memory touched (memset
 * makes its pages real, on this thread's NUMA node); the page-locked kinds come resident
 * (registered memory: core.c's host_alloc touches it, then page-locks it where it is). */
static bool buf_alloc(struct host_buf *b, enum kind kind, size_t bytes)
{
    b->kind = kind;
    if (!alloc_kind(kind, bytes, &b->p))
        return false;
    if (kind == PAGEABLE)
        memset(b->p, 0, bytes);
    return true;
}

static bool buf_free(struct host_buf *b)
{
    if (!b->p)
        return true;
    bool ok = free_kind(b->kind, b->p); /* registered: cudaHostUnregister, then free */
    b->p = NULL;
    return ok;
}

static int reps_for(const struct lesson *L, size_t bytes)
{
    long by_bytes = (long)(REP_BYTES / bytes);
    long reps = by_bytes < MIN_REPS ? MIN_REPS : by_bytes;
    return (int)(reps < L->opt.reps ? reps : L->opt.reps);
}

/* The pattern each copy carries: host to device, one per kind (the device buffer then tells
 * whose copy landed last); device to host, one for all kinds, unlike any host-to-device one. */
static uint32_t seed_for(int kind, int dir, size_t bytes)
{
    return 0x9e3779b9u * (uint32_t)(dir == H2D ? 2 * kind + 1 : 2) ^ (uint32_t)(bytes >> 2);
}

/* Check what the last copy of one size, kind and direction delivered. */
static bool verify(struct lesson *L, struct host_buf *b, size_t bytes, enum dir d)
{
    size_t words = bytes / 4;
    uint32_t seed = seed_for(b->kind, d, bytes);
    unsigned long long bad = 0;
    if (d == H2D) {
        if (!device_mismatches(L, L->dev, words, seed, &bad))
            return false;
    } else if (b->kind != WRITE_COMBINED) {
        bad = host_mismatches(b->p, words, seed);
    } else {
        /* The CPU reads write-combined memory very slowly (step 4 measures it), so send the data
         * back to a cleared device buffer and check it there. */
        if (!checkRuntime(cudaMemsetAsync(L->dev, 0, bytes, L->stream)) ||
            !checkRuntime(copy_dir(b->p, L->dev, bytes, H2D, L->stream)) ||
            !device_mismatches(L, L->dev, words, seed, &bad))
            return false;
    }
    L->checks++;
    L->wrong_words += (long)bad;
    if (bad)
        fprintf(stderr, "%s: %s %s copy of %s: %llu words wrong\n", lesson_prog, kind_name[b->kind],
                dir_name[d], fmt_size(bytes), bad);
    return true;
}

/* The data of one size and direction: each kind's host buffer gets its own pattern (host to
 * device), or the device buffer one pattern for all (device to host; the host buffers hold
 * their host-to-device patterns, unlike it, so a word no copy wrote cannot pass the check). */
static bool prepare(struct lesson *L, struct host_buf b[KINDS], size_t bytes, enum dir d)
{
    size_t words = bytes / 4;
    if (d == D2H)
        return checkRuntime(launch_fill_pattern(L->dev, words, seed_for(0, D2H, bytes), L->stream));
    for (int k = 0; k < KINDS; k++)
        fill_placed(b[k].p, words, seed_for(k, H2D, bytes));
    return true;
}

/* One round: a copy of each kind, in turn, each between its own pair of events (r < 0: the
 * warm-up, untimed); in the last round each host-to-device copy is checked where it landed
 * before the next kind's overwrites it. */
static bool one_round(struct lesson *L, struct host_buf b[KINDS], size_t bytes, enum dir d, int r,
                      int reps, double ms[KINDS][1000])
{
    double unused;
    bool ok = true;
    for (int k = 0; ok && k < KINDS; k++) {
        L->ungated = k == PAGEABLE; /* its copies wait on the stream to be staged */
        ok = time_copies(L, r < 0, r >= 0, b[k].p, bytes, d, 1, r < 0 ? &unused : &ms[k][r]);
        L->ungated = false;
        if (ok && r == reps - 1 && d == H2D)
            ok = verify(L, &b[k], bytes, d);
    }
    return ok;
}

/* One size, one direction, the four kinds taken round by round: a warm-up round, then `reps`
 * rounds of one timed copy of each kind, so that a slow moment of the machine slows one
 * repetition of every kind and the median absorbs it (timed kind after kind, an H100 once
 * copied write-combined memory at 45% of pinned at one size, 99.6% in other runs). For large
 * sizes, nvbandwidth's way too: BATCH pinned copies between one pair of events, three such
 * batches spread among the rounds. */
static bool measure(struct lesson *L, struct host_buf b[KINDS], int si, enum dir d)
{
    size_t bytes = L->sizes[si];
    int reps = reps_for(L, bytes), rounds = reps > 3 ? reps : 3, batches = 0;
    static double ms[KINDS][1000];
    double batch[3];
    bool batched = bytes >= LARGE;
    bool ok = prepare(L, b, bytes, d) && one_round(L, b, bytes, d, -1, reps, ms);
    for (int r = 0; ok && r < rounds; r++) {
        ok = r >= reps || one_round(L, b, bytes, d, r, reps, ms);
        bool batch_now = batched && (r + 1) * 3 / rounds > r * 3 / rounds; /* three times */
        ok = ok &&
             (!batch_now || time_copies(L, 0, 1, b[PINNED].p, bytes, d, BATCH, &batch[batches++]));
    }
    for (int k = 0; ok && d == D2H && k < KINDS; k++)
        ok = verify(L, &b[k], bytes, d);
    for (int k = 0; ok && k < KINDS; k++) {
        struct stats *st = &L->bw[k][d][si];
        for (int r = 0; r < reps; r++)
            ms[k][r] = gbps(bytes, ms[k][r]);
        double median = median_of(ms[k], reps); /* sorts ms[k]: then its min and max */
        *st = (struct stats){reps, median, ms[k][0], ms[k][reps - 1]};
    }
    for (int r = 0; ok && batched && r < 3; r++)
        batch[r] = gbps(bytes * BATCH, batch[r]);
    if (ok && batched)
        L->batched[d][si] = median_spread(batch, 3, &L->batched_spread[d][si]);
    return ok;
}

/* A size where write-combined or registered memory strayed from pinned in the sweep (by more
 * than 10%) is timed again, a copy from pinned and a copy from that kind in turn, IN_TURN
 * times each, right after one another (after a warm-up of each): a second look at the same
 * buffers. *ratio gets that kind's rate over pinned's (their medians). */
static bool side_by_side(struct lesson *L, struct host_buf b[KINDS], enum kind k, int si,
                         enum dir d, double *ratio)
{
    double pin[IN_TURN], other[IN_TURN], unused, spread;
    size_t bytes = L->sizes[si];
    bool ok = time_copies(L, 1, 0, b[PINNED].p, bytes, d, 1, &unused) &&
              time_copies(L, 1, 0, b[k].p, bytes, d, 1, &unused);
    for (int r = 0; ok && r < IN_TURN; r++)
        ok = time_copies(L, 0, 1, b[PINNED].p, bytes, d, 1, &pin[r]) &&
             time_copies(L, 0, 1, b[k].p, bytes, d, 1, &other[r]);
    if (!ok)
        return false;
    double pin_ms = median_spread(pin, IN_TURN, &spread);
    double other_ms = median_spread(other, IN_TURN, &spread);
    *ratio = other_ms > 0 ? pin_ms / other_ms : 0; /* rate over rate */
    return true;
}

/* How far one kind is from pinned, one direction: the median over the sizes from 16 MiB up (a
 * size that strayed timed again side by side), so that one size whose repetitions were slow
 * together does not decide it. */
static bool kind_vs_pinned(struct lesson *L, struct host_buf b[KINDS], enum kind k, enum dir d,
                           double *median)
{
    double ratio[MAX_SIZES];
    int n = 0;
    for (int si = 0; si < L->nsizes; si++) {
        if (L->sizes[si] < WIDE)
            continue;
        double r = L->bw[k][d][si].median / L->bw[PINNED][d][si].median, again;
        if (k == REGISTERED ? fabs(r - 1) > 0.10 : r < 0.90) {
            if (!side_by_side(L, b, k, si, d, &again))
                return false;
            printf("   %s %s at %s: %.1f%% of pinned in the sweep; timed again, a copy of "
                   "each in turn, %d times: %.1f%%\n",
                   kind_name[k], dir_name[d], fmt_size(L->sizes[si]), 100 * r, IN_TURN,
                   100 * again);
            r = again;
        }
        ratio[n++] = r;
    }
    *median = median_of(ratio, n);
    return true;
}

static const char *const faster = "pinned is faster than pageable at every size from 16 MiB up";
static const char *const same = "to the copy engine, registered memory is as fast as pinned "
                                "within 10% and write-combined memory at least 90% as fast";

/* Registered memory is pinned memory: within 10%. Write-combined memory may be faster: NVIDIA
 * documents transfers from it up to 40% faster on some systems (CUDA C++ Programming Guide,
 * "Write-Combining Memory"), so it has a floor only: at least 90% of pinned. */
static bool judge_same(struct lesson *L, struct host_buf b[KINDS], int wide)
{
    double worst_reg = 0, least_wc = 1e9, m;
    for (int d = 0; d < DIRS; d++) {
        if (!kind_vs_pinned(L, b, REGISTERED, (enum dir)d, &m))
            return false;
        worst_reg = fabs(m - 1) > worst_reg ? fabs(m - 1) : worst_reg;
        if (!kind_vs_pinned(L, b, WRITE_COMBINED, (enum dir)d, &m))
            return false;
        least_wc = m < least_wc ? m : least_wc;
    }
    if (wide >= 3)
        claim(worst_reg <= 0.10 && least_wc >= 0.90,
              "%s from 16 MiB up (median over the sizes: "
              "registered within %.1f%%, write-combined at %.1f%% or more of pinned)",
              same, 100 * worst_reg, 100 * least_wc);
    else /* an H200 once read 13.9% at --max 16M --reps 2 */
        not_judged("fewer than three sizes of 16 MiB or more: one slow size can move it past "
                   "10% (--max 64M or more)",
                   "%s (registered %.1f%% apart, write-combined at %.1f%%)", same, 100 * worst_reg,
                   100 * least_wc);
    return true;
}

/* Pinned against pageable, and the other pinned kinds against pinned, from 16 MiB up. */
static bool judge_kinds(struct lesson *L, struct host_buf b[KINDS])
{
    double least = 1e9;
    int wide = 0;
    for (int si = 0; si < L->nsizes; si++)
        for (int d = 0; d < DIRS && L->sizes[si] >= WIDE; d++) {
            double ratio = L->bw[PINNED][d][si].median / L->bw[PAGEABLE][d][si].median;
            least = ratio < least ? ratio : least;
            wide += d == 0;
        }
    char why[300];
    if (!wide) {
        snprintf(why, sizeof why, "no size of 16 MiB or more in this sweep (--max 16M or more)");
        not_judged(why, "%s", faster);
        not_judged(why, "%s", same);
        return true;
    }
    if (!timings_comparable(L, WIDE, why, sizeof why)) {
        not_judged(why, "%s (at least %.1fx here)", faster, least);
        not_judged(why, "%s", same);
        return true;
    }
    if (L->pageable_direct)
        not_judged("this GPU reaches pageable memory itself (through the host's page tables, or "
                   "in the memory it shares with the host): how the driver copies from it there "
                   "is not documented",
                   "%s (%.1fx here)", faster, least);
    else
        claim(least > 1.0, "%s, both directions: at least %.1fx", faster, least);
    return judge_same(L, b, wide);
}

/* What the large pinned copies gave: the size and direction closest to failing the bar against
 * the batched figure, the bar there, and each direction's slowest fraction of the link. */
struct large {
    int count, fewest;
    double worst_vs_batch, bar, margin, link_frac[DIRS], at[DIRS];
    double fastest;     /* the fastest large pinned copy, either direction */
    double most_spread; /* the widest spread of a large size's repetitions or batches */
};

static void large_figures(const struct lesson *L, struct large *g)
{
    *g = (struct large){0, 1 << 30, 1, 0.02, 1e9, {1e9, 1e9}, {0, 0}, 0, 0};
    for (int si = 0; si < L->nsizes; si++)
        for (int d = 0; d < DIRS && L->sizes[si] >= LARGE; d++) {
            const struct stats *st = &L->bw[PINNED][d][si];
            double r = st->median / L->batched[d][si];
            double spread = (st->max - st->min) / st->median;
            g->count += d == 0;
            g->fewest = st->reps < g->fewest ? st->reps : g->fewest;
            spread = L->batched_spread[d][si] > spread ? L->batched_spread[d][si] : spread;
            g->most_spread = spread > g->most_spread ? spread : g->most_spread;
            spread = spread > 0.02 ? spread : 0.02;
            if (r - (1 - spread) < g->margin) { /* the size and direction closest to failing */
                g->margin = r - (1 - spread);
                g->worst_vs_batch = r;
                g->bar = spread;
            }
            g->fastest = st->median > g->fastest ? st->median : g->fastest;
            if (st->median / L->link_gbps < g->link_frac[d]) {
                g->link_frac[d] = st->median / L->link_gbps;
                g->at[d] = st->median;
            }
        }
}

static const char *const batched_what = "from 256 MiB up, timing one copy per event pair gives "
                                        "the batched figure within the noise";
static const char *const link_what =
    "pinned copies of 256 MiB and more reach 70-100% of the link's theoretical rate";

/* The link is a fixed expectation, not one measured beside the copies: only copies that ran
 * steadily can be held to it (an idle H100 spreads 0-3%; beside another program copying,
 * unseen from a container, 18%, at 57.6% of the link). The link read "now" may have been
 * power-managed below its maximum when it was read; a copy faster than that reading proves the
 * link ran faster, so compare with the maximum. */
static void judge_link(const struct lesson *L, const struct large *g)
{
    char why[300];
    if (g->most_spread > 0.10) {
        snprintf(why, sizeof why,
                 "the repetitions of a large size spread %.0f%% (more than 10%%): "
                 "the link or the GPU was not this program's alone, or changed pace",
                 100 * g->most_spread);
        not_judged(why, "%s", link_what);
        return;
    }
    double f = g->link_frac[H2D] < g->link_frac[D2H] ? g->link_frac[H2D] : g->link_frac[D2H];
    double theory = L->link_gbps;
    const char *which = "as read now";
    if (g->fastest > L->link_gbps && L->link_max_gbps > L->link_gbps) {
        theory = L->link_max_gbps;
        f *= L->link_gbps / theory;
        which = "at the card's maximum (the copies outran the link as read: it was idling lower)";
    }
    /* (the default sweep has one size of 256 MiB or more, 256 MiB itself; --max 1G has three) */
    if (g->count == 1)
        printf("   the pinned copies of %s (medians): H2D %.1f GB/s, D2H %.1f GB/s; the link's "
               "%.1f GB/s %s\n",
               fmt_size(L->sizes[L->nsizes - 1]), g->at[H2D], g->at[D2H], theory, which);
    else
        printf("   the slowest pinned copy of 256 MiB or more: H2D %.1f GB/s, D2H %.1f GB/s; the "
               "link's %.1f GB/s %s\n",
               g->at[H2D], g->at[D2H], theory, which);
    claim(f >= 0.70 && g->fastest <= theory,
          "pinned copies of 256 MiB and more reach %.1f%% to %.1f%% "
          "of the link's theoretical rate (70-100%% expected: packet headers, flow control and the "
          "packet size the host allows take 10-30%%)",
          100 * f, 100 * g->fastest / theory);
}

/* The bar: large pinned copies against nvbandwidth's method and against the link. One copy per
 * event pair may read lower than a batch by the fixed cost of one copy (under 0.1% at 256 MiB)
 * and by the noise: the bar is 2% or the spread this run measured at that size, the larger. */
static void judge_large(struct lesson *L)
{
    struct large g;
    large_figures(L, &g);
    char why[300];
    if (!g.count) {
        snprintf(why, sizeof why, "no size of 256 MiB or more in this sweep (--max 256M or more)");
        not_judged(why, "%s", batched_what);
        not_judged(why, "%s", link_what);
        return;
    }
    printf("   pinned, %d copies back to back between two events (nvbandwidth's method):\n", BATCH);
    for (int si = 0; si < L->nsizes; si++)
        if (L->sizes[si] >= LARGE)
            printf("   %10s  H2D %.1f GB/s, D2H %.1f GB/s; one copy per event pair: %.1f%% and "
                   "%.1f%% of that\n",
                   fmt_size(L->sizes[si]), L->batched[H2D][si], L->batched[D2H][si],
                   100 * L->bw[PINNED][H2D][si].median / L->batched[H2D][si],
                   100 * L->bw[PINNED][D2H][si].median / L->batched[D2H][si]);
    if (g.fewest < 3) /* an H100 once read one 1 GiB copy at 91.4% of the batched figure */
        snprintf(why, sizeof why,
                 "%d repetition%s of a large copy: one slow copy cannot be told "
                 "from a slow link (--reps 3 or more)",
                 g.fewest, g.fewest == 1 ? "" : "s");
    if (g.fewest < 3 || !timings_comparable(L, LARGE, why, sizeof why)) {
        not_judged(why, "%s (lowest %.1f%%)", batched_what, 100 * g.worst_vs_batch);
        not_judged(why, "%s", link_what);
        return;
    }
    claim(g.worst_vs_batch >= 1 - g.bar,
          "%s: %.1f%% of it at the lowest, the bar %.1f%% (2%% or the "
          "spread of that size's repetitions and batches, the larger)",
          batched_what, 100 * g.worst_vs_batch, 100 * (1 - g.bar));
    if (!L->link_known)
        not_judged("the PCIe link could not be read (no sysfs entry, no NVML)", "%s", link_what);
    else
        judge_link(L, &g);
}

static void print_kinds(const struct lesson *L)
{
    printf("\n2. Bandwidth from %s to %s for four kinds of host memory\n", fmt_size(L->opt.min),
           fmt_size(L->opt.max));
    printf(
        "   pageable       malloc'd memory: the driver copies it through its own pinned buffer\n"
        "   pinned         cudaMallocHost: page-locked, the copy engine reads it directly (DMA);\n"
        "                  its pages stay put, wherever they are (not guaranteed contiguous;\n"
        "                  the GPU does not need that: DMA goes page by page through bus "
        "addresses)\n"
        "   write-combined cudaHostAlloc(cudaHostAllocWriteCombined): pinned, not cached by the "
        "CPU\n"
        "   registered     malloc'd memory page-locked afterwards with cudaHostRegister\n"
        "   each copy: cudaMemcpyAsync on a stream between two events; one warm-up, then the\n"
        "   repetitions, round by round (one copy of each kind per round); the data of every\n"
        "   copy checked against the pattern it should carry\n");
    if (!L->gate.off[0])
        printf(
            "   (pinned kinds: each timed copy queued behind a one-thread kernel that waits until\n"
            "   the host has queued it and its events, as nvbandwidth does: IN_DEPTH.md, step "
            "2)\n");
}

bool step_2_bandwidth_sweep(struct lesson *L)
{
    print_kinds(L);
    struct host_buf b[KINDS] = {{0}};
    bool ok = true;
    for (int k = 0; ok && k < KINDS; k++)
        ok = buf_alloc(&b[k], (enum kind)k, L->opt.max);
    for (int si = 0; ok && si < L->nsizes; si++)
        ok = measure(L, b, si, H2D) && measure(L, b, si, D2H) && (gpu_shared_sample(), true) &&
             (si != L->nsizes / 2 || pace_sample(L));
    if (ok) {
        print_table(L, H2D);
        print_table(L, D2H);
        printf("\n");
        claim(L->wrong_words == 0,
              "every copy delivered its data intact: %ld checks (4 kinds x 2 directions x %d "
              "sizes), %ld wrong words",
              L->checks, L->nsizes, L->wrong_words);
        ok = judge_kinds(L, b);
    }
    for (int k = 0; k < KINDS; k++)
        ok = buf_free(&b[k]) && ok;
    if (ok)
        judge_large(L);
    return ok;
}
