/*
 * Exercise 1 - first_context: create the primary context with the runtime, then prove it.
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

    /* TODO 1 goes here. */

    CUcontext current = NULL, primary = NULL;
    CUdevice dev;
    if (!checkDriver(cuCtxGetCurrent(&current)) || !checkDriver(cuDeviceGet(&dev, 0)))
        return EXIT_CHECK;

    /* TODO 2 goes here. */

    printf("a context is current: %s\n", current ? "yes" : "no");
    printf("it is device 0's primary context: %s\n", current && current == primary ? "yes" : "no");
    return EXIT_OK;
}
