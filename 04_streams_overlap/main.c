/*
 * 04_streams_overlap - copies and kernels in several streams: how much they overlap, the
 * limit of that overlap, and what breaks it.
 *
 * The story, one numbered step per part of the output (README.md annotates it):
 *   1. the three stages alone - host-to-device copy, kernel, device-to-host copy - and both
 *      copy directions at once, timed with events; the kernel's work per element is chosen
 *      (unless --work says otherwise) so that the kernel takes a little longer than a copy;
 *   2. the same work in sequence, its result checked against the host bit for bit;
 *   3. the work split into N chunks over N streams, issued per stream and by stage, against
 *      the ideal a pipeline can reach (the slowest stage plus one chunk of each other one);
 *   4. the timelines of those runs, from events recorded around every operation;
 *   5. what breaks the overlap: pageable host memory, and one operation on the legacy default
 *      stream between the streams' work.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "check.h"
#include "work.h"

#define MAX_STREAMS 64
#define MAX_COUNTS 8
#define MAX_REPS 100
#define MAX_RUNS (2 * MAX_COUNTS + 4)
#define TIMELINE_COLUMNS 64

enum order { PER_STREAM, BY_STAGE };
enum memory { PINNED, PAGEABLE };
enum { OP_H2D, OP_KERNEL, OP_D2H, OPS };
static const char op_letter[OPS] = {'H', 'K', 'D'};
static const char *const op_name[OPS] = {"H2D", "kernel", "D2H"};

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
static struct {
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
} L;

static struct run runs[MAX_RUNS];
static int nruns;
static struct span scratch[MAX_REPS + 1][MAX_STREAMS][OPS];

static void usage(FILE *to)
{
    fprintf(to,
            "usage: %s [options]\n"
            "Copies in, a kernel and copies out, split over several CUDA streams: how much they\n"
            "overlap, the pipeline's limit, and what breaks the overlap. Checks every claim.\n"
            "  -d, --device N     the GPU to use (default 0; see CUDA_VISIBLE_DEVICES)\n"
            "  -n, --elements N   floats to process (default 67108864 = 256 MiB each way)\n"
            "  -s, --streams LIST stream counts to try, comma-separated (default 1,2,4,8; each 1-%d)\n"
            "  -w, --work N|auto  multiply-adds per element (default auto: the kernel takes about\n"
            "                     1.2x a copy that shares the link with the other direction)\n"
            "  -r, --reps N       timed repetitions of each run after one warm-up (default 5)\n"
            "      --csv FILE     write every operation of every run (the timelines) as CSV\n"
            "  -h, --help         this text\n"
            "exit status: 0 all checks passed, 1 a check or CUDA call failed,\n"
            "             2 bad command line, 77 no usable GPU or driver here\n",
            lesson_prog, MAX_STREAMS);
}

/* "1,2,4,8" -> counts; each from 1 to MAX_STREAMS, at most MAX_COUNTS of them. */
static bool parse_counts(const char *text, int *counts, int *ncounts)
{
    char token[32];
    const char *p = text;
    *ncounts = 0;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        long v;
        if (*ncounts == MAX_COUNTS) {
            fprintf(stderr, "%s: --streams takes at most %d counts, not '%s'\n", lesson_prog,
                    MAX_COUNTS, text);
            return false;
        }
        if (len >= sizeof token)
            len = sizeof token - 1;
        memcpy(token, p, len);
        token[len] = '\0';
        if (!parse_long(token, 1, MAX_STREAMS, "each --streams count", &v))
            return false;
        counts[(*ncounts)++] = (int)v;
        if (!comma)
            return true;
        p = comma + 1;
    }
}

/* ---- measuring --------------------------------------------------------------------------- */

static size_t chunk_first(int chunks, int i) { return L.n * (size_t)i / (size_t)chunks; }

static bool issue_op(int op, int i, int chunks, cudaStream_t s, const float *in, float *out)
{
    size_t first = chunk_first(chunks, i), count = chunk_first(chunks, i + 1) - first;
    switch (op) {
    case OP_H2D:
        return checkRuntime(cudaMemcpyAsync(L.d_in + first, in + first, count * sizeof(float),
                                            cudaMemcpyHostToDevice, s));
    case OP_KERNEL: return checkRuntime(launch_work(L.d_in + first, L.d_out + first, count, L.work, s));
    default:
        return checkRuntime(cudaMemcpyAsync(out + first, L.d_out + first, count * sizeof(float),
                                            cudaMemcpyDeviceToHost, s));
    }
}

