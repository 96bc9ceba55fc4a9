/*
 * 04_streams_overlap/trace.c - step 7: the hardware's own record. A small CUPTI activity
 * tracer: CUPTI (the CUDA Profiling Tools Interface, shipped with the toolkit as cupti.h and
 * libcupti) records every copy and every kernel with the GPU's own start and end timestamps,
 * which is what Nsight Systems draws. The lesson's timelines come from events around each
 * operation; this step runs one repetition of the widest per-stream run with CUPTI recording,
 * and compares the two pictures of that same repetition: the overlap fraction and each stage's
 * busy time.
 *
 * libcupti is opened with dlopen, so the lesson builds and runs where it is missing (the step is
 * then not judged); the one whose soname matches the CUPTI this lesson was built with comes first
 * (libcupti.so.12 for a CUDA 12 build, .so.13 for CUDA 13: a machine may have both). The
 * activity API used: cuptiActivityRegisterCallbacks (CUPTI hands us buffers to fill),
 * cuptiActivityEnable/Disable for CUPTI_ACTIVITY_KIND_MEMCPY and
 * CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, cuptiActivityFlushAll, cuptiActivityGetNextRecord. Where
 * the headers have the subscriber-based forms (CUPTI 13.5 announces the ones above will be
 * deprecated), the lesson uses those: cuptiSubscribe_v2, then the _v2 form of each call with the
 * subscriber handle, and cuptiUnsubscribe at the end.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lesson.h"
#include "work.h"

#if defined(__has_include)
#if __has_include(<cupti_activity.h>)
#include <cupti_activity.h>
#include <cupti_version.h>
#define HAVE_CUPTI 1
#endif
#endif

#ifndef HAVE_CUPTI
bool step_7_the_hardwares_own_record(struct findings *f)
{
    (void)f;
    printf("\n7. The hardware's own record: CUPTI\n");
    not_judged("this build found no cupti_activity.h in the CUDA toolkit",
               "the events' picture agrees with CUPTI's");
    return true;
}
#else

/* The record types of the CUPTI this lesson is built with: CUDA 13's CUPTI names them
 * CUpti_ActivityKernel10 and CUpti_ActivityMemcpy6; CUDA 12.0's newest are Kernel9 and
 * Memcpy5. The fields read here (kind, copyKind, start, end) are at the same place in all. */
#if CUPTI_API_VERSION >= 130000
typedef CUpti_ActivityKernel10 kernel_record;
typedef CUpti_ActivityMemcpy6 memcpy_record;
#else
typedef CUpti_ActivityKernel9 kernel_record;
typedef CUpti_ActivityMemcpy5 memcpy_record;
#endif

/* The subscriber-based activity API: its parameter structs come with these size macros. */
#if defined(CUpti_SubscriberParams_STRUCT_SIZE) && defined(CUpti_ActivityConfig_STRUCT_SIZE)
#define CUPTI_V2 1
#endif
#define CUPTI_MAJOR (CUPTI_API_VERSION >= 130000 ? 13 : 12)

#define MAX_RECORDS (4 * MAX_STREAMS * OPS)
struct record {
    int op;
    unsigned long long start, end; /* ns, the GPU's clock */
};
static struct record records[MAX_RECORDS];
static int nrecords, dropped;

static struct {
    void *lib;
    CUptiResult (*flush_all)(uint32_t);
    CUptiResult (*get_version)(uint32_t *);
#ifdef CUPTI_V2
    CUpti_SubscriberHandle subscriber;
    CUptiResult (*subscribe)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *,
                             CUpti_SubscriberParams *);
    CUptiResult (*unsubscribe)(CUpti_SubscriberHandle);
    CUptiResult (*register_callbacks)(CUpti_SubscriberHandle, CUpti_BuffersCallbackRequestFunc_v2,
                                      CUpti_BuffersCallbackCompleteFunc_v2);
    CUptiResult (*enable)(CUpti_SubscriberHandle, CUpti_ActivityKind, CUpti_ActivityConfig *);
    CUptiResult (*disable)(CUpti_SubscriberHandle, CUpti_ActivityKind, CUpti_ActivityConfig *);
    CUptiResult (*next_record)(CUpti_SubscriberHandle, uint8_t *, size_t, CUpti_Activity **);
