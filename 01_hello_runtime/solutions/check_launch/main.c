/*
 * Reference solution of exercise 2 - check_launch.
 *
 *     ./check_launch --threads 256     works
 *     ./check_launch --threads 2048    the launch fails (more threads per block than allowed),
 *                                      and all this program can say is that the data came
 *                                      back wrong: it never learns why.
 * TODO: right after launch_scale(...), check the launch the way lesson step 5 does, so that
 * with --threads 2048 the program reports the cause (checkRuntime prints the file, line,
 * error name and message on stderr) and exits 1 (EXIT_CHECK) after freeing what it allocated.
 * Grade it: make check   (from 01_hello_runtime/)
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "check.h"

void launch_scale(float *data, int n, float factor, int threads_per_block);

int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    argv[0] = (char *)lesson_prog; /* getopt's messages name the program as usage does */
    long threads = 256;
    static const struct option options[] = {{"threads", required_argument, NULL, 't'},
                                            {NULL, 0, NULL, 0}};
    int opt;
    while ((opt = getopt_long(argc, argv, "t:", options, NULL)) != -1)
        if (opt != 't' || !parse_long(optarg, 1, 1 << 20, "--threads", &threads))
            return EXIT_USAGE;

    enum { N = 1 << 16 };
    int status = EXIT_CHECK;
    float *host = malloc(N * sizeof(float)), *dev = NULL;
    if (!host || !requireRuntime(cudaMalloc((void **)&dev, N * sizeof(float))))
        goto cleanup;
    for (int i = 0; i < N; i++)
        host[i] = (float)i;
    if (!checkRuntime(cudaMemcpy(dev, host, N * sizeof(float), cudaMemcpyHostToDevice)))
        goto cleanup;

    launch_scale(dev, N, 2.0f, (int)threads);
    if (!checkRuntime(cudaGetLastError())) /* the launch error, at once */
        goto cleanup;

    if (!checkRuntime(cudaMemcpy(host, dev, N * sizeof(float), cudaMemcpyDeviceToHost)))
        goto cleanup;
    int wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += host[i] != 2.0f * (float)i;
    printf("%d threads per block: %d of %d elements wrong\n", (int)threads, wrong, N);
    status = wrong == 0 ? EXIT_OK : EXIT_CHECK;

cleanup:
    if (dev)
        checkRuntime(cudaFree(dev));
    free(host);
    return status;
}
