/* tests/hostile/procprobe.c - what an exercise program may do with its own /proc in the
 * grading sandbox (tests/hostile.bats). Linked, as an exercise is, with grading/harness/syscall_filter.c
 * (-lpthread) and an object that grading/check/check-object accepted (its code renamed student_text),
 * the filter is installed before main(); it prints one line each:
 *   filter: on|off
 *   uid: N
 *   dumpable: 0|1
 *   comm of another thread: NAME|the error   (written to /proc/self/task/TID/comm, read back:
 *                                             the static CUDA runtime names its threads so, and
 *                                             its first call fails with cudaErrorOperatingSystem
 *                                             where it cannot)
 *   /proc/self/mem for writing: opened|the error
 * then what a student's code would call to undo the filter's settings, each "CALL: 0" or the
 * error (PR_SET_DUMPABLE 1 first, then /proc/self/mem again; harmless arguments elsewhere):
 *   prctl PR_SET_DUMPABLE 1: ...          /proc/self/mem for writing again: opened|the error
 *   prctl PR_SET_PTRACER, prctl PR_SET_MM, prctl PR_SET_SECCOMP, seccomp, unshare, setns,
 *   personality: ...
 *   prctl PR_SET_NAME: ...                 (what the CUDA runtime may call: stays allowed)
 * and exits 0 when the student's function answered. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "syscall_filter.h"

int probe_add(int a, int b); /* the "student's" object */

static pthread_barrier_t barrier;
static pid_t worker_tid;

/* A thread of the process's own: it gives its id, then waits until main() is done with it. */
static void *worker(void *arg)
{
    (void)arg;
    worker_tid = (pid_t)syscall(SYS_gettid);
    pthread_barrier_wait(&barrier);
    pthread_barrier_wait(&barrier);
    return NULL;
}

/* Writes NAME to the comm of thread TID, reads it back into OUT; 0, else errno. */
static int name_thread(pid_t tid, const char *name, char *out, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/comm", (int)tid);
    FILE *f = fopen(path, "w");
    if (!f)
        return errno;
    int w = fputs(name, f) >= 0 ? 0 : errno;
    if (fclose(f) != 0 && w == 0)
        w = errno;
    if (w != 0)
        return w;
    if (!(f = fopen(path, "r")))
        return errno;
    int r = fgets(out, (int)size, f) ? 0 : EIO;
    fclose(f);
    out[strcspn(out, "\n")] = 0;
    return r;
}

/* Prints "WHAT: 0" where RC is 0, else the error. */
static void said(const char *what, long rc)
{
    printf("%s: %s\n", what, rc == 0 ? "0" : strerror(errno));
}

int main(void)
{
    printf("filter: %s\n", syscall_filter_installed() ? "on" : "off");
    printf("uid: %u\n", (unsigned)getuid());
    printf("dumpable: %d\n", prctl(PR_GET_DUMPABLE, 0, 0, 0, 0));
    pthread_t t;
    int e = pthread_barrier_init(&barrier, NULL, 2);
    if (e == 0)
        e = pthread_create(&t, NULL, worker, NULL);
    if (e != 0) {
        printf("no thread: %s\n", strerror(e));
        return 1;
    }
    pthread_barrier_wait(&barrier);
    char name[32] = "";
    e = name_thread(worker_tid, "procprobe-w", name, sizeof name);
    printf("comm of another thread: %s\n", e == 0 ? name : strerror(e));
    pthread_barrier_wait(&barrier);
    pthread_join(t, NULL);
    int fd = open("/proc/self/mem", O_RDWR);
    printf("/proc/self/mem for writing: %s\n", fd >= 0 ? "opened" : strerror(errno));
    if (fd >= 0)
        close(fd);
    said("prctl PR_SET_DUMPABLE 1", prctl(PR_SET_DUMPABLE, 1, 0, 0, 0));
    fd = open("/proc/self/mem", O_RDWR);
    printf("/proc/self/mem for writing again: %s\n", fd >= 0 ? "opened" : strerror(errno));
    if (fd >= 0)
        close(fd);
    said("prctl PR_SET_PTRACER", prctl(0x59616d61 /* PR_SET_PTRACER */, 0, 0, 0, 0));
    said("prctl PR_SET_MM", prctl(35 /* PR_SET_MM */, 0xffff, 0, 0, 0));
    said("prctl PR_SET_SECCOMP", prctl(PR_SET_SECCOMP, 99, 0, 0, 0));
    unsigned int action = SECCOMP_RET_KILL_PROCESS;
    said("seccomp", syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action));
    said("unshare", unshare(0));
    said("setns", setns(-1, 0));
    said("personality", personality(0xffffffff) == -1 ? -1 : 0);
    said("prctl PR_SET_NAME", prctl(PR_SET_NAME, "procprobe", 0, 0, 0));
    return probe_add(2, 3) == 5 ? 0 : 1;
}
