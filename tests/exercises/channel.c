/* tests/exercises/channel.c - the grader's side of the channel to an exercise program (built by
 * tests/exercises/harness.bash once per grader file, run outside the sandbox, in the grader's
 * own process, which the program under test cannot reach).
 *
 *   channel SEED FILE COMMAND [ARG...]
 *
 * Runs COMMAND with its standard input on one end of a socket pair (nothing else of it changes)
 * and serves the other end: the harness (common/exercise_harness.h) asks for the seed when it
 * first needs its inputs ("seed?": answered with SEED), marks moments ("mark NAME": stamped here,
 * by this process's clock, CLOCK_MONOTONIC), asks for the device memory its process holds
 * ("measure NAME": stamped as a mark, then read here from NVML's list of compute processes while
 * the harness waits for the answer, "ok"), and at its end sends "report" and its report. FILE
 * gets SEED on its first line, then the report as it came; FILE.clock one line per stamp:
 * "seed_asked MS", "NAME MS" for each mark or measure, "closed MS" (the socket's end), MS in
 * milliseconds from the start of COMMAND; a line of anything else before the report: "protocol
 * LINE" (what the grader then refuses). FILE.memory one line per measure: "NAME MIB" (the
 * used_memory NVML lists for COMMAND and every process below it, summed over the GPUs), or
 * "NAME unseen WHY" (no nvidia-smi, none within 10 s, or NVML does not list the program: then
 * the point rests on what the harness saw inside). nvidia-smi is GRADER_NVIDIA_SMI where set (a
 * test's stand-in).
 * Exits as COMMAND did (128 + N when a signal N ended it), 125 when COMMAND could not be started
 * here, 2 on a bad command line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static struct timespec started;
static pid_t program; /* COMMAND's process: NVML's figures count it and its descendants */

static double ms_since_start(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - started.tv_sec) * 1e3 +
           (double)(now.tv_nsec - started.tv_nsec) / 1e6;
}

/* Whether process `pid` is the program or below it (its parents, read from /proc, reach it). */
static int in_program_tree(long pid)
{
    for (int depth = 0; depth < 64 && pid > 1; depth++) {
        if (pid == (long)program)
            return 1;
        char path[64], text[512];
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        FILE *f = fopen(path, "re");
        size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
        if (f)
            fclose(f);
        text[n] = '\0';
        char *end = strrchr(text, ')'); /* after the name, which may hold anything */
        if (!end || sscanf(end + 1, " %*c %ld", &pid) != 1)
            return 0;
    }
    return 0;
}

enum { SMI_LIMIT_MS = 10000 }; /* a driver that does not answer must not hold the program */

/* What `fd` gives into `out` (cap bytes, ended by a 0) until its end; false when nothing more
 * came for SMI_LIMIT_MS from `from` (ms_since_start). */
static int read_all(int fd, char *out, size_t cap, double from)
{
    size_t len = 0;
    int done = 0;
    while (!done && len < cap - 1) {
        struct pollfd ready = {.fd = fd, .events = POLLIN};
        int left = (int)(from + SMI_LIMIT_MS - ms_since_start()), n = 0;
        if (left <= 0 || (n = poll(&ready, 1, left)) == 0)
            break;
        ssize_t got = n < 0 ? -1 : read(fd, out + len, cap - 1 - len);
        if (got > 0)
            len += (size_t)got;
        else if (got == 0 || errno != EINTR)
            done = 1; /* its end (or a pipe that cannot be read) */
    }
    out[len] = '\0';
    return done || len == cap - 1;
}

/* nvidia-smi's list of compute processes ("PID, MIB" lines) into `out`; its exit status (-1: it
 * could not be started; -2: it gave no answer within SMI_LIMIT_MS, and was ended). */
