/*
 * 02_driver_context/machine.c - what this machine changes in the lesson, decided from what the
 * driver reports and what the lesson measured: the device's compute mode, the CUDA versions of
 * the driver and of the runtime (what they know), and whether free device memory holds still
 * enough to be read as a measurement. Pure functions, no CUDA call: a CPU test drives each decision with the values
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

/* Programming Guide, "Lazy Loading": lazy loading needs both a CUDA runtime of 11.7 or newer
 * and a driver that supports it (R515+); from CUDA 12.2 it is the default on Linux (12.3 on
 * Windows), and CUDA_MODULE_LOADING=EAGER turns it off. So the default is judged only where
 * both the runtime this program was built with and the driver are 12.2 or newer. */
bool lazy_loading_is_default(int driver_version, int runtime_version)
{
    return driver_version >= 12020 && runtime_version >= 12020;
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
