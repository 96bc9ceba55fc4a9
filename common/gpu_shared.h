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
 *
 * In a container (a PID namespace of its own: Docker, Kubernetes, Enroot) NVML lists neither
 * this program nor its neighbours. There the GPU-wide signals stand in for the list:
 *  - the memory in use on the GPU when the program started, before it made a context (read by
 *    a constructor, only in a PID namespace): another program's context holds some (64 MiB or
 *    more counts);
 *  - the PCIe link's traffic, sampled by each gpu_shared_sample() over 20 ms: call it when
 *    this program has no copy in flight (after a synchronise), and traffic of 1 GB/s or more
 *    is someone else's.
 * Seen, gpu_shared() reports it ("NVML cannot list processes here (a container's PID
 * namespace), but ...", ending with what that does to timings); gpu_shared_evidence() gives
 * what was seen alone, for a lesson whose claims it disturbs otherwise (lesson 02: free
 * memory). Not seen, gpu_shared() says nothing, and gpu_shared_blind() (true only then) tells
 * a lesson that wants to say so that NVML could not see (why: "cannot tell
 * whether another program shares this GPU: NVML cannot see processes here (a container's PID
 * namespace); ...").
 * GPU_SHARED_TRACE=1 prints each signal on stderr.
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
bool gpu_shared_evidence(char *seen, size_t len);
bool gpu_shared_blind(char *why, size_t len);
void gpu_shared_stop_sampling(void);

#ifdef __cplusplus
}
#endif

#endif
