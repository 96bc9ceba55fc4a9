/* tests/hostile/attack.c - what a hostile student puts in front of an exercise file (before the
 * first CUDA call: a constructor runs before main). tests/hostile/make-class prepends it to the
 * file the student owns, after defining one ATTACK_* and the strings it needs:
 *   TEACHER  the teacher's tree       OTHER  another student's submission folder
 *   RESULTS  another student's results folder   TAP  "ok N name\n" lines for every test
 * Each attack must gain no point, read no teacher file, write nothing outside its sandbox. */
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
    hostile_write(TEACHER "/tests/exercises/PWNED-escape", "pwned\n");
    hostile_write(RESULTS "/results.json", "{\"pwned\": true}\n");
    hostile_write(OTHER "/PWNED-escape", "pwned\n");
    hostile_show(TEACHER "/" LESSON "/solutions/" EXERCISE "/" OWNED);
    hostile_show(TEACHER "/tests/exercises/" LESSON ".bats");
    hostile_show(OTHER "/" LESSON "/exercises/" EXERCISE "/" OWNED);
    hostile_show("../../solutions/" EXERCISE "/" OWNED);
    char self[4096], path[4200];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = 0;
        /* build/exercises/NAME -> the lesson's solutions/ and the tree's tests/, if they are there */
        snprintf(path, sizeof path, "%s/../../../solutions/%s/%s", self, EXERCISE, OWNED);
        hostile_show(path);
        snprintf(path, sizeof path, "%s/../../../../tests/exercises/%s.bats", self, LESSON);
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
        snprintf(path, sizeof path, "/proc/%s/cwd/tests/exercises/%s.bats", e->d_name, LESSON);
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
#endif
