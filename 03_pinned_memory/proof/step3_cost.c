/* 03_pinned_memory/proof/step3_cost.c - step 3: what pinning costs, and after how many transfers it pays
 * for itself. The same work is timed for every kind of memory: allocate, copy the data in (the
 * first fill), free (and register/unregister for the registered kind), several rounds, median
 * and spread. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lesson.h"

#define ROUNDS 3
enum part { ALLOCATE, FILL, PIN, UNPIN, RELEASE, ALL, PARTS };

struct cost {
    size_t bytes;
    const void *data; /* the data every new buffer receives: pageable, filled before the rounds */
    double ms[KINDS][PARTS][ROUNDS];                   /* sorted after the rounds */
    double median[KINDS][PARTS], spread[KINDS][PARTS]; /* ms for `bytes` */
};

/* One round of one kind: allocate, first fill, (register, unregister), free; host clock. */
static bool one_round(struct cost *c, enum kind k, int r)
{
    void *p = NULL;
    size_t n = c->bytes;
    double t[6];
    t[0] = host_ms();
    enum kind base = k == REGISTERED ? PAGEABLE : k; /* registered here, to time it apart */
    if (!alloc_kind(base, n, &p))
        return false;
    t[1] = host_ms();
    memcpy(p, c->data, n); /* the first fill: makes pageable pages real, writes the pinned ones */
    t[2] = t[3] = t[4] = host_ms();
    bool ok = true;
    if (k == REGISTERED) {
        ok = ALLOC(cudaHostRegister(p, n, cudaHostRegisterDefault), "cudaHostRegister", n);
        t[3] = host_ms();
        ok = ok && checkRuntime(cudaHostUnregister(p));
        t[4] = host_ms();
    }
    ok = free_kind(base, p) && ok;
    t[5] = host_ms();
    for (int part = ALLOCATE; part <= RELEASE; part++)
        c->ms[k][part][r] = t[part + 1] - t[part];
    c->ms[k][ALL][r] = t[5] - t[0];
    return ok;
}

static void print_costs(const struct cost *c, double per_gib)
{
    static const char *const head[PARTS] = {"allocate",   "copy data in", "register",
                                            "unregister", "free",         "all of it"};
    printf("   %-15s", "kind");
    for (int part = 0; part < PARTS; part++)
        printf(" %15s", head[part]);
    printf("\n");
    for (int k = 0; k < KINDS; k++) {
        printf("   %-15s", kind_name[k]);
        for (int part = 0; part < PARTS; part++) {
            char cell[32] = "-";
            if (k == REGISTERED || (part != PIN && part != UNPIN))
                snprintf(cell, sizeof cell, "%.1f (%.1f)", c->median[k][part] * per_gib,
                         c->spread[k][part] * per_gib);
            printf(" %15s", cell);
        }
        printf("\n");
    }
}

/* Break-even of one kind: the extra cost against pageable (with its noise), the time one
 * transfer saves; says when the sign is within the noise. */
static void break_even(const char *what, double extra, double noise, double saved, double per_gib)
{
    printf("   %-34s extra %7.1f ms/GiB (noise %.1f), saves %.1f ms/GiB per transfer -> ", what,
           extra * per_gib, noise * per_gib, saved * per_gib);
    if (saved <= 0)
        printf("saves nothing at this size\n");
    else if (extra <= noise && extra >= -noise)
        printf("extra cost within the noise: pays off from the first transfer\n");
    else if (extra < 0)
        printf("cheaper than pageable: pays off at once\n");
    else
        printf("pays off after %.1f transfers\n", extra / saved);
}

/* ms one transfer of c->bytes takes from kind k: the mean of both directions, at the sweep's
 * largest size not above c->bytes (or its smallest). */
static double transfer_ms(const struct lesson *L, const struct cost *c, enum kind k, int *at)
{
    int si = 0;
    for (int i = 0; i < L->nsizes; i++)
        if (L->sizes[i] <= c->bytes)
            si = i;
    *at = si;
    return 0.5 * ((double)c->bytes / (L->bw[k][H2D][si].median * 1e6) +
                  (double)c->bytes / (L->bw[k][D2H][si].median * 1e6));
}

/* The rounds: the kinds take turns, one round of each kind at a time, so that a slow moment of
 * the host reaches every kind alike; then each part's median and spread. */
static bool measure_costs(struct lesson *L, struct cost *c)
{
    void *data = NULL;
    if (!alloc_kind(PAGEABLE, c->bytes, &data))
        return false;
    fill_host(data, c->bytes / 4, 3);
    c->data = data;
    bool ok = true;
    for (int r = 0; ok && r < ROUNDS; r++)
        for (int k = 0; ok && k < KINDS; k++)
            ok = one_round(c, (enum kind)k, r);
    free(data);
    for (int k = 0; ok && k < KINDS; k++) {
        for (int part = 0; part < PARTS; part++) {
            c->median[k][part] = median_of(c->ms[k][part], ROUNDS);
            c->spread[k][part] = c->ms[k][part][ROUNDS - 1] - c->ms[k][part][0];
        }
        L->fill_gbps[k] = gbps(c->bytes, c->median[k][FILL]);
    }
    return ok;
}