static bool elapsed(cudaEvent_t a, cudaEvent_t b, double *ms)
{
    float f = 0;
    if (!checkRuntime(cudaEventElapsedTime(&f, a, b)))
        return false;
    *ms = f;
    return true;
}

/* One repetition of a run: issue everything, wait, and turn the events into spans.
 * An event tells when its stream reached it, which is not always when the operation after
 * it started: a copy may still wait for the copy engine, a kernel for the SMs. So an
 * operation is drawn from the later of (its stream reached it, the operation of the same
 * kind that finished just before it finished), to its own end: one copy per direction
 * and one kernel at a time, in the order they finished. */
static bool run_once(const struct run *r, struct span spans[][OPS], double *total)
{
    const float *in = r->memory == PINNED ? L.h_in : L.p_in;
    float *out = r->memory == PINNED ? L.h_out : L.p_out;
    int chunks = r->streams;
    if (!checkRuntime(cudaEventRecord(L.start, 0)))
        return false;
    if (r->order == PER_STREAM) {
        for (int i = 0; i < chunks; i++) {
            cudaStream_t s = r->sequential ? 0 : L.stream[i];
            if (!checkRuntime(cudaEventRecord(L.ev[i][0], s)))
                return false;
            for (int op = 0; op < OPS; op++)
                if (!issue_op(op, i, chunks, s, in, out) ||
                    !checkRuntime(cudaEventRecord(L.ev[i][op + 1], s)))
                    return false;
            /* The legacy default stream (stream 0, a.k.a. NULL) waits for all earlier work
             * in blocking streams, and their later work waits for it. */
            if (r->legacy_between && i + 1 < chunks &&
                !checkRuntime(cudaMemsetAsync(L.d_flag, 0, sizeof(int), 0)))
                return false;
        }
    } else {
        for (int op = 0; op < OPS; op++)
            for (int i = 0; i < chunks; i++) {
                if (op == 0 && !checkRuntime(cudaEventRecord(L.ev[i][0], L.stream[i])))
                    return false;
                if (!issue_op(op, i, chunks, L.stream[i], in, out) ||
                    !checkRuntime(cudaEventRecord(L.ev[i][op + 1], L.stream[i])))
                    return false;
            }
    }
    if (!checkRuntime(cudaEventRecord(L.stop, 0)) || !checkRuntime(cudaEventSynchronize(L.stop)) ||
        !elapsed(L.start, L.stop, total))
        return false;
    static double ready[MAX_STREAMS][OPS], end[MAX_STREAMS][OPS];
    for (int i = 0; i < chunks; i++) {
        if (!elapsed(L.start, L.ev[i][0], &ready[i][0]))
            return false;
        for (int op = 0; op < OPS; op++) {
            if (!elapsed(L.start, L.ev[i][op + 1], &end[i][op]))
                return false;
            if (op + 1 < OPS)
                ready[i][op + 1] = end[i][op];
        }
    }
    for (int op = 0; op < OPS; op++) {
        /* The operations of one kind in the order they finished (insertion sort: few). */
        int order[MAX_STREAMS];
        for (int i = 0; i < chunks; i++) {
            int j = i;
            for (; j > 0 && end[order[j - 1]][op] > end[i][op]; j--)
                order[j] = order[j - 1];
            order[j] = i;
        }
        double engine_free = 0;
        for (int j = 0; j < chunks; j++) {
            int i = order[j];
            double start = ready[i][op] > engine_free ? ready[i][op] : engine_free;
            spans[i][op].start = start < end[i][op] ? start : end[i][op];
            spans[i][op].end = end[i][op];
            engine_free = end[i][op];
        }
    }
    return true;
}


static bool covered(const struct run *r, int op_lo, int op_hi, double t)
{
    for (int i = 0; i < r->streams; i++)
        for (int op = op_lo; op <= op_hi; op++)
            if (r->span[i][op].start <= t && t < r->span[i][op].end)
                return true;
    return false;
}

/* The time during which some copy and some kernel ran together, as a fraction of the
 * shorter of (the time some copy ran, the time some kernel ran): 0 when nothing overlaps,
 * 1 when the shorter activity is entirely hidden behind the other. */