static int nvidia_smi_apps(char *out, size_t cap)
{
    const char *smi = getenv("GRADER_NVIDIA_SMI");
    int fds[2], status = 0;
    out[0] = '\0';
    if (pipe2(fds, O_CLOEXEC) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        if (dup2(fds[1], 1) != 1 || null < 0 || dup2(null, 0) != 0 || dup2(null, 2) != 2)
            _exit(126);
        execlp(smi && *smi ? smi : "nvidia-smi", "nvidia-smi",
               "--query-compute-apps=pid,used_memory", "--format=csv,noheader,nounits", (char *)0);
        _exit(127);
    }
    close(fds[1]);
    int answered = pid > 0 && read_all(fds[0], out, cap, ms_since_start());
    if (pid > 0 && !answered)
        kill(pid, SIGKILL);
    close(fds[0]);
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (pid < 0 || !answered)
        return pid < 0 ? -1 : -2;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* "measure NAME": the device memory NVML lists for the program's processes, into memory_file. */
static void measure(const char *name, FILE *memory_file)
{
    static char apps[65536];
    int rc = nvidia_smi_apps(apps, sizeof apps);
    long mib = 0, listed = 0, unreadable = 0;
    for (char *line = strtok(apps, "\n"); rc == 0 && line; line = strtok(NULL, "\n")) {
        long pid = 0, used = 0;
        int fields = sscanf(line, "%ld , %ld", &pid, &used);
        if (fields >= 1 && in_program_tree(pid)) {
            listed++;
            mib += fields == 2 ? used : 0;
            unreadable += fields != 2;
        }
    }
    if (rc == -2)
        fprintf(memory_file, "%s unseen (nvidia-smi gave no answer within %d s)\n", name,
                SMI_LIMIT_MS / 1000);
    else if (rc != 0)
        fprintf(memory_file, "%s unseen (nvidia-smi %s)\n", name,
                rc == 127 || rc == -1 ? "could not be run here" : "failed");
    else if (!listed)
        fprintf(memory_file,
                "%s unseen (NVML lists no process of the program: a container without the "
                "host's process IDs?)\n",
                name);
    else if (unreadable)
        fprintf(memory_file, "%s unseen (NVML gives no memory figure for the program here)\n",
                name);
    else
        fprintf(memory_file, "%s %ld\n", name, mib);
    fflush(memory_file);
}

/* A name of a mark or a measure: a-z, 0-9 and _, not empty. */
static int good_name(const char *name)
{
    return name[0] && strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") == strlen(name);
}

/* Writes `text` on the socket (a protocol line when it could not: the run does not count). */
static void answer(int sock, const char *text, FILE *clock_file)
{
    size_t n = strlen(text);
    if (write(sock, text, n) != (ssize_t)n)
        fprintf(clock_file, "protocol the answer could not be sent: %s\n", strerror(errno));
}

/* One control line (before "report"): answers "seed?", stamps "mark NAME", measures and
 * answers "measure NAME". */
static void control(const char *line, const char *seed, int sock, FILE *clock_file,
                    FILE *memory_file)
{
    double at = ms_since_start();
    if (strcmp(line, "seed?") == 0) {
        char text[32];
        snprintf(text, sizeof text, "%s\n", seed);
        answer(sock, text, clock_file);
        fprintf(clock_file, "seed_asked %.3f\n", at);
    } else if (strncmp(line, "mark ", 5) == 0 && good_name(line + 5)) {
        fprintf(clock_file, "%s %.3f\n", line + 5, at);
    } else if (strncmp(line, "measure ", 8) == 0 && good_name(line + 8)) {
        fprintf(clock_file, "%s %.3f\n", line + 8, at);
        measure(line + 8, memory_file);
        answer(sock, "ok\n", clock_file);
    } else {
        fprintf(clock_file, "protocol %.80s\n", line);
    }
}

/* Lines until "report", then the report's bytes as they come, until every holder of the
 * program's end of the socket has closed it. */
static void serve(int sock, const char *seed, FILE *report, FILE *clock_file, FILE *memory_file)
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
                control(line, seed, sock, clock_file, memory_file);
            fflush(clock_file);
        }
    }
}

/* start_program SOCKET COMMAND: COMMAND runs with SOCKET as its standard input (the channel's
 * far end, closed here once it runs); its PID, or -1 with the reason printed */
static pid_t start_program(int sock, char **command)
{
    pid_t child = fork();
    if (child < 0) {
        fprintf(stderr, "channel: cannot start %s: %s\n", command[0], strerror(errno));
        return -1;
    }
    if (child == 0) {
        signal(SIGPIPE, SIG_DFL);
        if (dup2(sock, 0) != 0)
            _exit(125);
        execvp(command[0], command);
        fprintf(stderr, "channel: cannot start %s: %s\n", command[0], strerror(errno));
        _exit(errno == ENOENT ? 127 : 126);
    }
    close(sock);
    return child;
}

int main(int argc, char **argv)
{
    if (argc < 4 || strspn(argv[1], "0123456789") != strlen(argv[1]) || !argv[1][0]) {
        fprintf(stderr, "usage: channel SEED FILE COMMAND [ARG...]\n");
        return 2;
    }
    const char *seed = argv[1], *path = argv[2];
    char clock_path[4096], memory_path[4096];
    snprintf(clock_path, sizeof clock_path, "%s.clock", path);
    snprintf(memory_path, sizeof memory_path, "%s.memory", path);
    /* "e": closed on exec, so that no program started here holds them */
    FILE *report = fopen(path, "we"), *clock_file = fopen(clock_path, "we"),
         *memory_file = fopen(memory_path, "we");
    int sv[2];
    if (!report || !clock_file || !memory_file ||
        socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        fprintf(stderr, "channel: cannot set up the grader's channel: %s\n", strerror(errno));
        return 125;
    }
    fprintf(report, "%s\n", seed);
    fflush(report);
    signal(SIGPIPE, SIG_IGN);
    clock_gettime(CLOCK_MONOTONIC, &started);
    program = start_program(sv[1], argv + 3);
    if (program < 0)
        return 125;
    serve(sv[0], seed, report, clock_file, memory_file);
    fprintf(clock_file, "closed %.3f\n", ms_since_start());
    close(sv[0]);
    fclose(report);
    fclose(clock_file);
    fclose(memory_file);
    int status = 0;
    while (waitpid(program, &status, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