#else
    CUptiResult (*register_callbacks)(CUpti_BuffersCallbackRequestFunc,
                                      CUpti_BuffersCallbackCompleteFunc);
    CUptiResult (*enable)(CUpti_ActivityKind);
    CUptiResult (*disable)(CUpti_ActivityKind);
    CUptiResult (*next_record)(uint8_t *, size_t, CUpti_Activity **);
#endif
} C;

static void take_records(uint8_t *buffer, size_t valid)
{
    CUpti_Activity *rec = NULL;
#ifdef CUPTI_V2
    while (C.next_record(C.subscriber, buffer, valid, &rec) == CUPTI_SUCCESS) {
#else
    while (C.next_record(buffer, valid, &rec) == CUPTI_SUCCESS) {
#endif
        struct record r = {.op = -1};
        if (rec->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
            const memcpy_record *m = (const memcpy_record *)rec;
            r.op = m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD   ? OP_H2D
                   : m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOH ? OP_D2H
                                                                    : -1;
            r.start = m->start, r.end = m->end;
        } else if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
            const kernel_record *k = (const kernel_record *)rec;
            r.op = OP_KERNEL, r.start = k->start, r.end = k->end;
        }
        if (r.op < 0)
            continue;
        if (nrecords < MAX_RECORDS)
            records[nrecords++] = r;
        else
            dropped++;
    }
    free(buffer);
}

#ifdef CUPTI_V2
static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records,
                                      CUpti_BufferCallbackRequestInfo *info)
{
    (void)info;
    *size = 1 << 20;
    *buffer = aligned_alloc(8, *size);
    *max_records = 0;
}

static void CUPTIAPI buffer_completed(uint8_t *buffer, size_t size, size_t valid,
                                      CUpti_BufferCallbackCompleteInfo *info)
{
    (void)size, (void)info;
    take_records(buffer, valid);
}

/* The subscriber's callback: no callback domain is enabled, so it is never called. */
static void CUPTIAPI no_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                                 const void *data)
{
    (void)userdata, (void)domain, (void)id, (void)data;
}
#else
static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *size = 1 << 20;
    *buffer = aligned_alloc(8, *size);
    *max_records = 0;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                                      size_t valid)
{
    (void)ctx, (void)stream, (void)size;
    take_records(buffer, valid);
}
#endif

/* The three calls that differ between the two forms of the API. */
static CUptiResult start_recording(void)
{
#ifdef CUPTI_V2
    CUpti_SubscriberParams params = {.structSize = CUpti_SubscriberParams_STRUCT_SIZE};
    CUptiResult e = C.subscribe(&C.subscriber, no_callback, NULL, &params);
    if (e != CUPTI_SUCCESS) {
        C.subscriber = NULL;
        return e;
    }
    e = C.register_callbacks(C.subscriber, buffer_requested, buffer_completed);
    e = e == CUPTI_SUCCESS ? C.enable(C.subscriber, CUPTI_ACTIVITY_KIND_MEMCPY, NULL) : e;
    return e == CUPTI_SUCCESS ? C.enable(C.subscriber, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, NULL)
                              : e;
#else
    CUptiResult e = C.register_callbacks(buffer_requested, buffer_completed);
    e = e == CUPTI_SUCCESS ? C.enable(CUPTI_ACTIVITY_KIND_MEMCPY) : e;
    return e == CUPTI_SUCCESS ? C.enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) : e;
#endif
}

static void stop_recording(void)
{
#ifdef CUPTI_V2
    if (!C.subscriber)
        return;
    C.disable(C.subscriber, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, NULL);
    C.disable(C.subscriber, CUPTI_ACTIVITY_KIND_MEMCPY, NULL);
    C.unsubscribe(C.subscriber);
    C.subscriber = NULL;
#else
    C.disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    C.disable(CUPTI_ACTIVITY_KIND_MEMCPY);
#endif
}

