/* 03_pinned_memory/proof/lesson.h - what the instrument's files share: the state every step
 * reads and writes (struct lesson), the steps and the apparatus they use. The lesson itself is
 * ../core.c (core.h: the kinds of host memory, the copies, the kernels' launchers); the files
 * here use it, and call CUDA by its own names for the rest.
 *
 *   main.c       options and main(): the table of contents, one call per step
 *   step1_device.c           step 1: the platform and the link (common/platform.h)
 *   step2_sweep.c            step 2: the sweep of sizes, four kinds of host memory, its claims
 *   step3_cost.c             step 3: what pinning costs and when it pays off
 *   step4_staging.c          step 4: why pageable memory is slower (staging)
 *   step4b_behind_a_kernel.c step 4 b): copies queued behind a kernel: when cudaMemcpyAsync returns
 *   step5_zero_copy.c        step 5: mapped (zero-copy) memory
 *   step6_both_ways.c        step 6: both directions at once
 *   step7_driver_api.c       step 7: the same pinned memory and copies through the Driver API
 *   measure.c    the one "warm-up + timed event pairs" loop, runs timed in turn, the control
 *                copy, the data pattern written and checked, allocations that fail named
 *   report.c     the sweep's tables and CSV
 */
#ifndef PINNED_LESSON_H
#define PINNED_LESSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cuda_runtime_api.h>

#include "check.h"
#include "core.h"
#include "gate.h"
#include "gpu_shared.h"
#include "platform.h"

#define KiB         ((size_t)1 << 10)
#define MiB         ((size_t)1 << 20)
#define GiB         ((size_t)1 << 30)
#define MAX_SIZES   48
#define MIN_REPS    5           /* large sizes get fewer repetitions, never fewer than this */
#define REP_BYTES   (1 * GiB)   /* ... about this many bytes per size, kind and direction */
#define BATCH       4           /* copies per event pair in the nvbandwidth-style reference */
#define LARGE       (256 * MiB) /* "large" for the bar: 256 MiB and more */
#define WIDE        (16 * MiB)  /* "from 16 MiB up" */
#define SIDE_MAX    (256 * MiB) /* step 4 copies min(--max, this) */
#define BOTH_MAX    (64 * MiB)  /* step 6 copies min(--max, this) each way */
#define COST_MAX    (32 * MiB)  /* step 3 times buffers of min(--max, this) */
#define ZC_MAX      (64 * MiB)  /* step 5 moves min(--max, this) */
#define WC_READ_MAX (64 * MiB)  /* step 4 d): past the CPU's caches; reads stop after READ_MS */
#define READ_MS     20.0        /* ... so that slow reads of write-combined memory stay short */
#define WC_ROUNDS   3          /* step 4 d): each reading the fastest of this many, taken in turn */
#define PACE_BYTES  (16 * MiB) /* the control copy timed between the steps */
#define PACE_BAR    1.3        /* its fastest and slowest samples further apart: pace moved */
#define MIN_SIDE    (4 * KiB)  /* steps 4-7 copy at least this much (the device buffers hold it) */
#define STAGE_CHUNK (2 * MiB)  /* step 4: the CPU copy in chunks, as into a staging buffer */

extern const char *const kind_name[KINDS];
extern const char *const dir_name[DIRS];
extern const char *const dir_words[DIRS];

struct stats {
    int reps;
    double median, min, max; /* GB/s */
};

struct options {
    long device;
    size_t min, max;
    bool min_given, max_given; /* else the defaults, which are cut to fit a small GPU or host */
    long reps;
    const char *csv_path;
};

/* Everything the steps share; freed in main's cleanup. */
struct lesson {
    struct options opt;
    struct cudaDeviceProp prop;
    cudaStream_t stream, stream2;
    cudaEvent_t start, stop, stop2;
    struct gate gate;     /* holds each timed repetition until it is all queued (common/gate.h) */
    bool ungated;         /* time_events leaves the gate out (copies of pageable memory) */
    uint32_t *dev, *dev2; /* max(opt.max, MIN_SIDE) bytes, and side_bytes(L) bytes */
    unsigned long long *dev_bad;
    /* the platform (step 1: common/platform.h; its link read again after some copies) */
    struct platform platform;
    bool link_known; /* the link now and its maximum, from sysfs or NVML */
    double
        link_max_gbps; /* theoretical, per direction, at the link's maximum generation and width */
    bool pageable_direct; /* the GPU reads pageable memory itself (HMM, ATS, integrated) */
    char sizes_cut[200];  /* why the default sizes were cut ("" when they were not) */
    /* the control copy: PACE_BYTES pinned host to device, timed between the steps (GB/s) */
    void *pace_host;
    double pace_min, pace_max;
    int pace_n;
    /* the environment (step 1) and what step 4 saw of it */
    bool launch_blocking; /* CUDA_LAUNCH_BLOCKING=1 */
    bool one_connection;  /* CUDA_DEVICE_MAX_CONNECTIONS=1 */
    bool copies_block;    /* step 4: a pinned cudaMemcpyAsync waited for its copy */
    /* step 3: first-fill rate of new memory, GB/s (median of the rounds) */
    double fill_gbps[KINDS];
    double link_gbps; /* theoretical, per direction */
    /* step 2 */
    int nsizes;
    size_t sizes[MAX_SIZES];
    struct stats bw[KINDS][DIRS][MAX_SIZES];
    double batched[DIRS][MAX_SIZES];        /* pinned, nvbandwidth-style; 0 when not measured */
    double batched_spread[DIRS][MAX_SIZES]; /* (max-min)/median of the batches */
    long checks, wrong_words;
};

