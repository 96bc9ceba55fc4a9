/*
 * 04_streams_overlap/lesson.h - what the lesson's files share: the runs it measures, the
 * buffers and streams it allocates, and the functions of each file.
 *
 *   core.c      the idea: the pipelines (sequential, per stream, by stage, with a legacy-stream
 *               memset, through the Driver API), the streams and the pinned buffers (core.h)
 *   main.c      options, the environment, allocation and release, main(): the table of contents
 *   steps.c     steps 1-4: the stages alone, in sequence, split over streams, the timelines
 *   breaks.c    step 5: what breaks the overlap: pageable memory, the legacy default stream
 *   queue.c     step 6: one hardware queue (CUDA_DEVICE_MAX_CONNECTIONS=1, in a child process)
 *   trace.c     step 7: the hardware's own record (a CUPTI activity tracer) against the events
 *   driver.c    step 8: the same pipeline through the Driver API (CU_STREAM_NON_BLOCKING)
 *   measure.c   the measuring apparatus: one run of a core.c pipeline timed with events,
 *               repetitions and their median, the overlap fraction, per-operation costs
 *   watch.c     the events recorded at core.c's calls, from the instrument's side (--wrap)
 *   model.c     the pipeline's model: each stage measured alone at the chunk size
 *   timeline.c  the text timelines and the CSV
 */
#ifndef LESSON04_LESSON_H
#define LESSON04_LESSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <cuda_runtime_api.h>

#include "check.h"
#include "core.h"
#include "gate.h"
#include "gpu_shared.h"

#define MAX_STREAMS      PIPELINE_MAX_STREAMS
#define MAX_COUNTS       8
#define MAX_REPS         100
#define MAX_RUNS         (2 * MAX_COUNTS + 4)
#define TIMELINE_COLUMNS 64

enum order { PER_STREAM, BY_STAGE };
enum memory { PINNED, PAGEABLE };
extern const char op_letter[OPS];

/* The events around every operation of a run: at[i][mark], where the stream reached chunk i
 * before its copy in, and after each of its three stages. */
enum mark { BEFORE_COPY_IN, AFTER_COPY_IN, AFTER_KERNEL, AFTER_COPY_OUT };
struct pipeline_events {
    cudaEvent_t at[PIPELINE_MAX_STREAMS][OPS + 1];
};
/* watch.c: between the two, core.c's cudaMemcpyAsync and launch_work calls record these
 * events in their streams (the linker's --wrap, from the lesson's Makefile); watch_end is false
 * when one could not be recorded. */
void watch_begin(struct pipeline_events *ev);
bool watch_end(void);
bool issue_stage(const struct pipeline *p, int op, int i, cudaStream_t s);
extern const char *const op_name[OPS];

struct span {
    double start, end; /* ms after the run's start event */
};

struct run {
    char label[48]; /* names the run in the CSV: pinned-per-stream-8, ... */
    int streams;    /* chunks, one per stream (1 for the sequential run) */
    size_t n;       /* the floats it moves each way (L.n; step 5a's pageable runs fewer) */
    enum order order;
    enum memory memory;
    bool sequential;       /* all in the legacy default stream, one chunk */
    bool legacy_between;   /* one legacy-default-stream operation between streams */
    double median, lo, hi; /* total time over the repetitions, ms */
    double spread;         /* their spread (spread_of) */
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
    int *d_flag; /* what the legacy-stream operation writes */
    cudaStream_t stream[MAX_STREAMS];
    cudaEvent_t start, stop;
    struct pipeline_events ev; /* before each chunk's copy in, after each operation (core.h) */
    int events_made;
    bool pinned_only; /* step 6's child: no pageable buffers */
    struct gate gate; /* holds each timed repetition until it is all queued (common/gate.h) */
    /* The CUDA environment variables that change what this lesson shows (read by the driver
     * when it initialises, at the first CUDA call; main.c prints them). */
    bool launch_blocking; /* CUDA_LAUNCH_BLOCKING=1: every launch and copy waits until done */
    int connections;      /* CUDA_DEVICE_MAX_CONNECTIONS: hardware work queues (default 8) */
    char drift[400];      /* why the timings are not comparable any more, if they are not */
    char untimed[200];    /* why no timing is judged in this run at all (a tool slows it) */
    /* What this GPU is (device attributes, read in main.c), for the decisions they change. */
    int engines;          /* asyncEngineCount: 2+ copies both ways at once, 1 one copy at a time */
    int compute_mode;     /* cudaComputeModeDefault, ...ExclusiveProcess, ... */
    int pageable_access;  /* cudaDevAttrPageableMemoryAccess: kernels can read malloc'd memory */
    int host_page_tables; /* ...UsesHostPageTables: through the host's page tables (ATS, Grace) */
    int integrated;       /* the GPU shares the host's memory (Jetson and the like) */
};
extern struct lesson L;

/* The pipeline's model for one number of chunks (model.c): each stage measured alone, cut
 * into those chunks, so that every operation's fixed cost is in it. ms. */
