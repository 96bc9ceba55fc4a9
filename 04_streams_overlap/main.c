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
 * This file: the options, the allocation and release, and main(), the table of contents.
 * The steps are in steps.c and breaks.c, the measuring apparatus in measure.c and timeline.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "lesson.h"
#include "work.h"

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

/* "1,2,4,8" -> counts; each from 1 to MAX_STREAMS, at most MAX_COUNTS of them. Each count
 * is parsed whole (no fixed-size buffer that could cut "0000...0640" to "0000...064"). */
static bool parse_counts(const char *text, int *counts, int *ncounts)
{
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
        char *token = strndup(p, len);
        if (!token) {
            fprintf(stderr, "%s: out of memory reading --streams\n", lesson_prog);
            return false;
        }
        bool good = parse_long(token, 1, MAX_STREAMS, "each --streams count", &v);
        free(token);
        if (!good)
            return false;
        counts[(*ncounts)++] = (int)v;
        if (!comma)
            return true;
        p = comma + 1;
    }
}

/* --csv FILE: can it be written? Checked while parsing (a bad path is a bad command line),
 * without creating or emptying anything: the CSV is written only at the end of a run that got
 * that far, to a temporary file beside FILE that then replaces it (write_csv_file). */
static bool csv_path_writable(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0)
        return !S_ISDIR(st.st_mode) && access(path, W_OK) == 0;
    char *copy = strdup(path);
    bool ok = copy && access(dirname(copy), W_OK | X_OK) == 0;
    free(copy);
    return ok;
}

static bool write_csv_file(const char *path)
{
    size_t len = strlen(path) + sizeof ".tmp.XXXXXX";
    char *tmp = malloc(len);
    int fd = -1, rows = -1;
    if (tmp) {
        snprintf(tmp, len, "%s.tmp.XXXXXX", path);
        fd = mkstemp(tmp);
    }
    if (fd >= 0) {
        mode_t mask = umask(0); /* mkstemp makes it 0600; a CSV is as readable as any file */
        umask(mask);
        FILE *f = fchmod(fd, 0666 & ~mask) == 0 ? fdopen(fd, "w") : NULL;
        rows = f ? write_csv(f) : -1;
        if (f ? fclose(f) != 0 : close(fd) != 0)
            rows = -1;
        if (rows >= 0 && rename(tmp, path) != 0)
            rows = -1;
        if (rows < 0)
            unlink(tmp);
    }
    free(tmp);
    if (rows < 0) {
        fprintf(stderr, "%s: could not write %s\n", lesson_prog, path);
        return false;
    }
    printf("   every operation of every run (%d rows) written to %s\n", rows, path);
    return true;
}

/* A program started with stdout (or stderr) closed would hand that file descriptor to the
 * next file it opens, and then print its story into that file: give it /dev/null first. */
static void keep_standard_streams_open(void)
{
    for (int fd = 0; fd <= 2; fd++)
        if (fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
            int null = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
            if (null >= 0 && null != fd) {
                dup2(null, fd);
                close(null);
            }
        }
}

struct options {
    long device, elements, work /* 0: auto */, reps;
    int counts[MAX_COUNTS], ncounts;
    const char *csv_path;
};

/* The command line into *o; false (after the message) when it is bad. */
static bool parse_options(int argc, char **argv, struct options *o, bool *help)
{
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
        case 'd': good = parse_long(optarg, 0, 1023, "--device", &o->device); break;
        case 'n': good = parse_long(optarg, 1024, 1L << 30, "--elements", &o->elements); break;
        case 's': good = parse_counts(optarg, o->counts, &o->ncounts); break;
        case 'w':
            if (strcmp(optarg, "auto") == 0)
                o->work = 0;
            else
                good = parse_long(optarg, 1, 1000000, "--work (or 'auto')", &o->work);
            break;
        case 'r': good = parse_long(optarg, 1, MAX_REPS, "--reps", &o->reps); break;
        case OPT_CSV: o->csv_path = optarg; break;
        case 'h': *help = true; return true;
        default: good = false; break;
        }
    }
    if (good && optind < argc) {
        fprintf(stderr, "%s: unexpected argument '%s'\n", lesson_prog, argv[optind]);
        good = false;
    }
    if (good && o->csv_path && !csv_path_writable(o->csv_path)) {
        fprintf(stderr, "%s: --csv: cannot write '%s'\n", lesson_prog, o->csv_path);
        good = false;
    }
    return good;
}

/* Allocation. Pinned (page-locked) host memory is what the copy engines can read and
 * write by DMA on their own; pageable memory is for step 5. */
