/*
 * 01_hello_runtime/lesson.h - what the lesson's files share: the state the steps pass on,
 * the step functions (main.c calls them in the README's order) and the child-process runner.
 */
#ifndef HELLO_RUNTIME_LESSON_H
#define HELLO_RUNTIME_LESSON_H

#include <stdbool.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

struct lesson {
    int device;                 /* --device N */
    int count;                  /* cudaGetDeviceCount, step 2 */
    CUdevice cu_dev;            /* the same device as the Driver API sees it */
    CUcontext primary;          /* the context cudaSetDevice made current, step 3 */
    struct cudaDeviceProp prop; /* read in step 3 */
};

/* kernel.cu */
void launch_add_one(float *data, int n, int threads_per_block);
void launch_trap(void);
void launch_spin(unsigned long long ns);

/* environment.c: the CUDA environment variables the lesson reads (step 0) */
enum setting { NOT_SET, SET_OFF, SET_ON, SET_OTHER };
void step_0_environment(void);
enum setting launch_blocking(void);      /* CUDA_LAUNCH_BLOCKING: unset, 0, 1, other */
int visible_devices_listed(void);        /* entries in CUDA_VISIBLE_DEVICES, -1 when unset */
const char *module_loading(void);        /* CUDA_MODULE_LOADING, NULL when unset */

/* first_calls.c: step 2b, and its child processes (--first-call NAME) */
bool step_2b_which_first_calls_start_a_context(const struct lesson *L);
int first_call_child(const char *name, int device);

/* lifecycle.c: step 8, and its child process (--lifecycle-demo) */
bool step_8_primary_context_lifecycle(const struct lesson *L);
int lifecycle_child(int device);

/* child.c: run this program again, as a child process, with the arguments given (after the
 * program's own path).
 * run_self: the same environment, except that env_name (when not NULL) is set to env_value,
 *   or removed when env_value is NULL. The child's stdout comes back through a pipe: its
 *   "[ok]" / "[FAIL]" / "[n/j]" lines become claims of this process (counted in its verdict),
 *   the other lines are printed as they come. Returns the child's exit status, or -1 when it
 *   could not be started or did not exit normally.
 * spawn_self / wait_self: start a child that shares stdout, without waiting; wait for it. */
#include <sys/types.h>
int run_self(char *const args[], const char *env_name, const char *env_value);
pid_t spawn_self(char *const args[]);
int wait_self(pid_t pid);

#endif
