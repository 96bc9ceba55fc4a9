/* Exercise find_kernel: what your find.c defines (the harness calls it). */
#ifndef EX_FIND_KERNEL_H
#define EX_FIND_KERNEL_H
#include <stdbool.h>
#include <stddef.h>
#include <nvrtc.h>
#include "check.h"

/* Called after nvrtcCreateProgram, before nvrtcCompileProgram, on the program whose source
 * declares the C++ kernel `scale`. */
bool before_compile(nvrtcProgram prog);
/* Called after a successful nvrtcCompileProgram (before nvrtcDestroyProgram): put the name of
 * the kernel `scale` in the compiled code, the one cuModuleGetFunction finds, in name[0..len). */
bool kernel_name(nvrtcProgram prog, char *name, size_t len);
#endif
