/*
 * 04_streams_overlap/steps.c - steps 1 to 4 of the lesson: the three stages alone, the work in
 * sequence, the work split over N streams in two issue orders, and the timelines of those runs.
 * Each step prints its part of the output and its claims; measure.c holds the timing loops.
 */
#include <stdio.h>
#include <string.h>

#include "lesson.h"
#include "work.h"

/* 1. The three stages alone: a copy in, the kernel, a copy out, and both copies at once. */
bool step_1_stages_alone(struct findings *f)
{
    printf("\n1. The three stages alone (events around each, in the legacy default stream)\n");
    double th, td, tk, th2, td2;
    if (!time_stage(OP_H2D, L.reps, &th, NULL) || !time_stage(OP_D2H, L.reps, &td, NULL) ||
        !time_stage(OPS, L.reps, &th2, &td2))
        return false;
    double both = th2 > td2 ? th2 : td2;
    if (f->auto_work && !choose_work(1.2 * both))
        return false;
    if (!time_stage(OP_KERNEL, L.reps, &tk, NULL))
        return false;
    set_stage_times(th, tk, td, th2, td2);
    f->th = th, f->tk = tk, f->td = td, f->th2 = th2, f->td2 = td2;
    const struct cudaDeviceProp *prop = f->prop;
    const char *size_s = f->size_s;
    printf("   host-to-device copy   %s   %7.2f ms   %5.1f GB/s\n", size_s, th, gbps(L.bytes, th));
    printf("   kernel                %s   %7.2f ms   (%d multiply-adds per element, %s)\n", size_s,
           tk, L.work, f->auto_work ? "chosen: about 1.2x a shared copy" : "from --work");
    printf("   device-to-host copy   %s   %7.2f ms   %5.1f GB/s\n", size_s, td, gbps(L.bytes, td));
    printf("   both copies at once, in two streams: in %.2f ms, out %.2f ms: %.1f GB/s in total,\n"
           "   %.1f and %.1f GB/s each: the two directions share the PCIe link and host memory\n",
           th2, td2, gbps(2 * L.bytes, both), gbps(L.bytes, th2), gbps(L.bytes, td2));
    printf("   asyncEngineCount %d: %s\n", prop->asyncEngineCount,
           prop->asyncEngineCount >= 2
               ? "copy engines for both directions, so copies in and out can run at the same time\n"
                 "   as each other and as kernels"
               : prop->asyncEngineCount == 1 ? "one copy at a time, beside kernels"
                                             : "no copy runs beside a kernel");
    if (prop->asyncEngineCount >= 2)
        claim(gbps(2 * L.bytes, both) > 1.2 * gbps(L.bytes, th < td ? th : td),
              "both directions at once moved %.1f GB/s, more than one direction alone (%.1f GB/s)",
              gbps(2 * L.bytes, both), gbps(L.bytes, th < td ? th : td));
    if (f->auto_work)
        claim(tk > 0.5 * th && tk < 2.0 * th,
              "the kernel takes %.2f ms, comparable to a copy (%.2f ms): overlap can pay off", tk, th);
    return true;
}

/* 2. The same work in sequence, in the legacy default stream; checked against the host. */
bool step_2_in_sequence(struct findings *f)
{
    printf("\n2. In sequence: copy in, kernel, copy out, all in the legacy default stream\n");
    struct run *seq = f->seq = new_run(1, PER_STREAM, PINNED, true, false);
    if (!measure(seq))
        return false;
    memcpy(L.ref, L.h_out, L.bytes);
    size_t stride = L.n / 16384 ? L.n / 16384 : 1, sampled = 0, wrong = 0;
    for (size_t i = 0; i < L.n; i += stride, sampled++) {
        float want = work_on_host(work_input(i), L.work);
        wrong += memcmp(&want, &L.ref[i], sizeof want) != 0;
    }
    printf("   %.2f ms (spread %.2f to %.2f), the stages' sum is %.2f ms\n", seq->median, seq->lo,
           seq->hi, f->th + f->tk + f->td);
    printf("   %zu elements recomputed on the host with fmaf: %zu differ\n", sampled, wrong);
    claim(wrong == 0, "the GPU's result matches the host's bit for bit (%zu elements sampled)", sampled);
    return true;
}

