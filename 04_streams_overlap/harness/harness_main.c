/*
 * 04_streams_overlap/harness/harness_main.c - the fixed part of every exercise (each
 * exercise's main.c includes this file). Do not edit: your work is pipeline.c.
 *
 *   1. allocate (host memory through your exercise_host_alloc) and make your streams;
 *   2. the sequential baseline: the whole copy in, kernel and copy out in your first
 *      stream, one after the other; its result checked against the host bit for bit;
 *   3. your pipeline (exercise_issue), timed from the call to cudaDeviceSynchronize's
 *      return (host time: it also counts any time your calls keep the host waiting);
 *   4. the claims: same result bit for bit, and at least 1.6x faster than the baseline.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* On the H100 this makes the kernel about 1.2x as long as a copy sharing the link with
 * the other direction (the lesson's --work auto chose it). */
#define DEFAULT_WORK 2500
#define REQUIRED_SPEEDUP 1.6
#define MAX_REPS 50

static void usage(FILE *to)
{
    fprintf(to,
            "usage: %s [--device N] [--elements N] [--streams N] [--work N] [--reps N]\n"
            "A 04_streams_overlap exercise: times your pipeline (pipeline.c) against the same\n"
            "work in sequence, checks its result, and passes at %.1fx or faster.\n"
            "  -d, --device N     the GPU to use (default 0)\n"
            "  -n, --elements N   floats to process (default 16777216 = 64 MiB each way)\n"
            "  -s, --streams N    chunks and streams (default 8, 2 to %d)\n"
            "  -w, --work N       multiply-adds per element (default %d)\n"
            "  -r, --reps N       timed repetitions after a warm-up (default 3)\n"
            "  -h, --help         this text\n"
            "exit status: 0 passed, 1 a check or CUDA call failed, 2 bad command line, 77 no GPU\n",
            lesson_prog, REQUIRED_SPEEDUP, HARNESS_MAX_STREAMS, DEFAULT_WORK);
}


static bool sequential(const struct pipeline *p)
{
    cudaStream_t s = p->stream[0];
    return checkRuntime(cudaMemcpyAsync(p->dev_in, p->host_in, p->n * sizeof(float),
                                        cudaMemcpyHostToDevice, s)) &&
           checkRuntime(launch_work(p->dev_in, p->dev_out, p->n, p->work, s)) &&
           checkRuntime(cudaMemcpyAsync(p->host_out, p->dev_out, p->n * sizeof(float),
                                        cudaMemcpyDeviceToHost, s));
}

/* One warm-up, then `reps` timed runs; the output is poisoned before the last one. */
static bool timed(const struct pipeline *p, bool (*issue)(const struct pipeline *), int reps,
                  double *median)
{
    double t[MAX_REPS];
    for (int rep = -1; rep < reps; rep++) {
        if (rep == reps - 1) {
            memset(p->host_out, 0xff, p->n * sizeof(float));
            if (!checkRuntime(cudaMemset(p->dev_out, 0xff, p->n * sizeof(float))) ||
                !checkRuntime(cudaDeviceSynchronize()))
                return false;
        }
        double t0 = host_ms();
        if (!issue(p) || !checkRuntime(cudaDeviceSynchronize()))
            return false;
        if (rep >= 0)
            t[rep] = host_ms() - t0;
    }
    *median = median_of(t, reps);
    return true;
}

