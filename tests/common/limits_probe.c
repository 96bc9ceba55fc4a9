/* tests/common/limits_probe.c - makes common/check.c's failure path see the errors a low
 * process limit causes, without a GPU, so that tests/common.bats can check the hint line:
 *   limits_probe os-driver | os-runtime          CUDA_ERROR_OPERATING_SYSTEM (304), each API
 *   limits_probe oom-host | oom-device           out of memory from cudaMallocHost / cudaMalloc
 *   limits_probe oom-driver-host                 CUDA_ERROR_OUT_OF_MEMORY from cuMemHostAlloc
 *   limits_probe errno EAGAIN|EMFILE|ENOMEM|EINVAL   process_limit_hint for a thread or process
 * Prints "hint" or "no hint" (what process_limit_hint returned) for errno. */
#include "check.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    const char *what = argc > 1 ? argv[1] : "";
    if (strcmp(what, "os-driver") == 0)
        return checkDriver(CUDA_ERROR_OPERATING_SYSTEM) ? 0 : 1;
    if (strcmp(what, "os-runtime") == 0)
        return checkRuntime(cudaErrorOperatingSystem) ? 0 : 1;
    if (strcmp(what, "oom-host") == 0) /* the call's text is what the hint reads */
        return check_runtime_(cudaErrorMemoryAllocation, "cudaMallocHost(&p, bytes)", __FILE__,
                              __LINE__)
                   ? 0
                   : 1;
    if (strcmp(what, "oom-driver-host") == 0)
        return check_driver_(CUDA_ERROR_OUT_OF_MEMORY, "cuMemHostAlloc(&p, bytes, 0)", __FILE__,
                             __LINE__)
                   ? 0
                   : 1;
    if (strcmp(what, "oom-device") == 0)
        return check_runtime_(cudaErrorMemoryAllocation, "cudaMalloc(&p, bytes)", __FILE__,
                              __LINE__)
                   ? 0
                   : 1;
    if (strcmp(what, "errno") == 0 && argc > 2) {
        int e = !strcmp(argv[2], "EAGAIN")   ? EAGAIN
                : !strcmp(argv[2], "EMFILE") ? EMFILE
                : !strcmp(argv[2], "ENOMEM") ? ENOMEM
                                             : EINVAL;
        puts(process_limit_hint(e) ? "hint" : "no hint");
        return 0;
    }
    fprintf(
        stderr,
        "usage: limits_probe os-driver|os-runtime|oom-host|oom-driver-host|oom-device|errno E\n");
    return 2;
}
