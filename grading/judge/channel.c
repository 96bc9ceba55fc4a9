/* grading/judge/channel.c - the judge: the grader's side of the channel to an exercise program
 * (built by grading/judge/harness.bash once per grader file, run outside the sandbox, in the
 * grader's own process, which the program under test cannot reach).
 *
 *   channel [--points LIST] SEED FILE COMMAND [ARG...]
 *
 * Runs COMMAND with its standard input on one end of a socket pair (nothing else of it changes)
 * and owns the conversation on the other end. The judge asks, the program answers: the judge
 * writes "next" and reads exactly one line back, then answers that line, then asks again. The
 * lines the program may give are the points of LIST, in LIST's order (each once), and last
 * "report LEN" followed by exactly LEN bytes (at most REPORT_CAP), after which the judge writes
 * "bye" and the program must say nothing more. A point is KIND:NAME (NAME of a-z, 0-9, _):
 *   seed          the run's seed: the judge answers "go SEED"; "seed" alone means seed:seed
 *   fresh:NAME    a seed the judge draws now, for what comes next (a timed batch): "go S",
 *                 and FILE.seeds gets "NAME S"
 *   at:NAME       a moment: stamped by the judge's clock when the line arrives, "go"
 *   measure:NAME  stamped, then the device memory the program's processes hold is read from
 *                 outside (NVML's list of compute processes, through nvidia-smi) while the
 *                 program waits for its "go"; FILE.memory gets "NAME MIB" or "NAME unseen WHY"
 *   pick:NAME     after a call of the student's made an output: stamped ("pick:NAME MS" in
 *                 FILE.clock), then the judge draws a seed now, after the call, and answers
 *                 "go S"; the program must answer at once with one line (at most
 *                 PICK_LINE_CAP bytes), "picked NAME N AT:BITS ..." (N the output's length,
 *                 then the PICK_COUNT positions grading/harness/pick.h's pick_positions gives
 *                 for S and N, in order, each with the 8 hex digits of the value there), and
 *                 FILE.picks gets "NAME S N AT:BITS ..." (at most PICKS_CAP bytes in all).
 *                 No answer, a malformed one, other positions, or a second answer breaks the
 *                 conversation; the grader computes the values due itself
 *                 (grading/judge/expected_picks.c).
 * The program may end early: "report" answers any "next" (the points left are then not
 * reached, and a grader that needs them fails). LIST defaults to "seed".
 * Anything else ends the conversation with one line in FILE.broken, "WHAT" (a line the judge
 * did not ask for, a point out of order or twice, a line or a report past its cap, a byte after
 * the report): the grader then gives the run no point and flags it for review
 * (grading/judge/harness.bash). The judge then closes the channel, and ends COMMAND when it
 * has not ended within BROKEN_GRACE_MS.
 * FILE gets SEED on its first line, then the report; FILE.picks the picks' answers (above);
 * FILE.clock a line "NAME MS" per point ("pick:NAME MS" for a pick)
 * (MS: milliseconds from the start of COMMAND, CLOCK_MONOTONIC, when its line arrived) and
 * "closed MS". nvidia-smi is GRADER_NVIDIA_SMI where set (a test's stand-in).
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

#include "../harness/pick.h"

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

enum {
    LINE_CAP = 128,        /* a point's line, "next"'s answer */
    PICK_LINE_CAP = 4096,  /* a "picked" line: 64 positions of 20 digits and their values */
    PICKS_CAP = 1 << 20,   /* FILE.picks's bytes in all */
    REPORT_CAP = 65536,    /* the report's bytes */
    POINTS_CAP = 4096,     /* points in LIST */
    BROKEN_GRACE_MS = 5000 /* how long a program whose conversation broke may take to end */
};

struct point {
    char kind[8], name[64];
};

struct judge {
    int sock;
    const char *seed;
    struct point points[POINTS_CAP];
    int count, next; /* the points of LIST; the next one due */
    FILE *report, *clock, *memory, *seeds, *picks;
    long picks_written; /* FILE.picks's bytes so far */
    const char *broken_path;
    int broken;
};

