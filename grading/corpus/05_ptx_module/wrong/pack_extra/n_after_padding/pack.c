/* n_after_padding: a variant for the grader's tests. */
#include <stddef.h>
#include <string.h>
#include "pack_extra.h"
void pack_args(unsigned char buf[64], size_t *size, float a, CUdeviceptr x, CUdeviceptr y, int n)
{
    /* n at 28, as if it needed 8-byte alignment too */
    memcpy(buf + 0, &a, sizeof a);
    memcpy(buf + 8, &x, sizeof x);
    memcpy(buf + 16, &y, sizeof y);
    memcpy(buf + 28, &n, sizeof n);
    *size = 32;
}
