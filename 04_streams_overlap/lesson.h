/*
 * 04_streams_overlap/lesson.h - what the lesson's files share: the runs it measures, the
 * buffers and streams it allocates, and the functions of each file.
 *
 *   main.c      options, allocation and release, main(): the table of contents
 *   steps.c     steps 1-4: the stages alone, in sequence, split over streams, the timelines
 *   breaks.c    step 5: what breaks the overlap
 *   measure.c   the measuring apparatus: one run issued and timed with events, repetitions
 *               and their median, the overlap fraction, the pipeline's model
 *   timeline.c  the text timelines and the CSV
 */
#ifndef LESSON04_LESSON_H
#define LESSON04_LESSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <cuda_runtime_api.h>

#include "check.h"

#define MAX_STREAMS 64
#define MAX_COUNTS 8
#define MAX_REPS 100
#define MAX_RUNS (2 * MAX_COUNTS + 4)
#define TIMELINE_COLUMNS 64

enum order { PER_STREAM, BY_STAGE };
enum memory { PINNED, PAGEABLE };
enum { OP_H2D, OP_KERNEL, OP_D2H, OPS };
extern const char op_letter[OPS];
extern const char *const op_name[OPS];

struct span {
    double start, end; /* ms after the run's start event */
};

struct run {
    char label[48];        /* names the run in the CSV: pinned-per-stream-8, ... */
    int streams;           /* chunks, one per stream (1 for the sequential run) */
    enum order order;
    enum memory memory;
    bool sequential;       /* all in the legacy default stream, one chunk */
    bool legacy_between;   /* one legacy-default-stream operation between streams */
    double median, lo, hi; /* total time over the repetitions, ms */
    double total;          /* total of the repetition whose spans are kept */
    double overlap;        /* copies and kernels together, over the shorter of the two */
    bool identical;        /* result equal bit for bit to the reference */
    struct span span[MAX_STREAMS][OPS];
};

/* Everything the lesson allocates; zero means "not made", so cleanup frees what exists. */
struct lesson {
    size_t n, bytes;
    int work, reps, nstreams;
    float *h_in, *h_out; /* pinned: cudaMallocHost */
    float *p_in, *p_out; /* pageable: malloc */
    float *ref;          /* the sequential run's result */
    float *d_in, *d_out;
    int *d_flag;         /* what the legacy-stream operation writes */
    cudaStream_t stream[MAX_STREAMS];
    cudaEvent_t start, stop;
    cudaEvent_t ev[MAX_STREAMS][OPS + 1]; /* before the copy in, after each operation */
    int events_made;
};
extern struct lesson L;

/* What the steps found, for the steps after them. */
struct findings {
    const struct cudaDeviceProp *prop;
    const int *counts;
    int ncounts, maxn;
    bool auto_work;        /* --work auto: the lesson chose the work */
    char size_s[32];       /* L.bytes, formatted */
    double th, tk, td;     /* the stages alone, ms */
    double th2, td2;       /* the copies both at once, ms */
    struct run *seq;       /* step 2's sequential run */
};

extern struct run runs[MAX_RUNS];
extern int nruns;

/* steps.c and breaks.c: one function per numbered step; false when a CUDA call failed. */
bool step_1_stages_alone(struct findings *f);
bool step_2_in_sequence(struct findings *f);
bool step_3_split_over_streams(struct findings *f);
void step_4_timelines(struct findings *f);
bool step_5_what_breaks_the_overlap(struct findings *f);

/* measure.c */
bool issue_op(int op, int i, int chunks, cudaStream_t s, const float *in, float *out);
bool elapsed(cudaEvent_t a, cudaEvent_t b, double *ms);
bool measure(struct run *r);
struct run *new_run(int streams, enum order order, enum memory memory, bool sequential,
                    bool legacy_between);
bool time_stage(int which, int reps, double *t, double *t2);
bool choose_work(double target_ms);
void set_stage_times(double th, double tk, double td, double th2, double td2);
double pipeline_ideal(int chunks, int *slowest);
double stage_shared_time(int op);
double gbps(size_t bytes, double ms);

/* timeline.c */
void print_timeline(const char *title, const struct run *r);
int write_csv(FILE *f);

#endif