/* The conversation is over: WHAT goes into FILE.broken (the first reason only). */
static void broken(struct judge *j, const char *fmt, const char *arg)
{
    if (j->broken)
        return;
    j->broken = 1;
    FILE *f = fopen(j->broken_path, "we");
    if (f) {
        fprintf(f, fmt, arg);
        fputc('\n', f);
        fclose(f);
    }
}

/* A kind of point the judge knows. */
static int good_kind(const char *kind)
{
    static const char *const kinds[] = {"seed", "fresh", "at", "measure", "pick"};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(kind, kinds[i]) == 0)
            return 1;
    return 0;
}

/* LIST into j->points: words KIND:NAME or "seed"; false when one is not of that form. */
static int parse_points(struct judge *j, const char *list)
{
    char *copy = strdup(list);
    for (char *w = copy ? strtok(copy, " ,\n") : NULL; w; w = strtok(NULL, " ,\n")) {
        char *colon = strchr(w, ':');
        const char *kind = colon ? w : "seed", *name = colon ? colon + 1 : "seed";
        if (colon)
            *colon = '\0';
        if (j->count == POINTS_CAP || !good_name(name) ||
            strlen(name) >= sizeof j->points[0].name || !good_kind(kind) ||
            (strcmp(kind, "seed") == 0 && strcmp(name, "seed") != 0)) {
            free(copy);
            return 0;
        }
        snprintf(j->points[j->count].kind, sizeof j->points[0].kind, "%s", kind);
        snprintf(j->points[j->count].name, sizeof j->points[0].name, "%s", name);
        j->count++;
    }
    free(copy);
    return copy != NULL;
}

/* Writes `text` on the socket; false when it could not (broken, unless the program has
 * closed its end). */
static int say(struct judge *j, const char *text)
{
    size_t n = strlen(text), done = 0;
    while (done < n) {
        ssize_t w = write(j->sock, text + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) { /* the program has ended (EPIPE): no break, the conversation is over */
            if (errno != EPIPE && errno != ECONNRESET)
                broken(j, "the judge's answer could not be sent: %s", strerror(errno));
            return 0;
        }
        done += (size_t)w;
    }
    return 1;
}

/* Bytes waiting that the judge has not asked for: broken (their first line named). */
static int unasked(struct judge *j)
{
    char text[81];
    ssize_t n = recv(j->sock, text, sizeof text - 1, MSG_PEEK | MSG_DONTWAIT);
    if (n <= 0)
        return 0;
    text[n] = '\0';
    text[strcspn(text, "\n")] = '\0';
    if (strncmp(text, "picked ", 7) == 0) /* a pick answered twice */
        broken(j, "a second answer to a pick: '%.40s...'", text);
    else
        broken(j, "a line the judge did not ask for: '%s'", text);
    return 1;
}

/* One line of at most cap - 1 bytes into `line` (the newline dropped): 1; 0 at the end of the
 * channel before any byte; -1 (broken) for a line too long or cut by the end. */
static int read_line(struct judge *j, char *line, size_t cap)
{
    size_t len = 0;
    for (;;) {
        char c;
        ssize_t n = read(j->sock, &c, 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (len == 0)
                return 0;
            broken(j, "%s", "a line cut by the end of the channel");
            return -1;
        }
        if (c == '\n')
            break;
        if (len == cap - 1) {
            char most[24];
            snprintf(most, sizeof most, "%zu", cap - 1);
            broken(j, "a line longer than %s bytes", most);
            return -1;
        }
        line[len++] = c;
    }
    line[len] = '\0';
    return 1;
}

