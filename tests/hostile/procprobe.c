/* tests/hostile/procprobe.c - what an exercise program may do with its own /proc in the
 * grading sandbox (tests/hostile.bats). Linked, as an exercise is, with common/syscall_filter.c
 * (-lpthread) and an object that common/check-object accepted (its code renamed student_text),
 * the filter is installed before main(); it prints one line each:
 *   filter: on|off
 *   uid: N
 *   dumpable: 0|1
 *   comm of another thread: NAME|the error   (written to /proc/self/task/TID/comm, read back:
 *                                             the static CUDA runtime names its threads so, and
 *                                             its first call fails with cudaErrorOperatingSystem
 *                                             where it cannot)
 *   /proc/self/mem for writing: opened|the error
 * and exits 0 when the student's function answered. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
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
    return probe_add(2, 3) == 5 ? 0 : 1;
}
