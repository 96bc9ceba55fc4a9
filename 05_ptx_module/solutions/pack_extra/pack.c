/*
 * Exercise pack_extra (the reference solution).
 */
#include <stddef.h>
#include <string.h>

#include "pack_extra.h"

void pack_args(unsigned char buf[64], size_t *size, float a, CUdeviceptr x, CUdeviceptr y, int n)
{
    /* Each parameter at its natural alignment, as a C struct lays them out. */
    struct axpy_args {
        float a;       /* 0, then 4 bytes of padding */
        CUdeviceptr x; /* 8 */
        CUdeviceptr y; /* 16 */
        int n;         /* 24 */
    };
    memcpy(buf + offsetof(struct axpy_args, a), &a, sizeof a);
    memcpy(buf + offsetof(struct axpy_args, x), &x, sizeof x);
    memcpy(buf + offsetof(struct axpy_args, y), &y, sizeof y);
    memcpy(buf + offsetof(struct axpy_args, n), &n, sizeof n);
    *size = offsetof(struct axpy_args, n) + sizeof n; /* 28 */
}
