/* 03_pinned_memory/cost.c - step 3: what pinning costs, and after how many transfers it pays
 * for itself. The same work is timed for every kind of memory: allocate, first fill, free (and
 * register/unregister for the registered kind), several rounds, median and spread. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "lesson.h"

#define ROUNDS 3
enum part { ALLOCATE, FILL, PIN, UNPIN, RELEASE, ALL, PARTS };

struct cost {
    size_t bytes;
    double ms[KINDS][PARTS][ROUNDS]; /* sorted after the rounds */
    double median[KINDS][PARTS], spread[KINDS][PARTS]; /* ms for `bytes` */
};

/* One round of one kind: allocate, first fill, (register, unregister), free; host clock. */
static bool one_round(struct cost *c, enum kind k, int r)
{
    void *p = NULL;
    size_t n = c->bytes;
    double t[6];
    t[0] = host_ms();
    if (!host_alloc(k, n, &p))
        return false;
    t[1] = host_ms();
    memset(p, r + 1, n); /* the first fill: makes pageable pages real, writes the pinned ones */
    t[2] = t[3] = t[4] = host_ms();
    bool ok = true;
    if (k == REGISTERED) {
        ok = ALLOC(cudaHostRegister(p, n, cudaHostRegisterDefault), "cudaHostRegister", n);
        t[3] = host_ms();
        ok = ok && checkRuntime(cudaHostUnregister(p));
        t[4] = host_ms();
    }
    ok = host_free(k, p) && ok;
    t[5] = host_ms();
    for (int part = ALLOCATE; part <= RELEASE; part++)
        c->ms[k][part][r] = t[part + 1] - t[part];
    c->ms[k][ALL][r] = t[5] - t[0];
    return ok;
}

static void print_costs(const struct cost *c, double per_gib)
{
    static const char *const head[PARTS] = {"allocate", "first fill", "register", "unregister",
                                            "free", "all of it"};
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

bool step_3_pinning_cost(struct lesson *L)
{
    static struct cost c;
    c.bytes = side_bytes(L, SIDE_MAX);
    double per_gib = (double)GiB / (double)c.bytes; /* ms for the buffer -> ms per GiB */
    printf("\n3. What pinning costs: %s buffers, %d rounds per kind, host clock; ms per GiB,\n"
           "   median (spread max-min)\n", fmt_size(c.bytes), ROUNDS);
    for (int r = 0; r < ROUNDS; r++) /* the kinds take turns, so that drift hits them alike */
        for (int k = 0; k < KINDS; k++)
            if (!one_round(&c, (enum kind)k, r))
                return false;
    for (int k = 0; k < KINDS; k++)
        for (int part = 0; part < PARTS; part++) {
            c.median[k][part] = median_of(c.ms[k][part], ROUNDS);
            c.spread[k][part] = c.ms[k][part][ROUNDS - 1] - c.ms[k][part][0];
        }
    for (int k = 0; k < KINDS; k++)
        L->fill_gbps[k] = gbps(c.bytes, c.median[k][FILL]);
    print_costs(&c, per_gib);

    int at;
    double pageable_ms = transfer_ms(L, &c, PAGEABLE, &at);
    printf("   pinning pays for itself after (extra cost) / (time one transfer saves); a transfer at %s,\n"
           "   the mean of both directions (step 2), takes %.1f ms/GiB from pageable memory:\n",
           fmt_size(L->sizes[at]), pageable_ms * per_gib);
    for (int k = PINNED; k < KINDS; k++) {
        char what[64];
        snprintf(what, sizeof what, "%s, a new buffer", kind_name[k]);
        double noise = c.spread[k][ALL] > c.spread[PAGEABLE][ALL] ? c.spread[k][ALL]
                                                                  : c.spread[PAGEABLE][ALL];
        break_even(what, c.median[k][ALL] - c.median[PAGEABLE][ALL], noise,
                   pageable_ms - transfer_ms(L, &c, (enum kind)k, &at), per_gib);
    }
    double pin_unpin = c.median[REGISTERED][PIN] + c.median[REGISTERED][UNPIN];
    break_even("registered, memory you already have", pin_unpin,
               c.spread[REGISTERED][PIN] + c.spread[REGISTERED][UNPIN],
               pageable_ms - transfer_ms(L, &c, REGISTERED, &at), per_gib);

    if (c.bytes < WIDE) {
        const char *why = "buffers under 16 MiB are too small to time (--max 16M or more)";
        not_judged(why, "pinning memory you already have costs less than a new pinned buffer");
        not_judged(why, "for a new buffer, malloc + register is no cheaper than cudaMallocHost");
        return true;
    }
    claim(pin_unpin < c.median[PINNED][ALL],
          "pinning memory you already have (register + unregister, %.1f ms/GiB) costs less than a new "
          "pinned buffer (cudaMallocHost + first fill + cudaFreeHost, %.1f ms/GiB)",
          pin_unpin * per_gib, c.median[PINNED][ALL] * per_gib);
    /* Both pin every page of a new buffer: the same work, so "no cheaper" allows the noise or
     * 10% (an H100 once read 777.8 against 803.4 ms/GiB, noise 14.1: 3% apart). */
    double noise = c.spread[REGISTERED][ALL] > c.spread[PINNED][ALL] ? c.spread[REGISTERED][ALL]
                                                                     : c.spread[PINNED][ALL];
    double margin = noise > 0.1 * c.median[PINNED][ALL] ? noise : 0.1 * c.median[PINNED][ALL];
    claim(c.median[REGISTERED][ALL] >= c.median[PINNED][ALL] - margin,
          "for a new buffer, malloc + first fill + register + unregister + free (%.1f ms/GiB) is no "
          "cheaper than cudaMallocHost + first fill + cudaFreeHost (%.1f ms/GiB) beyond 10%% or the "
          "noise (%.1f)", c.median[REGISTERED][ALL] * per_gib, c.median[PINNED][ALL] * per_gib,
          noise * per_gib);
    return true;
}