static bool allocate(const char *size_s)
{
    if (!checkRuntime(cudaMallocHost((void **)&L.h_in, L.bytes)) ||
        !checkRuntime(cudaMallocHost((void **)&L.h_out, L.bytes)) ||
        !checkRuntime(cudaMalloc((void **)&L.d_in, L.bytes)) ||
        !checkRuntime(cudaMalloc((void **)&L.d_out, L.bytes)) ||
        !checkRuntime(cudaMalloc((void **)&L.d_flag, sizeof(int)))) {
        fprintf(stderr, "%s: could not allocate 2 x %s of pinned host memory and of device memory\n",
                lesson_prog, size_s);
        return false;
    }
    L.p_in = malloc(L.bytes);
    L.p_out = malloc(L.bytes);
    L.ref = calloc(L.n, sizeof(float));
    if (!L.p_in || !L.p_out || !L.ref) {
        fprintf(stderr, "%s: out of host memory (3 x %s)\n", lesson_prog, size_s);
        return false;
    }
    for (size_t i = 0; i < L.n; i++)
        L.h_in[i] = L.p_in[i] = work_input(i);
    memset(L.p_out, 0, L.bytes); /* touch every page now, not during a measurement */
    /* Blocking streams (cudaStreamCreate, not cudaStreamNonBlocking): they synchronise with
     * the legacy default stream, which step 5 shows. */
    for (int i = 0; i < L.nstreams; i++)
        if (!checkRuntime(cudaStreamCreate(&L.stream[i])))
            return false;
    if (!checkRuntime(cudaEventCreate(&L.start)) || !checkRuntime(cudaEventCreate(&L.stop)))
        return false;
    for (; L.events_made < L.nstreams * (OPS + 1); L.events_made++)
        if (!checkRuntime(cudaEventCreate(&L.ev[L.events_made / (OPS + 1)][L.events_made % (OPS + 1)])))
            return false;
    return checkRuntime(cudaMemset(L.d_out, 0, L.bytes));
}

/* Release whatever allocate() made, on every path; false when a release failed. */
static bool release(void)
{
    bool ok = true;
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
    return ok;
}

int main(int argc, char **argv)
{
    keep_standard_streams_open();
    lesson_init(argv[0]);
    argv[0] = (char *)lesson_prog; /* getopt's own messages show the short name too */
    struct options o = {.elements = 64L << 20, .reps = 5, .counts = {1, 2, 4, 8}, .ncounts = 4};
    bool help = false;
    if (!parse_options(argc, argv, &o, &help)) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (help) {
        usage(stdout);
        return EXIT_OK;
    }
    struct findings f = {.counts = o.counts, .ncounts = o.ncounts, .maxn = 1, .auto_work = o.work == 0};
    for (int k = 0; k < o.ncounts; k++)
        if (o.counts[k] > f.maxn)
            f.maxn = o.counts[k];
    L.n = (size_t)o.elements;
    L.bytes = L.n * sizeof(float);
    L.reps = (int)o.reps;
    L.work = (int)o.work;
    L.nstreams = f.maxn > 2 ? f.maxn : 2;
    format_bytes(L.bytes, f.size_s, sizeof f.size_s);

    printf("04_streams_overlap: copies and kernels in several streams, overlapped\n");
    int count = 0;
    if (!requireRuntime(cudaGetDeviceCount(&count)))
        return verdict(false); /* a failure that is not "cannot run here": exit 1 */
    if (o.device >= count) {
        fprintf(stderr, "%s: --device %ld does not exist: this machine shows %d device(s), 0 to %d\n",
                lesson_prog, o.device, count, count - 1);
        return EXIT_USAGE;
    }
    struct cudaDeviceProp prop;
    f.prop = &prop;
    bool ok = checkRuntime(cudaSetDevice((int)o.device)) &&
              checkRuntime(cudaGetDeviceProperties(&prop, (int)o.device));
    if (ok) {
        printf("device %ld: \"%s\", compute capability %d.%d, %d SMs\n", o.device, prop.name,
               prop.major, prop.minor, prop.multiProcessorCount);
        printf("data: %zu floats, %s in and %s out; %ld timed repetitions after a warm-up, median shown\n",
               L.n, f.size_s, f.size_s, o.reps);
    }
    ok = ok && allocate(f.size_s);

    ok = ok && step_1_stages_alone(&f);
    ok = ok && step_2_in_sequence(&f);
    ok = ok && step_3_split_over_streams(&f);
    if (ok)
        step_4_timelines(&f);
    ok = ok && step_5_what_breaks_the_overlap(&f);
    if (ok && o.csv_path) {
        printf("\n");
        ok = write_csv_file(o.csv_path);
    }

    ok = release() && ok;
    printf("\n");
    return verdict(ok);
}
