/* 03_pinned_memory/cost.c - step 3: what pinning costs, and after how many transfers it pays
 * for itself. */
#include "lesson.h"

void step_3_pinning_cost(struct lesson *L)
{
    printf("\n3. What pinning costs (timed on the host for the %s buffers of step 2)\n",
           fmt_size(L->opt.max));
    double per_gib = (double)GiB / (double)L->opt.max; /* ms for the buffer -> ms per GiB */
    int last = L->nsizes - 1;
    printf("   %-16s %22s %22s %22s\n", "kind", "allocate and touch", "pin / unpin", "free");
    for (int k = 0; k < KINDS; k++) {
        char pin[48] = "-";
        if (k == REGISTERED)
            snprintf(pin, sizeof pin, "%.1f / %.1f ms/GiB", L->pin_ms * per_gib,
                     L->unpin_ms * per_gib);
        char alloc[48], fre[48];
        snprintf(alloc, sizeof alloc, "%.1f ms/GiB", L->alloc_ms[k] * per_gib);
        snprintf(fre, sizeof fre, "%.1f ms/GiB", L->free_ms[k] * per_gib);
        printf("   %-16s %22s %22s %22s\n", kind_name[k], alloc, pin, fre);
    }
    /* What one transfer of a GiB saves, at the largest size, averaged over the two directions. */
    double saved[KINDS], extra[KINDS];
    double pageable_s = 0;
    for (int d = 0; d < DIRS; d++)
        pageable_s += 0.5 / L->bw[PAGEABLE][d][last].median * (double)GiB / 1e9;
    printf("   one transfer of 1 GiB (at %s, the mean of both directions) takes %.1f ms from pageable\n"
           "   memory; pinning pays for itself after (extra cost of pinning) / (time saved per transfer):\n",
           fmt_size(L->sizes[last]), 1e3 * pageable_s);
    for (int k = PINNED; k < KINDS; k++) {
        double s = 0;
        for (int d = 0; d < DIRS; d++)
            s += 0.5 / L->bw[k][d][last].median * (double)GiB / 1e9;
        saved[k] = 1e3 * (pageable_s - s); /* ms per GiB and transfer */
        extra[k] = k == REGISTERED
                       ? (L->pin_ms + L->unpin_ms) * per_gib
                       : (L->alloc_ms[k] + L->free_ms[k] - L->alloc_ms[PAGEABLE] - L->free_ms[PAGEABLE]) *
                             per_gib;
        if (saved[k] > 0)
            printf("   %-16s extra %.1f ms/GiB, saves %.1f ms/GiB per transfer: pays off after %.1f transfers\n",
                   kind_name[k], extra[k], saved[k], extra[k] > 0 ? extra[k] / saved[k] : 0.0);
        else
            printf("   %-16s extra %.1f ms/GiB, saves nothing per transfer at this size\n",
                   kind_name[k], extra[k]);
    }
    claim(L->pin_ms < L->alloc_ms[PINNED],
          "pinning memory already touched (cudaHostRegister, %.1f ms/GiB) costs less than "
          "cudaMallocHost (%.1f ms/GiB)", L->pin_ms * per_gib, L->alloc_ms[PINNED] * per_gib);
}
