/* struct_copy: a variant for the grader's tests. */
#include <stddef.h>
#include <string.h>
#include "pack_extra.h"
void pack_args(unsigned char buf[64], size_t *size, float a, CUdeviceptr x, CUdeviceptr y, int n)
{
    /* the whole struct copied at once; its size up to the end of n */
    struct {
        float a;
        CUdeviceptr x, y;
        int n;
    } args = {a, x, y, n};
    memcpy(buf, &args, offsetof(__typeof__(args), n) + sizeof n);
    *size = offsetof(__typeof__(args), n) + sizeof n;
}
