/*
 * Reference solution of exercise 1 - first_context.
 *
 * The program below initialises the driver (cudaGetDeviceCount) but never creates a context,
 * so it prints "no". Make it print "yes" on both lines:
 *   TODO 1: add the ONE runtime call that creates device 0's primary context and makes it
 *           current on this thread (step 3 of the lesson).
 *   TODO 2: set `primary` to the primary context with the Driver API, and give back the
 *           reference you took.
 * Grade it: make check   (from 01_hello_runtime/)
 */
#include <stdio.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "check.h"

int main(int argc, char **argv)
{
    (void)argc;
    lesson_init(argv[0]);
    int count = 0;
    if (!requireRuntime(cudaGetDeviceCount(&count)))
        return EXIT_CHECK;

    if (!checkRuntime(cudaSetDevice(0))) /* CUDA 12+: creates the primary context */
        return EXIT_CHECK;

    CUcontext current = NULL, primary = NULL;
    CUdevice dev;
    if (!checkDriver(cuCtxGetCurrent(&current)) || !checkDriver(cuDeviceGet(&dev, 0)))
        return EXIT_CHECK;

    if (!checkDriver(cuDevicePrimaryCtxRetain(&primary, dev)) ||
        !checkDriver(cuDevicePrimaryCtxRelease(dev)))
        return EXIT_CHECK;

    printf("a context is current: %s\n", current ? "yes" : "no");
    printf("it is device 0's primary context: %s\n", current && current == primary ? "yes" : "no");
    return EXIT_OK;
}
