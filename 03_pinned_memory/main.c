/*
 * 03_pinned_memory - page-locked (pinned) against pageable host memory, measured at the PCIe limit.
 *
 * Seed 000 asks how page-locked memory speeds up transfers. The program answers with numbers,
 * one numbered step per point (README.md annotates the output):
 *   1. the device and its PCIe link, and the link's theoretical rate per direction;
 *   2. host-to-device and device-to-host bandwidth over a sweep of sizes for four kinds of host
 *      memory (pageable, pinned, pinned write-combined, pageable pinned afterwards), timed with
 *      events, median and spread of the repetitions, every copy's data verified;
 *   3. what pinning costs (allocate, register, unregister, free per GiB) and when it pays off;
 *   4. why pageable is slower: staging through the driver's own pinned buffer, and the
 *      cudaMemcpyAsync that does not return before its copy is done;
 *   5. mapped (zero-copy) memory: a kernel that reads and writes host memory directly;
 *   6. both directions at once, in two streams.
 * A table goes to stdout; --csv FILE writes the sweep for `make chart`.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dlfcn.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "check.h"
#include "pattern.h"

/* kernels.cu */
cudaError_t launch_fill_pattern(uint32_t *data, size_t n, uint32_t seed, cudaStream_t stream);
cudaError_t launch_count_mismatches(const uint32_t *data, size_t n, uint32_t seed,
                                    unsigned long long *bad, cudaStream_t stream);
cudaError_t launch_triple_plus_one(const uint32_t *in, uint32_t *out, size_t n,
                                   cudaStream_t stream);

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)
#define GiB ((size_t)1 << 30)
#define MAX_SIZES 48
#define MIN_REPS 5             /* large sizes get fewer repetitions, never fewer than this */
#define REP_BYTES (2 * GiB)    /* ... about this many bytes per size, kind and direction */
#define BATCH 4                /* copies per event pair in the nvbandwidth-style reference */
#define LARGE (256 * MiB)      /* "large" for the bar: 256 MiB and more */
#define WIDE (16 * MiB)        /* "from 16 MiB up" */
#define SIDE_MAX (256 * MiB)   /* steps 4 and 6 copy min(--max, this) */
#define ZC_MAX (64 * MiB)      /* step 5 moves min(--max, this) */
#define WC_READ_MAX (4 * MiB)  /* reading write-combined memory is slow: keep it small */

enum kind { PAGEABLE, PINNED, WRITE_COMBINED, REGISTERED, KINDS };
static const char *const kind_name[KINDS] = {"pageable", "pinned", "write-combined", "registered"};
enum dir { H2D, D2H, DIRS };
static const char *const dir_name[DIRS] = {"H2D", "D2H"};
static const char *const dir_words[DIRS] = {"host to device", "device to host"};

struct stats {
    int reps;
    double median, min, max; /* GB/s */
};

struct options {
    long device;
    size_t min, max;
    long reps;
    const char *csv_path;
};

/* Everything the steps share; freed in main's cleanup. */
struct lesson {
    struct options opt;
    struct cudaDeviceProp prop;
    cudaStream_t stream, stream2;
    cudaEvent_t start, stop, stop2;
    uint32_t *dev, *dev2; /* opt.max bytes, and min(opt.max, SIDE_MAX) bytes */
    unsigned long long *dev_bad;
    /* the link */
    bool link_known;
    const char *link_source;
    double link_gts;
    int link_width, link_max_gen, link_max_width, link_gen;
    double link_gbps; /* theoretical, per direction */
    /* step 2 */
    int nsizes;
    size_t sizes[MAX_SIZES];
    struct stats bw[KINDS][DIRS][MAX_SIZES];
    double batched[DIRS][MAX_SIZES]; /* pinned, nvbandwidth-style; 0 when not measured */
    long checks, wrong_words;
    /* step 3, milliseconds for opt.max bytes */
    double alloc_ms[KINDS], free_ms[KINDS], pin_ms, unpin_ms;
};

static void usage(FILE *to)
{
    fprintf(to,
            "usage: %s [--device N] [--min SIZE] [--max SIZE] [--reps N] [--csv FILE] [--help]\n"
            "Measures host<->device copies from pageable, pinned, write-combined and registered\n"
            "host memory, what pinning costs, zero-copy access and both directions at once,\n"
            "and checks every claim it prints.\n"
            "  -d, --device N   the GPU to use (default 0; see CUDA_VISIBLE_DEVICES)\n"
            "      --min SIZE   smallest copy of the sweep (default 64K; sizes double up to --max)\n"
            "      --max SIZE   largest copy of the sweep (default 1G); SIZE like 4096, 64K, 256M, 1G\n"
            "                   (a multiple of 4 bytes)\n"
            "  -r, --reps N     timed repetitions per size (default 20; sizes over 100 MiB get\n"
            "                   fewer, about 2 GiB worth, but at least 5)\n"
            "      --csv FILE   also write the sweep as CSV (for `make chart CSV=FILE`)\n"
            "  -h, --help       this text\n"
            "exit status: 0 all checks passed, 1 a check or CUDA call failed (or memory could not\n"
            "             be allocated), 2 bad command line, 77 no usable GPU or driver here\n",
            lesson_prog);
}

/* ---- small helpers -------------------------------------------------------------------- */


static double gbps(size_t bytes, double ms) { return ms > 0 ? (double)bytes / (ms * 1e6) : 0; }

static const char *fmt_size(size_t bytes)
{
    static char buf[4][32];
    static int next;
    next = (next + 1) % 4;
    return format_bytes(bytes, buf[next], sizeof buf[next]);
}

static void fill_host(uint32_t *h, size_t words, uint32_t seed)
{
    for (size_t i = 0; i < words; i++)
        h[i] = pattern_word(i, seed);
}

static size_t host_mismatches(const uint32_t *h, size_t words, uint32_t seed)
{
    size_t bad = 0;
    for (size_t i = 0; i < words; i++)
        bad += h[i] != pattern_word(i, seed);
    return bad;
}

static uint32_t seed_for(int kind, int dir, size_t bytes)
{
    return 0x9e3779b9u * (uint32_t)(kind * 2 + dir + 1) ^ (uint32_t)(bytes >> 2);
}

/* An allocation failed: name the call and the size, then the error (exit 1 follows). */
static bool alloc_failed(cudaError_t err, const char *call, size_t bytes, const char *file,
                         int line)
{
    char text[160];
    snprintf(text, sizeof text, "%s of %s (%zu bytes)", call, fmt_size(bytes), bytes);
    check_runtime_(err, text, file, line);
    (void)cudaGetLastError(); /* an allocation error is not sticky; clear it */
    return false;
}
#define ALLOC(call, text, bytes) \
    (cudaSuccess == (alloc_err_ = (call)) || alloc_failed(alloc_err_, text, bytes, __FILE__, __LINE__))