static double overlap_fraction(const struct run *r)
{
    static double t[2 * MAX_STREAMS * OPS];
    int nt = 0;
    for (int i = 0; i < r->streams; i++)
        for (int op = 0; op < OPS; op++) {
            t[nt++] = r->span[i][op].start;
            t[nt++] = r->span[i][op].end;
        }
    sort_doubles(t, nt);
    double copying = 0, computing = 0, both = 0;
    for (int j = 0; j + 1 < nt; j++) {
        double a = t[j], b = t[j + 1], mid = (a + b) / 2;
        if (b <= a)
            continue;
        bool copy = covered(r, OP_H2D, OP_H2D, mid) || covered(r, OP_D2H, OP_D2H, mid);
        bool kernel = covered(r, OP_KERNEL, OP_KERNEL, mid);
        copying += copy ? b - a : 0;
        computing += kernel ? b - a : 0;
        both += copy && kernel ? b - a : 0;
    }
    double shorter = copying < computing ? copying : computing;
    return shorter > 0 ? both / shorter : 0;
}

/* Warm up once, then time L.reps repetitions. The output is poisoned (all bits set, a NaN)
 * on the host and the device before the last repetition, which is the one verified. */
static bool measure(struct run *r)
{
    double totals[MAX_REPS], sorted[MAX_REPS];
    float *out = r->memory == PINNED ? L.h_out : L.p_out;
    for (int rep = -1; rep < L.reps; rep++) {
        if (rep == L.reps - 1) {
            memset(out, 0xff, L.bytes);
            if (!checkRuntime(cudaMemset(L.d_out, 0xff, L.bytes)) ||
                !checkRuntime(cudaDeviceSynchronize()))
                return false;
        }
        double t;
        if (!run_once(r, scratch[rep + 1], &t))
            return false;
        if (rep >= 0)
            totals[rep] = sorted[rep] = t;
    }
    r->median = median_of(sorted, L.reps);
    r->lo = sorted[0];
    r->hi = sorted[L.reps - 1];
    int keep = 0; /* the repetition closest to the median: its timeline is the one drawn */
    for (int rep = 1; rep < L.reps; rep++)
        if (fabs(totals[rep] - r->median) < fabs(totals[keep] - r->median))
            keep = rep;
    r->total = totals[keep];
    memcpy(r->span, scratch[keep + 1], sizeof r->span);
    r->overlap = overlap_fraction(r);
    r->identical = L.ref && memcmp(out, L.ref, L.bytes) == 0;
    return true;
}

static struct run *new_run(int streams, enum order order, enum memory memory, bool sequential,
                           bool legacy_between)
{
    struct run *r = &runs[nruns++];
    r->streams = streams;
    r->order = order;
    r->memory = memory;
    r->sequential = sequential;
    r->legacy_between = legacy_between;
    if (sequential)
        snprintf(r->label, sizeof r->label, "%s-sequential", memory == PINNED ? "pinned" : "pageable");
    else
        snprintf(r->label, sizeof r->label, "%s-%s%s-%d", memory == PINNED ? "pinned" : "pageable",
                 order == PER_STREAM ? "per-stream" : "by-stage", legacy_between ? "-legacy" : "",
                 streams);
    return r;
}

/* The stages alone, full size, in the legacy stream: median over `reps` after a warm-up.
 * OPS (as `which`) means both copies at once, in two streams: then *t is the host-to-device
 * copy's time and *t2 the device-to-host copy's, both from the common start. */
static bool time_stage(int which, int reps, double *t, double *t2)
{
    double a[MAX_REPS], b[MAX_REPS];
    for (int rep = -1; rep < reps; rep++) {
        if (!checkRuntime(cudaEventRecord(L.start, 0)))
            return false;
        if (which == OPS) {
            if (!issue_op(OP_H2D, 0, 1, L.stream[0], L.h_in, L.h_out) ||
                !checkRuntime(cudaEventRecord(L.ev[0][1], L.stream[0])) ||
                !issue_op(OP_D2H, 0, 1, L.stream[1], L.h_in, L.h_out) ||
                !checkRuntime(cudaEventRecord(L.ev[1][3], L.stream[1])))
                return false;
        } else if (!issue_op(which, 0, 1, 0, L.h_in, L.h_out)) {
            return false;
        }
        if (!checkRuntime(cudaEventRecord(L.stop, 0)) || !checkRuntime(cudaEventSynchronize(L.stop)))
            return false;
        if (rep < 0)
            continue;
        if (which == OPS) {
            if (!elapsed(L.start, L.ev[0][1], &a[rep]) || !elapsed(L.start, L.ev[1][3], &b[rep]))
                return false;
        } else if (!elapsed(L.start, L.stop, &a[rep])) {
            return false;
        }
    }
    *t = median_of(a, reps);
    if (t2)
        *t2 = which == OPS ? median_of(b, reps) : *t;
    return true;
}

