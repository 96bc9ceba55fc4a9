/*
 * 01_hello_runtime/machine.c - what this machine changes in the lesson, decided from what the
 * driver reports: the device's compute mode (who may hold a context on it) and the versions
 * (since when lazy loading is the default). Pure functions, no CUDA call: a CPU test drives
 * each decision with the values another machine would report.
 */
#include <cuda.h>

#include "lesson.h"

/* cuda.h, CUcomputemode: DEFAULT lets several contexts (so several processes) use the device;
 * EXCLUSIVE_PROCESS lets one process at a time hold a context on it; PROHIBITED lets none.
 * The lesson's child processes (steps 2, 5c, 8) start contexts of their own: side by side in
 * DEFAULT mode; one at a time, with this process holding none meanwhile, in EXCLUSIVE_PROCESS
 * mode; not at all where no context may be made (nor can the lesson itself). A mode this
 * build does not know is taken as the strictest that still lets one process run. */
enum child_plan child_plan_for(int compute_mode)
{
    switch (compute_mode) {
    case CU_COMPUTEMODE_DEFAULT: return CHILDREN_SIDE_BY_SIDE;
    case CU_COMPUTEMODE_PROHIBITED: return NO_CONTEXT_ALLOWED;
    default: return CHILDREN_ONE_AT_A_TIME;
    }
}

/* CUDA Programming Guide, "Lazy Loading" (its requirements and its changes by CUDA version):
 * lazy loading needs both a CUDA runtime of 11.7 or newer and a driver that supports it
 * (R515+); from CUDA 12.2 it is the default on Linux (12.3 on Windows), and
 * CUDA_MODULE_LOADING=EAGER turns it off. The lesson judges the default only where the runtime
 * and the driver are both 12.2 or newer (a 13.0 build on an older driver cannot run; a 12.x
 * build can, on a 12.0 or 12.1 driver). */
bool lazy_loading_is_default(int driver_version, int runtime_version)
{
    return driver_version >= 12020 && runtime_version >= 12020;
}

/* A child process that asks for a context and gets none: the device is held by another
 * process (EXCLUSIVE_PROCESS) or its memory is full (a small or shared GPU). Either way the
 * child's claims cannot be judged; any other error is a failure. */
bool no_context_for_child(cudaError_t err)
{
    return err == cudaErrorDevicesUnavailable || err == cudaErrorMemoryAllocation;
}
