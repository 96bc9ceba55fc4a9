/*
 * 01_hello_runtime/proof/machine.c - what this machine changes in the lesson, decided from what the
 * driver reports: the device's compute mode (who may hold a context on it); the versions'
 * rule (since when lazy loading is the default) is common/platform.h's, shared with lesson 02.
 * Pure functions, no CUDA call: a CPU test drives each decision with the values another
 * machine would report.
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

/* A child process that asks for a context and gets none: the device is held by another
 * process (EXCLUSIVE_PROCESS) or its memory is full (a small or shared GPU). Either way the
 * child's claims cannot be judged; any other error is a failure. */
bool no_context_for_child(cudaError_t err)
{
    return err == cudaErrorDevicesUnavailable || err == cudaErrorMemoryAllocation;
}
