/* Exercise check_launch: what your check_launch.c defines, and the launcher it calls. */
#ifndef EX_CHECK_LAUNCH_H
#define EX_CHECK_LAUNCH_H
#include <stdbool.h>
#include <cuda_runtime_api.h>
#include "check.h"

#ifdef __cplusplus
extern "C" {
#endif
/* The harness's launcher (harness/check_launch/scale.cu): data[i] *= factor on the device. */
void launch_scale(float *data, int n, float factor, int threads_per_block);
#ifdef __cplusplus
}
#endif

/* Yours: host[0..n) *= factor on the device, in blocks of threads_per_block threads. True when
 * every call and the launch succeeded; false (after reporting the cause) when one failed, with
 * host[] left alone and everything allocated here freed. */
bool scale_on_device(float *host, int n, float factor, int threads_per_block);
#endif