/* The activity API's functions in the opened libcupti; false when one is missing. */
static bool find_symbols(void)
{
#ifdef CUPTI_V2
    *(void **)&C.subscribe = dlsym(C.lib, "cuptiSubscribe_v2");
    *(void **)&C.unsubscribe = dlsym(C.lib, "cuptiUnsubscribe");
    *(void **)&C.register_callbacks = dlsym(C.lib, "cuptiActivityRegisterCallbacks_v2");
    *(void **)&C.enable = dlsym(C.lib, "cuptiActivityEnable_v2");
    *(void **)&C.disable = dlsym(C.lib, "cuptiActivityDisable_v2");
    *(void **)&C.next_record = dlsym(C.lib, "cuptiActivityGetNextRecord_v2");
    bool have = C.subscribe && C.unsubscribe;
#else
    *(void **)&C.register_callbacks = dlsym(C.lib, "cuptiActivityRegisterCallbacks");
    *(void **)&C.enable = dlsym(C.lib, "cuptiActivityEnable");
    *(void **)&C.disable = dlsym(C.lib, "cuptiActivityDisable");
    *(void **)&C.next_record = dlsym(C.lib, "cuptiActivityGetNextRecord");
    bool have = true;
#endif
    *(void **)&C.flush_all = dlsym(C.lib, "cuptiActivityFlushAll");
    *(void **)&C.get_version = dlsym(C.lib, "cuptiGetVersion");
    return have && C.register_callbacks && C.enable && C.disable && C.flush_all && C.next_record &&
           C.get_version;
}

/* Open libcupti: the soname of the CUPTI this lesson was built with first, then as the loader
 * finds libcupti.so, then where toolkits put it. NULL: opened; else why not. */
static const char *open_cupti(void)
{
    static char why[160];
    const char *cuda = getenv("CUDA_PATH");
    char path[512], soname[32];
    snprintf(soname, sizeof soname, "libcupti.so.%d", CUPTI_MAJOR);
    const char *names[] = {soname, "libcupti.so"};
    const char *dirs[] = {"extras/CUPTI/lib64", "lib64", "lib", "targets/x86_64-linux/lib"};
    for (int i = 0; i < 2 && !C.lib; i++)
        C.lib = dlopen(names[i], RTLD_NOW);
    for (int r = 0; r < 2 && !C.lib; r++) {
        const char *root = r == 0 ? cuda : "/usr/local/cuda";
        for (size_t d = 0; root && d < sizeof dirs / sizeof *dirs && !C.lib; d++)
            for (int i = 0; i < 2 && !C.lib; i++) {
                snprintf(path, sizeof path, "%s/%s/%s", root, dirs[d], names[i]);
                C.lib = dlopen(path, RTLD_NOW);
            }
    }
    if (!C.lib) {
        snprintf(why, sizeof why,
                 "%s was not found (the loader's path, $CUDA_PATH, "
                 "/usr/local/cuda)",
                 soname);
        return why;
    }
    bool have = find_symbols();
    uint32_t version = 0;
    if (!have)
        return "libcupti lacks the activity API";
    if (C.get_version(&version) != CUPTI_SUCCESS || version != CUPTI_API_VERSION) {
        snprintf(why, sizeof why,
                 "libcupti's API version %u is not the %u this lesson was built with", version,
                 (unsigned)CUPTI_API_VERSION);
        return why;
    }
    return NULL;
}

/* The records as a run: the i-th copy in (by start time) as chunk i's, and so on; times in ms,
 * aligned so that the first copy in starts where the events put the first one. */
static void records_as_run(const struct run *ev, struct run *cu)
{
    *cu = (struct run){.streams = ev->streams, .total = ev->total};
    snprintf(cu->label, sizeof cu->label, "cupti");
    unsigned long long t0 = 0;
    for (int k = 0; k < nrecords; k++) /* by start time (few records: a simple sort) */
        for (int j = k + 1; j < nrecords; j++)
            if (records[j].start < records[k].start) {
                struct record t = records[k];
                records[k] = records[j];
                records[j] = t;
            }
    /* The k-th operation of a kind to start, by CUPTI, is drawn in the row of the stream whose
     * operation of that kind the events show starting k-th (CUPTI's records name its own stream
     * ids, not ours). */
    double origin = 1e30;
    for (int i = 0; i < ev->streams; i++)
        origin = ev->span[i][OP_H2D].start < origin ? ev->span[i][OP_H2D].start : origin;
    for (int op = 0; op < OPS; op++) {
        int order[MAX_STREAMS], n = ev->streams, i = 0;
        for (int c = 0; c < n; c++) {
            int j = c;
            for (; j > 0 && ev->span[order[j - 1]][op].start > ev->span[c][op].start; j--)
                order[j] = order[j - 1];
            order[j] = c;
        }
        for (int k = 0; k < nrecords && i < n; k++)
            if (records[k].op == op) {
                if (op == OP_H2D && i == 0)
                    t0 = records[k].start;
                cu->span[order[i]][op].start = (double)(records[k].start - t0) / 1e6 + origin;
                cu->span[order[i]][op].end = (double)(records[k].end - t0) / 1e6 + origin;
                i++;
            }
    }
}