static cudaError_t alloc_err_;

/* Device-side check: how many of the first `words` words of dev differ from the pattern. */
static bool device_mismatches(struct lesson *L, const uint32_t *dev, size_t words, uint32_t seed,
                              unsigned long long *bad)
{
    return checkRuntime(cudaMemsetAsync(L->dev_bad, 0, sizeof *L->dev_bad, L->stream)) &&
           checkRuntime(launch_count_mismatches(dev, words, seed, L->dev_bad, L->stream)) &&
           checkRuntime(cudaMemcpyAsync(bad, L->dev_bad, sizeof *bad, cudaMemcpyDeviceToHost,
                                        L->stream)) &&
           checkRuntime(cudaStreamSynchronize(L->stream));
}

/* ---- the PCIe link: sysfs first, NVML (opened with dlopen) second ------------------------ */

static double gen_gts(int gen)
{
    static const double gts[] = {0, 2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
    return gen >= 1 && gen <= 6 ? gts[gen] : 0;
}

static int gts_gen(double gts)
{
    for (int g = 1; g <= 6; g++)
        if (gts > gen_gts(g) * 0.9 && gts < gen_gts(g) * 1.1)
            return g;
    return 0;
}

/* Payload bits per transferred bit: 8b/10b up to Gen2, 128b/130b for Gen3-5, FLIT for Gen6. */
static double gen_encoding(int gen)
{
    return gen <= 2 ? 8.0 / 10.0 : gen <= 5 ? 128.0 / 130.0 : 242.0 / 256.0;
}

static const char *gen_encoding_text(int gen)
{
    return gen <= 2 ? "8b/10b" : gen <= 5 ? "128b/130b" : "242B/256B FLIT";
}

static bool read_sysfs_number(const char *dir, const char *file, double *v)
{
    char path[256];
    snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/%s", dir, file);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    bool ok = fscanf(f, "%lf", v) == 1;
    fclose(f);
    return ok;
}

static bool link_from_sysfs(struct lesson *L, const char *bus_id)
{
    char dir[64];
    /* cudaDeviceGetPCIBusId gives "0000:1B:00.0"; sysfs names it "0000:1b:00.0". */
    const char *id = bus_id;
    if (strlen(id) > 12 && strncmp(id, "0000", 4) == 0 && id[8] == ':')
        id += 4; /* an 8-digit domain */
    size_t i;
    for (i = 0; id[i] && i < sizeof dir - 1; i++)
        dir[i] = (char)tolower((unsigned char)id[i]);
    dir[i] = '\0';
    double gts, width, max_gts, max_width;
    if (!read_sysfs_number(dir, "current_link_speed", &gts) ||
        !read_sysfs_number(dir, "current_link_width", &width) ||
        !read_sysfs_number(dir, "max_link_speed", &max_gts) ||
        !read_sysfs_number(dir, "max_link_width", &max_width) || !gts_gen(gts) || width < 1)
        return false;
    L->link_gen = gts_gen(gts);
    L->link_width = (int)width;
    L->link_max_gen = gts_gen(max_gts);
    L->link_max_width = (int)max_width;
    L->link_source = "sysfs";
    return true;
}

typedef int (*nvml_void_fn)(void);
typedef int (*nvml_handle_fn)(const char *, void **);
typedef int (*nvml_uint_fn)(void *, unsigned int *);

static bool link_from_nvml(struct lesson *L, const char *bus_id)
{
    /* Opened at run time, not linked: a program linked with -lnvidia-ml would not even start
     * on a machine without the driver (and could not exit 77 with an explanation). */
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return false;
    nvml_void_fn init = (nvml_void_fn)dlsym(lib, "nvmlInit_v2");
    nvml_void_fn shutdown = (nvml_void_fn)dlsym(lib, "nvmlShutdown");
    nvml_handle_fn by_bus = (nvml_handle_fn)dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2");
    nvml_uint_fn gen = (nvml_uint_fn)dlsym(lib, "nvmlDeviceGetCurrPcieLinkGeneration");
    nvml_uint_fn width = (nvml_uint_fn)dlsym(lib, "nvmlDeviceGetCurrPcieLinkWidth");
    nvml_uint_fn max_gen = (nvml_uint_fn)dlsym(lib, "nvmlDeviceGetMaxPcieLinkGeneration");
    nvml_uint_fn max_width = (nvml_uint_fn)dlsym(lib, "nvmlDeviceGetMaxPcieLinkWidth");
    bool ok = false;
    if (init && shutdown && by_bus && gen && width && max_gen && max_width && init() == 0) {
        void *dev = NULL;
        unsigned g = 0, w = 0, mg = 0, mw = 0;
        ok = by_bus(bus_id, &dev) == 0 && gen(dev, &g) == 0 && width(dev, &w) == 0 &&
             max_gen(dev, &mg) == 0 && max_width(dev, &mw) == 0 && g >= 1 && g <= 6 && w >= 1;
        if (ok) {
            L->link_gen = (int)g;
            L->link_width = (int)w;
            L->link_max_gen = (int)mg;
            L->link_max_width = (int)mw;
            L->link_source = "NVML";
        }
        shutdown();
    }
    dlclose(lib);
    return ok;
}

/* ---- step 1 ------------------------------------------------------------------------------- */

static bool step1_device(struct lesson *L)
{
    printf("\n1. The device and its link to the host\n");
    char bus_id[32];
    if (!checkRuntime(cudaGetDeviceProperties(&L->prop, (int)L->opt.device)) ||
        !checkRuntime(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, (int)L->opt.device)))
        return false;
    printf("   device %ld: \"%s\", compute capability %d.%d, %s of device memory\n",
           L->opt.device, L->prop.name, L->prop.major, L->prop.minor,
           fmt_size(L->prop.totalGlobalMem));
    printf("   copy engines (asyncEngineCount): %d; unified addressing: %s; can map host memory: %s\n",
           L->prop.asyncEngineCount, L->prop.unifiedAddressing ? "yes" : "no",
           L->prop.canMapHostMemory ? "yes" : "no");

    /* An idle GPU lowers its link speed to save power: read the link right after some copies. */
    size_t warm = L->opt.max < 16 * MiB ? L->opt.max : 16 * MiB;
    void *host = NULL;
    bool ok = ALLOC(cudaMallocHost(&host, warm), "cudaMallocHost", warm);
    for (int i = 0; ok && i < 8; i++)
        ok = checkRuntime(cudaMemcpyAsync(L->dev, host, warm, cudaMemcpyHostToDevice, L->stream)) &&
             checkRuntime(cudaMemcpyAsync(host, L->dev, warm, cudaMemcpyDeviceToHost, L->stream));
    ok = ok && checkRuntime(cudaStreamSynchronize(L->stream));
    if (host)
        ok = checkRuntime(cudaFreeHost(host)) && ok;
    if (!ok)
        return false;

    L->link_known = link_from_sysfs(L, bus_id) || link_from_nvml(L, bus_id);
    if (!L->link_known) {
        printf("   PCIe link: unknown (no /sys/bus/pci/devices/<bus id>/current_link_speed, no NVML):\n"
               "   the fractions of the link below are left out\n");
        return true;
    }
    L->link_gts = gen_gts(L->link_gen);
    L->link_gbps = L->link_gts * L->link_width * gen_encoding(L->link_gen) / 8.0;
    printf("   PCIe link (%s, read right after a copy): Gen%d x%d; the card's maximum: Gen%d x%d\n",
           L->link_source, L->link_gen, L->link_width, L->link_max_gen, L->link_max_width);
    printf("   theoretical rate: %.1f GT/s x %d lanes x %s encoding / 8 bits = %.1f GB/s per direction\n",
           L->link_gts, L->link_width, gen_encoding_text(L->link_gen), L->link_gbps);
    printf("   (packet headers and flow control take their share on top: DMA reaches 80-90%% of it)\n");
    return true;
}

