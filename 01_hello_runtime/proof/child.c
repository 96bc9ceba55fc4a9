/*
 * 01_hello_runtime/proof/child.c - running the lesson's own program again, as a child process.
 *
 * Some things can only be shown in a fresh process: a first call happens once per process
 * (step 2b), a sticky fault spoils the context for the rest of the process (step 5c), a
 * reset destroys the context the rest of the lesson uses (step 8), and step 5c gives its child
 * a CUDA environment variable of its own (CUDA_LAUNCH_BLOCKING, read when the driver
 * initialises). The child is this very program, started through /proc/self/exe with an
 * internal option that main() accepts only from a child the lesson started: the child's
 * environment holds HELLO_RUNTIME_PARENT=<the parent's process id>, which must name its parent.
 * On a GPU that lets one process at a time use it (EXCLUSIVE_PROCESS), this process first gives
 * its context back (give_back_context_for_child) and takes a new one after the child
 * (take_context_again).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "lesson.h"
#include "platform.h"

extern char **environ;

#define PARENT_VARIABLE "HELLO_RUNTIME_PARENT"

static bool is_variable(const char *entry, const char *name)
{
    size_t len = strlen(name);
    return strncmp(entry, name, len) == 0 && entry[len] == '=';
}

/* environ, less any NAME=... and HELLO_RUNTIME_PARENT=..., plus NAME=VALUE when value is not
 * NULL, plus HELLO_RUNTIME_PARENT=<this process's id>. */
static char **child_environment(const char *name, const char *value, char *assignment, size_t len,
                                char *parent, size_t parent_len)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 3, sizeof *env);
    if (!env)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!(name && is_variable(environ[i], name)) && !is_variable(environ[i], PARENT_VARIABLE))
            env[k++] = environ[i];
    if (name && value) {
        snprintf(assignment, len, "%s=%s", name, value);
        env[k++] = assignment;
    }
    snprintf(parent, parent_len, "%s=%ld", PARENT_VARIABLE, (long)getpid());
    env[k++] = parent;
    return env;
}

bool started_by_the_lesson(void)
{
    const char *v = getenv(PARENT_VARIABLE);
    char parent[32];
    snprintf(parent, sizeof parent, "%ld", (long)getppid());
    return v && strcmp(v, parent) == 0;
}

/* The errno of the last child that could not be started (0: none yet). */
static int start_error;

int child_start_error(void)
{
    return start_error;
}

/* A child could not be started for a limit of this process: say which, its value, exit 77. */
void stop_if_limit(int err)
{
    char why[512];
    if (!limit_behind(err, why, sizeof why))
        return;
    fflush(stdout);
    fprintf(stderr, "%s: cannot run here: a child process could not be started (%s): %s\n",
            lesson_prog, strerror(err), why);
    exit(EXIT_CANNOT_RUN);
}

static int start(char *const args[], const char *env_name, const char *env_value,
                 posix_spawn_file_actions_t *actions, pid_t *pid)
{
    char exe[4096], assignment[256], parent[64];
    start_error = 0;
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0) {
        perror("readlink /proc/self/exe");
        return -1;
    }
    exe[len] = '\0';
    char *argv[16] = {exe};
    for (int i = 0; i < 14 && args[i]; i++)
        argv[i + 1] = args[i];
    char **env = child_environment(env_name, env_value, assignment, sizeof assignment, parent,
                                   sizeof parent);
    if (!env)
        return -1;
    fflush(stdout);
    int err = posix_spawn(pid, exe, actions, NULL, argv, env);
    free(env);
    if (err != 0) {
        start_error = err;
        if (!limit_behind(err, exe, sizeof exe)) /* a limit: the caller may try again alone */
            fprintf(stderr, "%s: posix_spawn: %s\n", lesson_prog, strerror(err));
        return -1;
    }
    return 0;
}

pid_t spawn_self(char *const args[])
{
    pid_t pid;
    return start(args, NULL, NULL, NULL, &pid) == 0 ? pid : -1;
}

