/* clears_128: a variant for the grader's tests (the buffer is cleared as if it held 128 bytes,
 * a size kept in a variable: the compiler cannot see it, the page after the 64 bytes can). */
#include <stddef.h>
#include <string.h>

#include "pack_extra.h"

static volatile size_t buffer_bytes = 128;

void pack_args(unsigned char buf[64], size_t *size, float a, CUdeviceptr x, CUdeviceptr y, int n)
{
    memset(buf, 0, buffer_bytes);
    memcpy(buf, &a, sizeof a);
    memcpy(buf + 8, &x, sizeof x);
    memcpy(buf + 16, &y, sizeof y);
    memcpy(buf + 24, &n, sizeof n);
    *size = 28;
}
