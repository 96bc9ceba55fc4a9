/*
 * 01_hello_runtime/child.c - running the lesson's own program again, as a child process.
 *
 * Some things can only be shown in a fresh process: a sticky fault spoils the context for
 * the rest of the process (step 5c). The child is this very program, started through
 * /proc/self/exe with an internal option that main() recognises.
 */
#define _GNU_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "lesson.h"

extern char **environ;

int run_self(char *const args[])
{
    char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0) {
        perror("readlink /proc/self/exe");
        return -1;
    }
    exe[len] = '\0';
    char *argv[16] = {exe};
    for (int i = 0; args[i] && i < 14; i++)
        argv[i + 1] = args[i];
    pid_t pid;
    int err = posix_spawn(&pid, exe, NULL, NULL, argv, environ);
    if (err != 0) {
        fprintf(stderr, "%s: posix_spawn: %s\n", lesson_prog, strerror(err));
        return -1;
    }
    int status;
    if (waitpid(pid, &status, 0) != pid)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