/* Two significant figures: 2437 -> 2400, 87 -> 87. */
static int round2(double v)
{
    if (v < 1)
        return 1;
    double scale = pow(10, floor(log10(v)) - 1);
    if (scale < 1)
        scale = 1;
    return (int)(floor(v / scale + 0.5) * scale);
}

/* The pipeline's ideal for `chunks` chunks: the slowest stage, plus one chunk of each of the
 * others (the first chunk's copy in before the slowest stage can start, the last chunk's
 * copy out after it ends). With two chunks or more, a copy in one direction runs while the
 * other direction copies too, so the copies count at their both-at-once times when one of
 * them is the slowest stage; the single chunks before and after run alone. */
static double stage_alone[OPS], stage_shared[OPS];

static double pipeline_ideal(int chunks, int *slowest)
{
    const double *in_pipe = chunks >= 2 ? stage_shared : stage_alone;
    int b = 0;
    for (int op = 1; op < OPS; op++)
        if (in_pipe[op] > in_pipe[b])
            b = op;
    if (slowest)
        *slowest = b;
    double t = in_pipe[b];
    for (int op = 0; op < OPS; op++)
        if (op != b)
            t += stage_alone[op] / chunks;
    return t;
}

/* ---- showing ------------------------------------------------------------------------------- */

static void print_timeline(const char *title, const struct run *r)
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

static bool write_csv(FILE *f, const char *path)
{
    int rows = 0;
    fprintf(f, "run,streams,order,memory,legacy_between,stream,chunk,op,start_ms,end_ms\n");
    for (int k = 0; k < nruns; k++) {
        const struct run *r = &runs[k];
        for (int i = 0; i < r->streams; i++)
            for (int op = 0; op < OPS; op++, rows++)
                fprintf(f, "%s,%d,%s,%s,%d,%d,%d,%s,%.4f,%.4f\n", r->label, r->streams,
                        r->sequential ? "sequential" : r->order == PER_STREAM ? "per-stream" : "by-stage",
                        r->memory == PINNED ? "pinned" : "pageable", r->legacy_between ? 1 : 0,
                        r->sequential ? 0 : i + 1, i, op_name[op], r->span[i][op].start,
                        r->span[i][op].end);
    }
    if (fflush(f) != 0 || ferror(f)) {
        fprintf(stderr, "%s: could not write %s\n", lesson_prog, path);
        return false;
    }
    printf("   every operation of every run (%d rows) written to %s\n", rows, path);
    return true;
}

static double gbps(size_t bytes, double ms) { return (double)bytes / 1e9 / (ms / 1e3); }