/* min(--max, cap), but at least MIN_SIDE: the size steps 4-7 copy. */
size_t side_bytes(const struct lesson *L, size_t cap);
/* Can a claim compare timings of copies of `bytes`, taken seconds apart? false, with the reason
 * in why, when a tool slows every call (compute-sanitizer), the copies are under 16 MiB (too
 * short to time), another program shares the GPU, or the control copy's pace moved. */
bool timings_comparable(const struct lesson *L, size_t bytes, char *why, size_t len);
/* Time the control copy once more (median of 5) and remember its fastest and slowest pace. */
bool pace_sample(struct lesson *L);

/* ---- the steps, in the order main() calls them -------------------------------------------- */
void step_1_environment(struct lesson *L);      /* step1_device.c: before any CUDA call */
bool step_1_platform(struct lesson *L);         /* step1_device.c: before any context */
bool step_1_link(struct lesson *L);             /* step1_device.c */
bool step_2_bandwidth_sweep(struct lesson *L);  /* step2_sweep.c */
bool step_3_pinning_cost(struct lesson *L);     /* step3_cost.c */
bool step_4_staging(struct lesson *L);          /* step4_staging.c */
bool step_4b_behind_a_kernel(struct lesson *L); /* step4b_behind_a_kernel.c, called by step 4 */
bool step_5_zero_copy(struct lesson *L);        /* step5_zero_copy.c */
bool step_6_both_ways(struct lesson *L);        /* step6_both_ways.c */
bool step_7_driver_api(struct lesson *L);       /* step7_driver_api.c */

/* ---- measure.c: the timing loop ------------------------------------------------------------- */
/* What goes between the two events of one timed repetition (work queued on L->stream, or on
 * other streams that L->stream waits for before `stop`). */
typedef bool (*enqueue_fn)(struct lesson *L, void *arg);

/* `warmups` untimed repetitions, then `reps` repetitions, each between L->start and L->stop
 * recorded in L->stream: ms[r] is the r-th repetition's time in milliseconds (events). */
bool time_events(struct lesson *L, int warmups, int reps, enqueue_fn work, void *arg, double *ms);
/* The same for `count` copies of `bytes` between host and L->dev, direction d, timed by core.c
 * (timed_copies, copies_ms): step 2's sweep. */
bool time_copies(struct lesson *L, int warmups, int reps, void *host, size_t bytes, enum dir d,
                 int count, double *ms);

/* The median of v[0..n-1] (sorted in place), and *spread = (max-min)/median. */
double median_spread(double *v, int n, double *spread);

/* Runs timed round by round, so that a slow moment of the machine slows one repetition of
 * every run and the median absorbs it: `warmups` untimed runs of each way, then `rounds` rounds
 * (at most IN_TURN_MAX) of one timed run of each; median[i] (ms) and, where spread is given,
 * spread[i] ((max-min)/median) of way i (at most 8 ways). */
struct way {
    enqueue_fn work;
    void *arg;
};
#define IN_TURN     5
#define IN_TURN_MAX 16
bool time_rounds(struct lesson *L, int warmups, int n, const struct way *ways, int rounds,
                 double *median, double *spread);
/* Two ways so: IN_TURN rounds; *ms_a and *ms_b their medians (ms). */
bool time_in_turn(struct lesson *L, int warmups, enqueue_fn a, void *arg_a, enqueue_fn b,
                  void *arg_b, double *ms_a, double *ms_b);

/* One warm-up, then 5 timed repetitions: their median in milliseconds (and their spread,
 * (max-min)/median). */
bool time_median5(struct lesson *L, enqueue_fn work, void *arg, double *median_ms);
bool time_median5_spread(struct lesson *L, enqueue_fn work, void *arg, double *median_ms,
                         double *spread);

/* ---- measure.c: small helpers ---------------------------------------------------------------- */
double gbps(size_t bytes, double ms);
const char *fmt_size(size_t bytes); /* format_bytes into one of 8 rotating buffers */
/* The pattern (pattern.h) written into, or checked in, host memory. fill_host writes from this
 * thread alone (a new buffer's pages land on its NUMA node); fill_placed, for a buffer whose
 * pages are placed already, and host_mismatches cut a large buffer among a few threads. */
void fill_host(uint32_t *h, size_t words, uint32_t seed);
void fill_placed(uint32_t *h, size_t words, uint32_t seed);
size_t host_mismatches(const uint32_t *h, size_t words, uint32_t seed);
/* Device-side check: how many of the first `words` words of dev differ from the pattern. */
bool device_mismatches(struct lesson *L, const uint32_t *dev, size_t words, uint32_t seed,
                       unsigned long long *bad);

/* core.c's host_alloc and host_free, a failure named: the call, the size, and this process's
 * limits on locked memory and address space where they are set (ulimit -l, ulimit -v). */
bool alloc_kind(enum kind k, size_t bytes, void **p);
bool free_kind(enum kind k, void *p);
/* An allocation failed: name the call, the size and the limits, then the error (exit 1 follows). */
bool alloc_failed(cudaError_t err, const char *call, size_t bytes, const char *file, int line);
/* " under ulimit -l 64 KiB (RLIMIT_MEMLOCK)" and the like for each limit set, or "". */
const char *limits_text(void);
extern cudaError_t alloc_err_;
#define ALLOC(call, text, bytes)             \
    (cudaSuccess == (alloc_err_ = (call)) || \
     alloc_failed(alloc_err_, text, bytes, __FILE__, __LINE__))
/* cudaMemcpyAsync between host and L->dev-like device memory, either way. */
cudaError_t copy_dir(void *host, void *dev, size_t bytes, enum dir d, cudaStream_t s);

/* ---- report.c ------------------------------------------------------------------------------- */
void print_table(const struct lesson *L, enum dir d);
bool write_csv(const struct lesson *L, FILE *f);

#endif