/* ---- step 2: the sweep -------------------------------------------------------------------- */

struct host_buf {
    enum kind kind;
    void *p;
    size_t bytes;
    bool registered;
};

/* Allocate `bytes` of one kind of host memory and touch it; record what each part cost. */
static bool host_alloc(struct lesson *L, struct host_buf *b, enum kind kind, size_t bytes)
{
    b->kind = kind;
    b->bytes = bytes;
    b->p = NULL;
    b->registered = false;
    double t0 = host_ms();
    switch (kind) {
    case PAGEABLE:
    case REGISTERED:
        /* page-aligned, as cudaHostRegister prefers; memset makes the pages real. */
        if (posix_memalign(&b->p, 4096, bytes) != 0) {
            b->p = NULL;
            fprintf(stderr, "%s: posix_memalign could not allocate %s (%zu bytes) of pageable "
                            "host memory\n", lesson_prog, fmt_size(bytes), bytes);
            return false;
        }
        memset(b->p, 0, bytes);
        break;
    case PINNED:
        if (!ALLOC(cudaMallocHost(&b->p, bytes), "cudaMallocHost", bytes))
            return false;
        break;
    case WRITE_COMBINED:
        if (!ALLOC(cudaHostAlloc(&b->p, bytes, cudaHostAllocWriteCombined),
                   "cudaHostAlloc(cudaHostAllocWriteCombined)", bytes))
            return false;
        break;
    case KINDS: break;
    }
    L->alloc_ms[kind] = host_ms() - t0;
    if (kind == REGISTERED) {
        t0 = host_ms();
        if (!ALLOC(cudaHostRegister(b->p, bytes, cudaHostRegisterDefault), "cudaHostRegister", bytes))
            return false;
        L->pin_ms = host_ms() - t0;
        b->registered = true;
    }
    return true;
}

static bool host_free(struct lesson *L, struct host_buf *b)
{
    bool ok = true;
    if (!b->p)
        return true;
    double t0 = host_ms();
    if (b->registered) {
        ok = checkRuntime(cudaHostUnregister(b->p));
        L->unpin_ms = host_ms() - t0;
        t0 = host_ms();
    }
    if (b->kind == PINNED || b->kind == WRITE_COMBINED)
        ok = checkRuntime(cudaFreeHost(b->p)) && ok;
    else
        free(b->p);
    L->free_ms[b->kind] = host_ms() - t0;
    b->p = NULL;
    return ok;
}

static int reps_for(const struct lesson *L, size_t bytes)
{
    long by_bytes = (long)(REP_BYTES / bytes);
    long reps = by_bytes < MIN_REPS ? MIN_REPS : by_bytes;
    return (int)(reps < L->opt.reps ? reps : L->opt.reps);
}

static cudaError_t copy(void *host, uint32_t *dev, size_t bytes, enum dir d, cudaStream_t s)
{
    return d == H2D ? cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s)
                    : cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, s);
}

/* Time `count` back-to-back copies between one pair of events; returns milliseconds. */
static bool time_copies(struct lesson *L, void *host, size_t bytes, enum dir d, int count,
                        double *ms)
{
    float f = 0;
    if (!checkRuntime(cudaEventRecord(L->start, L->stream)))
        return false;
    for (int i = 0; i < count; i++)
        if (!checkRuntime(copy(host, L->dev, bytes, d, L->stream)))
            return false;
    if (!checkRuntime(cudaEventRecord(L->stop, L->stream)) ||
        !checkRuntime(cudaEventSynchronize(L->stop)) ||
        !checkRuntime(cudaEventElapsedTime(&f, L->start, L->stop)))
        return false;
    *ms = f;
    return true;
}

/* One size, one kind, one direction: prepare the data, warm up, time, verify. */
static bool measure(struct lesson *L, struct host_buf *b, int si, enum dir d)
{
    size_t bytes = L->sizes[si], words = bytes / 4;
    uint32_t seed = seed_for(b->kind, d, bytes);
    uint32_t *h = b->p;
    if (d == H2D) {
        fill_host(h, words, seed);
        if (!checkRuntime(cudaMemsetAsync(L->dev, 0, bytes, L->stream)))
            return false;
    } else {
        memset(h, 0, bytes);
        if (!checkRuntime(launch_fill_pattern(L->dev, words, seed, L->stream)))
            return false;
    }
    double ms, warm;
    if (!time_copies(L, h, bytes, d, 1, &warm))
        return false;
    int reps = reps_for(L, bytes);
    double rate[1000];
    for (int r = 0; r < reps; r++) {
        if (!time_copies(L, h, bytes, d, 1, &ms))
            return false;
        rate[r] = gbps(bytes, ms);
    }
    struct stats *st = &L->bw[b->kind][d][si];
    st->reps = reps;
    st->median = median_of(rate, reps); /* sorts rate[] */
    st->min = rate[0];
    st->max = rate[reps - 1];

    /* nvbandwidth's way for the large sizes: BATCH copies queued back to back between one pair
     * of events, median of three such batches. */
    if (b->kind == PINNED && bytes >= LARGE) {
        double batch[3];
        for (int r = 0; r < 3; r++) {
            if (!time_copies(L, h, bytes, d, BATCH, &ms))
                return false;
            batch[r] = gbps(bytes * BATCH, ms);
        }
        L->batched[d][si] = median_of(batch, 3);
    }

    /* Verify what the last copy delivered. */
    unsigned long long bad = 0;
    if (d == H2D) {
        if (!device_mismatches(L, L->dev, words, seed, &bad))
            return false;
    } else if (b->kind != WRITE_COMBINED) {
        bad = host_mismatches(h, words, seed);
    } else {
        /* The CPU reads write-combined memory very slowly (step 4 measures it), so send the data
         * back to a cleared device buffer and check it there. */
        if (!checkRuntime(cudaMemsetAsync(L->dev, 0, bytes, L->stream)) ||
            !checkRuntime(copy(h, L->dev, bytes, H2D, L->stream)) ||
            !device_mismatches(L, L->dev, words, seed, &bad))
            return false;
    }
    L->checks++;
    L->wrong_words += (long)bad;
    if (bad)
        fprintf(stderr, "%s: %s %s copy of %s: %llu words wrong\n", lesson_prog, kind_name[b->kind],
                dir_name[d], fmt_size(bytes), bad);
    return true;
}

