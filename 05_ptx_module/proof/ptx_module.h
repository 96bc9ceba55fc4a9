/* 05_ptx_module/ptx_module.h - what the lesson's steps share: the options, the device, the
 * modules loaded so far, the data axpy runs on; and the apparatus (files.c, ptx_text.c,
 * report.c: files, PTX text, the JIT log, statistics) that the steps use but do not teach.
 * The calls the lesson teaches are core.c's, declared in core.h. */
#ifndef PTX_MODULE_H
#define PTX_MODULE_H

#include <stdbool.h>
#include <stdio.h>

#include <cuda.h>
#include <nvrtc.h>

#include "check.h"
#include "core.h"

enum { N = 1 << 20, REPEATS = 5 };
#define AXPY_A 2.0f

/* The modules the lesson loads, one per way of loading (step 4 launches each one). */
enum { M_FILE, M_EMBEDDED, M_EX, M_CUBIN, M_FATBIN, M_NVRTC, M_COUNT };
extern const char *const module_what[M_COUNT];

/* x, y0 (y before each launch), the host's answer, the copy back; and x, y on the device. */
struct data {
    float *x, *y0, *expect, *out;
    CUdeviceptr dx, dy;
};

struct lesson {
    /* the command line */
    long device, launches;
    const char *ptx_arg, *kernel, *nvrtc_arg;
    char *nvrtc_src; /* the --nvrtc file's text, read before any CUDA call */
    bool skip_errors;
    int exit_code; /* >= 0: step 1 ended the program early with this code */
    /* CUDA's own switches (read in step 1; NULL or false when not set) */
    bool cache_off;        /* CUDA_CACHE_DISABLE=1: the driver keeps no JIT cache */
    const char *force_jit; /* "CUDA_FORCE_PTX_JIT=1" (or CUDA_FORCE_JIT): SASS of fatbins ignored */
    const char *no_jit;    /* "CUDA_DISABLE_PTX_JIT=1" (or CUDA_DISABLE_JIT): no PTX JIT */
    char cache_small[96];  /* "CUDA_CACHE_MAXSIZE=N" under 1 MiB: the cache may keep nothing */
    bool blocking;         /* CUDA_LAUNCH_BLOCKING=1: every launch waits for its kernel */
    char user_cache[512];  /* CUDA_CACHE_PATH as the user set it ("" unset), replaced here */
    char tool[256];        /* "": no tool; else why timings cannot be judged (under_tool) */
    /* Can the driver compile (JIT) this build's PTX? Decided in step 1 from the versions (and
     * again in step 2a if the driver answers CUDA_ERROR_UNSUPPORTED_PTX_VERSION). When it
     * cannot, every module is loaded from SASS (the cubin, the fatbin, NVRTC's cubin). */
    bool jit_ok;
    int driver_version;      /* cuDriverGetVersion: 13000 */
    int ptx_isa, driver_isa; /* PTX ISA x 10: this build's PTX (95), the driver's JIT (90) */
    char jit_why[400];       /* why not, in a student's words, with the versions read */
    /* the device and its primary context */
    CUdevice dev;
    CUcontext primary;
    bool retained;
    int card_sm;
    /* step 2's modules and what loading them cost */
    CUmodule mod[M_COUNT];
    CUfunction fn[M_COUNT], empty_fn;
    double load_ms[M_COUNT], get_ms[M_COUNT];
    bool fatbin_has_sass; /* the fatbin holds SASS this card can run */
    int log_regs;         /* registers for the kernel, read from the JIT's info log (-1: none) */
    struct jit_log *log;
    struct data d;
    /* step 4: NVRTC */
    char *nvrtc_ptx, *nvrtc_cubin, *nvrtc_log;
    char arch_opt[64]; /* --gpu-architecture=compute_XX, or sm_XX where the driver cannot JIT */
};

/* environment.c: CUDA's own switches, read and reported in step 1 before any context (false,
 * with L->exit_code, where one makes the lesson impossible); the CUDA_MODULE_LOADING line. */
bool cuda_switches(struct lesson *L, int count);
void print_loading_mode(CUmoduleLoadingMode mode);

/* step3_launching.c: axpy's data on the host and the device of the current context. */
bool prepare_axpy_data(struct lesson *L);
bool axpy_reset(struct data *d); /* y back to y0 before a launch */
int axpy_wrong(struct data *d);  /* sync, copy y back, count wrong elements (-1: a call failed) */
/* Reset y, launch axpy through kernelParams or `extra`, count the wrong elements (-1: failed). */
int run_axpy(CUfunction f, struct data *d, bool use_extra);

