/*
 * 04_streams_overlap/timeline.c - showing what was measured: a run's timeline as one text row
 * per stream, and every operation of every run as CSV (drawn by `make chart`).
 */
#include <stdio.h>

#include "lesson.h"

void print_timeline(const char *title, const struct run *r)
{
    double col = r->total / TIMELINE_COLUMNS;
    printf("   %s: %.2f ms, one column = %.3f ms\n", title, r->total, col);
    for (int i = 0; i < r->streams; i++) {
        char row[TIMELINE_COLUMNS + 1];
        for (int c = 0; c < TIMELINE_COLUMNS; c++) {
            double a = c * col, b = a + col, best = 0.3 * col;
            row[c] = '.';
            for (int op = 0; op < OPS; op++) {
                double s = r->span[i][op].start > a ? r->span[i][op].start : a;
                double e = r->span[i][op].end < b ? r->span[i][op].end : b;
                if (e - s > best) {
                    best = e - s;
                    row[c] = op_letter[op];
                }
            }
        }
        row[TIMELINE_COLUMNS] = '\0';
        if (r->sequential)
            printf("     stream 0 (legacy default) |%s|\n", row);
        else
            printf("     stream %-2d |%s|\n", i + 1, row);
    }
}

/* Every operation of every run as CSV into f; the number of rows, or -1 when a write failed. */
int write_csv(FILE *f)
{
    int rows = 0;
    fprintf(f, "run,streams,order,memory,legacy_between,stream,chunk,op,start_ms,end_ms\n");
    for (int k = 0; k < nruns; k++) {
        const struct run *r = &runs[k];
        for (int i = 0; i < r->streams; i++)
            for (int op = 0; op < OPS; op++, rows++)
                fprintf(f, "%s,%d,%s,%s,%d,%d,%d,%s,%.4f,%.4f\n", r->label, r->streams,
                        r->sequential            ? "sequential"
                        : r->order == PER_STREAM ? "per-stream"
                                                 : "by-stage",
                        r->memory == PINNED ? "pinned" : "pageable", r->legacy_between ? 1 : 0,
                        r->sequential ? 0 : i + 1, i, op_name[op], r->span[i][op].start,
                        r->span[i][op].end);
    }
    return fflush(f) != 0 || ferror(f) ? -1 : rows;
}