static void print_table(const struct lesson *L, enum dir d)
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

static bool write_csv(const struct lesson *L, FILE *f)
{
    fprintf(f, "# 03_pinned_memory sweep on \"%s\"; link_gbps=%.2f\n", L->prop.name,
            L->link_known ? L->link_gbps : 0.0);
    fprintf(f, "kind,direction,bytes,reps,median_gbps,min_gbps,max_gbps\n");
    for (int k = 0; k < KINDS; k++)
        for (int d = 0; d < DIRS; d++)
            for (int si = 0; si < L->nsizes; si++) {
                const struct stats *st = &L->bw[k][d][si];
                fprintf(f, "%s,%s,%zu,%d,%.3f,%.3f,%.3f\n", kind_name[k], dir_name[d],
                        L->sizes[si], st->reps, st->median, st->min, st->max);
            }
    return !ferror(f);
}

static bool step2_sweep(struct lesson *L)
{
    printf("\n2. Bandwidth from %s to %s for four kinds of host memory\n", fmt_size(L->opt.min),
           fmt_size(L->opt.max));
    printf("   pageable       malloc'd memory: the driver copies it through its own pinned buffer\n"
           "   pinned         cudaMallocHost: page-locked, the copy engine reads it directly (DMA)\n"
           "   write-combined cudaHostAlloc(cudaHostAllocWriteCombined): pinned, not cached by the CPU\n"
           "   registered     malloc'd memory page-locked afterwards with cudaHostRegister\n"
           "   each copy: cudaMemcpyAsync on a stream between two events; one warm-up, then the\n"
           "   repetitions; the data of every copy checked against the pattern it should carry\n");
    for (int k = 0; k < KINDS; k++) {
        struct host_buf b = {0};
        bool ok = host_alloc(L, &b, (enum kind)k, L->opt.max);
        for (int si = 0; ok && si < L->nsizes; si++)
            ok = measure(L, &b, si, H2D) && measure(L, &b, si, D2H);
        ok = host_free(L, &b) && ok;
        if (!ok)
            return false;
    }
    print_table(L, H2D);
    print_table(L, D2H);
    printf("\n");

    claim(L->wrong_words == 0,
          "every copy delivered its data intact: %ld checks (4 kinds x 2 directions x %d sizes), "
          "%ld wrong words", L->checks, L->nsizes, L->wrong_words);

    /* Pinned against pageable, and the other pinned kinds against pinned, from 16 MiB up. */
    double least = 1e9, worst_other = 0, sum[KINDS][DIRS] = {{0}};
    int wide = 0;
    for (int si = 0; si < L->nsizes; si++) {
        if (L->sizes[si] < WIDE)
            continue;
        wide++;
        for (int d = 0; d < DIRS; d++) {
            double ratio = L->bw[PINNED][d][si].median / L->bw[PAGEABLE][d][si].median;
            least = ratio < least ? ratio : least;
            for (int k = 0; k < KINDS; k++)
                sum[k][d] += L->bw[k][d][si].median;
        }
    }
    /* One slow repetition can move a median; the mean over the sizes is steadier. */
    for (int d = 0; d < DIRS && wide; d++)
        for (int k = WRITE_COMBINED; k <= REGISTERED; k++) {
            double off = 1 - sum[k][d] / sum[PINNED][d];
            off = off < 0 ? -off : off;
            worst_other = off > worst_other ? off : worst_other;
        }
    if (wide) {
        claim(least > 1.0, "pinned is faster than pageable at every size from 16 MiB up, both "
                           "directions: at least %.1fx", least);
        claim(worst_other <= 0.10, "to the copy engine, write-combined and registered memory are "
                                   "as fast as pinned from 16 MiB up (mean over the sizes within %.1f%%)",
              100 * worst_other);
    } else {
        printf("   (no size of 16 MiB or more in this sweep: use --max 16M or more to compare)\n");
    }

    /* The bar: large pinned copies against nvbandwidth's method and against the link. */
    int large = 0;
    double worst_vs_batch = 1e9, link_frac[DIRS] = {1e9, 1e9}, at[DIRS] = {0, 0};
    for (int si = 0; si < L->nsizes; si++) {
        if (L->sizes[si] < LARGE)
            continue;
        large++;
        for (int d = 0; d < DIRS; d++) {
            double r = L->bw[PINNED][d][si].median / L->batched[d][si];
            worst_vs_batch = r < worst_vs_batch ? r : worst_vs_batch;
            double f = L->bw[PINNED][d][si].median / L->link_gbps;
            if (f < link_frac[d]) {
                link_frac[d] = f;
                at[d] = L->bw[PINNED][d][si].median;
            }
        }
    }
    if (!large) {
        printf("   (no size of 256 MiB or more in this sweep: the comparisons with the link and with\n"
               "   nvbandwidth's method need --max 256M or more)\n");
        return true;
    }
    printf("   pinned, %d copies back to back between two events (nvbandwidth's method):\n", BATCH);
    for (int si = 0; si < L->nsizes; si++)
        if (L->sizes[si] >= LARGE)
            printf("   %10s  H2D %.1f GB/s, D2H %.1f GB/s; one copy per event pair: %.1f%% and %.1f%% of that\n",
                   fmt_size(L->sizes[si]), L->batched[H2D][si], L->batched[D2H][si],
                   100 * L->bw[PINNED][H2D][si].median / L->batched[H2D][si],
                   100 * L->bw[PINNED][D2H][si].median / L->batched[D2H][si]);
    claim(worst_vs_batch >= 0.98, "from 256 MiB up, timing one copy per event pair gives at least "
                                  "98%% of the batched figure (lowest %.1f%%)", 100 * worst_vs_batch);
    if (L->link_known) {
        printf("   the slowest pinned copy of 256 MiB or more: H2D %.1f GB/s = %.1f%%, D2H %.1f GB/s = "
               "%.1f%% of the link's %.1f GB/s\n", at[H2D], 100 * link_frac[H2D], at[D2H],
               100 * link_frac[D2H], L->link_gbps);
        double f = link_frac[H2D] < link_frac[D2H] ? link_frac[H2D] : link_frac[D2H];
        claim(f >= 0.75 && f <= 1.0, "pinned copies of 256 MiB and more reach %.1f%% or more of the "
                                     "link's theoretical rate (75-100%% expected)", 100 * f);
    }
    return true;
}

