/*
 * 02_driver_context/machine.c - what this machine changes in the lesson, decided from what the
 * driver reports and what the lesson measured: the device's compute mode, the CUDA versions of
 * the driver and of the runtime (what they know; lazy loading's rule is common/platform.h's,
 * shared with lesson 01), and whether free device memory holds still enough to be read as a
 * measurement. Pure functions, no CUDA call: a CPU test drives each decision with the values
 * another machine would report.
 */
#include <cuda.h>

#include "lesson.h"

/* cuda.h, CUcomputemode: PROHIBITED lets no process make a context; EXCLUSIVE_PROCESS one
 * context (one process) at a time, which a lesson about several contexts may not get. */
bool contexts_allowed(int compute_mode)
{
    return compute_mode != CU_COMPUTEMODE_PROHIBITED;
}

bool one_context_at_a_time(int compute_mode)
{
    return compute_mode != CU_COMPUTEMODE_DEFAULT && compute_mode != CU_COMPUTEMODE_PROHIBITED;
}

/* cuGetProcAddress hands out a function's ABI of a CUDA version only where the driver
 * supports that version (an older driver answers CUDA_ERROR_INVALID_VALUE: step 9d). */
bool driver_knows_version(int driver_version, int cuda_version)
{
    return driver_version >= cuda_version;
}

/* A difference in free device memory can be judged against a bar only when free memory, read
 * again and again with nothing of this process changing, moved by less than that bar (a
 * desktop, WSL2 or another process on a shared GPU allocates and frees as it likes). Where it
 * did not move at all, every bar can be judged. */
bool memory_judgeable(double control_spread_mib, double bar_mib)
{
    return control_spread_mib <= 0.0 || control_spread_mib < bar_mib;
}