/* The steps, in the order main() calls them (IN_DEPTH.md annotates them in the same order). Each returns
 * false when a CUDA call failed (reported on stderr), and prints its own claims. */
bool step_1_what_the_build_made(struct lesson *L);        /* main.c */
bool step_2_loading_the_module(struct lesson *L);         /* step2_loading.c */
bool step_3_get_function_and_launch(struct lesson *L);    /* step3_launching.c */
bool step_4_ptx_made_at_run_time(struct lesson *L);       /* step4_nvrtc.c */
bool step_5_what_a_launch_costs(struct lesson *L);        /* step5_launch_cost.c */
bool step_6_errors_you_will_meet(struct lesson *L);       /* step6_errors.c */
bool common_mistakes(struct lesson *L);                   /* step6_mistakes.c, end of step 6 */
bool step_7_one_load_for_every_context(struct lesson *L); /* step7_library.c */
bool step_8_a_part_of_the_gpu(struct lesson *L);          /* step8_green.c */

/* step4_nvrtc.c: NVRTC's output for `source`, compiled with L->arch_opt: the image to load (PTX
 * where the driver can JIT it, else the cubin for this card), and a copy of the PTX in *ptx
 * when ptx is not NULL. Caller frees both; NULL when a call failed. Steps 6 and 8 use it. */
char *nvrtc_image(const char *source, const char *name, const struct lesson *L, char **ptx);

/* ---- report.c: names, checks, claims and figures ----------------------------------------- */

/* cuGetErrorName's name for r, or "(no name)". */
const char *cu_name(CUresult r);

/* A timing claim: judged (claim) unless a tool slows the calls (not judged, L->tool says why). */
bool timing_claim(const struct lesson *L, bool cond, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Print "<label><median> <unit>  (<min>-<max>)" for REPEATS timings v (sorts v); returns the
 * median. width and decimals format the median as printf's %*.*f would. */
double print_median(const char *label, double *v, int width, int decimals, const char *unit);

/* ---- files.c: files, the JIT cache, the libraries in the process ------------------------- */

/* The whole file, NUL-terminated (PTX must be a C string for cuModuleLoadData), at most
 * `limit` bytes; NULL with errno set when it cannot be read (EISDIR: a directory; EINVAL: not
 * a regular file, such as a FIFO or a device, which is never opened for blocking reads;
 * EFBIG: more than `limit` bytes). */
char *read_file(const char *path, size_t limit, size_t *size);
#define NVRTC_SOURCE_LIMIT ((size_t)16 << 20) /* --nvrtc: 16 MiB of source is plenty */
#define PTX_FILE_LIMIT     ((size_t)1 << 30)  /* --ptx, read again for the JIT's log */

/* Can `path` be opened for reading, and is it a regular file? errno says why not (EISDIR,
 * EINVAL for a FIFO, a device or a socket). Opening does not wait for a FIFO's writer. */
bool readable_file(const char *path);

/* path = the directory of this program + "/" + name. */
void beside_program(const char *name, char *path, size_t len);

/* A new empty directory for the JIT cache, in CUDA_CACHE_PATH, removed at exit. */
bool fresh_jit_cache(void);

/* The file name of the first library mapped into this process whose path holds `part`
 * (/proc/self/maps); false when none is. */
bool mapped_library(const char *part, char *name, size_t len);

/* ---- ptx_text.c: what a fatbinary and a PTX text hold, logs ----------------------------- */

/* The images in a fatbinary: SASS (a cubin) or PTX, and for which architecture. Returns how
 * many (at most max), or -1 when `image` is not a fatbinary. */
struct fatbin_entry {
    bool sass;
    int arch;
};
int fatbin_list(const void *image, size_t size, struct fatbin_entry *e, int max);

/* What a PTX text says about itself. */
struct ptx_facts {
    char version[16];  /* ".version 9.0" -> "9.0" */
    char target[32];   /* ".target sm_90" -> "sm_90" */
    char entries[256]; /* the .entry names, space separated */
    int target_sm;     /* 90 */
};
void read_ptx_facts(const char *ptx, struct ptx_facts *f);

/* Is `word` one of the space-separated words of `list`? */
bool has_word(const char *list, const char *word);

/* A copy of `ptx` with `line_start` (e.g. ".version") replaced by `replacement` on its line,
 * or with `extra` appended. Caller frees. */
char *ptx_edit(const char *ptx, const char *line_start, const char *replacement, const char *extra);

/* Print a JIT or NVRTC log, each line indented and marked. */
void print_log(FILE *to, const char *log);

#endif