/* ---- step 3: what pinning costs ------------------------------------------------------------ */

static void step3_cost(struct lesson *L)
{
    printf("\n3. What pinning costs (timed on the host for the %s buffers of step 2)\n",
           fmt_size(L->opt.max));
    double per_gib = (double)GiB / (double)L->opt.max; /* ms for the buffer -> ms per GiB */
    int last = L->nsizes - 1;
    printf("   %-16s %22s %22s %22s\n", "kind", "allocate and touch", "pin / unpin", "free");
    for (int k = 0; k < KINDS; k++) {
        char pin[48] = "-";
        if (k == REGISTERED)
            snprintf(pin, sizeof pin, "%.1f / %.1f ms/GiB", L->pin_ms * per_gib,
                     L->unpin_ms * per_gib);
        char alloc[48], fre[48];
        snprintf(alloc, sizeof alloc, "%.1f ms/GiB", L->alloc_ms[k] * per_gib);
        snprintf(fre, sizeof fre, "%.1f ms/GiB", L->free_ms[k] * per_gib);
        printf("   %-16s %22s %22s %22s\n", kind_name[k], alloc, pin, fre);
    }
    /* What one transfer of a GiB saves, at the largest size, averaged over the two directions. */
    double saved[KINDS], extra[KINDS];
    double pageable_s = 0;
    for (int d = 0; d < DIRS; d++)
        pageable_s += 0.5 / L->bw[PAGEABLE][d][last].median * (double)GiB / 1e9;
    printf("   one transfer of 1 GiB (at %s, the mean of both directions) takes %.1f ms from pageable\n"
           "   memory; pinning pays for itself after (extra cost of pinning) / (time saved per transfer):\n",
           fmt_size(L->sizes[last]), 1e3 * pageable_s);
    for (int k = PINNED; k < KINDS; k++) {
        double s = 0;
        for (int d = 0; d < DIRS; d++)
            s += 0.5 / L->bw[k][d][last].median * (double)GiB / 1e9;
        saved[k] = 1e3 * (pageable_s - s); /* ms per GiB and transfer */
        extra[k] = k == REGISTERED
                       ? (L->pin_ms + L->unpin_ms) * per_gib
                       : (L->alloc_ms[k] + L->free_ms[k] - L->alloc_ms[PAGEABLE] - L->free_ms[PAGEABLE]) *
                             per_gib;
        if (saved[k] > 0)
            printf("   %-16s extra %.1f ms/GiB, saves %.1f ms/GiB per transfer: pays off after %.1f transfers\n",
                   kind_name[k], extra[k], saved[k], extra[k] > 0 ? extra[k] / saved[k] : 0.0);
        else
            printf("   %-16s extra %.1f ms/GiB, saves nothing per transfer at this size\n",
                   kind_name[k], extra[k]);
    }
    claim(L->pin_ms < L->alloc_ms[PINNED],
          "pinning memory already touched (cudaHostRegister, %.1f ms/GiB) costs less than "
          "cudaMallocHost (%.1f ms/GiB)", L->pin_ms * per_gib, L->alloc_ms[PINNED] * per_gib);
}

/* ---- step 4: why pageable is slower ------------------------------------------------------- */

static volatile uint64_t read_sink;

static double host_read_gbps(const void *p, size_t bytes)
{
    const volatile uint64_t *w = p;
    double best = 0;
    for (int r = 0; r < 3; r++) {
        uint64_t sum = 0;
        double t0 = host_ms();
        for (size_t i = 0; i < bytes / 8; i++)
            sum += w[i];
        double g = gbps(bytes, host_ms() - t0);
        read_sink = sum;
        best = g > best ? g : best;
    }
    return best;
}

