/*
 * 01_hello_runtime/proof/lesson.h - what the lesson's files share: the state the steps pass on,
 * the step functions (main.c calls them in the order of the output) and the child-process runner.
 * The lesson's own functions (core.c) are declared in core.h.
 */
#ifndef HELLO_RUNTIME_LESSON_H
#define HELLO_RUNTIME_LESSON_H

#include <stdbool.h>
#include <stddef.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "core.h"

struct lesson {
    int device;                 /* --device N */
    int count;                  /* cudaGetDeviceCount, step 2 */
    CUdevice cu_dev;            /* the same device as the Driver API sees it */
    CUcontext primary;          /* the context cudaSetDevice made current, step 3 */
    struct cudaDeviceProp prop; /* read in step 3 */
    int compute_mode;           /* CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, step 2 */
};

/* machine.c: decisions from what the driver reports (no CUDA call: CPU tests drive them) */
enum child_plan {
    CHILDREN_SIDE_BY_SIDE,  /* DEFAULT compute mode: every process may hold a context */
    CHILDREN_ONE_AT_A_TIME, /* EXCLUSIVE_PROCESS: one process at a time; the parent gives its back */
    NO_CONTEXT_ALLOWED,     /* PROHIBITED: no process may make a context: the lesson cannot run */
};
enum child_plan child_plan_for(int compute_mode);

/* What a child process that got no context from the driver reports. The first-call children
 * (step 2) say it in their exit status; the others print a not-judged line and exit 0. */
enum { CHILD_GPU_TAKEN = 90, CHILD_NO_MEMORY = 91 };
bool no_context_for_child(cudaError_t err);

/* environment.c: the CUDA environment variables the lesson reads (step 0) */
enum setting { NOT_SET, SET_OFF, SET_ON, SET_OTHER };
void step_0_environment(void);
enum setting launch_blocking(void); /* CUDA_LAUNCH_BLOCKING: unset, 0, 1, other */
int visible_devices_listed(void);   /* entries in CUDA_VISIBLE_DEVICES, -1 when unset */
const char *module_loading(void);   /* CUDA_MODULE_LOADING, NULL when unset */
const char *jit_setting(void);      /* the first JIT variable set ("NAME=VALUE"), or NULL */
int fault_handling_set(char *names, size_t len); /* the fault-handling variables set, by name */
void remove_fault_handling(void);                /* unset them (a faulting child, step 5c) */

/* steps.c: steps 1 to 7, and step 5c's child process (--fault-demo) */
void step_1_before_any_call(void);
bool step_2_first_runtime_call(struct lesson *L, bool *no_such_device, bool *cannot_run);
bool step_3_first_call_that_needs_a_context(struct lesson *L);
bool step_4_versions(const struct lesson *L);
bool step_5_check_macros_at_work(struct lesson *L);
bool step_6_kernel_launched_from_c(void);
bool step_7_context_belongs_to_a_thread(const struct lesson *L);
int fault_demo(int device);

/* first_calls.c: step 2b, and its child processes (--first-call NAME) */
bool step_2b_which_first_calls_start_a_context(const struct lesson *L);
int first_call_child(const char *name, int device);

/* lifecycle.c: step 8, and its child process (--lifecycle-demo) */
bool step_8_primary_context_lifecycle(struct lesson *L);
int lifecycle_child(int device);

/* child.c: on a GPU that lets one process at a time use it, this process gives back its context
 * before a child process runs (steps 5c, 8) and, when more steps follow, takes it again. */
bool give_back_context_for_child(struct lesson *L);
bool take_context_again(struct lesson *L);

/* child.c: run this program again, as a child process, with the arguments given (after the
 * program's own path). The child's environment names this process in HELLO_RUNTIME_PARENT:
 * started_by_the_lesson() is true only in such a child, so the internal options that select
 * the child's side cannot be reached from the command line.
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
bool started_by_the_lesson(void);
int child_start_error(void); /* errno of the last child that could not be started, or 0 */
void stop_if_limit(int err); /* err is a process limit's: say which and its value, exit 77 */

/* limits.c: the limit behind a failed fork, posix_spawn or pipe (EAGAIN: RLIMIT_NPROC, EMFILE:
 * RLIMIT_NOFILE), as one line naming it and its value; false for any other errno. */
bool limit_behind(int err, char *line, size_t len);

#endif