/* The time during which some operation of this kind ran (the union of their spans: CUPTI may
 * show two kernels of different streams overlapping where one ends and the next begins). */
static double busy(const struct run *r, int op)
{
    double t = 0, reach = -1e30;
    int order[MAX_STREAMS], n = r->streams;
    for (int i = 0; i < n; i++) { /* by start time */
        int j = i;
        for (; j > 0 && r->span[order[j - 1]][op].start > r->span[i][op].start; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    for (int j = 0; j < n; j++) {
        const struct span *sp = &r->span[order[j]][op];
        double from = sp->start > reach ? sp->start : reach;
        if (sp->end > from)
            t += sp->end - from;
        if (sp->end > reach)
            reach = sp->end;
    }
    return t;
}

/* One repetition of the widest per-stream run with CUPTI recording (a warm-up first), held
 * behind a kernel in the legacy stream until the host has issued everything: under CUPTI every
 * call costs the host more, and an event before an operation says when its stream got there, not
 * when the host had issued it. *ev: the events' picture of that repetition. */
static bool record_one_repetition(const struct findings *f, struct run *ev)
{
    const struct run *wide = f->wide;
    static struct span spans[MAX_STREAMS][OPS];
    double gate_ms = 2 + 0.5 * wide->streams, w = L.work * gate_ms / f->tk;
    struct pipeline held = lesson_pipeline(L.n, 1, PINNED, L.stream); /* the kernel, all elements */
    held.work = w < L.work ? L.work : w > 1e7 ? 10000000 : (int)w;
    bool ok = checkRuntime(cudaDeviceSynchronize());
    for (int rep = 0; ok && rep < 2; rep++) {
        C.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        nrecords = dropped = 0;
        ok = issue_stage(&held, OP_KERNEL, 0, 0) && run_once(wide, spans, &ev->total) &&
             checkRuntime(cudaDeviceSynchronize());
    }
    C.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    stop_recording();
    if (!ok)
        return false;
    memcpy(ev->span, spans, sizeof ev->span);
    ev->overlap = overlap_fraction(ev);
    /* Leave out the gate kernel: it ended before the first copy in started. */
    unsigned long long first_in = ~0ULL;
    for (int k = 0; k < nrecords; k++)
        if (records[k].op == OP_H2D && records[k].start < first_in)
            first_in = records[k].start;
    int kept = 0;
    for (int k = 0; k < nrecords; k++)
        if (!(records[k].op == OP_KERNEL && records[k].end <= first_in))
            records[kept++] = records[k];
    nrecords = kept;
    return true;
}

/* Why the busy times and the overlap are not compared on this run, in why; false: they are. */
static bool pictures_not_comparable(const struct findings *f, double shortest, char *why,
                                    size_t len)
{
    double cost = largest_op_cost(f);
    if (!steady(0, why, len)) /* another program's copies share the engines */
        return true;
    if (queues_shared(f->wide->streams, why, len)) /* an event waits behind other streams' work */
        return true;
    if (shortest >= 20 * cost)
        return false;
    /* An event after an operation is stamped when its stream gets there, a few us after the
     * operation's end; the span before it starts when the engine is free or the stream reached
     * it. Against operations this short, those few us are the picture. */
    snprintf(why, len,
             "the operations take %.0f us or less, under 20 times the %.1f us an operation costs: "
             "the events' few microseconds of lag are too much of them",
             1e3 * shortest, 1e3 * cost);
    return true;
}

/* Each stage's busy time from the events, from CUPTI, and from CUPTI counted as the events
 * count it; whether the events' agree with the third; *shortest: CUPTI's shortest operation. */
static bool busy_times(const struct findings *f, const struct run *ev, const struct run *cu,
                       double *shortest)
{
    int streams = f->wide->streams;
    /* The events have one stamp between two operations of a stream: an operation's span runs
     * from the end of the one before it. CUPTI's spans stretched back the same way are what
     * the events should show; the engine's own start comes a hand-off later. */
    struct run reach = *cu;
    for (int i = 0; i < cu->streams; i++)
        for (int op = 1; op < OPS; op++)
            if (cu->span[i][op - 1].end < reach.span[i][op].start)
                reach.span[i][op].start = cu->span[i][op - 1].end;
    printf("   busy time      events     CUPTI      CUPTI as the events count it\n");
    bool agree = true;
    /* An event after an operation is stamped when its stream gets there: allow two operation
     * costs (step 1) per operation beside the 5%. */
    double tol = 2 * largest_op_cost(f) * streams;
    for (int op = 0; op < OPS; op++) {
        double a = busy(ev, op), b = busy(cu, op), c = busy(&reach, op);
        printf("   %-12s %7.3f ms %7.3f ms %7.3f ms\n", op_name[op], a, b, c);
        agree = agree && a > 0.95 * c - tol && a < 1.05 * c + tol;
        *shortest = b / streams < *shortest ? b / streams : *shortest;
    }
    return agree;
}

/* The two pictures side by side, and the claims. */
static void compare_pictures(const struct findings *f, const struct run *ev, struct run *cu)
{
    int counted[OPS] = {0}, n = f->wide->streams;
    for (int k = 0; k < nrecords; k++)
        counted[records[k].op]++;
    records_as_run(ev, cu);
    cu->overlap = overlap_fraction(cu);
    printf("   one repetition of the %d-stream per-stream run, recorded by both:\n", n);
    print_timeline("from events", ev);
    print_timeline("from CUPTI", cu);
    printf("   CUPTI recorded %d copies in, %d kernels, %d copies out%s\n", counted[OP_H2D],
           counted[OP_KERNEL], counted[OP_D2H], dropped ? " (and dropped some)" : "");
    double shortest = 1e30;
    bool agree = busy_times(f, ev, cu, &shortest);
    printf("   overlap        %5.1f%%    %5.1f%%\n", 100 * ev->overlap, 100 * cu->overlap);
    printf("   (one event stamps the end of an operation and the start of the next in its stream:\n"
           "   the events' span of an operation includes the hand-off before its engine takes it\n"
           "   up; the third column stretches CUPTI's spans back to that stamp the same way)\n");
    claim(counted[OP_H2D] == n && counted[OP_KERNEL] == n && counted[OP_D2H] == n,
          "CUPTI recorded every operation of the repetition: %d of each kind", n);
    char why[480];
    if (pictures_not_comparable(f, shortest, why, sizeof why)) {
        not_judged(why, "each stage's busy time from the events is within 5%% of CUPTI's");
        not_judged(why, "the events' overlap is within 5 points of CUPTI's");
        return;
    }
    if (L.launch_blocking)
        /* The event after a kernel is queued only when the launch returns, after the kernel:
         * it is stamped a host round trip late (an H100 on a busy host: 1.960 ms of kernels
         * from the events, 1.664 from CUPTI, 8 kernels). */
        not_judged("CUDA_LAUNCH_BLOCKING=1: the event after each kernel is queued only once the "
                   "kernel is done, so it is stamped a host round trip late",
                   "each stage's busy time from the events is within 5%% of CUPTI's");
    else
        claim(agree, "each stage's busy time from the events is within 5%% (and two operation "
                     "costs per operation) of CUPTI's, counted as the events count it");
    claim(ev->overlap > cu->overlap - 0.05 && ev->overlap < cu->overlap + 0.05,
          "the events' overlap (%.1f%%) is within 5 points of CUPTI's (%.1f%%)", 100 * ev->overlap,
          100 * cu->overlap);
}

bool step_7_the_hardwares_own_record(struct findings *f)
{
    printf("\n7. The hardware's own record: CUPTI's timestamps against the events' picture\n");
    if (L.untimed[0]) { /* the tool watches every call too: CUPTI's record is not ours alone */
        not_judged(L.untimed, "the events' picture agrees with CUPTI's");
        return true;
    }
    const char *why = open_cupti();
    if (why) {
        not_judged(why, "the events' picture agrees with CUPTI's");
        return true;
    }
    struct run ev = *f->wide, cu;
    CUptiResult e3 = start_recording();
    if (e3 != CUPTI_SUCCESS) {
        stop_recording();
        char text[120];
        snprintf(text, sizeof text,
                 "CUPTI could not start recording (CUptiResult %d): another tool "
                 "(compute-sanitizer, a profiler) may hold it",
                 (int)e3);
        not_judged(text, "the events' picture agrees with CUPTI's");
        return true;
    }
    if (!record_one_repetition(f, &ev))
        return false;
    compare_pictures(f, &ev, &cu);
    return true;
}
#endif
