/*
 * grading/harness/syscall_filter.c - the system-call filter of every graded exercise program: see
 * syscall_filter.h. A classic BPF program (no libseccomp), installed with seccomp(2) and
 * SECCOMP_FILTER_FLAG_TSYNC (every thread of the process), after PR_SET_NO_NEW_PRIVS.
 */
#define _GNU_SOURCE
#include "syscall_filter.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#if defined(__x86_64__)
#define FILTER_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define FILTER_ARCH AUDIT_ARCH_AARCH64
#else
#define FILTER_ARCH 0 /* no filter on other architectures: syscall_filter_install says so */
#endif
#ifndef SECCOMP_RET_KILL_PROCESS
#define SECCOMP_RET_KILL_PROCESS 0x80000000U
#endif
#ifndef SECCOMP_FILTER_FLAG_TSYNC
#define SECCOMP_FILTER_FLAG_TSYNC 1
#endif
/* Numbers from Linux 5.1 on are the same on every architecture: known where the headers are
 * older than the kernel that runs the program. */
#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#endif
#ifndef __NR_clone3
#define __NR_clone3 435
#endif
#ifndef __NR_pidfd_getfd
#define __NR_pidfd_getfd 438
#endif
#define FILTER_CLONE_THREAD 0x00010000U /* CLONE_THREAD (sched.h's needs _GNU_SOURCE's clone) */

/* The program's own image (the linker's names, in every ELF program it links) and the
 * student's code (check-object's section; absent in a program built without the check). */
extern const char __executable_start[];
extern const char _end[];
extern const char __start_student_text[] __attribute__((weak));
extern const char __stop_student_text[] __attribute__((weak));

/* A harness that must start something of its own first (a process that judges from outside)
 * defines this, non-zero, and calls syscall_filter_install() itself before the first call of
 * the student's code; names starting with syscall_filter are refused in a student's file. */
extern const int syscall_filter_deferred __attribute__((weak));

static int installed;

#define LOAD(field) \
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (uint32_t)offsetof(struct seccomp_data, field))
#define LOAD_AT(off) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (uint32_t)(off))
#define RET(action)  BPF_STMT(BPF_RET | BPF_K, (action))
#define EPERM_RET    RET(SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA))

/* The system calls refused everywhere (EPERM); clone and clone3 are handled apart. */
static const long denied[] = {
#ifdef __NR_fork
    __NR_fork,
#endif
#ifdef __NR_vfork
    __NR_vfork,
#endif
    __NR_execve,
    __NR_execveat,
    __NR_ptrace,
    __NR_process_vm_readv,
    __NR_process_vm_writev,
    __NR_pidfd_getfd,
    __NR_io_uring_setup,
    /* what would undo the filter's own settings or leave its view of the process */
    __NR_seccomp,
    __NR_unshare,
    __NR_setns,
    __NR_personality,
};
#define N_DENIED (sizeof denied / sizeof denied[0])
/* The prctl options refused (EPERM): each undoes a setting of the filter's (the process made
 * dumpable again opens /proc/self/mem for writing; a ptracer named; the memory map's own
 * addresses changed; another seccomp mode) or changes how system calls are delivered. Every
 * other option stays allowed: the CUDA runtime and driver, and the C library, use PR_SET_NAME,
 * PR_GET_NAME, PR_GET_DUMPABLE and others of the kind (reading, or naming threads). */
static const uint32_t denied_prctl[] = {
    PR_SET_DUMPABLE,
#ifdef PR_SET_PTRACER
    PR_SET_PTRACER,
#else
    0x59616d61U,
#endif
#ifdef PR_SET_MM
    PR_SET_MM,
#else
    35,
#endif
    PR_SET_SECCOMP,
#ifdef PR_SET_SYSCALL_USER_DISPATCH
    PR_SET_SYSCALL_USER_DISPATCH,
#else
    59,
#endif
};
#define N_DENIED_PRCTL (sizeof denied_prctl / sizeof denied_prctl[0])
/* arch check 3, range 11, nr and x32 3, denied 2 each, prctl 3 + 2 each, clone3 2, clone 4,
 * allow 1 */
#define MAX_PROG       (3 + 11 + 3 + 2 * N_DENIED + 3 + 2 * N_DENIED_PRCTL + 2 + 4 + 1)

/* Instructions that end the process when the instruction pointer lies in [lo, hi): the
 * 64-bit pointer is compared as its high then its low 32-bit word (little-endian). */
