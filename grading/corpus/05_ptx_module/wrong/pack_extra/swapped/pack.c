/* swapped: a variant for the grader's tests. */
#include <stddef.h>
#include <string.h>
#include "pack_extra.h"
void pack_args(unsigned char buf[64], size_t *size, float a, CUdeviceptr x, CUdeviceptr y, int n)
{
    /* x and y swapped */
    memcpy(buf + 0, &a, sizeof a);
    memcpy(buf + 8, &y, sizeof y);
    memcpy(buf + 16, &x, sizeof x);
    memcpy(buf + 24, &n, sizeof n);
    *size = 28;
}
