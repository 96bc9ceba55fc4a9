/*
 * 02_driver_context/proof/machine.c - what this machine changes in the lesson, decided from what the
 * driver reports and what the lesson measured: the device's compute mode, the CUDA versions of
 * the driver and of the runtime (what they know; lazy loading's rule is common/platform.h's,
 * shared with lesson 01), and whether free device memory holds still enough to be read as a
 * measurement. Pure functions, no CUDA call: a CPU test drives each decision with the values
 * another machine would report.
 */
#include <cuda.h>
#include <cuda_runtime_api.h>

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

/* The runtime's answer when it cannot load a kernel for this GPU: no SASS for it and no PTX it
 * may compile (CUDA_DISABLE_PTX_JIT), or PTX only for a newer one (CUDA_FORCE_PTX_JIT ignores
 * the SASS), or no JIT compiler at all. */
bool kernel_image_refused(int runtime_error)
{
    switch (runtime_error) {
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorInvalidPtx:
    case cudaErrorUnsupportedPtxVersion:
    case cudaErrorJitCompilerNotFound:
    case cudaErrorJitCompilationDisabled: return true;
    default: return false;
    }
}

/* An MPS client? The driver's answer wins (CU_DEVICE_ATTRIBUTE_MPS_ENABLED: 1 yes, 0 no, -1 not
 * answered: an older driver, or headers before CUDA 13); without it, the control daemon's pipe
 * in CUDA_MPS_PIPE_DIRECTORY (or /tmp/nvidia-mps) decides. */
bool mps_client_by(int attr_enabled, bool daemon_pipe)
{
    return attr_enabled == 1 || (attr_enabled < 0 && daemon_pipe);
}