/* ---- the lesson ---------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    long device = 0, elements = 64L << 20, work = 0 /* auto */, reps = 5;
    int counts[MAX_COUNTS] = {1, 2, 4, 8}, ncounts = 4;
    const char *csv_path = NULL;
    FILE *csv = NULL;
    enum { OPT_CSV = 1000 };
    static const struct option options[] = {
        {"device", required_argument, NULL, 'd'}, {"elements", required_argument, NULL, 'n'},
        {"streams", required_argument, NULL, 's'}, {"work", required_argument, NULL, 'w'},
        {"reps", required_argument, NULL, 'r'},    {"csv", required_argument, NULL, OPT_CSV},
        {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0},
    };
    int opt;
    bool good = true;
    while (good && (opt = getopt_long(argc, argv, "d:n:s:w:r:h", options, NULL)) != -1) {
        switch (opt) {
        case 'd': good = parse_long(optarg, 0, 1023, "--device", &device); break;
        case 'n': good = parse_long(optarg, 1024, 1L << 30, "--elements", &elements); break;
        case 's': good = parse_counts(optarg, counts, &ncounts); break;
        case 'w':
            if (strcmp(optarg, "auto") == 0)
                work = 0;
            else
                good = parse_long(optarg, 1, 1000000, "--work (or 'auto')", &work);
            break;
        case 'r': good = parse_long(optarg, 1, MAX_REPS, "--reps", &reps); break;
        case OPT_CSV: csv_path = optarg; break;
        case 'h': usage(stdout); return EXIT_OK;
        default: good = false; break;
        }
    }
    if (good && optind < argc) {
        fprintf(stderr, "%s: unexpected argument '%s'\n", lesson_prog, argv[optind]);
        good = false;
    }
    if (good && csv_path && !(csv = fopen(csv_path, "w"))) {
        fprintf(stderr, "%s: --csv: cannot write '%s'\n", lesson_prog, csv_path);
        good = false;
    }
    if (!good) {
        usage(stderr);
        return EXIT_USAGE;
    }

    bool ok = true;
    int maxn = 1;
    for (int k = 0; k < ncounts; k++)
        if (counts[k] > maxn)
            maxn = counts[k];
    L.n = (size_t)elements;
    L.bytes = L.n * sizeof(float);
    L.reps = (int)reps;
    L.nstreams = maxn > 2 ? maxn : 2;
    char size_s[32];
    format_bytes(L.bytes, size_s, sizeof size_s);

    printf("04_streams_overlap: copies and kernels in several streams, overlapped\n");
    int count = 0;
    requireRuntime(cudaGetDeviceCount(&count));
    if (device >= count) {
        fprintf(stderr, "%s: --device %ld does not exist: this machine shows %d device(s), 0 to %d\n",
                lesson_prog, device, count, count - 1);
        if (csv)
            fclose(csv);
        return EXIT_USAGE;
    }
    struct cudaDeviceProp prop;
    if (!checkRuntime(cudaSetDevice((int)device)) ||
        !checkRuntime(cudaGetDeviceProperties(&prop, (int)device))) {
        ok = false;
        goto cleanup;
    }
    printf("device %ld: \"%s\", compute capability %d.%d, %d SMs\n", device, prop.name, prop.major,
           prop.minor, prop.multiProcessorCount);
    printf("data: %zu floats, %s in and %s out; %ld timed repetitions after a warm-up, median shown\n",
           L.n, size_s, size_s, reps);

    /* Allocation. Pinned (page-locked) host memory is what the copy engines can read and
     * write by DMA on their own; pageable memory is for step 5. */
    if (!checkRuntime(cudaMallocHost((void **)&L.h_in, L.bytes)) ||
        !checkRuntime(cudaMallocHost((void **)&L.h_out, L.bytes)) ||
        !checkRuntime(cudaMalloc((void **)&L.d_in, L.bytes)) ||
        !checkRuntime(cudaMalloc((void **)&L.d_out, L.bytes)) ||
        !checkRuntime(cudaMalloc((void **)&L.d_flag, sizeof(int)))) {
        fprintf(stderr, "%s: could not allocate 2 x %s of pinned host memory and of device memory\n",
                lesson_prog, size_s);
        ok = false;
        goto cleanup;
    }
    L.p_in = malloc(L.bytes);
    L.p_out = malloc(L.bytes);
    L.ref = calloc(L.n, sizeof(float));
    if (!L.p_in || !L.p_out || !L.ref) {
        fprintf(stderr, "%s: out of host memory (3 x %s)\n", lesson_prog, size_s);
        ok = false;
        goto cleanup;
    }
    for (size_t i = 0; i < L.n; i++)
        L.h_in[i] = L.p_in[i] = work_input(i);
    memset(L.p_out, 0, L.bytes); /* touch every page now, not during a measurement */
    /* Blocking streams (cudaStreamCreate, not cudaStreamNonBlocking): they synchronise with
     * the legacy default stream, which step 5 shows. */
    for (int i = 0; i < L.nstreams; i++)
        if (!checkRuntime(cudaStreamCreate(&L.stream[i]))) {
            ok = false;
            goto cleanup;
        }
    if (!checkRuntime(cudaEventCreate(&L.start)) || !checkRuntime(cudaEventCreate(&L.stop))) {
        ok = false;
        goto cleanup;
    }
    for (; L.events_made < L.nstreams * (OPS + 1); L.events_made++)
        if (!checkRuntime(cudaEventCreate(&L.ev[L.events_made / (OPS + 1)][L.events_made % (OPS + 1)]))) {
            ok = false;
            goto cleanup;
        }
    if (!checkRuntime(cudaMemset(L.d_out, 0, L.bytes))) {
        ok = false;
        goto cleanup;
    }

    /* 1. ------------------------------------------------------------------------------------ */
    printf("\n1. The three stages alone (events around each, in the legacy default stream)\n");
    double th, td, tk, th2, td2;
    if (!time_stage(OP_H2D, L.reps, &th, NULL) || !time_stage(OP_D2H, L.reps, &td, NULL) ||
        !time_stage(OPS, L.reps, &th2, &td2)) {
        ok = false;
        goto cleanup;
    }
    double both = th2 > td2 ? th2 : td2;
    double target = 1.2 * both;
    if (work == 0) {
        /* Choose the work: time the kernel, scale the work to the target, twice. */
        L.work = 256;
        for (int it = 0; it < 3; it++) {
            double t;
            if (!time_stage(OP_KERNEL, 3, &t, NULL)) {
                ok = false;
                goto cleanup;
            }
            double w = L.work * target / t;
            L.work = round2(w > 1000000 ? 1000000 : w);
        }
    } else {
        L.work = (int)work;
    }
    if (!time_stage(OP_KERNEL, L.reps, &tk, NULL)) {
        ok = false;
        goto cleanup;
    }
    stage_alone[OP_H2D] = th;
    stage_alone[OP_KERNEL] = tk;
    stage_alone[OP_D2H] = td;
    stage_shared[OP_H2D] = th2;
    stage_shared[OP_KERNEL] = tk;
    stage_shared[OP_D2H] = td2;
    printf("   host-to-device copy   %s   %7.2f ms   %5.1f GB/s\n", size_s, th, gbps(L.bytes, th));
    printf("   kernel                %s   %7.2f ms   (%d multiply-adds per element, %s)\n", size_s,
           tk, L.work, work == 0 ? "chosen: about 1.2x a shared copy" : "from --work");
    printf("   device-to-host copy   %s   %7.2f ms   %5.1f GB/s\n", size_s, td, gbps(L.bytes, td));
    printf("   both copies at once, in two streams: in %.2f ms, out %.2f ms: %.1f GB/s in total,\n"
           "   %.1f and %.1f GB/s each: the two directions share the PCIe link and host memory\n",
           th2, td2, gbps(2 * L.bytes, both), gbps(L.bytes, th2), gbps(L.bytes, td2));
    printf("   asyncEngineCount %d: %s\n", prop.asyncEngineCount,
           prop.asyncEngineCount >= 2
               ? "copy engines for both directions, so copies in and out can run at the same time\n"
                 "   as each other and as kernels"
               : prop.asyncEngineCount == 1 ? "one copy at a time, beside kernels"
                                            : "no copy runs beside a kernel");
    if (prop.asyncEngineCount >= 2)
        claim(gbps(2 * L.bytes, both) > 1.2 * gbps(L.bytes, th < td ? th : td),
              "both directions at once moved %.1f GB/s, more than one direction alone (%.1f GB/s)",
              gbps(2 * L.bytes, both), gbps(L.bytes, th < td ? th : td));
    if (work == 0)
        claim(tk > 0.5 * th && tk < 2.0 * th,
              "the kernel takes %.2f ms, comparable to a copy (%.2f ms): overlap can pay off", tk, th);

    /* 2. ------------------------------------------------------------------------------------ */
    printf("\n2. In sequence: copy in, kernel, copy out, all in the legacy default stream\n");
    struct run *seq = new_run(1, PER_STREAM, PINNED, true, false);
    if (!measure(seq)) {
        ok = false;
        goto cleanup;
    }
    memcpy(L.ref, L.h_out, L.bytes);
    size_t stride = L.n / 16384 ? L.n / 16384 : 1, sampled = 0, wrong = 0;
    for (size_t i = 0; i < L.n; i += stride, sampled++) {
        float want = work_on_host(work_input(i), L.work);
        wrong += memcmp(&want, &L.ref[i], sizeof want) != 0;
    }
    printf("   %.2f ms (spread %.2f to %.2f), the stages' sum is %.2f ms\n", seq->median, seq->lo,
           seq->hi, th + tk + td);
    printf("   %zu elements recomputed on the host with fmaf: %zu differ\n", sampled, wrong);
    claim(wrong == 0, "the GPU's result matches the host's bit for bit (%zu elements sampled)", sampled);

    /* 3. ------------------------------------------------------------------------------------ */
    printf("\n3. Split into N chunks, one per stream, in two issue orders\n");
    printf("   per stream: copy in, kernel, copy out of chunk 1, then of chunk 2, ...\n");
    printf("   by stage:   all copies in, then all kernels, then all copies out\n");
    printf("   ideal(N) = the slowest stage + one chunk of each other stage; with N >= 2 a copy\n"
           "   shares the link with the other direction, so copies count at their both-at-once\n"
           "   times (%.2f and %.2f ms) and the kernel at %.2f ms\n", th2, td2, tk);
    printf("   streams  order        time (spread)            ideal    reached  speed-up  result\n");
    struct run *best = NULL;
    bool all_identical = true;
    int streamed = 0;
    for (int k = 0; k < ncounts; k++)
        for (int o = PER_STREAM; o <= BY_STAGE; o++) {
            if (o == BY_STAGE && counts[k] == 1)
                continue; /* one chunk: the same as per stream */
            struct run *r = new_run(counts[k], (enum order)o, PINNED, false, false);
            if (!measure(r)) {
                ok = false;
                goto cleanup;
            }
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
           op_name[slowest], stage_shared[slowest], best_ideal);
    claim(best->median <= 1.05 * best_ideal,
          "the best run is within 5%% of the pipeline's ideal (%.1f%% of the ideal reached)",
          100 * best_ideal / best->median);

    /* 4. ------------------------------------------------------------------------------------ */
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

    /* 5. ------------------------------------------------------------------------------------ */
    printf("\n5. What breaks the overlap\n");
    printf("   a) pageable host memory (malloc): the copies go through the driver's staging\n"
           "      buffer and cudaMemcpyAsync returns only when its copy is (nearly) done\n");
    struct run *pseq = new_run(1, PER_STREAM, PAGEABLE, true, false);
    struct run *pstr = new_run(maxn, PER_STREAM, PAGEABLE, false, false);
    if (!measure(pseq) || !measure(pstr)) {
        ok = false;
        goto cleanup;
    }
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
    if (!measure(leg)) {
        ok = false;
        goto cleanup;
    }
    printf("      %d streams %.2f ms against %.2f ms in sequence: %.2fx; overlap %.0f%%\n", maxn,
           leg->median, seq->median, seq->median / leg->median, 100 * leg->overlap);
    print_timeline("legacy stream between", leg);
    claim(leg->identical, "the run with the legacy-stream operations returned the sequential result");
    claim(leg->overlap < 0.1 && leg->median > 0.9 * seq->median,
          "one legacy-stream operation between streams serialises them: %.2f of the sequential time",
          leg->median / seq->median);

    if (csv) {
        printf("\n");
        ok = write_csv(csv, csv_path) && ok;
    }

