/* tests/exercises/channel.c - the grader's side of the channel to an exercise program (built by
 * tests/exercises/harness.bash once per grader file, run outside the sandbox, in the grader's
 * own process, which the program under test cannot reach).
 *
 *   channel SEED FILE COMMAND [ARG...]
 *
 * Runs COMMAND with its standard input on one end of a socket pair (nothing else of it changes)
 * and serves the other end: the harness (common/exercise_harness.h) asks for the seed when it
 * first needs its inputs ("seed?": answered with SEED), marks moments ("mark NAME": stamped here,
 * by this process's clock, CLOCK_MONOTONIC), and at its end sends "report" and its report. FILE
 * gets SEED on its first line, then the report as it came; FILE.clock one line per stamp:
 * "seed_asked MS", "NAME MS" for each mark, "closed MS" (the socket's end), MS in milliseconds
 * from the start of COMMAND; a line of anything else before the report: "protocol LINE" (what
 * the grader then refuses). Exits as COMMAND did (128 + N when a signal N ended it), 125 when
 * COMMAND could not be started here, 2 on a bad command line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static struct timespec started;

static double ms_since_start(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - started.tv_sec) * 1e3 +
           (double)(now.tv_nsec - started.tv_nsec) / 1e6;
}

/* One control line (before "report"): answers "seed?", stamps "mark NAME". */
static void control(const char *line, const char *seed, int sock, FILE *clock_file)
{
    double at = ms_since_start();
    if (strcmp(line, "seed?") == 0) {
        char answer[32];
        int n = snprintf(answer, sizeof answer, "%s\n", seed);
        if (write(sock, answer, (size_t)n) != n)
            fprintf(clock_file, "protocol the seed could not be sent: %s\n", strerror(errno));
        fprintf(clock_file, "seed_asked %.3f\n", at);
    } else if (strncmp(line, "mark ", 5) == 0 && line[5] &&
               strspn(line + 5, "abcdefghijklmnopqrstuvwxyz0123456789_") == strlen(line + 5)) {
        fprintf(clock_file, "%s %.3f\n", line + 5, at);
    } else {
        fprintf(clock_file, "protocol %.80s\n", line);
    }
}

/* Lines until "report", then the report's bytes as they come, until every holder of the
 * program's end of the socket has closed it. */
static void serve(int sock, const char *seed, FILE *report, FILE *clock_file)
{
    char line[256];
    size_t len = 0;
    int in_report = 0;
    for (;;) {
        char buf[4096];
        ssize_t got = read(sock, buf, sizeof buf);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        for (ssize_t i = 0; i < got; i++) {
            if (in_report) {
                fwrite(buf + i, 1, (size_t)(got - i), report);
                break;
            }
            if (buf[i] != '\n') {
                if (len < sizeof line - 1)
                    line[len++] = buf[i];
                continue;
            }
            line[len] = '\0';
            len = 0;
            if (strcmp(line, "report") == 0)
                in_report = 1;
            else
                control(line, seed, sock, clock_file);
            fflush(clock_file);
        }
    }
}

int main(int argc, char **argv)
{
    if (argc < 4 || strspn(argv[1], "0123456789") != strlen(argv[1]) || !argv[1][0]) {
        fprintf(stderr, "usage: channel SEED FILE COMMAND [ARG...]\n");
        return 2;
    }
    const char *seed = argv[1], *path = argv[2];
    char clock_path[4096];
    snprintf(clock_path, sizeof clock_path, "%s.clock", path);
    FILE *report = fopen(path, "w"), *clock_file = fopen(clock_path, "w");
    int sv[2];
    if (!report || !clock_file || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        fprintf(stderr, "channel: cannot set up the grader's channel: %s\n", strerror(errno));
        return 125;
    }
    fprintf(report, "%s\n", seed);
    fflush(report);
    signal(SIGPIPE, SIG_IGN);
    clock_gettime(CLOCK_MONOTONIC, &started);
    pid_t child = fork();
    if (child < 0) {
        fprintf(stderr, "channel: cannot start %s: %s\n", argv[3], strerror(errno));
        return 125;
    }
    if (child == 0) {
        signal(SIGPIPE, SIG_DFL);
        if (dup2(sv[1], 0) != 0)
            _exit(125);
        execvp(argv[3], argv + 3);
        fprintf(stderr, "channel: cannot start %s: %s\n", argv[3], strerror(errno));
        _exit(errno == ENOENT ? 127 : 126);
    }
    close(sv[1]);
    serve(sv[0], seed, report, clock_file);
    fprintf(clock_file, "closed %.3f\n", ms_since_start());
    close(sv[0]);
    fclose(report);
    fclose(clock_file);
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