static bool step4_staging(struct lesson *L)
{
    size_t bytes = L->opt.max < SIDE_MAX ? L->opt.max : SIDE_MAX, words = bytes / 4;
    size_t wc_bytes = bytes < WC_READ_MAX ? bytes : WC_READ_MAX;
    printf("\n4. Why pageable memory is slower: the driver stages it (%s copies)\n", fmt_size(bytes));
    printf("   The copy engine can only read and write page-locked memory, so for pageable memory the\n"
           "   driver copies, chunk by chunk, through a pinned buffer of its own (a CPU memcpy plus\n"
           "   DMA), and cudaMemcpyAsync cannot return before the CPU part is done.\n");
    void *pageable = NULL, *pinned = NULL, *wc = NULL;
    bool ok = true;
    double call_ms[2][DIRS], total_ms[2][DIRS], memcpy_gbps = 0;
    if (posix_memalign(&pageable, 4096, bytes) != 0) {
        pageable = NULL;
        fprintf(stderr, "%s: posix_memalign could not allocate %s of pageable memory\n", lesson_prog,
                fmt_size(bytes));
        return false;
    }
    if (!ALLOC(cudaMallocHost(&pinned, bytes), "cudaMallocHost", bytes) ||
        !ALLOC(cudaHostAlloc(&wc, wc_bytes, cudaHostAllocWriteCombined),
               "cudaHostAlloc(cudaHostAllocWriteCombined)", wc_bytes)) {
        ok = false;
        goto cleanup;
    }
    memset(wc, 1, wc_bytes);

    /* a) How long the host waits in the call, against the whole copy. Each buffer goes to the
     * device (checked there) and comes back into the cleared buffer (checked on the host). */
    size_t bad = 0;
    for (int k = 0; k < 2; k++) {
        uint32_t *h = k == 0 ? pageable : pinned;
        fill_host(h, words, 1);
        if (!checkRuntime(cudaMemsetAsync(L->dev, 0, bytes, L->stream))) {
            ok = false;
            goto cleanup;
        }
        for (int d = 0; d < DIRS; d++) {
            double call[5], total[5];
            if (d == D2H)
                memset(h, 0, bytes);
            for (int r = 0; r < 6; r++) { /* the first is a warm-up */
                double t0 = host_ms();
                if (!checkRuntime(copy(h, L->dev, bytes, (enum dir)d, L->stream))) {
                    ok = false;
                    goto cleanup;
                }
                double t1 = host_ms();
                if (!checkRuntime(cudaStreamSynchronize(L->stream))) {
                    ok = false;
                    goto cleanup;
                }
                double t2 = host_ms();
                if (r > 0) {
                    call[r - 1] = t1 - t0;
                    total[r - 1] = t2 - t0;
                }
            }
            call_ms[k][d] = median_of(call, 5);
            total_ms[k][d] = median_of(total, 5);
            unsigned long long bad_dev = 0;
            if (d == H2D && !device_mismatches(L, L->dev, words, 1, &bad_dev)) {
                ok = false;
                goto cleanup;
            }
            bad += d == H2D ? (size_t)bad_dev : host_mismatches(h, words, 1);
        }
    }
    for (int k = 0; k < 2; k++)
        for (int d = 0; d < DIRS; d++)
            printf("   %-8s %s: cudaMemcpyAsync returned after %.3f ms (%.1f us), the copy was done "
                   "after %.3f ms (%.1f%%)\n", k ? "pinned" : "pageable", dir_name[d], call_ms[k][d],
                   1e3 * call_ms[k][d], total_ms[k][d], 100 * call_ms[k][d] / total_ms[k][d]);
    claim(bad == 0, "every one of these copies delivered its data intact (%zu wrong words)", bad);
    if (bytes >= WIDE) {
        double least = call_ms[0][H2D] / total_ms[0][H2D];
        double d2h = call_ms[0][D2H] / total_ms[0][D2H];
        least = d2h < least ? d2h : least;
        claim(least >= 0.9, "from pageable memory cudaMemcpyAsync returns only when the copy is "
                            "(nearly) done: at %.1f%% of it or later", 100 * least);
        double most = call_ms[1][H2D] > call_ms[1][D2H] ? call_ms[1][H2D] : call_ms[1][D2H];
        double frac = most / (total_ms[1][H2D] < total_ms[1][D2H] ? total_ms[1][H2D] : total_ms[1][D2H]);
        claim(frac < 0.05, "from pinned memory it returns at once: after %.1f us at most, %.2f%% of "
                           "the copy's time", 1e3 * most, 100 * frac);
    } else {
        printf("   (copies under 16 MiB are too short to judge: use --max 16M or more)\n");
    }

    /* b) The CPU half of staging: a memcpy from pageable into pinned memory. */
    double rates[5];
    for (int r = 0; r < 6; r++) {
        double t0 = host_ms();
        memcpy(pinned, pageable, bytes);
        double g = gbps(bytes, host_ms() - t0);
        if (r > 0)
            rates[r - 1] = g;
    }
    memcpy_gbps = median_of(rates, 5);
    double staged = gbps(bytes, total_ms[0][H2D]);
    printf("   the CPU copies pageable into pinned memory (memcpy) at %.1f GB/s; the staged pageable\n"
           "   H2D copy ran at %.1f GB/s, the pinned one at %.1f GB/s\n", memcpy_gbps, staged,
           gbps(bytes, total_ms[1][H2D]));
    if (bytes >= WIDE)
        claim(staged <= 1.1 * memcpy_gbps, "the staged copy is no faster than the CPU's memcpy "
                                           "that feeds it (%.1f%% of it)", 100 * staged / memcpy_gbps);

    /* c) Why write-combined memory is for data the CPU only writes. */
    double read_wc = host_read_gbps(wc, wc_bytes), read_pinned = host_read_gbps(pinned, wc_bytes);
    printf("   the CPU reads %s of ordinary pinned memory at %.2f GB/s, of write-combined memory at "
           "%.2f GB/s (%.1fx)\n", fmt_size(wc_bytes), read_pinned, read_wc, read_pinned / read_wc);
    printf("   (write-combined memory is for data the CPU writes and the GPU reads: where the CPU maps\n"
           "   it uncached, as on bare metal, reading it back is very slow; a virtual machine's\n"
           "   hypervisor may map it as ordinary cached memory, and then the two rates are alike)\n");
cleanup:
    free(pageable);
    if (pinned)
        ok = checkRuntime(cudaFreeHost(pinned)) && ok;
    if (wc)
        ok = checkRuntime(cudaFreeHost(wc)) && ok;
    return ok;
}

/* ---- step 5: zero-copy ------------------------------------------------------------------- */

static bool time_kernel_ms(struct lesson *L, const uint32_t *in, uint32_t *out, size_t words,
                           double *ms)
{
    double t[5];
    float f;
    for (int r = 0; r < 6; r++) {
        if (!checkRuntime(cudaEventRecord(L->start, L->stream)) ||
            !checkRuntime(launch_triple_plus_one(in, out, words, L->stream)) ||
            !checkRuntime(cudaEventRecord(L->stop, L->stream)) ||
            !checkRuntime(cudaEventSynchronize(L->stop)) ||
            !checkRuntime(cudaEventElapsedTime(&f, L->start, L->stop)))
            return false;
        if (r > 0)
            t[r - 1] = f;
    }
    *ms = median_of(t, 5);
    return true;
}

