/*
 * 04_streams_overlap/queue.c - step 6: what breaks the overlap: one hardware queue.
 *
 * The driver feeds the GPU through a few hardware work queues ("connections"; Hyper-Q, on
 * GPUs of compute capability 3.5 and later, 8 by default, CUDA_DEVICE_MAX_CONNECTIONS from 1 to
 * 32, read when the driver initialises). Streams are spread over them. Within one queue the GPU takes the work in the order it
 * was issued, whichever stream it belongs to: an operation that must wait for its own stream also
 * holds back everything queued after it - a false dependency (the explanation; what the step
 * measures is the overlap of the two orders). GPUs before Hyper-Q had one queue, which is why
 * the "by stage" issue order exists.
 *
 * This process's driver has read the variable already, so the step runs this program again in a
 * child process with CUDA_DEVICE_MAX_CONNECTIONS=1 (--one-queue-child N, an internal option) and
 * reads its lines. A GPU in EXCLUSIVE_PROCESS compute mode lets one process at a time use it:
 * there the child could not make a context while this process holds one, and the step says so.
 */
#define _GNU_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lesson.h"

extern char **environ;

/* ---- the child: one queue, N chunks per stream and by stage ------------------------------- */

int one_queue_child(int chunks)
{
    struct run *seq = new_run(1, PER_STREAM, PINNED, true, false);
    struct pipeline once = lesson_pipeline(L.n, 1, PINNED, L.stream); /* the reference first */
    if (!pipeline_sequential(&once) || !checkRuntime(cudaDeviceSynchronize()))
        return EXIT_CHECK;
    memcpy(L.ref, L.h_out, L.bytes);
    struct run *ps = new_run(chunks, PER_STREAM, PINNED, false, false);
    struct run *bs = new_run(chunks, BY_STAGE, PINNED, false, false);
    if (!measure_rounds((struct run *[]){seq, ps, bs}, 3)) /* round by round */
        return EXIT_CHECK;
    print_timeline("one queue, per stream", ps);
    print_timeline("one queue, by stage", bs);
    for (int k = 0; k < nruns; k++)
        printf("CHILD %s %.4f %.4f %.4f %.4f %.4f %d\n", runs[k].label, runs[k].median, runs[k].lo,
               runs[k].hi, runs[k].overlap, runs[k].spread,
               runs[k].sequential || runs[k].identical);
    return EXIT_OK;
}

/* ---- the parent ---------------------------------------------------------------------------- */

struct child_run {
    double median, lo, hi, overlap, spread;
    int identical;
    bool seen;
};

/* Run this program with CUDA_DEVICE_MAX_CONNECTIONS=1 and --one-queue-child; relay its
 * timelines, read its figures. *status: the child's exit status. */
