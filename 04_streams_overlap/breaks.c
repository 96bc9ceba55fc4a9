/*
 * 04_streams_overlap/breaks.c - step 5 of the lesson: what breaks the overlap. Pageable host
 * memory, and one operation on the legacy default stream between the streams' work.
 */
#include <stdio.h>

#include "lesson.h"

bool step_5_what_breaks_the_overlap(struct findings *f)
{
    const struct run *seq = f->seq;
    int maxn = f->maxn;
    printf("\n5. What breaks the overlap\n");
    printf("   a) pageable host memory (malloc): the copies go through the driver's staging\n"
           "      buffer and cudaMemcpyAsync returns only when its copy is (nearly) done\n");
    struct run *pseq = new_run(1, PER_STREAM, PAGEABLE, true, false);
    struct run *pstr = new_run(maxn, PER_STREAM, PAGEABLE, false, false);
    if (!measure(pseq) || !measure(pstr))
        return false;
    printf("      in sequence %.2f ms, %d streams per stream %.2f ms: %.2fx; overlap %.0f%%\n",
           pseq->median, maxn, pstr->median, pseq->median / pstr->median, 100 * pstr->overlap);
    print_timeline("pageable, per stream", pstr);
    claim(pseq->identical && pstr->identical, "pageable runs returned the sequential result bit for bit");
    claim(pstr->overlap < 0.1 && pstr->median > pseq->median / 1.15,
          "pageable memory loses the overlap: %.2fx over its own sequential run, overlap %.0f%%",
          pseq->median / pstr->median, 100 * pstr->overlap);

    printf("   b) pinned memory again, but after each stream's work one cudaMemsetAsync of 4 bytes\n"
           "      on the legacy default stream (stream 0); the streams are blocking streams\n");
    struct run *leg = new_run(maxn, PER_STREAM, PINNED, false, true);
    if (!measure(leg))
        return false;
    printf("      %d streams %.2f ms against %.2f ms in sequence: %.2fx; overlap %.0f%%\n", maxn,
           leg->median, seq->median, seq->median / leg->median, 100 * leg->overlap);
    print_timeline("legacy stream between", leg);
    claim(leg->identical, "the run with the legacy-stream operations returned the sequential result");
    claim(leg->overlap < 0.1 && leg->median > 0.9 * seq->median,
          "one legacy-stream operation between streams serialises them: %.2f of the sequential time",
          leg->median / seq->median);
    return true;
}