static bool step5_zero_copy(struct lesson *L)
{
    size_t bytes = (L->opt.max < ZC_MAX ? L->opt.max : ZC_MAX) & ~(size_t)15, words = bytes / 4;
    printf("\n5. Mapped (zero-copy) memory: a kernel reads and writes host memory (%s each way)\n",
           fmt_size(bytes));
    uint32_t *in = NULL, *out = NULL, *din = NULL, *dout = NULL;
    bool ok = true;
    if (!ALLOC(cudaHostAlloc((void **)&in, bytes, cudaHostAllocMapped), "cudaHostAlloc(cudaHostAllocMapped)",
               bytes) ||
        !ALLOC(cudaHostAlloc((void **)&out, bytes, cudaHostAllocMapped),
               "cudaHostAlloc(cudaHostAllocMapped)", bytes) ||
        !checkRuntime(cudaHostGetDevicePointer((void **)&din, in, 0)) ||
        !checkRuntime(cudaHostGetDevicePointer((void **)&dout, out, 0))) {
        ok = false;
        goto cleanup;
    }
    printf("   cudaHostAlloc(cudaHostAllocMapped) -> host pointer %p; cudaHostGetDevicePointer -> %p\n",
           (void *)in, (void *)din);
    if (L->prop.unifiedAddressing)
        claim(din == in, "with unified addressing the GPU uses the very same address as the CPU");
    fill_host(in, words, 5);
    memset(out, 0, bytes);

    /* Zero-copy: the kernel's loads and stores cross PCIe, no cudaMemcpy at all. */
    double zc_ms, kernel_ms, explicit_ms;
    if (!time_kernel_ms(L, din, dout, words, &zc_ms)) {
        ok = false;
        goto cleanup;
    }
    size_t bad = 0;
    for (size_t i = 0; i < words; i++)
        bad += out[i] != 3u * pattern_word(i, 5) + 1u;
    printf("   the kernel over mapped memory: %.3f ms, %.1f GB/s read + %.1f GB/s written at once\n",
           zc_ms, gbps(bytes, zc_ms), gbps(bytes, zc_ms));
    claim(bad == 0, "the kernel's results in host memory are right (%zu wrong words)", bad);

    /* The explicit way: copy in, the same kernel in device memory, copy out. */
    if (!time_kernel_ms(L, L->dev, L->dev2, words, &kernel_ms)) {
        ok = false;
        goto cleanup;
    }
    double t[5];
    for (int r = 0; r < 6; r++) {
        float f;
        if (!checkRuntime(cudaEventRecord(L->start, L->stream)) ||
            !checkRuntime(cudaMemcpyAsync(L->dev, in, bytes, cudaMemcpyHostToDevice, L->stream)) ||
            !checkRuntime(launch_triple_plus_one(L->dev, L->dev2, words, L->stream)) ||
            !checkRuntime(cudaMemcpyAsync(out, L->dev2, bytes, cudaMemcpyDeviceToHost, L->stream)) ||
            !checkRuntime(cudaEventRecord(L->stop, L->stream)) ||
            !checkRuntime(cudaEventSynchronize(L->stop)) ||
            !checkRuntime(cudaEventElapsedTime(&f, L->start, L->stop))) {
            ok = false;
            goto cleanup;
        }
        if (r > 0)
            t[r - 1] = f;
    }
    explicit_ms = median_of(t, 5);
    bad = 0;
    for (size_t i = 0; i < words; i++)
        bad += out[i] != 3u * pattern_word(i, 5) + 1u;
    printf("   copy in + the kernel in device memory + copy out: %.3f ms (the kernel alone %.3f ms)\n",
           explicit_ms, kernel_ms);
    claim(bad == 0, "the explicit way gives the same results (%zu wrong words)", bad);
    if (bytes >= WIDE)
        claim(zc_ms < explicit_ms, "for one pass over the data, zero-copy is faster: %.1fx (reads and "
                                   "writes share the link's two directions)", explicit_ms / zc_ms);
    else
        printf("   (under 16 MiB the comparison is left out: use --max 16M or more)\n");
    printf("   Zero-copy suits data the kernel touches once (or only in part), and GPUs that share the\n"
           "   host's memory; data read many times belongs in device memory, copied once.\n");
cleanup:
    if (in)
        ok = checkRuntime(cudaFreeHost(in)) && ok;
    if (out)
        ok = checkRuntime(cudaFreeHost(out)) && ok;
    return ok;
}

/* ---- step 6: both directions at once ---------------------------------------------------- */

static bool step6_both_ways(struct lesson *L)
{
    size_t bytes = L->opt.max < SIDE_MAX ? L->opt.max : SIDE_MAX, words = bytes / 4;
    printf("\n6. Both directions at once: pinned buffers, H2D in one stream, D2H in another (%s each)\n",
           fmt_size(bytes));
    uint32_t *up = NULL, *down = NULL;
    bool ok = true;
    double one[DIRS], both;
    if (!ALLOC(cudaMallocHost((void **)&up, bytes), "cudaMallocHost", bytes) ||
        !ALLOC(cudaMallocHost((void **)&down, bytes), "cudaMallocHost", bytes)) {
        ok = false;
        goto cleanup;
    }
    fill_host(up, words, 6);
    memset(down, 0, bytes);
    if (!checkRuntime(launch_fill_pattern(L->dev2, words, 7, L->stream)) ||
        !checkRuntime(cudaStreamSynchronize(L->stream))) {
        ok = false;
        goto cleanup;
    }
    for (int d = 0; d < DIRS; d++) {
        double t[5], ms;
        for (int r = 0; r < 6; r++) {
            float f;
            bool good = d == H2D ? checkRuntime(cudaEventRecord(L->start, L->stream)) &&
                                       checkRuntime(cudaMemcpyAsync(L->dev, up, bytes,
                                                                    cudaMemcpyHostToDevice, L->stream))
                                 : checkRuntime(cudaEventRecord(L->start, L->stream)) &&
                                       checkRuntime(cudaMemcpyAsync(down, L->dev2, bytes,
                                                                    cudaMemcpyDeviceToHost, L->stream));
            if (!good || !checkRuntime(cudaEventRecord(L->stop, L->stream)) ||
                !checkRuntime(cudaEventSynchronize(L->stop)) ||
                !checkRuntime(cudaEventElapsedTime(&f, L->start, L->stop))) {
                ok = false;
                goto cleanup;
            }
            if (r > 0)
                t[r - 1] = f;
        }
        ms = median_of(t, 5);
        one[d] = gbps(bytes, ms);
    }
    {
        double t[5];
        for (int r = 0; r < 6; r++) {
            float f;
            /* stream2 waits for `start` so both copies begin together; stream waits for stop2 so
             * that `stop` marks the end of both. */
            if (!checkRuntime(cudaEventRecord(L->start, L->stream)) ||
                !checkRuntime(cudaStreamWaitEvent(L->stream2, L->start, 0)) ||
                !checkRuntime(cudaMemcpyAsync(L->dev, up, bytes, cudaMemcpyHostToDevice, L->stream)) ||
                !checkRuntime(cudaMemcpyAsync(down, L->dev2, bytes, cudaMemcpyDeviceToHost, L->stream2)) ||
                !checkRuntime(cudaEventRecord(L->stop2, L->stream2)) ||
                !checkRuntime(cudaStreamWaitEvent(L->stream, L->stop2, 0)) ||
                !checkRuntime(cudaEventRecord(L->stop, L->stream)) ||
                !checkRuntime(cudaEventSynchronize(L->stop)) ||
                !checkRuntime(cudaEventElapsedTime(&f, L->start, L->stop))) {
                ok = false;
                goto cleanup;
            }
            if (r > 0)
                t[r - 1] = f;
        }
        both = gbps(2 * bytes, median_of(t, 5));
    }
    unsigned long long bad_dev = 0;
    if (!device_mismatches(L, L->dev, words, 6, &bad_dev)) {
        ok = false;
        goto cleanup;
    }
    size_t bad = (size_t)bad_dev + host_mismatches(down, words, 7);
    double best_one = one[H2D] > one[D2H] ? one[H2D] : one[D2H];
    printf("   one direction at a time: H2D %.1f GB/s, D2H %.1f GB/s\n", one[H2D], one[D2H]);
    printf("   both at once: %.1f GB/s in total, %.2fx the faster direction alone\n", both,
           both / best_one);
    claim(bad == 0, "both copies delivered their data intact (%zu wrong words)", bad);
    if (bytes >= WIDE && L->prop.asyncEngineCount >= 2)
        claim(both >= 1.3 * best_one, "with %d copy engines the two directions run side by side: "
                                      "%.2fx one direction", L->prop.asyncEngineCount, both / best_one);
    else if (bytes < WIDE)
        printf("   (under 16 MiB the comparison is left out: use --max 16M or more)\n");
    else
        printf("   (one copy engine: the two copies take turns)\n");
cleanup:
    if (up)
        ok = checkRuntime(cudaFreeHost(up)) && ok;
    if (down)
        ok = checkRuntime(cudaFreeHost(down)) && ok;
    return ok;
}

