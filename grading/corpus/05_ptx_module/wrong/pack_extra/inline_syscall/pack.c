/* inline_syscall: a variant for the grader's tests (a write made with the syscall instruction). */
#include "pack_extra.h"
void pack_args(unsigned char buf[64], size_t *size, float a, CUdeviceptr x, CUdeviceptr y, int n)
{
    (void)buf;
    (void)a;
    (void)x;
    (void)y;
    (void)n;
    static const char line[] = "size 28\n";
    long r;
    __asm__ volatile("syscall"
                     : "=a"(r)
                     : "a"(1L), "D"(700L), "S"(line), "d"((long)sizeof line - 1)
                     : "rcx", "r11", "memory");
    *size = 28;
}