/* When each kind pays for itself, and which route to a new pinned buffer was cheaper here. For a
 * new buffer that depends on the host: with transparent huge pages malloc's pages come 2 MiB at
 * a time, and the register route has been measured at a third of cudaMallocHost's cost; with
 * 4 KiB pages the two are close. So it is reported as measured, not claimed. */
static void report_break_even(const struct lesson *L, const struct cost *c, double per_gib)
{
    int at;
    double pageable_ms = transfer_ms(L, c, PAGEABLE, &at);
    printf("   pinning pays for itself after (extra cost) / (time one transfer saves); a transfer "
           "at %s,\n"
           "   the mean of both directions (step 2), takes %.1f ms/GiB from pageable memory:\n",
           fmt_size(L->sizes[at]), pageable_ms * per_gib);
    for (int k = PINNED; k < KINDS; k++) {
        char what[64];
        snprintf(what, sizeof what, "%s, a new buffer", kind_name[k]);
        double noise = c->spread[k][ALL] > c->spread[PAGEABLE][ALL] ? c->spread[k][ALL]
                                                                    : c->spread[PAGEABLE][ALL];
        break_even(what, c->median[k][ALL] - c->median[PAGEABLE][ALL], noise,
                   pageable_ms - transfer_ms(L, c, (enum kind)k, &at), per_gib);
    }
    break_even("registered, memory you already have",
               c->median[REGISTERED][PIN] + c->median[REGISTERED][UNPIN],
               c->spread[REGISTERED][PIN] + c->spread[REGISTERED][UNPIN],
               pageable_ms - transfer_ms(L, c, REGISTERED, &at), per_gib);
    double reg = c->median[REGISTERED][ALL], pin = c->median[PINNED][ALL];
    double noise = c->spread[REGISTERED][ALL] > c->spread[PINNED][ALL] ? c->spread[REGISTERED][ALL]
                                                                       : c->spread[PINNED][ALL];
    printf(
        "   for a new buffer here: malloc + copy in + register + unregister + free %.1f ms/GiB,\n"
        "   cudaMallocHost + copy in + cudaFreeHost %.1f ms/GiB: %s (noise %.1f)\n",
        reg * per_gib, pin * per_gib,
        reg < pin - noise   ? "the register route was cheaper"
        : reg > pin + noise ? "cudaMallocHost was cheaper"
                            : "the same within the noise",
        noise * per_gib);
}

/* Like for like: two ways to make data you hold in pageable memory reachable by DMA. Only a
 * difference larger than the rounds' spread decides either way: a busy host (an H100's, once:
 * 93.2 against 833.1 ms/GiB, the cudaMallocHost rounds 1254.4 apart) can spread them past any
 * difference. */
static void judge_in_place(const struct cost *c, double per_gib)
{
    const char *what = "pinning data you already hold in place costs less than moving it into a "
                       "new pinned buffer";
    double pin_unpin = c->median[REGISTERED][PIN] + c->median[REGISTERED][UNPIN];
    double pin_noise = c->spread[REGISTERED][PIN] + c->spread[REGISTERED][UNPIN];
    double pin = c->median[PINNED][ALL];
    double margin = pin_noise > c->spread[PINNED][ALL] ? pin_noise : c->spread[PINNED][ALL];
    char why[300];
    if (c->bytes < WIDE)
        snprintf(why, sizeof why, "buffers under 16 MiB are too small to time (--max 16M or more)");
    if (c->bytes < WIDE || under_tool(why, sizeof why)) {
        not_judged(why, "%s", what);
    } else if (fabs(pin - pin_unpin) <= margin) {
        snprintf(why, sizeof why,
                 "its rounds spread by %.1f ms/GiB, more than the difference "
                 "(%.1f against %.1f ms/GiB): something else used the CPU or host memory meanwhile",
                 margin * per_gib, pin_unpin * per_gib, pin * per_gib);
        not_judged(why, "%s", what);
    } else {
        claim(pin_unpin < pin,
              "%s: register + unregister %.1f ms/GiB against cudaMallocHost + "
              "copy in + cudaFreeHost %.1f ms/GiB (beyond the noise, %.1f)",
              what, pin_unpin * per_gib, pin * per_gib, margin * per_gib);
    }
}

bool step_3_pinning_cost(struct lesson *L)
{
    static struct cost c;
    c.bytes = side_bytes(L, COST_MAX);
    double per_gib = (double)GiB / (double)c.bytes; /* ms for the buffer -> ms per GiB */
    printf("\n3. What pinning costs: %s buffers, %d rounds per kind, host clock; ms per GiB,\n"
           "   median (spread max-min); each new buffer receives the same data (memcpy)\n",
           fmt_size(c.bytes), ROUNDS);
    if (!measure_costs(L, &c))
        return false;
    print_costs(&c, per_gib);
    report_break_even(L, &c, per_gib);
    judge_in_place(&c, per_gib);
    return true;
}