/* 3. N chunks over N streams, issued per stream and by stage, against the pipeline's ideal. */
bool step_3_split_over_streams(struct findings *f)
{
    const struct run *seq = f->seq;
    printf("\n3. Split into N chunks, one per stream, in two issue orders\n");
    printf("   per stream: copy in, kernel, copy out of chunk 1, then of chunk 2, ...\n");
    printf("   by stage:   all copies in, then all kernels, then all copies out\n");
    printf("   ideal(N) = the slowest stage + one chunk of each other stage; with N >= 2 a copy\n"
           "   shares the link with the other direction, so copies count at their both-at-once\n"
           "   times (%.2f and %.2f ms) and the kernel at %.2f ms\n", f->th2, f->td2, f->tk);
    printf("   streams  order        time (spread)            ideal    reached  speed-up  result\n");
    struct run *best = NULL;
    bool all_identical = true;
    int streamed = 0;
    for (int k = 0; k < f->ncounts; k++)
        for (int o = PER_STREAM; o <= BY_STAGE; o++) {
            if (o == BY_STAGE && f->counts[k] == 1)
                continue; /* one chunk: the same as per stream */
            struct run *r = new_run(f->counts[k], (enum order)o, PINNED, false, false);
            if (!measure(r))
                return false;
            double ideal = pipeline_ideal(r->streams, NULL);
            printf("   %7d  %-11s %7.2f ms (%.2f-%.2f)   %7.2f ms  %5.1f%%   %5.2fx    %s\n",
                   r->streams, o == PER_STREAM ? "per stream" : "by stage", r->median, r->lo,
                   r->hi, ideal, 100 * ideal / r->median, seq->median / r->median,
                   r->identical ? "identical" : "DIFFERENT");
            all_identical = all_identical && r->identical;
            streamed++;
            if (!best || r->median < best->median)
                best = r;
        }
    claim(all_identical, "all %d streamed runs returned the sequential result bit for bit", streamed);
    for (int k = 0; k < nruns; k++)
        if (!runs[k].sequential && runs[k].streams >= 4)
            claim(runs[k].median < 0.8 * seq->median,
                  "%d streams, %s: %.2f ms, %.2f of the sequential time: clearly faster",
                  runs[k].streams, runs[k].order == PER_STREAM ? "per stream" : "by stage",
                  runs[k].median, runs[k].median / seq->median);
    int slowest;
    double best_ideal = pipeline_ideal(best->streams, &slowest);
    printf("   best: %d streams %s, %.2f ms against %.2f ms in sequence: %.2fx faster\n",
           best->streams, best->order == PER_STREAM ? "per stream" : "by stage", best->median,
           seq->median, seq->median / best->median);
    printf("   its ideal: %s %.2f ms (the slowest stage) + one chunk of the others = %.2f ms\n",
           op_name[slowest], stage_shared_time(slowest), best_ideal);
    claim(best->median <= 1.05 * best_ideal,
          "the best run is within 5%% of the pipeline's ideal (%.1f%% of the ideal reached)",
          100 * best_ideal / best->median);
    return true;
}

/* 4. The timelines of the sequential run and of the widest streamed runs, and their overlap. */
void step_4_timelines(struct findings *f)
{
    const struct run *seq = f->seq;
    int maxn = f->maxn;
    printf("\n4. Timelines (H copy in, K kernel, D copy out, . idle; from events, see README)\n");
    struct run *wide = NULL, *wide_stage = NULL;
    for (int k = 0; k < nruns; k++)
        if (!runs[k].sequential && runs[k].streams == maxn)
            *(runs[k].order == PER_STREAM ? &wide : &wide_stage) = &runs[k];
    print_timeline("in sequence", seq);
    print_timeline("per stream", wide);
    if (wide_stage)
        print_timeline("by stage", wide_stage);
    printf("   overlap = the time copies and kernels ran together, over the shorter of (the time\n"
           "   some copy ran, the time some kernel ran): %.0f%% in sequence, %.0f%% per stream%s",
           100 * seq->overlap, 100 * wide->overlap, wide_stage ? "" : "\n");
    if (wide_stage)
        printf(", %.0f%% by stage\n", 100 * wide_stage->overlap);
    if (maxn >= 4)
        claim(wide->overlap > 0.5, "with %d streams copies and kernels overlap: %.0f%%", maxn,
              100 * wide->overlap);
}