/* "report LEN" and its LEN bytes into FILE; then "bye", and nothing more may come. */
static void take_report(struct judge *j, const char *len_text)
{
    char *end = NULL;
    long len = strtol(len_text, &end, 10);
    if (!*len_text || *end || len < 0 || len > REPORT_CAP) {
        broken(j, "a report of '%.40s' bytes (at most 65536)", len_text);
        return;
    }
    char *text = malloc((size_t)len + 1);
    long got = 0;
    while (text && got < len) {
        ssize_t n = read(j->sock, text + got, (size_t)(len - got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += n;
    }
    if (text && got == len) {
        fwrite(text, 1, (size_t)len, j->report);
        fflush(j->report);
    }
    free(text);
    if (got != len) {
        broken(j, "%s", "a report shorter than it said");
        return;
    }
    if (!say(j, "bye\n"))
        return;
    char c;
    ssize_t n;
    while ((n = read(j->sock, &c, 1)) < 0 && errno == EINTR)
        ;
    if (n > 0)
        broken(j, "%s", "a byte after the report");
}

/* A seed drawn now, 1 .. 2^31 - 2. */
static unsigned long fresh_seed(void)
{
    unsigned int r = 0;
    FILE *f = fopen("/dev/urandom", "re");
    if (!f || fread(&r, sizeof r, 1, f) != 1) {
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        r = (unsigned int)(t.tv_nsec ^ (t.tv_sec << 20) ^ getpid());
    }
    if (f)
        fclose(f);
    return (unsigned long)(r % 2147483646u) + 1;
}

/* Why the answer `rest` to a pick with seed s is not "N AT:BITS ..." with the positions
 * pick_positions gives for s and N; NULL when it is. */
static const char *bad_pick(const char *rest, uint32_t s)
{
    char *end = NULL;
    if (*rest < '1' || *rest > '9')
        return "no output length";
    unsigned long long n = strtoull(rest, &end, 10);
    if (n == 0 || n > (1ull << 40) || *end != ' ')
        return "an output length out of range";
    uint64_t at[PICK_COUNT];
    pick_positions(s, n, at);
    const char *q = end;
    for (int k = 0; k < PICK_COUNT; k++) {
        if (*q++ != ' ' || *q < '0' || *q > '9')
            return "fewer positions than the judge picked";
        unsigned long long a = strtoull(q, &end, 10);
        if (a != at[k] || *end != ':')
            return "a position the judge did not pick";
        q = end + 1;
        if (strspn(q, "0123456789abcdef") != 8 || (q[8] != ' ' && q[8] != '\0'))
            return "a value that is not 8 hex digits";
        q += 8;
    }
    return *q ? "more than the positions the judge picked" : NULL;
}

/* "pick NAME" answered: a seed drawn now, "go S", and the one line that must answer it, checked
 * (bad_pick) and kept in FILE.picks as "NAME S N AT:BITS ...". */
static void take_pick(struct judge *j, const char *name)
{
    static char line[PICK_LINE_CAP];
    char go[64], head[96];
    unsigned long s = fresh_seed();
    snprintf(go, sizeof go, "go %lu\n", s);
    if (!say(j, go))
        return;
    int got = read_line(j, line, sizeof line);
    if (got == 0)
        broken(j, "no answer to 'pick %s'", name);
    if (got <= 0)
        return;
    int n = snprintf(head, sizeof head, "picked %s ", name);
    const char *why = strncmp(line, head, (size_t)n) != 0 ? "not 'picked NAME ...'"
                                                          : bad_pick(line + n, (uint32_t)s);
    if (why) {
        char what[200];
        snprintf(what, sizeof what, "the answer to 'pick %.64s': %s", name, why);
        broken(j, "%s", what);
        return;
    }
    j->picks_written += (long)strlen(line + n) + 24 + (long)strlen(name);
    if (j->picks_written > PICKS_CAP) {
        broken(j, "%s", "picks past their cap (1 MiB)");
        return;
    }
    fprintf(j->picks, "%s %lu %s\n", name, s, line + n);
    fflush(j->picks);
}

/* The point `line` ("KIND NAME"), checked against the one due, stamped and answered. */
static void answer_point(struct judge *j, const char *line)
{
    double at = ms_since_start();
    if (j->next >= j->count) {
        broken(j, "a line the judge did not ask for: '%.80s'", line);
        return;
    }
    const struct point *p = &j->points[j->next];
    char want[80];
    snprintf(want, sizeof want, "%s %s", p->kind, p->name);
    if (strcmp(line, want) != 0) {
        char why[200];
        snprintf(why, sizeof why, "'%.80s' where the judge asked for '%s'", line, want);
        broken(j, "%s", why);
        return;
    }
    j->next++;
    fprintf(j->clock, "%s%s %.3f\n", strcmp(p->kind, "pick") == 0 ? "pick:" : "", p->name, at);
    fflush(j->clock);
    if (strcmp(p->kind, "pick") == 0) {
        take_pick(j, p->name);
        return;
    }
    char go[64] = "go\n";
    if (strcmp(p->kind, "seed") == 0) {
        snprintf(go, sizeof go, "go %s\n", j->seed);
    } else if (strcmp(p->kind, "fresh") == 0) {
        unsigned long s = fresh_seed();
        fprintf(j->seeds, "%s %lu\n", p->name, s);
        fflush(j->seeds);
        snprintf(go, sizeof go, "go %lu\n", s);
    } else if (strcmp(p->kind, "measure") == 0) {
        measure(p->name, j->memory);
    }
    (void)say(j, go);
}

/* The conversation: "next", one line, its answer, until the report or the channel's end. */
static void converse(struct judge *j)
{
    char line[LINE_CAP];
    while (!j->broken) {
        if (unasked(j) || !say(j, "next\n"))
            return;
        int got = read_line(j, line, sizeof line);
        if (got <= 0)
            return; /* the program ended (or broke the line): no report */
        if (strncmp(line, "report ", 7) == 0) {
            take_report(j, line + 7);
            return;
        }
        answer_point(j, line);
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

/* COMMAND's end: its exit status as the shell gives it. After a broken conversation it has
 * BROKEN_GRACE_MS to end, then it is killed. */
static int program_status(int was_broken)
{
    int status = 0;
    for (int waited = 0;; waited += 10) {
        pid_t r = waitpid(program, &status, was_broken ? WNOHANG : 0);
        if (r == program)
            break;
        if (r < 0 && errno != EINTR)
            return 125;
        if (r == 0 && waited >= BROKEN_GRACE_MS)
            kill(program, SIGKILL);
        if (r == 0)
            usleep(10000);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* FILE, FILE.clock, FILE.memory, FILE.seeds, FILE.picks opened ("e": closed on exec, so that no program
 * started here holds them); FILE.broken's path kept, the file made only when it breaks. */
static int open_files(struct judge *j, const char *path, char names[5][4096])
{
    static const char *const ext[5] = {"clock", "memory", "seeds", "broken", "picks"};
    for (int i = 0; i < 5; i++)
        snprintf(names[i], 4096, "%s.%s", path, ext[i]);
    unlink(names[3]);
    j->broken_path = names[3];
    j->picks = fopen(names[4], "we");
    j->report = fopen(path, "we");
    j->clock = fopen(names[0], "we");
    j->memory = fopen(names[1], "we");
    j->seeds = fopen(names[2], "we");
    return j->report && j->clock && j->memory && j->seeds && j->picks;
}

int main(int argc, char **argv)
{
    static struct judge j = {.sock = -1};
    char names[5][4096];
    const char *list = "seed";
    int first = 1;
    if (argc > 2 && strcmp(argv[1], "--points") == 0) {
        list = argv[2];
        first = 3;
    }
    if (argc - first < 3 || !argv[first][0] ||
        strspn(argv[first], "0123456789") != strlen(argv[first]) || !parse_points(&j, list)) {
        fprintf(stderr, "usage: channel [--points 'seed fresh:NAME at:NAME measure:NAME "
                        "pick:NAME ...'] "
                        "SEED FILE COMMAND [ARG...]\n");
        return 2;
    }
    j.seed = argv[first];
    int sv[2];
    if (!open_files(&j, argv[first + 1], names) ||
        socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        fprintf(stderr, "channel: cannot set up the grader's channel: %s\n", strerror(errno));
        return 125;
    }
    fprintf(j.report, "%s\n", j.seed);
    fflush(j.report);
    signal(SIGPIPE, SIG_IGN);
    clock_gettime(CLOCK_MONOTONIC, &started);
    program = start_program(sv[1], argv + first + 2);
    if (program < 0)
        return 125;
    j.sock = sv[0];
    converse(&j);
    fprintf(j.clock, "closed %.3f\n", ms_since_start());
    close(sv[0]);
    fclose(j.report);
    fclose(j.clock);
    fclose(j.memory);
    fclose(j.seeds);
    fclose(j.picks);
    return program_status(j.broken);
}
