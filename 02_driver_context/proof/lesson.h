/*
 * 02_driver_context/proof/lesson.h - what the instrument's files share.
 *
 * ../core.c holds the calls the lesson is about (../core.h); this folder, proof/, the program
 * that runs them step by step and judges what they did: main.c the table of contents; start.c
 * step 1 (environment.c the CUDA environment variables); own_context.c step 2; stack.c steps
 * 3-4; runtime.c steps 5-6; devices.c steps 7 and 10; peers.c step 8; entry_points.c step 9;
 * machine.c the decisions that depend on the machine; apparatus.c the instruments the steps
 * use (naming contexts, printing the stack, filling and checking buffers, reading free
 * memory).
 */
#ifndef LESSON02_H
#define LESSON02_H

#include <stdbool.h>
#include <stddef.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "../core.h" /* the core, one folder up: found without -I */

enum {
    MAX_DEVICES = 64,
    MAX_REPEAT = 50,
    WORDS = 256 * 1024, /* each test buffer: 1 MiB of unsigned int */
};
#define BYTES ((size_t)WORDS * sizeof(unsigned int))
#define MIB   (1024.0 * 1024.0)

/* What the steps hand on to each other, and what main() frees at the end. */
struct lesson {
    long device, repeat; /* the options */
    int count;           /* devices the driver shows */
    int driver_version;  /* cuDriverGetVersion: 13000 for CUDA 13.0 */
    int compute_mode;    /* CU_DEVICE_ATTRIBUTE_COMPUTE_MODE of --device */
    CUdevice dev;        /* the device of steps 2 to 6 */
    char name[256];      /* its name */
    int major, minor;    /* its compute capability */
    char mps[320];       /* why this process is an MPS client ("" when it is not) */
    unsigned int *host_in, *host_out;
    CUdeviceptr buf_a, buf_b;         /* step 4: one buffer in ctxA, one in ctxB */
    void *rt_in_a, *rt_in_primary;    /* step 5: cudaMalloc in ctxA, then in the primary */
    CUdeviceptr dev_buf[MAX_DEVICES]; /* step 7: one buffer per device */
    CUcontext runtime_ctx;            /* the primary context the runtime made current (step 5c) */
};

/* The contexts this lesson makes, named so the story reads "ctxA" rather than an address. */
extern CUcontext ctx_a, ctx_b, primary_ctx;
extern CUcontext dev_ctx[MAX_DEVICES];
extern int dev_ctx_count;
const char *name_of(CUcontext c);

/* The context stack as the program keeps it (the driver only shows its top). */
extern CUcontext stack[8];
extern int depth;
void show_stack(const char *after, bool *ok);
void show_stack_as(const char *after, CUcontext cur); /* with the current context read before */

/* ---- machine.c: decisions from what the driver reports (no CUDA call: CPU tests drive them) */
bool contexts_allowed(int compute_mode);
bool one_context_at_a_time(int compute_mode);
bool driver_knows_version(int driver_version, int cuda_version);
bool memory_judgeable(double control_spread_mib, double bar_mib);
bool kernel_image_refused(int runtime_error);
bool mps_client_by(int attr_enabled, bool daemon_pipe);

/* ---- environment.c: the CUDA environment variables that change what the lesson observes -- */
void show_environment(void);
bool environment_claims(struct lesson *L, bool pci_order);
bool mps_client(CUdevice dev, char *why, size_t len);
bool jit_refusal(const struct lesson *L);

/* ---- apparatus.c ------------------------------------------------------------------------ */
const char *error_name(CUresult r);
CUcontext current(bool *ok);                 /* cuCtxGetCurrent */
CUcontext owner_of(CUdeviceptr p, bool *ok); /* CU_POINTER_ATTRIBUTE_CONTEXT */
size_t free_memory(bool *ok);                /* cuMemGetInfo's free bytes */
double free_memory_spread(bool *ok);         /* MiB it moved over 10 reads, 10 ms apart */
bool gpu_company(char *why, size_t len);     /* another program on this GPU? (NVML) */
extern CUresult
    context_refused; /* a cuCtxCreate got DEVICE_UNAVAILABLE or OUT_OF_MEMORY: exit 77 */
void fill(unsigned int *h, unsigned int seed);
int wrong_words(const unsigned int *h, unsigned int seed, unsigned int plus);
bool cuda_free_in(CUcontext ctx, void **p); /* cudaFree with ctx pushed */

/* The CUDA 13 form of cuCtxCreate against the CUDA 12 form, as step 2 prints them. */
#if CUDA_VERSION >= 13000
#define CREATE_FORM \
    "cuCtxCreate(&ctx, NULL, 0, dev)   (CUDA 13: CUctxCreateParams *, flags, device)"
#else
#define CREATE_FORM "cuCtxCreate(&ctx, 0, dev)   (CUDA 12: flags, device)"
#endif
/* core.c's create_context, checked; a refusal (DEVICE_UNAVAILABLE, OUT_OF_MEMORY) is kept for exit 77. */
bool make_context(CUcontext *ctx, CUdevice dev, const char *file, int line);
#define CREATE_CONTEXT(ctx, dev) make_context((ctx), (dev), __FILE__, __LINE__)

/* Inside a step: a failed call ends the step (the caller frees what was made). */
#define TRY(x)            \
    do {                  \
        if (!(x))         \
            return false; \
    } while (0)

/* ---- the steps, in the order main() calls them ----------------------------------------- */
int step_1_explicit_start(struct lesson *L); /* start.c: -1 to go on, else the exit code */
/* own_context.c */
bool step_2_a_context_of_our_own(struct lesson *L);
bool step_3_context_stack(struct lesson *L);
bool step_4_memory_belongs_to_a_context(struct lesson *L);
bool step_5_runtime_and_driver_on_one_thread(struct lesson *L);
bool step_6_contexts_are_per_thread(struct lesson *L);
bool step_7_every_device(struct lesson *L);
bool step_8_contexts_and_peers(struct lesson *L); /* peers.c */
bool step_9_entry_points(struct lesson *L);       /* entry_points.c */
void step_10_what_a_context_holds(void);

#endif
