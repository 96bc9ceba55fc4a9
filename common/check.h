/*
 * common/check.h - the one header every lesson includes.
 *
 * 1. checkRuntime(op) / checkDriver(op)
 *    Evaluate a Runtime API (cudaError_t) or Driver API (CUresult) call. On success they
 *    yield true and print nothing. On failure they print to stderr
 *        file:line: call failed: ERROR_NAME (number): message
 *    and yield false, so the caller decides what to do, usually `goto cleanup` so that
 *    every resource is released on every path:
 *        if (!checkRuntime(cudaMalloc(&d, bytes))) goto cleanup;
 *    It is not fatal on purpose: the caller decides, and cleans up on the way out.
 *    A name or message that comes back NULL (the toolkit's stub driver does that) prints
 *    as "(no name)" / "(no message)".
 *
 * 2. requireRuntime(op) / requireDriver(op)
 *    For a lesson's FIRST CUDA call only. When the call says that CUDA cannot run on this
 *    machine at all (no driver library, the toolkit's stub driver, a driver too old, no
 *    device), print a plain-English explanation and exit(77), the "cannot run here" code
 *    (with the call's own error line first, except for no library and the stub, where it
 *    adds nothing). Any other result behaves exactly like checkRuntime/checkDriver.
 *
 * 3. The Driver API without -lcuda: driver_loader.h (included here) says why and how.
 *
 * 4. Small helpers shared by the lessons: command-line number parsing, a host clock,
 *    and the claim/verdict pair that prints "[ok]" / "[FAIL]" / "[n/j]" lines and the
 *    final verdict.
 *
 * Usable from C (.c) and CUDA C++ (.cu): declarations are extern "C" under C++.
 */
#ifndef LESSON_CHECK_H
#define LESSON_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <cuda.h>
#include <cuda_runtime_api.h>

#include "driver_loader.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Exit codes, the same in every lesson. */
enum {
    EXIT_OK = 0,         /* every check passed */
    EXIT_CHECK = 1,      /* a CUDA call or a data check failed */
    EXIT_USAGE = 2,      /* bad command line; usage on stderr */
    EXIT_CANNOT_RUN = 77 /* no driver, no device, stub driver: cannot run here */
};

bool check_runtime_(cudaError_t err, const char *call, const char *file, int line);
bool check_driver_(CUresult err, const char *call, const char *file, int line);
bool require_runtime_(cudaError_t err, const char *call, const char *file, int line);
bool require_driver_(CUresult err, const char *call, const char *file, int line);

#define checkRuntime(op)   check_runtime_((op), #op, __FILE__, __LINE__)
#define checkDriver(op)    check_driver_((op), #op, __FILE__, __LINE__)
#define requireRuntime(op) require_runtime_((op), #op, __FILE__, __LINE__)
#define requireDriver(op)  require_driver_((op), #op, __FILE__, __LINE__)

/* ---- process limits -------------------------------------------------------------- */

/* After a failure that a low process limit explains, one line on stderr naming the limit that
 * likely caused it, its value and what the lessons need at least; nothing when that limit is
 * not below it. checkRuntime/checkDriver (and the require forms) call it themselves for
 * CUDA_ERROR_OPERATING_SYSTEM / cudaErrorOperatingSystem (open files, processes and threads,
 * address space) and for CUDA_ERROR_OUT_OF_MEMORY / cudaErrorMemoryAllocation (address space;
 * for a host-memory call, locked memory too). A lesson calls it with the errno of a thread or
 * a process it could not start (EAGAIN: processes and threads; EMFILE, ENFILE: open files;
 * ENOMEM: address space). Returns whether it printed a line. The minimums, also in
 * tools/doctor: open files 1024, processes 1024 (what the graders' sandbox gives), locked
 * memory 64 KiB, address space unlimited (CUDA reserves its unified address range when it
 * makes the first context). */
bool process_limit_hint(int err);

/* ---- command line ---------------------------------------------------------------- */

/* Parse a whole decimal integer in [min, max]: digits only, with a leading '-' only where
 * min < 0 (no blanks, no '+'). On failure print
 * "<prog>: <what> must be an integer from min to max, not 'text'" and return false. */
bool parse_long(const char *text, long min, long max, const char *what, long *out);

/* Parse a byte count with an optional binary suffix: 4096, 64K, 64KiB, 256M, 1G (K=1024).
 * Accepts values in [min, max]; on failure prints a message and returns false. */
bool parse_bytes(const char *text, size_t min, size_t max, const char *what, size_t *out);

/* Format a byte count as "64 KiB", "256 MiB", "1 GiB" (exact powers) or "1.50 GiB". */
const char *format_bytes(size_t bytes, char *buf, size_t len);

/* The program name for messages (set by lesson_init). lesson_init, called first in main():
 * sets lesson_prog from argv[0]; gives a closed stdin/stdout/stderr /dev/null (so a file the
 * program opens later cannot take fd 1); makes stdout line-buffered; and at exit, when a
 * write to stdout failed (`> /dev/full`), prints "prog: write error on standard output: ..."
 * and exits 1. */
extern const char *lesson_prog;
void lesson_init(const char *argv0);

/* ---- statistics ------------------------------------------------------------------ */

/* Sorts v[0..n) in ascending order. */
void sort_doubles(double *v, int n);

/* Sorts v[0..n) in place (n >= 1) and returns its median; v[0] and v[n-1] are then the
 * minimum and the maximum, for the spread. */
double median_of(double *v, int n);

/* ---- time ------------------------------------------------------------------------ */

/* Monotonic host clock in milliseconds (CLOCK_MONOTONIC). */
double host_ms(void);

/* ---- claims and the verdict ------------------------------------------------------ */

/* Print "  [ok]   text" or "  [FAIL] text" (printf-style) and count it. Returns cond. */
bool claim(bool cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A claim that this run cannot judge (a copy too short to time, an effect the current
 * settings switch off): prints "  [n/j]  text - not judged here: why" and counts it apart.
 * It neither passes nor fails; the verdict line says how many there were. */
void not_judged(const char *why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Print the final verdict line and return the exit code:
 *   "RESULT: PASS - all N checks passed"                   -> EXIT_OK
 *   "RESULT: PASS - all N checks passed, J not judged"     -> EXIT_OK (J > 0 only)
 *   "RESULT: FAIL - K of N checks failed[, J not judged]"  -> EXIT_CHECK
 * N counts the judged claims only. `ok_so_far` false (a CUDA call failed) also fails. */
int verdict(bool ok_so_far);

#ifdef __cplusplus
}
#endif

#endif