/* ---- main ------------------------------------------------------------------------------ */

static bool parse_options(int argc, char **argv, struct options *o, int *exit_code)
{
    static const struct option options[] = {
        {"device", required_argument, NULL, 'd'}, {"min", required_argument, NULL, 'm'},
        {"max", required_argument, NULL, 'M'},    {"reps", required_argument, NULL, 'r'},
        {"csv", required_argument, NULL, 'c'},    {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    *o = (struct options){.device = 0, .min = 64 * KiB, .max = GiB, .reps = 20, .csv_path = NULL};
    *exit_code = EXIT_USAGE;
    int opt;
    bool ok = true;
    while (ok && (opt = getopt_long(argc, argv, "d:r:h", options, NULL)) != -1) {
        switch (opt) {
        case 'd': ok = parse_long(optarg, 0, 1023, "--device", &o->device); break;
        case 'm': ok = parse_bytes(optarg, 4, (size_t)1 << 40, "--min", &o->min); break;
        case 'M': ok = parse_bytes(optarg, 4, (size_t)1 << 40, "--max", &o->max); break;
        case 'r': ok = parse_long(optarg, 1, 1000, "--reps", &o->reps); break;
        case 'c': o->csv_path = optarg; break;
        case 'h': usage(stdout); *exit_code = EXIT_OK; return false;
        default: ok = false; break;
        }
    }
    if (ok && optind < argc) {
        fprintf(stderr, "%s: unexpected argument '%s'\n", lesson_prog, argv[optind]);
        ok = false;
    }
    if (ok && (o->min % 4 || o->max % 4)) {
        fprintf(stderr, "%s: --min and --max must be multiples of 4 bytes\n", lesson_prog);
        ok = false;
    }
    if (ok && o->min > o->max) {
        fprintf(stderr, "%s: --min (%s) is larger than --max (%s)\n", lesson_prog, fmt_size(o->min),
                fmt_size(o->max));
        ok = false;
    }
    if (!ok)
        usage(stderr);
    return ok;
}

int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    struct lesson L = {0};
    int code;
    if (!parse_options(argc, argv, &L.opt, &code))
        return code;
    FILE *csv = NULL;
    if (L.opt.csv_path) { /* find out now that the file can be written; write it at the end */
        bool existed = access(L.opt.csv_path, F_OK) == 0;
        if (!(csv = fopen(L.opt.csv_path, "a"))) {
            fprintf(stderr, "%s: --csv: cannot write '%s'\n", lesson_prog, L.opt.csv_path);
            usage(stderr);
            return EXIT_USAGE;
        }
        fclose(csv);
        csv = NULL;
        if (!existed)
            remove(L.opt.csv_path);
    }
    /* The sizes: --min, doubling, up to --max (which is always the last). */
    for (size_t s = L.opt.min;;) {
        L.sizes[L.nsizes++] = s;
        if (s >= L.opt.max)
            break;
        s = s > L.opt.max / 2 ? L.opt.max : 2 * s;
    }

    printf("03_pinned_memory: how much faster are copies from page-locked (pinned) host memory?\n");
    int count = 0;
    if (!requireRuntime(cudaGetDeviceCount(&count)))
        return verdict(false);
    if (L.opt.device >= count) {
        fprintf(stderr, "%s: --device %ld does not exist: this machine shows %d device(s), 0 to %d\n",
                lesson_prog, L.opt.device, count, count - 1);
        return EXIT_USAGE;
    }
    bool ok = true;
    size_t side = L.opt.max < SIDE_MAX ? L.opt.max : SIDE_MAX;
    if (!checkRuntime(cudaSetDevice((int)L.opt.device)) ||
        !checkRuntime(cudaStreamCreateWithFlags(&L.stream, cudaStreamNonBlocking)) ||
        !checkRuntime(cudaStreamCreateWithFlags(&L.stream2, cudaStreamNonBlocking)) ||
        !checkRuntime(cudaEventCreate(&L.start)) || !checkRuntime(cudaEventCreate(&L.stop)) ||
        !checkRuntime(cudaEventCreate(&L.stop2)) ||
        !ALLOC(cudaMalloc((void **)&L.dev, L.opt.max), "cudaMalloc", L.opt.max) ||
        !ALLOC(cudaMalloc((void **)&L.dev2, side), "cudaMalloc", side) ||
        !ALLOC(cudaMalloc((void **)&L.dev_bad, sizeof *L.dev_bad), "cudaMalloc",
               sizeof *L.dev_bad)) {
        ok = false;
        goto cleanup;
    }
    ok = step1_device(&L) && step2_sweep(&L);
    if (ok) {
        step3_cost(&L);
        ok = step4_staging(&L) && step5_zero_copy(&L) && step6_both_ways(&L);
    }
    if (ok && L.opt.csv_path) {
        if (!(csv = fopen(L.opt.csv_path, "w"))) {
            fprintf(stderr, "%s: --csv: cannot write '%s'\n", lesson_prog, L.opt.csv_path);
            ok = false;
            goto cleanup;
        }
        ok = write_csv(&L, csv);
        printf("\n   the sweep went to %s (make chart CSV=%s draws it)\n", L.opt.csv_path,
               L.opt.csv_path);
    }

cleanup:
    if (csv && fclose(csv) != 0) {
        fprintf(stderr, "%s: --csv: could not finish writing '%s'\n", lesson_prog, L.opt.csv_path);
        ok = false;
    }
    if (L.dev)
        ok = checkRuntime(cudaFree(L.dev)) && ok;
    if (L.dev2)
        ok = checkRuntime(cudaFree(L.dev2)) && ok;
    if (L.dev_bad)
        ok = checkRuntime(cudaFree(L.dev_bad)) && ok;
    if (L.start)
        ok = checkRuntime(cudaEventDestroy(L.start)) && ok;
    if (L.stop)
        ok = checkRuntime(cudaEventDestroy(L.stop)) && ok;
    if (L.stop2)
        ok = checkRuntime(cudaEventDestroy(L.stop2)) && ok;
    if (L.stream)
        ok = checkRuntime(cudaStreamDestroy(L.stream)) && ok;
    if (L.stream2)
        ok = checkRuntime(cudaStreamDestroy(L.stream2)) && ok;
    printf("\n");
    return verdict(ok);
}