int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    argv[0] = (char *)lesson_prog; /* getopt's own messages show the short name too */
    long device = 0, elements = 16L << 20, streams = 8, work = DEFAULT_WORK, reps = 3;
    static const struct option options[] = {
        {"device", required_argument, NULL, 'd'}, {"elements", required_argument, NULL, 'n'},
        {"streams", required_argument, NULL, 's'}, {"work", required_argument, NULL, 'w'},
        {"reps", required_argument, NULL, 'r'},    {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int opt;
    bool good = true;
    while (good && (opt = getopt_long(argc, argv, "d:n:s:w:r:h", options, NULL)) != -1) {
        switch (opt) {
        case 'd': good = parse_long(optarg, 0, 1023, "--device", &device); break;
        case 'n': good = parse_long(optarg, 1024, 1L << 30, "--elements", &elements); break;
        case 's': good = parse_long(optarg, 2, HARNESS_MAX_STREAMS, "--streams", &streams); break;
        case 'w': good = parse_long(optarg, 1, 1000000, "--work", &work); break;
        case 'r': good = parse_long(optarg, 1, MAX_REPS, "--reps", &reps); break;
        case 'h': usage(stdout); return EXIT_OK;
        default: good = false; break;
        }
    }
    if (good && optind < argc) {
        fprintf(stderr, "%s: unexpected argument '%s'\n", lesson_prog, argv[optind]);
        good = false;
    }
    if (!good) {
        usage(stderr);
        return EXIT_USAGE;
    }

    int count = 0;
    requireRuntime(cudaGetDeviceCount(&count));
    if (device >= count) {
        fprintf(stderr, "%s: --device %ld does not exist: this machine shows %d device(s)\n",
                lesson_prog, device, count);
        return EXIT_USAGE;
    }
    bool ok = true;
    cudaStream_t stream[HARNESS_MAX_STREAMS] = {0};
    struct pipeline p = {.streams = (int)streams, .n = (size_t)elements, .work = (int)work,
                         .stream = stream};
    size_t bytes = p.n * sizeof(float);
    float *ref = NULL;
    struct cudaDeviceProp prop;
    if (!checkRuntime(cudaSetDevice((int)device)) ||
        !checkRuntime(cudaGetDeviceProperties(&prop, (int)device))) {
        ok = false;
        goto cleanup;
    }
    printf("%s on device %ld, \"%s\": %zu floats, %ld streams, work %ld\n", lesson_prog, device,
           prop.name, p.n, streams, work);
    p.host_in = exercise_host_alloc(bytes);
    p.host_out = exercise_host_alloc(bytes);
    ref = malloc(bytes);
    if (!p.host_in || !p.host_out || !ref) {
        fprintf(stderr, "%s: could not allocate the host buffers (%zu bytes each)\n", lesson_prog, bytes);
        ok = false;
        goto cleanup;
    }
    if (!checkRuntime(cudaMalloc((void **)&p.dev_in, bytes)) ||
        !checkRuntime(cudaMalloc((void **)&p.dev_out, bytes)) ||
        !checkRuntime(cudaMalloc((void **)&p.dev_counter, sizeof(int))) ||
        !checkRuntime(cudaMemset(p.dev_counter, 0, sizeof(int))) ||
        !exercise_create_streams(stream, p.streams)) {
        ok = false;
        goto cleanup;
    }
    for (size_t i = 0; i < p.n; i++)
        p.host_in[i] = work_input(i);

    double t_seq, t_pipe;
    if (!timed(&p, sequential, (int)reps, &t_seq)) {
        ok = false;
        goto cleanup;
    }
    memcpy(ref, p.host_out, bytes);
    size_t stride = p.n / 4096 ? p.n / 4096 : 1, wrong = 0;
    for (size_t i = 0; i < p.n; i += stride) {
        float want = work_on_host(work_input(i), p.work);
        wrong += memcmp(&want, &ref[i], sizeof want) != 0;
    }
    if (!timed(&p, exercise_issue, (int)reps, &t_pipe)) {
        ok = false;
        goto cleanup;
    }
    bool same = memcmp(p.host_out, ref, bytes) == 0;
    printf("sequential:    %8.2f ms\n", t_seq);
    printf("your pipeline: %8.2f ms\n", t_pipe);
    printf("speed-up:      %8.2fx\n", t_seq / t_pipe);
    claim(wrong == 0, "the sequential result matches the host's bit for bit");
    claim(same, "your pipeline's result is identical to the sequential one");
    claim(t_seq / t_pipe >= REQUIRED_SPEEDUP, "your pipeline is %.2fx faster than the sequential run (%.1fx needed)",
          t_seq / t_pipe, REQUIRED_SPEEDUP);

cleanup:
    for (int i = 0; i < p.streams; i++)
        if (stream[i])
            ok = checkRuntime(cudaStreamDestroy(stream[i])) && ok;
    if (p.dev_counter)
        ok = checkRuntime(cudaFree(p.dev_counter)) && ok;
    if (p.dev_out)
        ok = checkRuntime(cudaFree(p.dev_out)) && ok;
    if (p.dev_in)
        ok = checkRuntime(cudaFree(p.dev_in)) && ok;
    if (p.host_in)
        exercise_host_free(p.host_in);
    if (p.host_out)
        exercise_host_free(p.host_out);
    free(ref);
    return verdict(ok);
}