cleanup:
    for (int e = 0; e < L.events_made; e++)
        ok = checkRuntime(cudaEventDestroy(L.ev[e / (OPS + 1)][e % (OPS + 1)])) && ok;
    if (L.start)
        ok = checkRuntime(cudaEventDestroy(L.start)) && ok;
    if (L.stop)
        ok = checkRuntime(cudaEventDestroy(L.stop)) && ok;
    for (int i = 0; i < L.nstreams; i++)
        if (L.stream[i])
            ok = checkRuntime(cudaStreamDestroy(L.stream[i])) && ok;
    if (L.d_flag)
        ok = checkRuntime(cudaFree(L.d_flag)) && ok;
    if (L.d_out)
        ok = checkRuntime(cudaFree(L.d_out)) && ok;
    if (L.d_in)
        ok = checkRuntime(cudaFree(L.d_in)) && ok;
    if (L.h_out)
        ok = checkRuntime(cudaFreeHost(L.h_out)) && ok;
    if (L.h_in)
        ok = checkRuntime(cudaFreeHost(L.h_in)) && ok;
    free(L.p_in);
    free(L.p_out);
    free(L.ref);
    if (csv && fclose(csv) != 0) {
        fprintf(stderr, "%s: could not write %s\n", lesson_prog, csv_path);
        ok = false;
    }
    printf("\n");
    return verdict(ok);
}