static size_t emit_range(struct sock_filter *f, size_t n, uint64_t lo, uint64_t hi)
{
    const uint32_t ip = (uint32_t)offsetof(struct seccomp_data, instruction_pointer);
    const uint32_t lo_h = (uint32_t)(lo >> 32), lo_l = (uint32_t)lo;
    const uint32_t hi_h = (uint32_t)(hi >> 32), hi_l = (uint32_t)hi;
    f[n++] = (struct sock_filter)LOAD_AT(ip + 4);
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, lo_h, 3, 0); /* above */
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, lo_h, 0, 8); /* below */
    f[n++] = (struct sock_filter)LOAD_AT(ip);
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, lo_l, 0, 6); /* below */
    f[n++] = (struct sock_filter)LOAD_AT(ip + 4);
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, hi_h, 4, 0); /* past */
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, hi_h, 0, 2); /* inside */
    f[n++] = (struct sock_filter)LOAD_AT(ip);
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, hi_l, 1, 0); /* past */
    f[n++] = (struct sock_filter)RET(SECCOMP_RET_KILL_PROCESS);
    return n;
}

/* The whole program: the architecture, the image's range, the numbers. Returns its length. */
static size_t build_filter(struct sock_filter *f, uint64_t lo, uint64_t hi)
{
    size_t n = 0;
    f[n++] = (struct sock_filter)LOAD(arch);
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FILTER_ARCH, 1, 0);
    f[n++] = (struct sock_filter)RET(SECCOMP_RET_KILL_PROCESS);
    n = emit_range(f, n, lo, hi);
    f[n++] = (struct sock_filter)LOAD(nr);
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000U, 0, 1); /* x32 */
    f[n++] = (struct sock_filter)RET(SECCOMP_RET_KILL_PROCESS);
    for (size_t i = 0; i < N_DENIED; i++) {
        f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)denied[i], 0, 1);
        f[n++] = (struct sock_filter)EPERM_RET;
    }
    /* prctl: its option is an int (the low word of the first argument); one not refused is
     * allowed there and then */
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_prctl, 0,
                                          (uint8_t)(2 + 2 * N_DENIED_PRCTL));
    f[n++] = (struct sock_filter)LOAD(args[0]);
    for (size_t i = 0; i < N_DENIED_PRCTL; i++) {
        f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, denied_prctl[i], 0, 1);
        f[n++] = (struct sock_filter)EPERM_RET;
    }
    f[n++] = (struct sock_filter)RET(SECCOMP_RET_ALLOW);
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1);
    f[n++] = (struct sock_filter)RET(SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA));
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 3);
    f[n++] = (struct sock_filter)LOAD(args[0]); /* clone's flags (their low word) */
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, FILTER_CLONE_THREAD, 1, 0);
    f[n++] = (struct sock_filter)EPERM_RET;
    f[n++] = (struct sock_filter)RET(SECCOMP_RET_ALLOW);
    return n;
}

int syscall_filter_install(void)
{
    if (installed)
        return 0;
    if (FILTER_ARCH == 0)
        return -ENOSYS;
    struct sock_filter f[MAX_PROG];
    uint64_t lo = (uint64_t)(uintptr_t)__executable_start, hi = (uint64_t)(uintptr_t)_end;
    size_t n = build_filter(f, lo, hi);
    struct sock_fprog prog = {.len = (unsigned short)n, .filter = f};
    /* Not dumpable: the kernel then gives the process's /proc/PID files to root, so that this
     * process (a user id of the grading's own, no capabilities) cannot open its own
     * /proc/self/mem, which writes past the protection of any page (the harness's code too).
     * The sandbox cannot mount /proc read-only for that: the CUDA runtime names its threads by
     * writing /proc/self/task/TID/comm, and its first call fails with cudaErrorOperatingSystem
     * where it cannot (a thread may still write the comm of its own process's threads). */
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -errno;
    if (syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog) != 0) {
        int e = errno;
        if (e != ENOSYS || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0)
            return -(e == ENOSYS ? errno : e);
    }
    installed = 1;
    return 0;
}

int syscall_filter_installed(void)
{
    return installed;
}

/* In a program that holds the student's code (check-object's student_text), before every
 * constructor of default priority and before main(). */
__attribute__((constructor(101))) static void syscall_filter_at_start(void)
{
    if (__start_student_text == NULL || __stop_student_text == NULL)
        return;
    if (&syscall_filter_deferred != NULL && syscall_filter_deferred)
        return;
    int rc = syscall_filter_install();
    if (rc != 0) {
        fprintf(stderr,
                "syscall filter: the grader's system-call filter (seccomp) could not be "
                "installed here: %s; nothing of the exercise ran\n",
                strerror(-rc));
        _exit(SYSCALL_FILTER_FAILED);
    }
}