struct model {
    int chunks;
    double h1, k1, d1; /* one chunk's copy in, kernel, copy out, each alone */
    double H, K, D;    /* all chunks of one stage, in `chunks` streams, nothing else running */
    double Hs, Ds;     /* all copies in and all copies out at once: when each direction ends */
    double ideal;      /* the fastest the pipeline can be (with one chunk: the stages' sum
                          * and two hand-offs) */
    double bound;      /* the same with each direction at its rate alone while both copy:
                          * what no split of the link can beat (the "no faster" claims) */
    double serial;     /* the same operations one after another: H + K + D */
    double spread;     /* the widest spread of the repetitions behind these figures */
    double overlap;    /* the overlap fraction of the model's own timeline (step 4) */
};

/* What the steps found, for the steps after them. */
struct findings {
    const struct cudaDeviceProp *prop;
    const int *counts;
    int ncounts, maxn;
    bool auto_work;      /* --work auto: the lesson chose the work */
    char size_s[32];     /* L.bytes, formatted */
    double th, tk, td;   /* the stages alone, ms */
    double th2, td2;     /* the copies both at once, ms */
    double op_cost[OPS]; /* per operation beyond its bandwidth: a 4-byte copy, an empty kernel */
    struct run *seq;     /* step 2's sequential run */
    double handoff;      /* step 2: (sequential run - the stages' sum) / 2, at least 0 */
    struct model model[MAX_COUNTS];
    double allowed; /* the best speed-up the model allows (over the stream counts) */
    long device;
    struct run *wide, *wide_stage; /* the widest per-stream and by-stage runs */
    double legacy_ratio; /* step 5b: the legacy-joined run over the plain per-stream run */
};

extern struct run runs[MAX_RUNS];
extern int nruns;

/* steps.c and breaks.c: one function per numbered step; false when a CUDA call failed. */
bool step_1_stages_alone(struct findings *f);
bool step_2_in_sequence(struct findings *f);
bool step_3_split_over_streams(struct findings *f);
void step_4_timelines(struct findings *f);
bool step_5_what_breaks_the_overlap(struct findings *f);
bool step_6_one_hardware_queue(struct findings *f);
bool step_7_the_hardwares_own_record(struct findings *f);
bool step_8_the_driver_api(struct findings *f);
/* queue.c: what the child process of step 6 runs (--one-queue-child N) */
int one_queue_child(int chunks);

/* A timing comparison needs steady repetitions: false (and the reason in why) when they
 * spread by more than 10%, as they do when another program shares the GPU or its link. */
bool steady(double spread, char *why, size_t len);
/* A claim that rests on timings: judged as claim() does, or not judged (with L.untimed's
 * reason) when a tool such as compute-sanitizer slows every call of this run. */
bool tclaim(bool cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Why `streams` streams cannot each have a hardware queue of their own (CUDA_DEVICE_MAX_CONNECTIONS
 * below `streams`), in why; false when they can. */
bool queues_shared(int streams, char *why, size_t len);
double run_spread(const struct run *r);
/* The spread of n sorted repetitions, over their median: from the second smallest to the
 * second largest when there are 4 or more (one stray repetition each way is not noise). */
double spread_of(const double *sorted, int n);

/* model.c */
bool measure_model(int chunks, double handoff, struct model *m);
void model_of_one(const double t[OPS], double spread, double handoff, struct model *m);
const struct model *model_for(const struct findings *f, int chunks);
/* The largest of step 1's per-operation costs; one chunk's shortest operation alone (ms). A
 * model is judged as a bound only when that operation is under 20 such costs. */
double largest_op_cost(const struct findings *f);
double shortest_op(const struct model *m);
/* The model as a bound: `measured` is no faster than `ideal` allows, beyond 5%, the spread of the
 * repetitions behind both, and two operation costs (what passes between operations). */
bool within_bound(double ideal, double measured, double spread, double cost);
/* The model as a target: `measured` within 5% and the spread of `ideal`, either way, give or take
 * six operation costs (a chunk's three operations, two each: the events and hand-offs around
 * them, a few microseconds that weigh in only when the whole run is short). */
bool near_model(double ideal, double measured, double spread, double cost);
/* a and b more than a factor (1 + bar) apart, either way (a pace that moved) */
bool apart(double a, double b, double bar);

/* main.c: allocate what struct lesson holds, release it (on every path) */
bool lesson_allocate(const char *size_s);
bool lesson_release(void);

/* measure.c */
bool time_split(int which, int chunks, bool first_only, int reps, double *t, double *t2,
                double *spread);
bool per_op_costs(double ms[OPS]);
double overlap_fraction(const struct run *r);
bool run_once(const struct run *r, struct span spans[][OPS], double *total);
/* The lesson's buffers as core.c's pipeline description: n floats in `chunks` chunks in
 * `streams`, from pinned or pageable host memory. */
struct pipeline lesson_pipeline(size_t n, int chunks, enum memory memory, cudaStream_t *streams);
bool elapsed(cudaEvent_t a, cudaEvent_t b, double *ms);
bool measure(struct run *r);
bool measure_rounds(struct run **rs, int n);
struct run *new_run(int streams, enum order order, enum memory memory, bool sequential,
                    bool legacy_between);
bool time_stage(int which, int reps, double *t, double *t2);
bool choose_work(double target_ms);
double gbps(size_t bytes, double ms);

/* timeline.c */
void print_timeline(const char *title, const struct run *r);
int write_csv(FILE *f);

#endif