int wait_self(pid_t pid)
{
    int status;
    if (pid <= 0 || waitpid(pid, &status, 0) != pid)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* One line of the child's stdout: its claims become ours, anything else is printed. */
static void relay(char *line)
{
    static const char not_judged_mark[] = " - not judged here: ";
    line[strcspn(line, "\n")] = '\0';
    if (strncmp(line, "  [ok]   ", 9) == 0) {
        claim(true, "%s", line + 9);
    } else if (strncmp(line, "  [FAIL] ", 9) == 0) {
        claim(false, "%s", line + 9);
    } else if (strncmp(line, "  [n/j]  ", 9) == 0 && strstr(line, not_judged_mark)) {
        char *why = strstr(line, not_judged_mark);
        *why = '\0';
        not_judged(why + strlen(not_judged_mark), "%s", line + 9);
    } else {
        printf("%s\n", line);
    }
}

int run_self(char *const args[], const char *env_name, const char *env_value)
{
    int fds[2];
    if (pipe(fds) != 0) {
        stop_if_limit(errno);
        perror("pipe");
        return -1;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    pid_t pid = -1;
    int started = start(args, env_name, env_value, &actions, &pid);
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    if (started != 0) {
        close(fds[0]);
        stop_if_limit(start_error);
        return -1;
    }
    FILE *from_child = fdopen(fds[0], "r");
    if (!from_child) {
        close(fds[0]);
        return wait_self(pid);
    }
    char line[1024];
    while (fgets(line, sizeof line, from_child))
        relay(line);
    fclose(from_child);
    return wait_self(pid);
}

/* ---- a GPU that lets one process at a time use it (EXCLUSIVE_PROCESS) ------------------- */

/* A child process asks the driver for a context of its own; on such a GPU it gets none while
 * this process holds one. Nothing of the lesson lives in the primary context at steps 5c and
 * 8, so this process gives it back (cudaDeviceReset destroys it and drops the runtime's
 * reference to it) and checks that it is gone. */
bool give_back_context_for_child(struct lesson *L)
{
    if (child_plan_for(L->compute_mode) != CHILDREN_ONE_AT_A_TIME)
        return true;
    unsigned int flags = 0;
    int active = -1;
    if (!reset_primary_context(L->cu_dev, true) ||
        !checkDriver(cuDevicePrimaryCtxGetState(L->cu_dev, &flags, &active)))
        return false;
    printf("      (compute mode %s: this process gives back its context first, cudaDeviceReset ->\n"
           "      active = %d, so that the child may have the GPU)\n",
           platform_compute_mode_name(L->compute_mode), active);
    claim(active == 0, "this process holds no context on device %d while its child process runs",
          L->device);
    return true;
}

/* ... and after the child, cudaSetDevice starts a new primary context at once (cuda_runtime_api.h:
 * it "will also immediately initialize the runtime state on the primary context"); the steps
 * that follow compare with L->primary, so it is read again and checked. */
bool take_context_again(struct lesson *L)
{
    if (child_plan_for(L->compute_mode) != CHILDREN_ONE_AT_A_TIME)
        return true;
    CUcontext retained = NULL;
    unsigned int flags = 0;
    int active = -1;
    if (!requireRuntime(cudaSetDevice(L->device)) || !checkDriver(cuCtxGetCurrent(&L->primary)) ||
        !primary_context_of(L->cu_dev, &retained) ||
        !checkDriver(cuDevicePrimaryCtxGetState(L->cu_dev, &flags, &active)))
        return false;
    printf("      (cudaSetDevice(%d): the runtime started a new primary context at once, for the "
           "steps\n"
           "      that follow: current %p, cuDevicePrimaryCtxRetain %p, active = %d)\n",
           L->device, (void *)L->primary, (void *)retained, active);
    claim(L->primary == retained && active == 1,
          "after the child, the runtime started a new primary context and made it current here");
    return true;
}
