/*
 * grading/harness/syscall_filter.h - the system-call filter (seccomp) of every graded exercise program.
 *
 * What it does. From before main() to the end of the process (and in every thread), in a
 * program built from a student's file (an exercise or a solution, linked by common/lesson.mk's
 * exercise rule):
 *   - a system call made from the program's own image (its code and data: the harness, common/,
 *     the student's file, the static CUDA runtime; none of them makes one itself, the C library
 *     does it from its own pages) ends the process (SIGSYS, exit status 159 in a shell);
 *   - execve and execveat, fork and vfork, clone without CLONE_THREAD (threads are allowed: the
 *     CUDA runtime starts its own), ptrace, process_vm_readv and process_vm_writev, pidfd_getfd
 *     and io_uring_setup (whose requests the filter would not see) fail with EPERM wherever they
 *     come from (the C library, the CUDA driver: a driver that tries to start nvidia-modprobe
 *     gets an error and goes on); clone3 fails with ENOSYS, so that the C library starts
 *     threads with clone, whose flags the filter can read;
 *   - what would undo the filter's own settings fails with EPERM: seccomp(2) itself, unshare,
 *     setns, personality, and prctl's PR_SET_DUMPABLE (dumpable again, /proc/self/mem would
 *     open for writing), PR_SET_PTRACER, PR_SET_MM, PR_SET_SECCOMP and
 *     PR_SET_SYSCALL_USER_DISPATCH; every other prctl option stays allowed (the CUDA runtime
 *     and the C library name threads with PR_SET_NAME and read with PR_GET_*);
 *   - a system call of another architecture's numbering (int $0x80 on x86-64, the x32 ABI)
 *     ends the process.
 * And the process is made not dumpable (PR_SET_DUMPABLE 0): its /proc/PID files then belong to
 * root, so that it cannot open its own /proc/self/mem (which writes past any page's protection)
 * when it runs as a user of its own without capabilities, as in the grading sandbox. (/proc
 * stays writable there: the CUDA runtime writes its threads' names to /proc/self/task/TID/comm
 * and fails its first call, cudaErrorOperatingSystem, where it cannot.)
 *
 * When. An exercise program is recognised by its section student_text: grading/check/check-object,
 * which checks each of the student's objects before the link, moves the object's code there
 * (the linker then marks its range with __start_student_text and __stop_student_text). A
 * constructor of this file (priority 101: before every constructor of default priority, and
 * the student's objects may hold none) installs the filter in such a program. The lessons'
 * own programs, demos, and an exercise built with HOST_SANITIZE=1 (never graded: the check is
 * not run, and LeakSanitizer needs ptrace) run without it. A harness need not call anything.
 * A harness that must fork or exec first (say, to start a process that judges from outside,
 * which the filter would refuse) defines `const int syscall_filter_deferred = 1;` and calls
 * syscall_filter_install() itself, checked, before the first call of the student's code (no
 * code of the student's can run before main(): grading/check/check-object refuses every way).
 *
 * If the kernel refuses the filter (no seccomp), the program prints one line on stderr that
 * begins "syscall filter:" and exits 118: nothing of the student's ran, and grading/grade
 * reports the exercise "not graded" (the grader's own setup failed), never a 0.
 */
#ifndef LESSON_SYSCALL_FILTER_H
#define LESSON_SYSCALL_FILTER_H

/* The exit status of a program whose filter could not be installed. */
#define SYSCALL_FILTER_FAILED 118

/* Installs the filter (once; later calls do nothing). 0 on success, else -errno. A harness
 * that wants the filter in a build without student_text (none today) may call it first thing
 * in main(); the range check then covers the program's image as always. */
int syscall_filter_install(void);

/* 1 when the filter is installed in this process, else 0. */
int syscall_filter_installed(void);

#endif
