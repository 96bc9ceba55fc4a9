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

/* child.c: run this program again, as a child process, with the arguments given (after the
 * program's own path) and the same environment. Returns the child's exit status, or -1 when
 * it could not be started or did not exit normally. */
int run_self(char *const args[]);

#endif
