/* 03_pinned_memory/proof/report.c - the sweep of step 2 as tables (stdout) and as CSV (--csv FILE,
 * for `make chart`). */
#include "lesson.h"

void print_table(const struct lesson *L, enum dir d)
{
    printf("\n   %s, GB/s: median of the repetitions (spread: (max-min)/median)\n", dir_words[d]);
    printf("   %10s %5s", "size", "reps");
    for (int k = 0; k < KINDS; k++)
        printf("  %-16s", kind_name[k]);
    printf("  pinned/pageable\n");
    for (int si = 0; si < L->nsizes; si++) {
        printf("   %10s %5d", fmt_size(L->sizes[si]), L->bw[PINNED][d][si].reps);
        for (int k = 0; k < KINDS; k++) {
            const struct stats *st = &L->bw[k][d][si];
            char cell[32];
            snprintf(cell, sizeof cell, "%5.1f (%.0f%%)", st->median,
                     st->median > 0 ? 100 * (st->max - st->min) / st->median : 0);
            printf("  %-16s", cell);
        }
        printf("  %.1fx\n", L->bw[PINNED][d][si].median / L->bw[PAGEABLE][d][si].median);
    }
}

bool write_csv(const struct lesson *L, FILE *f)
{
    fprintf(f, "# 03_pinned_memory sweep on \"%s\"; link_gbps=%.2f\n", L->prop.name,
            L->link_known ? L->link_gbps : 0.0);
    fprintf(f, "kind,direction,bytes,reps,median_gbps,min_gbps,max_gbps\n");
    for (int k = 0; k < KINDS; k++)
        for (int d = 0; d < DIRS; d++)
            for (int si = 0; si < L->nsizes; si++) {
                const struct stats *st = &L->bw[k][d][si];
                fprintf(f, "%s,%s,%zu,%d,%.3f,%.3f,%.3f\n", kind_name[k], dir_name[d], L->sizes[si],
                        st->reps, st->median, st->min, st->max);
            }
    return !ferror(f);
}
