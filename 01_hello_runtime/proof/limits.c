/*
 * 01_hello_runtime/proof/limits.c - the process limits that can stop this lesson, said in one
 * line. The lesson runs itself again as child processes (steps 2, 5c, 8), up to 9 at once in
 * step 2, each with the driver's own threads, and talks to them through pipes: a low limit on
 * a user's processes (RLIMIT_NPROC, `ulimit -u`; threads count too) makes posix_spawn fail with
 * EAGAIN, a low limit on open files (RLIMIT_NOFILE, `ulimit -n`) makes pipe or the driver's own
 * files fail with EMFILE. No CUDA call here: a CPU test drives it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "lesson.h"

static void limit_value(int resource, char *buf, size_t len)
{
    struct rlimit rl;
    if (getrlimit(resource, &rl) != 0)
        snprintf(buf, len, "unknown (%s)", strerror(errno));
    else if (rl.rlim_cur == RLIM_INFINITY)
        snprintf(buf, len, "unlimited");
    else
        snprintf(buf, len, "%llu", (unsigned long long)rl.rlim_cur);
}

/* The limit behind err (an errno of fork, posix_spawn, pipe or open), as one line in line,
 * naming the limit, its value and the shell's way to raise it; false when err is no limit. */
bool limit_behind(int err, char *line, size_t len)
{
    char value[64];
    if (err == EAGAIN) {
        limit_value(RLIMIT_NPROC, value, sizeof value);
        snprintf(line, len,
                 "the limit on this user's processes and threads, RLIMIT_NPROC (ulimit -u), is %s: "
                 "the lesson runs up to 9 child processes at once, each with the driver's threads "
                 "(raise it: ulimit -u 4096)",
                 value);
        return true;
    }
    if (err == EMFILE || err == ENFILE) {
        limit_value(RLIMIT_NOFILE, value, sizeof value);
        snprintf(line, len,
                 "the limit on open files, RLIMIT_NOFILE (ulimit -n), is %s: the driver and the "
                 "pipes to the child processes need more (raise it: ulimit -n 1024)",
                 value);
        return true;
    }
    return false;
}
