/* clears_128: a variant for the grader's tests (the buffer is cleared past its 64 bytes). */
#include <stddef.h>
#include <string.h>

#include "pack_extra.h"

void pack_args(unsigned char buf[64], size_t *size, float a, CUdeviceptr x, CUdeviceptr y, int n)
{
    memset(buf, 0, 128);
    memcpy(buf, &a, sizeof a);
    memcpy(buf + 8, &x, sizeof x);
    memcpy(buf + 16, &y, sizeof y);
    memcpy(buf + 24, &n, sizeof n);
    *size = 28;
}
