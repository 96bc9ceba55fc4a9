/*
 * 05_ptx_module - kernels as PTX, loaded and launched through the Driver API.
 *
 * The story, one numbered step per idea (README.md annotates the output):
 *   1. what the build made: kernels.ptx (nvcc -ptx), kernels.cubin (nvcc -cubin), and copies
 *      of both inside this program; a fresh JIT cache so that "cold" really is cold;
 *   2. loading a module: cuModuleLoad (PTX file), cuModuleLoadData (embedded PTX),
 *      cuModuleLoadDataEx (JIT options and logs), and a cubin; cold JIT, cache hit, cubin;
 *   3. cuModuleGetFunction, cuFuncGetAttribute, and cuLaunchKernel with kernelParams and with
 *      the packed `extra` buffer; the same result from every module;
 *   4. PTX made at run time by NVRTC from kernels.cu's text, loaded and launched the same way;
 *   5. the host cost of a launch: cuLaunchKernel against the runtime's <<<>>>;
 *   6. the errors a student meets, each made on purpose and explained.
 *
 * Exit status: 0 every check passed; 1 a CUDA or NVRTC call failed or a check failed,
 * including the driver or NVRTC rejecting what --ptx, --kernel or --nvrtc named (the report
 * and the JIT/NVRTC log go to stderr); 2 bad command line; 77 no usable GPU or driver here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <nvrtc.h>

#include "check.h"
#include "embedded.h"

/* kernels.cu: one <<<1, 1>>> launch of `empty`, the runtime's way. */
void launch_empty_runtime(void);

enum { N = 1 << 20, BLOCK = 256, REPEATS = 5, LOG_SIZE = 16384 };
static const float A = 2.0f;

static void usage(FILE *to)
{
    fprintf(to,
            "usage: %s [--device N] [--ptx FILE] [--kernel NAME] [--nvrtc FILE] [--launches N]\n"
            "       [--skip-errors]\n"
            "Loads kernels as PTX and as a cubin through the CUDA Driver API, times each way,\n"
            "launches them with cuLaunchKernel, compiles them again with NVRTC, and checks\n"
            "every claim it prints.\n"
            "  -d, --device N     the GPU to use (default 0; see CUDA_VISIBLE_DEVICES)\n"
            "  -p, --ptx FILE     the PTX (or cubin) file step 2 loads with cuModuleLoad\n"
            "                     (default: kernels.ptx next to this program)\n"
            "  -k, --kernel NAME  the kernel to look up in every module (default axpy; it is\n"
            "                     launched as axpy(float a, const float *x, float *y, int n))\n"
            "  -n, --nvrtc FILE   CUDA source for NVRTC in step 4 (default: kernels.cu, built in)\n"
            "  -l, --launches N   launches per timing run in step 5 (default 20000)\n"
            "  -s, --skip-errors  leave out step 6, whose failing calls are made on purpose\n"
            "                     (compute-sanitizer reports each as an API error)\n"
            "  -h, --help         this text\n"
            "exit status: 0 all checks passed; 1 a check or a CUDA/NVRTC call failed (also when\n"
            "             the driver or NVRTC rejects --ptx, --kernel or --nvrtc; the log is on\n"
            "             stderr); 2 bad command line; 77 no usable GPU or driver here\n",
            lesson_prog);
}

static const char *cu_name(CUresult r)
{
    const char *name = NULL;
    cuGetErrorName(r, &name);
    return name ? name : "(no name)";
}

static bool check_nvrtc_(nvrtcResult r, const char *call, const char *file, int line)
{
    if (r == NVRTC_SUCCESS)
        return true;
    fflush(stdout);
    fprintf(stderr, "%s:%d: %s failed: %s (%d)\n", file, line, call, nvrtcGetErrorString(r),
            (int)r);
    return false;
}
#define checkNvrtc(op) check_nvrtc_((op), #op, __FILE__, __LINE__)

/* ---- files, the JIT cache directory ---------------------------------------------------- */

/* The whole file, NUL-terminated (PTX must be a C string for cuModuleLoadData). */
static char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t len = 0, cap = 0, got;
    do {
        if (len + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 65536;
            char *bigger = realloc(buf, cap);
            if (!bigger) {
                free(buf);
                fclose(f);
                errno = ENOMEM;
                return NULL;
            }
            buf = bigger;
        }
        got = fread(buf + len, 1, 4096, f);
        len += got;
    } while (got > 0);
    bool failed = ferror(f);
    fclose(f);
    if (failed) {
        free(buf);
        errno = EIO;
        return NULL;
    }
    buf[len] = '\0';
    if (size)
        *size = len;
    return buf;
}

/* path = the directory of this program + "/" + name. */
static void beside_program(const char *name, char *path, size_t len)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    snprintf(path, len, "%s/%s", slash ? exe : ".", name);
}