static bool run_child(const struct findings *f, int chunks, struct child_run got[3], int *status)
{
    char n_s[16], dev_s[16], el_s[32], work_s[16], reps_s[16];
    snprintf(n_s, sizeof n_s, "%d", chunks);
    snprintf(dev_s, sizeof dev_s, "%ld", f->device);
    snprintf(el_s, sizeof el_s, "%zu", L.n);
    snprintf(work_s, sizeof work_s, "%d", L.work);
    snprintf(reps_s, sizeof reps_s, "%d", L.reps);
    char *argv[] = {(char *)lesson_prog,
                    "--one-queue-child",
                    n_s,
                    "--device",
                    dev_s,
                    "--elements",
                    el_s,
                    "--work",
                    work_s,
                    "--reps",
                    reps_s,
                    NULL};
    int fd[2];
    if (pipe(fd) != 0) {
        perror("pipe");
        return false;
    }
    fflush(stdout);
    const char *old = getenv("CUDA_DEVICE_MAX_CONNECTIONS");
    char *saved = old ? strdup(old) : NULL;
    setenv("CUDA_DEVICE_MAX_CONNECTIONS", "1", 1); /* for the child; this process read it already */
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    posix_spawn_file_actions_addclose(&fa, fd[1]);
    pid_t pid;
    int err = posix_spawn(&pid, "/proc/self/exe", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (saved)
        setenv("CUDA_DEVICE_MAX_CONNECTIONS", saved, 1);
    else
        unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");
    free(saved);
    close(fd[1]);
    if (err != 0) {
        fprintf(stderr, "%s: could not start the child process: %s\n", lesson_prog, strerror(err));
        close(fd[0]);
        return false;
    }
    FILE *in = fdopen(fd[0], "r");
    char line[512];
    static const char *const labels[3] = {"pinned-sequential", "pinned-per-stream",
                                          "pinned-by-stage"};
    while (in && fgets(line, sizeof line, in)) {
        char label[64];
        struct child_run c = {.seen = true};
        if (sscanf(line, "CHILD %63s %lf %lf %lf %lf %lf %d", label, &c.median, &c.lo, &c.hi,
                   &c.overlap, &c.spread, &c.identical) == 7) {
            for (int k = 0; k < 3; k++)
                if (strncmp(label, labels[k], strlen(labels[k])) == 0)
                    got[k] = c;
        } else {
            fputs(line, stdout);
        }
    }
    if (in)
        fclose(in);
    else
        close(fd[0]);
    int ws = 0;
    if (waitpid(pid, &ws, 0) < 0) {
        perror("waitpid");
        return false;
    }
    *status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + (WIFSIGNALED(ws) ? WTERMSIG(ws) : 0);
    return true;
}

bool step_6_one_hardware_queue(struct findings *f)
{
    int chunks = f->maxn >= 2 ? f->maxn : 4;
    gpu_shared_stop_sampling(); /* the child process is this lesson, not company */
    printf(
        "\n6. What breaks the overlap: one hardware queue (CUDA_DEVICE_MAX_CONNECTIONS=1)\n"
        "   the driver reads the variable when it initialises: this program runs again in a child\n"
        "   process with it, %d chunks in %d streams, each operation followed by its event as in\n"
        "   step 3. One queue takes the work in the order it was issued; an explanation, not\n"
        "   measured here: what must wait for its own stream (a kernel for its copy, an event for\n"
        "   its operation) holds back everything issued after it, whichever stream it belongs to\n",
        chunks, chunks);
    printf(
        "   per stream:  H1 K1 D1 H2 K2 D2 ...: chunk 2's copy in is queued behind chunk 1's work\n"
        "   by stage:    H1 H2 ... K1 K2 ... D1 D2 ...: every copy in is queued ahead of the "
        "waits\n");
    if (L.compute_mode == cudaComputeModeExclusiveProcess) {
        not_judged(
            "this GPU is in EXCLUSIVE_PROCESS compute mode: it lets one process at a time "
            "use it, and this process holds it, so a child process could not (run the lesson "
            "again with CUDA_DEVICE_MAX_CONNECTIONS=1: its steps 3 and 4 show one queue)",
            "one hardware queue (a child process)");
        return true;
    }
    struct child_run got[3] = {{0}};
    int status = -1;
    if (!run_child(f, chunks, got, &status))
        return false;
    if (status == EXIT_CANNOT_RUN) {
        not_judged("the child process could not use the GPU (exit 77; the reason is above)",
                   "one hardware queue");
        return true;
    }
    if (status != 0 || !got[0].seen || !got[1].seen || !got[2].seen) {
        fprintf(stderr,
                "%s: the child process with CUDA_DEVICE_MAX_CONNECTIONS=1 failed (exit %d)\n",
                lesson_prog, status);
        return false;
    }
    printf(
        "   one queue: in sequence %.2f ms; per stream %.2f ms (%.2fx), overlap %.0f%%; by stage\n"
        "   %.2f ms (%.2fx), overlap %.0f%%\n",
        got[0].median, got[1].median, got[0].median / got[1].median, 100 * got[1].overlap,
        got[2].median, got[0].median / got[2].median, 100 * got[2].overlap);
    claim(got[1].identical && got[2].identical,
          "one queue: both orders returned the sequential result bit for bit");
    const struct model *m = model_for(f, chunks);
    double allowed = m ? f->seq->median / m->ideal : f->allowed;
    double want = 0.5 * (1 - 1.0 / chunks);
    char why[480];
    tclaim(got[1].overlap < 0.10,
           "one queue, per stream: copies and kernels hardly overlap (%.0f%%, under 10%% "
           "wanted): the false dependencies serialise the streams",
           100 * got[1].overlap);
    if (L.untimed[0])
        not_judged(L.untimed, "one queue, by stage: copies and kernels still overlap");
    else if (L.launch_blocking)
        not_judged("CUDA_LAUNCH_BLOCKING=1 (the child inherits it): nothing overlaps in any order",
                   "one queue, by stage: copies and kernels still overlap");
    else if (allowed < 1.02) {
        snprintf(why, sizeof why, "the model allows %.3fx here: overlap can hide at most 2%%",
                 allowed);
        not_judged(why, "one queue, by stage: copies and kernels still overlap");
    } else if (gpu_shared(why, sizeof why)) { /* what was seen before step 6 */
        not_judged(why, "one queue, by stage: copies and kernels still overlap");
    } else if (got[2].spread > 0.10) {
        snprintf(why, sizeof why,
                 "the child's repetitions spread by %.0f%%, more than 10%%: too "
                 "noisy to compare times",
                 100 * got[2].spread);
        not_judged(why, "one queue, by stage: copies and kernels still overlap");
    } else
        claim(
            got[2].overlap >= want && got[2].median < got[1].median,
            "one queue, by stage: copies and kernels still overlap (%.0f%%, %.0f%% wanted) and it "
            "is faster than per stream (%.2f against %.2f ms)",
            100 * got[2].overlap, 100 * want, got[2].median, got[1].median);
    return true;
}
