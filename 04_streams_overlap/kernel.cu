// 04_streams_overlap/kernel.cu - the lesson's device code: work.cuh, shared with the
// exercises, holds the kernel and the extern "C" launcher that main.c calls.
#include "work.cuh"