static char cache_dir[64];

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static void remove_cache_dir(void)
{
    if (cache_dir[0])
        nftw(cache_dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- PTX text -------------------------------------------------------------------------- */

struct ptx_facts {
    char version[16];  /* ".version 9.0" -> "9.0" */
    char target[32];   /* ".target sm_90" -> "sm_90" */
    char entries[256]; /* the .entry names, space separated */
    int target_sm;     /* 90 */
};

static void read_ptx_facts(const char *ptx, struct ptx_facts *f)
{
    memset(f, 0, sizeof *f);
    for (const char *line = ptx; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        const char *s = line + strspn(line, " \t");
        if (strncmp(s, ".version", 8) == 0)
            sscanf(s + 8, "%15s", f->version);
        else if (strncmp(s, ".target", 7) == 0 && sscanf(s + 7, " %31[^ ,\t\r\n]", f->target) == 1)
            f->target_sm = strncmp(f->target, "sm_", 3) == 0 ? atoi(f->target + 3) : 0;
        const char *e = strstr(s, ".entry ");
        const char *eol = strchr(s, '\n');
        if (e && (!eol || e < eol)) {
            e += 7;
            size_t used = strlen(f->entries), n = strcspn(e, "( \t\r\n");
            if (used + n + 2 < sizeof f->entries) {
                if (used)
                    f->entries[used++] = ' ';
                memcpy(f->entries + used, e, n);
                f->entries[used + n] = '\0';
            }
        }
    }
}

static bool has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; (p = strstr(p, word)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return true;
    return false;
}

/* A copy of `ptx` with `line_start` (e.g. ".version") replaced by `replacement` on its line,
 * or with `extra` appended. Caller frees. */
static char *ptx_edit(const char *ptx, const char *line_start, const char *replacement,
                      const char *extra)
{
    size_t len = strlen(ptx), add = (replacement ? strlen(replacement) : 0) + (extra ? strlen(extra) : 0);
    char *out = malloc(len + add + 2);
    if (!out)
        return NULL;
    const char *at = line_start ? strstr(ptx, line_start) : NULL;
    if (at) {
        const char *eol = strchr(at, '\n');
        size_t head = (size_t)(at - ptx);
        memcpy(out, ptx, head);
        strcpy(out + head, replacement);
        strcat(out, eol ? eol : "");
    } else {
        strcpy(out, ptx);
    }
    if (extra)
        strcat(out, extra);
    return out;
}

/* Print a JIT or NVRTC log, each line indented and marked. */
static void print_log(FILE *to, const char *log)
{
    const char *line = log;
    while (line && *line) {
        const char *eol = strchr(line, '\n');
        int n = eol ? (int)(eol - line) : (int)strlen(line);
        if (n > 0)
            fprintf(to, "        | %.*s\n", n, line);
        line = eol ? eol + 1 : NULL;
    }
}

/* ---- loading --------------------------------------------------------------------------- */

/* cuModuleLoadDataEx with the JIT options the lesson shows: both log buffers, a verbose
 * info log, the optimisation level, and the JIT's own wall time. */
struct jit_log {
    char info[LOG_SIZE];
    char error[LOG_SIZE];
    float wall_ms;
};

static CUresult load_with_log(CUmodule *module, const void *image, struct jit_log *log)
{
    memset(log, 0, sizeof *log);
    CUjit_option opt[] = {
        CU_JIT_INFO_LOG_BUFFER,  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
        CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        CU_JIT_LOG_VERBOSE,      CU_JIT_OPTIMIZATION_LEVEL,
        CU_JIT_WALL_TIME,
    };
    void *val[] = {
        log->info,                       (void *)(uintptr_t)(LOG_SIZE - 1),
        log->error,                      (void *)(uintptr_t)(LOG_SIZE - 1),
        (void *)(uintptr_t)1,            (void *)(uintptr_t)4,
        NULL,
    };
    CUresult r = cuModuleLoadDataEx(module, image, (unsigned)(sizeof opt / sizeof opt[0]), opt, val);
    /* CU_JIT_WALL_TIME: the driver overwrites the option's value slot with a float. */
    memcpy(&log->wall_ms, &val[6], sizeof log->wall_ms);
    return r;
}

static double median_spread(double *v, int n, double *lo, double *hi)
{
    double m = median_of(v, n); /* sorts v */
    *lo = v[0];
    *hi = v[n - 1];
    return m;
}

/* ---- running axpy ---------------------------------------------------------------------- */

struct data {
    float *x, *y0, *expect, *out;
    CUdeviceptr dx, dy;
};

/* Reset y, launch y = A*x + y (through kernelParams or through `extra`), copy y back into
 * d->out. Returns the number of wrong elements, or -1 when a CUDA call failed. */
static int run_axpy(CUfunction f, struct data *d, bool use_extra)
{
    int n = N;
    float a = A;
    unsigned grid = (N + BLOCK - 1) / BLOCK;
    if (!checkDriver(cuMemcpyHtoD(d->dy, d->y0, N * sizeof(float))))
        return -1;
    if (!use_extra) {
        /* kernelParams: one pointer per parameter, pointing at its value. */
        void *params[] = {&a, &d->dx, &d->dy, &n};
        if (!checkDriver(cuLaunchKernel(f, grid, 1, 1, BLOCK, 1, 1, 0, NULL, params, NULL)))
            return -1;
    } else {
        /* extra: the parameters packed into one buffer, each at its natural alignment, the
         * way the kernel's parameter list is laid out. A C struct has the same layout. */
        struct axpy_args {
            float a;        /* offset 0, then 4 bytes of padding */
            CUdeviceptr x;  /* offset 8 */
            CUdeviceptr y;  /* offset 16 */
            int n;          /* offset 24 */
        } args = {a, d->dx, d->dy, n};
        size_t size = offsetof(struct axpy_args, n) + sizeof args.n; /* 28: no tail padding */
        void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &args, CU_LAUNCH_PARAM_BUFFER_SIZE,
                         &size, CU_LAUNCH_PARAM_END};
        if (!checkDriver(cuLaunchKernel(f, grid, 1, 1, BLOCK, 1, 1, 0, NULL, NULL, extra)))
            return -1;
    }
    if (!checkDriver(cuCtxSynchronize()) ||
        !checkDriver(cuMemcpyDtoH(d->out, d->dy, N * sizeof(float))))
        return -1;
    int wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += d->out[i] != d->expect[i];
    return wrong;
}

/* ---- main ------------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    long device = 0, launches = 20000;
    const char *ptx_arg = NULL, *kernel = "axpy", *nvrtc_arg = NULL;
    static const struct option options[] = {
        {"device", required_argument, NULL, 'd'},   {"ptx", required_argument, NULL, 'p'},
        {"kernel", required_argument, NULL, 'k'},   {"nvrtc", required_argument, NULL, 'n'},
        {"launches", required_argument, NULL, 'l'}, {"help", no_argument, NULL, 'h'},
        {"skip-errors", no_argument, NULL, 's'},
        {NULL, 0, NULL, 0},
    };
    int opt;
    bool skip_errors = false;
    while ((opt = getopt_long(argc, argv, "d:p:k:n:l:sh", options, NULL)) != -1) {
        bool good = true;
        switch (opt) {
        case 'd': good = parse_long(optarg, 0, 1023, "--device", &device); break;
        case 'l': good = parse_long(optarg, 1, 10000000, "--launches", &launches); break;
        case 'p': ptx_arg = optarg; break;
        case 'k': kernel = optarg; break;
        case 'n': nvrtc_arg = optarg; break;
        case 's': skip_errors = true; break;
        case 'h': usage(stdout); return EXIT_OK;
        default: good = false; break;
        }
        if ((opt == 'p' || opt == 'k' || opt == 'n') && *optarg == '\0') {
            fprintf(stderr, "%s: --%s needs a non-empty value\n", lesson_prog,
                    opt == 'p' ? "ptx" : opt == 'k' ? "kernel" : "nvrtc");
            good = false;
        }
        if (!good) {
            usage(stderr);
            return EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "%s: unexpected argument '%s'\n", lesson_prog, argv[optind]);
        usage(stderr);
        return EXIT_USAGE;
    }
    /* The NVRTC source is read now: an unreadable file is a command-line mistake. */
    char *nvrtc_src = NULL;
    if (nvrtc_arg && !(nvrtc_src = read_file(nvrtc_arg, NULL))) {
        fprintf(stderr, "%s: --nvrtc %s: %s\n", lesson_prog, nvrtc_arg, strerror(errno));
        usage(stderr);
        return EXIT_USAGE;
    }

    /* A fresh, empty JIT cache, set before the driver reads its environment (at cuInit), so
     * that the first JIT of our PTX is really cold. Removed at exit, on every path. */
    strcpy(cache_dir, "/tmp/ptx_module-jit-cache-XXXXXX");
    if (!mkdtemp(cache_dir)) {
        fprintf(stderr, "%s: mkdtemp: %s\n", lesson_prog, strerror(errno));
        cache_dir[0] = '\0';
        free(nvrtc_src);
        return EXIT_CHECK;
    }
    atexit(remove_cache_dir);
    setenv("CUDA_CACHE_PATH", cache_dir, 1);
    unsetenv("CUDA_CACHE_DISABLE");

    bool ok = true;
    char path[4200];
    char *file_ptx = NULL, *cold_ptx = NULL, *bad_ptx = NULL;
    struct jit_log *log = NULL;
    struct data d = {0};
    CUdevice dev = 0;
    CUcontext primary = NULL;
    bool retained = false;
    enum { M_FILE, M_EMBEDDED, M_EX, M_CUBIN, M_NVRTC, M_COUNT };
    static const char *module_what[M_COUNT] = {
        "PTX file, cuModuleLoad", "embedded PTX, cuModuleLoadData",
        "embedded PTX, cuModuleLoadDataEx", "embedded cubin, cuModuleLoadData", "NVRTC's PTX",
    };
    CUmodule mod[M_COUNT] = {0}, tmp = NULL;
    CUfunction fn[M_COUNT] = {0}, empty_fn = NULL;
    nvrtcProgram prog = NULL;
    char *nvrtc_ptx = NULL, *nvrtc_log = NULL;

    printf("05_ptx_module: kernels as PTX, loaded and launched through the Driver API\n");

    /* 1. ------------------------------------------------------------------------------ */
    printf("\n1. What the build made\n");
    if (!requireDriver(cuInit(0)))
        return verdict(false);
    int count = 0;
    if (!requireDriver(cuDeviceGetCount(&count)))
        return verdict(false);
    if (device >= count) {
        fprintf(stderr, "%s: --device %ld does not exist: this machine shows %d device(s), 0 to %d\n",
                lesson_prog, device, count, count - 1);
        return EXIT_USAGE;
    }
    char name[256];
    int major = 0, minor = 0, driver_version = 0;
    CUmoduleLoadingMode mode;
    if (!checkDriver(cuDeviceGet(&dev, (int)device)) ||
        !checkDriver(cuDeviceGetName(name, sizeof name, dev)) ||
        !checkDriver(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev)) ||
        !checkDriver(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev)) ||
        !checkDriver(cuDriverGetVersion(&driver_version)))
        return verdict(false);
    /* The device's primary context (the one the runtime uses too), made current here. */
    if (!checkDriver(cuDevicePrimaryCtxRetain(&primary, dev)))
        return verdict(false);
    retained = true;
    if (!checkDriver(cuCtxSetCurrent(primary)) || !checkRuntime(cudaSetDevice((int)device)) ||
        !checkDriver(cuModuleGetLoadingMode(&mode))) {
        ok = false;
        goto cleanup;
    }
    int card_sm = major * 10 + minor;
    struct ptx_facts facts;
    read_ptx_facts((const char *)kernels_ptx, &facts);
    printf("   device %ld: \"%s\", compute capability %d.%d (sm_%d); the driver supports CUDA %d.%d\n",
           device, name, major, minor, card_sm, driver_version / 1000, driver_version % 1000 / 10);
    printf("   kernels.ptx    %zu bytes: PTX ISA %s, .target %s, entries: %s\n", kernels_ptx_size,
           facts.version, facts.target, facts.entries);
    printf("   kernels.cubin  %zu bytes: SASS for sm_%d, ready to run on such a card as it is\n",
           kernels_cubin_size, kernels_arch);
    printf("   both lie next to the program, and the program carries a copy of each (embedded.c)\n");
    printf("   JIT cache: CUDA_CACHE_PATH set to a new empty directory (removed at exit)\n");
    printf("   module loading mode: %s\n", mode == CU_MODULE_LAZY_LOADING ? "lazy (CUDA_MODULE_LOADING=LAZY, "
                                                                         "the default)" : "eager");
    claim(has_word(facts.entries, "axpy") && has_word(facts.entries, "empty"),
          "the PTX names the entry points axpy and empty: extern \"C\" kept the names plain");
    claim(facts.target_sm > 0 && facts.target_sm <= card_sm,
          "its target (%s) is not newer than the card (sm_%d), so the JIT can compile it", facts.target,
          card_sm);

    /* Host data: exact in float, so every correct path gives the same bits. */
    d.x = malloc(N * sizeof(float));
    d.y0 = malloc(N * sizeof(float));
    d.expect = malloc(N * sizeof(float));
    d.out = malloc(N * sizeof(float));
    log = malloc(sizeof *log);
    if (!d.x || !d.y0 || !d.expect || !d.out || !log) {
        fprintf(stderr, "%s: out of host memory\n", lesson_prog);
        ok = false;
        goto cleanup;
    }
    for (int i = 0; i < N; i++) {
        d.x[i] = (float)(i % 1000);
        d.y0[i] = (float)(i % 7) - 3.0f;
        d.expect[i] = A * d.x[i] + d.y0[i];
    }
    if (!checkDriver(cuMemAlloc(&d.dx, N * sizeof(float))) ||
        !checkDriver(cuMemAlloc(&d.dy, N * sizeof(float))) ||
        !checkDriver(cuMemcpyHtoD(d.dx, d.x, N * sizeof(float)))) {
        ok = false;
        goto cleanup;
    }

    /* 2. ------------------------------------------------------------------------------ */
    printf("\n2. Loading the module: three ways from PTX, and a cubin\n");
    double t0, load_ms[M_COUNT] = {0}, get_ms[M_COUNT] = {0};
    CUresult r;

    /* a) a file, by name. cuModuleLoad reads PTX, cubin or fatbin files alike. */
    if (ptx_arg)
        snprintf(path, sizeof path, "%s", ptx_arg);
    else
        beside_program("kernels.ptx", path, sizeof path);
    t0 = host_ms();
    r = cuModuleLoad(&mod[M_FILE], path);
    load_ms[M_FILE] = host_ms() - t0;
    if (r != CUDA_SUCCESS) {
        check_driver_(r, "cuModuleLoad(&mod[M_FILE], path)", __FILE__, __LINE__);
        fprintf(stderr, "%s: cuModuleLoad could not load '%s': %s\n", lesson_prog,
                ptx_arg ? ptx_arg : "kernels.ptx", cu_name(r));
        /* cuModuleLoad has no log; the same text through cuModuleLoadDataEx gives the JIT's. */
        if (r != CUDA_ERROR_FILE_NOT_FOUND && (file_ptx = read_file(path, NULL)) != NULL &&
            load_with_log(&tmp, file_ptx, log) != CUDA_SUCCESS) {
            fprintf(stderr, "%s: the JIT's error log (from cuModuleLoadDataEx on the same text):\n",
                    lesson_prog);
            print_log(stderr, log->error[0] ? log->error : "(empty)");
        }
        ok = false;
        goto cleanup;
    }
    t0 = host_ms();
    r = cuModuleGetFunction(&fn[M_FILE], mod[M_FILE], kernel);
    get_ms[M_FILE] = host_ms() - t0;
    if (r != CUDA_SUCCESS) {
        check_driver_(r, "cuModuleGetFunction(&fn[M_FILE], mod[M_FILE], kernel)", __FILE__, __LINE__);
        struct ptx_facts ff = {0};
        if ((file_ptx = read_file(path, NULL)) != NULL)
            read_ptx_facts(file_ptx, &ff);
        fprintf(stderr, "%s: the module has no kernel named '%s' (%s); its PTX entries are: %s\n",
                lesson_prog, kernel, cu_name(r), ff.entries[0] ? ff.entries : "(unknown)");
        fprintf(stderr, "%s: (a kernel that is not extern \"C\" has a C++-mangled name, like _Z4axpyfPKfPfi)\n",
                lesson_prog);
        ok = false;
        goto cleanup;
    }
    printf("   a) cuModuleLoad(\"%s\")\n", ptx_arg ? ptx_arg : "kernels.ptx");
    printf("      the first JIT in this process (cache empty, JIT compiler not loaded yet): load %.3f ms,\n"
           "      cuModuleGetFunction %.3f ms\n",
           load_ms[M_FILE], get_ms[M_FILE]);

    /* b) the same bytes from memory: the JIT cache now has them. */
    t0 = host_ms();
    if (!checkDriver(cuModuleLoadData(&mod[M_EMBEDDED], kernels_ptx))) {
        ok = false;
        goto cleanup;
    }
    load_ms[M_EMBEDDED] = host_ms() - t0;
    t0 = host_ms();
    if (!checkDriver(cuModuleGetFunction(&fn[M_EMBEDDED], mod[M_EMBEDDED], kernel))) {
        ok = false;
        goto cleanup;
    }
    get_ms[M_EMBEDDED] = host_ms() - t0;
    printf("   b) cuModuleLoadData(kernels_ptx), the copy built into the program\n");
    printf("      %s: load %.3f ms, cuModuleGetFunction %.3f ms\n",
           ptx_arg ? "(--ptx named another file, so this may be the first JIT of this text)"
                   : "the same text again, so the JIT cache serves it",
           load_ms[M_EMBEDDED], get_ms[M_EMBEDDED]);

    /* c) with JIT options. One extra line makes the text new, so the JIT really runs and
     *    has something to log. */
    cold_ptx = ptx_edit((const char *)kernels_ptx, NULL, NULL,
                        "\n// one line more, so the cache has not seen this text\n"
                        ".visible .global .align 4 .u32 lesson_with_options;\n");
    if (!cold_ptx) {
        fprintf(stderr, "%s: out of host memory\n", lesson_prog);
        ok = false;
        goto cleanup;
    }
    t0 = host_ms();
    r = load_with_log(&mod[M_EX], cold_ptx, log);
    load_ms[M_EX] = host_ms() - t0;
    if (!check_driver_(r, "cuModuleLoadDataEx(&mod[M_EX], cold_ptx, 7, options, values)", __FILE__, __LINE__)) {
        print_log(stderr, log->error);
        ok = false;
        goto cleanup;
    }
    if (!checkDriver(cuModuleGetFunction(&fn[M_EX], mod[M_EX], kernel))) {
        ok = false;
        goto cleanup;
    }
    printf("   c) cuModuleLoadDataEx(kernels_ptx + one line, 7 options: info and error log buffers,\n"
           "      verbose log, optimisation level 4, wall time)\n");
    printf("      load %.3f ms, of which the JIT itself reports %.3f ms; its info log:\n", load_ms[M_EX],
           (double)log->wall_ms);
    print_log(stdout, log->info[0] ? log->info : "(empty)");
    /* "Compiling entry function 'axpy' ... Used 10 registers": the kernel's own line. */
    int log_regs = -1;
    char entry[300];
    snprintf(entry, sizeof entry, "entry function '%s'", kernel);
    const char *used = strstr(log->info, entry);
    if (used && (used = strstr(used, "Used ")) != NULL)
        sscanf(used, "Used %d registers", &log_regs);

    /* d) the cubin: SASS already, nothing to compile. */
    t0 = host_ms();
    r = cuModuleLoadData(&mod[M_CUBIN], kernels_cubin);
    load_ms[M_CUBIN] = host_ms() - t0;
    if (r == CUDA_ERROR_NO_BINARY_FOR_GPU || r == CUDA_ERROR_INVALID_IMAGE) {
        check_driver_(r, "cuModuleLoadData(&mod[M_CUBIN], kernels_cubin)", __FILE__, __LINE__);
        fprintf(stderr, "%s: the cubin holds SASS for sm_%d and this card is sm_%d: rebuild for it with\n"
                        "    make -C 05_ptx_module clean all ARCH=%d\n",
                lesson_prog, kernels_arch, card_sm, card_sm);
        ok = false;
        goto cleanup;
    }
    if (!check_driver_(r, "cuModuleLoadData(&mod[M_CUBIN], kernels_cubin)", __FILE__, __LINE__)) {
        ok = false;
        goto cleanup;
    }
    t0 = host_ms();
    if (!checkDriver(cuModuleGetFunction(&fn[M_CUBIN], mod[M_CUBIN], kernel)) ||
        !checkDriver(cuModuleGetFunction(&empty_fn, mod[M_CUBIN], "empty"))) {
        ok = false;
        goto cleanup;
    }
    get_ms[M_CUBIN] = host_ms() - t0;
    printf("   d) cuModuleLoadData(kernels_cubin): load %.3f ms, cuModuleGetFunction %.3f ms\n",
           load_ms[M_CUBIN], get_ms[M_CUBIN]);
    claim(log->wall_ms > 0 && log->wall_ms <= load_ms[M_EX],
          "the JIT reported its own time (%.3f ms), a part of the %.3f ms the load took",
          (double)log->wall_ms, load_ms[M_EX]);
    claim(strstr(log->info, kernel) != NULL, "the JIT's info log names the kernel %s", kernel);

    /* The three costs again, each repeated: a cold JIT (new text every time), a cache hit
     * (text already compiled), a cubin. Module load plus cuModuleGetFunction. */
    double cold[REPEATS], hit[REPEATS], cub[REPEATS], lo, hi;
    for (int k = 0; k < 3 * REPEATS && ok; k++) {
        int i = k % REPEATS;
        char *text = NULL;
        const void *image = kernels_cubin;
        if (k < REPEATS) {
            char line[128];
            snprintf(line, sizeof line, "\n.visible .global .align 4 .u32 lesson_cold_load_%d;\n", i);
            text = ptx_edit((const char *)kernels_ptx, NULL, NULL, line);
            image = text;
        } else if (k < 2 * REPEATS) {
            image = kernels_ptx;
        }
        CUfunction f;
        t0 = host_ms();
        ok = image && checkDriver(cuModuleLoadData(&tmp, image)) &&
             checkDriver(cuModuleGetFunction(&f, tmp, kernel));
        double ms = host_ms() - t0;
        free(text);
        (k < REPEATS ? cold : k < 2 * REPEATS ? hit : cub)[i] = ms;
        if (tmp)
            ok = checkDriver(cuModuleUnload(tmp)) && ok;
        tmp = NULL;
    }
    if (!ok)
        goto cleanup;
    printf("   each way %d times (module load + cuModuleGetFunction; median, min-max):\n", REPEATS);
    double cold_ms = median_spread(cold, REPEATS, &lo, &hi);
    printf("      cold JIT, a new text each time   %8.3f ms  (%.3f-%.3f)\n", cold_ms, lo, hi);
    double hit_ms = median_spread(hit, REPEATS, &lo, &hi);
    printf("      JIT cache hit, the same text     %8.3f ms  (%.3f-%.3f)\n", hit_ms, lo, hi);
    double cubin_ms = median_spread(cub, REPEATS, &lo, &hi);
    printf("      cubin, no JIT                    %8.3f ms  (%.3f-%.3f)\n", cubin_ms, lo, hi);
    claim(cold_ms > 10 * cubin_ms, "a cold JIT (%.3f ms) is more than 10x slower than loading the cubin (%.3f ms)",
          cold_ms, cubin_ms);
    claim(hit_ms < cold_ms / 2, "a JIT cache hit (%.3f ms) costs less than half a cold JIT (%.3f ms)", hit_ms,
          cold_ms);
    if (!ptx_arg) /* --ptx may name a cubin, which needs no JIT */
        claim(load_ms[M_FILE] > 10 * cubin_ms,
              "the very first load from the PTX file (%.3f ms) was a cold JIT too", load_ms[M_FILE]);

    /* 3. ------------------------------------------------------------------------------ */
    printf("\n3. cuModuleGetFunction, cuFuncGetAttribute, cuLaunchKernel\n");
    int regs = 0, shared = 0, max_threads = 0, ptx_ver = 0, bin_ver = 0, local = 0;
    if (!checkDriver(cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, fn[M_EX])) ||
        !checkDriver(cuFuncGetAttribute(&shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn[M_EX])) ||
        !checkDriver(cuFuncGetAttribute(&local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, fn[M_EX])) ||
        !checkDriver(cuFuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fn[M_EX])) ||
        !checkDriver(cuFuncGetAttribute(&ptx_ver, CU_FUNC_ATTRIBUTE_PTX_VERSION, fn[M_EX])) ||
        !checkDriver(cuFuncGetAttribute(&bin_ver, CU_FUNC_ATTRIBUTE_BINARY_VERSION, fn[M_EX]))) {
        ok = false;
        goto cleanup;
    }
    printf("   %s (from step 2c): %d registers per thread, %d bytes of static shared memory,\n"
           "   %d bytes of local memory, at most %d threads per block; PTX version %d, SASS for sm_%d\n",
           kernel, regs, shared, local, max_threads, ptx_ver, bin_ver);
    if (log_regs >= 0)
        claim(regs == log_regs, "cuFuncGetAttribute and the JIT log agree: %d registers", regs);
    claim(max_threads >= BLOCK && bin_ver == card_sm,
          "the function can take %d-thread blocks, and the JIT made SASS for this card (sm_%d)", BLOCK, bin_ver);

    int wrong = run_axpy(fn[M_FILE], &d, false);
    if (wrong < 0) {
        ok = false;
        goto cleanup;
    }
    printf("   cuLaunchKernel(%s, grid %d, block %d, kernelParams = {&a, &x, &y, &n}):\n"
           "      y = %.1f * x + y on %d floats, %d wrong\n",
           kernel, (N + BLOCK - 1) / BLOCK, BLOCK, (double)A, N, wrong);
    claim(wrong == 0, "the kernelParams launch computed every element right");
    wrong = run_axpy(fn[M_FILE], &d, true);
    if (wrong < 0) {
        ok = false;
        goto cleanup;
    }
    printf("   cuLaunchKernel(..., extra = {BUFFER_POINTER, &args, BUFFER_SIZE, &size, END}):\n"
           "      args packed as the parameters lie: a at 0, x at 8, y at 16, n at 24 (28 bytes); %d wrong\n",
           wrong);
    claim(wrong == 0, "the extra (packed buffer) launch computed every element right");

    /* 4. ------------------------------------------------------------------------------ */
    printf("\n4. PTX made at run time: NVRTC compiles %s\n",
           nvrtc_arg ? nvrtc_arg : "kernels.cu's text, built into the program");
    int nv_major = 0, nv_minor = 0;
    char arch_opt[64];
    snprintf(arch_opt, sizeof arch_opt, "--gpu-architecture=compute_%d", card_sm);
    const char *nv_opts[] = {arch_opt};
    if (!checkNvrtc(nvrtcVersion(&nv_major, &nv_minor)) ||
        !checkNvrtc(nvrtcCreateProgram(&prog, nvrtc_src ? nvrtc_src : (const char *)kernels_cu,
                                       nvrtc_arg ? nvrtc_arg : "kernels.cu", 0, NULL, NULL))) {
        ok = false;
        goto cleanup;
    }
    t0 = host_ms();
    nvrtcResult nr = nvrtcCompileProgram(prog, 1, nv_opts);
    double compile_ms = host_ms() - t0;
    size_t log_size = 0, ptx_size = 0;
    if (!checkNvrtc(nvrtcGetProgramLogSize(prog, &log_size)) || !(nvrtc_log = malloc(log_size + 1)) ||
        !checkNvrtc(nvrtcGetProgramLog(prog, nvrtc_log))) {
        ok = false;
        goto cleanup;
    }
    if (!checkNvrtc(nr)) {
        fprintf(stderr, "%s: NVRTC could not compile %s; its log:\n", lesson_prog,
                nvrtc_arg ? nvrtc_arg : "kernels.cu");
        print_log(stderr, nvrtc_log);
        ok = false;
        goto cleanup;
    }
    if (!checkNvrtc(nvrtcGetPTXSize(prog, &ptx_size)) || !(nvrtc_ptx = malloc(ptx_size + 1)) ||
        !checkNvrtc(nvrtcGetPTX(prog, nvrtc_ptx))) {
        ok = false;
        goto cleanup;
    }
    nvrtc_ptx[ptx_size] = '\0';
    struct ptx_facts nf;
    read_ptx_facts(nvrtc_ptx, &nf);
    printf("   NVRTC %d.%d, nvrtcCompileProgram(%s): %.3f ms, %zu bytes of PTX, entries: %s\n", nv_major,
           nv_minor, arch_opt, compile_ms, strlen(nvrtc_ptx), nf.entries);
    t0 = host_ms();
    r = cuModuleLoadData(&mod[M_NVRTC], nvrtc_ptx);
    load_ms[M_NVRTC] = host_ms() - t0;
    if (!check_driver_(r, "cuModuleLoadData(&mod[M_NVRTC], nvrtc_ptx)", __FILE__, __LINE__) || !checkDriver(cuModuleGetFunction(&fn[M_NVRTC], mod[M_NVRTC], kernel))) {
        ok = false;
        goto cleanup;
    }
    bool same_text = strcmp(nvrtc_ptx, (const char *)kernels_ptx) == 0;
    printf("   NVRTC's PTX is byte for byte the same as kernels.ptx from nvcc -ptx: %s\n", same_text ? "yes" : "no");
    printf("   cuModuleLoadData(NVRTC's PTX): %.3f ms (%s)\n", load_ms[M_NVRTC],
           same_text ? "the JIT cache has this text already, from step 2" : "new text: a cold JIT");
    claim(has_word(nf.entries, kernel), "NVRTC's PTX names the entry point %s", kernel);

    printf("   every module's %s, launched with kernelParams, against the host's answer:\n", kernel);
    bool all_same = true;
    for (int m = 0; m < M_COUNT; m++) {
        wrong = run_axpy(fn[m], &d, false);
        if (wrong < 0) {
            ok = false;
            goto cleanup;
        }
        bool same = memcmp(d.out, d.expect, N * sizeof(float)) == 0;
        all_same = all_same && same;
        printf("      %-34s %d wrong%s\n", module_what[m], wrong, same ? "" : " (differs)");
    }
    claim(all_same, "every loading path, NVRTC's included, gives the same result, bit for bit");

    /* 5. ------------------------------------------------------------------------------ */
    printf("\n5. What a launch costs the host: empty kernel, %ld launches per run, %d runs\n", launches,
           REPEATS);
    double cu_us[REPEATS], rt_us[REPEATS], sync_us[REPEATS];
    long sync_launches = launches / 10 > 0 ? launches / 10 : 1;
    /* Warm up both paths: the runtime loads its own copy of `empty` on first use. */
    for (int i = 0; i < 100 && ok; i++) {
        ok = checkDriver(cuLaunchKernel(empty_fn, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
        launch_empty_runtime();
    }
    if (!ok || !checkRuntime(cudaGetLastError()) || !checkDriver(cuCtxSynchronize())) {
        ok = false;
        goto cleanup;
    }
    for (int k = 0; k < REPEATS; k++) {
        CUresult first = CUDA_SUCCESS;
        t0 = host_ms();
        for (long i = 0; i < launches; i++) {
            CUresult lr = cuLaunchKernel(empty_fn, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL);
            if (lr != CUDA_SUCCESS && first == CUDA_SUCCESS)
                first = lr;
        }
        cu_us[k] = (host_ms() - t0) * 1e3 / (double)launches;
        if (!checkDriver(first) || !checkDriver(cuCtxSynchronize())) {
            ok = false;
            goto cleanup;
        }
        t0 = host_ms();
        for (long i = 0; i < launches; i++)
            launch_empty_runtime();
        rt_us[k] = (host_ms() - t0) * 1e3 / (double)launches;
        if (!checkRuntime(cudaGetLastError()) || !checkDriver(cuCtxSynchronize())) {
            ok = false;
            goto cleanup;
        }
        t0 = host_ms();
        for (long i = 0; i < sync_launches; i++) {
            CUresult lr = cuLaunchKernel(empty_fn, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL);
            if (lr == CUDA_SUCCESS)
                lr = cuCtxSynchronize();
            if (lr != CUDA_SUCCESS && first == CUDA_SUCCESS)
                first = lr;
        }
        sync_us[k] = (host_ms() - t0) * 1e3 / (double)sync_launches;
        if (!checkDriver(first)) {
            ok = false;
            goto cleanup;
        }
    }
    double cu_med = median_spread(cu_us, REPEATS, &lo, &hi);
    printf("   cuLaunchKernel                       %6.2f us per launch  (%.2f-%.2f)\n", cu_med, lo, hi);
    double rt_med = median_spread(rt_us, REPEATS, &lo, &hi);
    printf("   <<<1, 1>>> (the runtime's launch)    %6.2f us per launch  (%.2f-%.2f)\n", rt_med, lo, hi);
    double sync_med = median_spread(sync_us, REPEATS, &lo, &hi);
    printf("   cuLaunchKernel + cuCtxSynchronize    %6.2f us per launch  (%.2f-%.2f)\n", sync_med, lo, hi);
    double ratio = cu_med / rt_med;
    claim(ratio > 0.5 && ratio < 2.0, "cuLaunchKernel and <<<>>> cost about the same (ratio %.2f): "
          "both end in the same driver call", ratio);
    /* under 100 us: true even under compute-sanitizer, which makes launches ~25 us */
    claim(cu_med < 100.0 && rt_med < 100.0, "a launch costs the host microseconds, not milliseconds");
    claim(sync_med > cu_med, "waiting for each launch to finish (%.2f us) costs more than launching (%.2f us)",
          sync_med, cu_med);

    /* 6. ------------------------------------------------------------------------------ */
    if (skip_errors)
        goto cleanup;
    printf("\n6. Errors you will meet, each made here on purpose\n");
    tmp = NULL;
    r = cuModuleLoad(&tmp, "no/such/kernels.ptx");
    printf("   a) cuModuleLoad(\"no/such/kernels.ptx\") -> %s (%d)\n", cu_name(r), (int)r);
    claim(r == CUDA_ERROR_FILE_NOT_FOUND, "a missing file is CUDA_ERROR_FILE_NOT_FOUND");
    if (r == CUDA_SUCCESS && checkDriver(cuModuleUnload(tmp)))
        tmp = NULL;

    /* b) a syntax error: one instruction misspelt ("ret;" -> "rte;"). */
    bad_ptx = ptx_edit((const char *)kernels_ptx, NULL, NULL, NULL);
    char *ret = bad_ptx ? strstr(bad_ptx, "ret;") : NULL;
    if (!ret) {
        fprintf(stderr, "%s: no 'ret;' in the PTX to break\n", lesson_prog);
        ok = false;
        goto cleanup;
    }
    memcpy(ret, "rte;", 4);
    tmp = NULL;
    r = load_with_log(&tmp, bad_ptx, log);
    printf("   b) PTX with \"ret;\" misspelt \"rte;\", cuModuleLoadDataEx -> %s (%d); the JIT's error log:\n",
           cu_name(r), (int)r);
    print_log(stdout, log->error[0] ? log->error : "(empty)");
    claim(r == CUDA_ERROR_INVALID_PTX && log->error[0], "a PTX syntax error is CUDA_ERROR_INVALID_PTX, "
          "and only the error log says where");
    if (r == CUDA_SUCCESS && checkDriver(cuModuleUnload(tmp)))
        tmp = NULL;
    free(bad_ptx);
    bad_ptx = NULL;

    CUfunction missing = NULL;
    r = cuModuleGetFunction(&missing, mod[M_CUBIN], "saxpy");
    printf("   c) cuModuleGetFunction(module, \"saxpy\") -> %s (%d)\n", cu_name(r), (int)r);
    claim(r == CUDA_ERROR_NOT_FOUND, "a kernel name that is not in the module is CUDA_ERROR_NOT_FOUND");

    /* d) a PTX ISA version newer than this driver's JIT knows. */
    bad_ptx = ptx_edit((const char *)kernels_ptx, ".version", ".version 99.9", NULL);
    tmp = NULL;
    r = bad_ptx ? load_with_log(&tmp, bad_ptx, log) : CUDA_ERROR_OUT_OF_MEMORY;
    printf("   d) the same PTX marked \".version 99.9\" -> %s (%d); the JIT's error log:\n", cu_name(r), (int)r);
    print_log(stdout, log->error[0] ? log->error : "(empty)");
    claim(r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
          "PTX newer than the driver is CUDA_ERROR_UNSUPPORTED_PTX_VERSION: update the driver");
    if (r == CUDA_SUCCESS && checkDriver(cuModuleUnload(tmp)))
        tmp = NULL;
    free(bad_ptx);
    bad_ptx = NULL;

    /* e) a target newer than the card: the next architecture after this one. */
    static const int known_sm[] = {75, 80, 86, 87, 89, 90, 100, 103, 110, 120, 121};
    int newer = 0;
    for (size_t i = 0; i < sizeof known_sm / sizeof known_sm[0] && !newer; i++)
        if (known_sm[i] > card_sm)
            newer = known_sm[i];
    if (newer) {
        char target[32];
        snprintf(target, sizeof target, ".target sm_%d", newer);
        bad_ptx = ptx_edit((const char *)kernels_ptx, ".target", target, NULL);
        tmp = NULL;
        r = bad_ptx ? load_with_log(&tmp, bad_ptx, log) : CUDA_ERROR_OUT_OF_MEMORY;
        printf("   e) the same PTX marked \"%s\" on this sm_%d card -> %s (%d); the JIT's error log:\n", target,
               card_sm, cu_name(r), (int)r);
        print_log(stdout, log->error[0] ? log->error : "(empty)");
        claim(r != CUDA_SUCCESS, "PTX for a newer architecture than the card's does not load");
        if (r == CUDA_SUCCESS && checkDriver(cuModuleUnload(tmp)))
            tmp = NULL;
        free(bad_ptx);
        bad_ptx = NULL;
    }

    /* f) NVRTC on source with a mistake. */
    {
        static const char broken[] = "extern \"C\" __global__ void broken(float *y)\n"
                                     "{\n"
                                     "    y[threadIdx.x] = undefined_name;\n"
                                     "}\n";
        nvrtcProgram bp = NULL;
        if (!checkNvrtc(nvrtcCreateProgram(&bp, broken, "broken.cu", 0, NULL, NULL))) {
            ok = false;
            goto cleanup;
        }
        nr = nvrtcCompileProgram(bp, 1, nv_opts);
        size_t n = 0;
        char *blog = NULL;
        if (checkNvrtc(nvrtcGetProgramLogSize(bp, &n)) && (blog = malloc(n + 1)) &&
            checkNvrtc(nvrtcGetProgramLog(bp, blog))) {
            printf("   f) NVRTC on a source that uses an undeclared name -> %s (%d); its log:\n",
                   nvrtcGetErrorString(nr), (int)nr);
            print_log(stdout, blog);
            claim(nr == NVRTC_ERROR_COMPILATION && strstr(blog, "undefined_name"),
                  "an NVRTC compile error is NVRTC_ERROR_COMPILATION, explained in the program log");
        } else {
            ok = false;
        }
        free(blog);
        ok = checkNvrtc(nvrtcDestroyProgram(&bp)) && ok;
    }

cleanup:
    if (tmp)
        ok = checkDriver(cuModuleUnload(tmp)) && ok;
    for (int m = 0; m < M_COUNT; m++)
        if (mod[m])
            ok = checkDriver(cuModuleUnload(mod[m])) && ok;
    if (d.dx)
        ok = checkDriver(cuMemFree(d.dx)) && ok;
    if (d.dy)
        ok = checkDriver(cuMemFree(d.dy)) && ok;
    if (prog)
        ok = checkNvrtc(nvrtcDestroyProgram(&prog)) && ok;
    if (retained)
        ok = checkDriver(cuDevicePrimaryCtxRelease(dev)) && ok;
    free(d.x);
    free(d.y0);
    free(d.expect);
    free(d.out);
    free(log);
    free(file_ptx);
    free(cold_ptx);
    free(bad_ptx);
    free(nvrtc_ptx);
    free(nvrtc_log);
    free(nvrtc_src);
    printf("\n");
    return verdict(ok);
}
