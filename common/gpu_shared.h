/*
 * common/gpu_shared.h - is another program using this GPU?
 *
 * A claim that compares two timings taken seconds apart holds only if nothing else changed
 * what the GPU gave the lesson in between. gpu_shared() asks NVML which processes have a
 * context on the current device (cudaGetDevice's), and remembers the most it ever saw:
 *
 *     gpu_shared_sample();                  // during the measurements: look now
 *     if (gpu_shared(why, sizeof why))      // at the claim: look again; seen company?
 *         not_judged(why, "...");           //   then the timing claim is not judged
 *
 * why then reads "NVML listed N processes on this GPU during the run: ...". Without NVML (it
 * comes with the driver; some containers lack it) both report nothing: only the spread of
 * the repetitions can tell. A lesson that starts a child process of its own on the GPU calls
 * gpu_shared_stop_sampling() first: what was seen before stands.
 */
#ifndef LESSON_GPU_SHARED_H
#define LESSON_GPU_SHARED_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

void gpu_shared_sample(void);
bool gpu_shared(char *why, size_t len);
void gpu_shared_stop_sampling(void);

#ifdef __cplusplus
}
#endif

#endif
