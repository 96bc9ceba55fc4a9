/*
 * common/platform.h - facts about this machine that change what a lesson can judge.
 *
 * 1. under_tool(why, len)
 *    Is this program running under a tool that slows every CUDA call many times
 *    (compute-sanitizer; Nsight Compute, which replays kernels; Nsight Systems, which traces
 *    every call; any other CUDA tool injected with CUDA_INJECTION64_PATH; valgrind)? Then a
 *    claim that compares timings cannot be judged:
 *        char why[256];
 *        if (under_tool(why, sizeof why)) not_judged(why, "...timing claim...");
 *    why reads like "this run is under compute-sanitizer, which slows every CUDA call many
 *    times: timings say nothing about the GPU". Nothing CUDA is called: it reads the
 *    environment the tools give the program they start and the libraries mapped into it
 *    (/proc/self/maps), so it may be called at any time, also before the first CUDA call.
 */
#ifndef LESSON_PLATFORM_H
#define LESSON_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

bool under_tool(char *why, size_t len);

#ifdef __cplusplus
}
#endif

#endif
