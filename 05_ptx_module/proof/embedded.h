/* 05_ptx_module/embedded.h - files the build put inside the program (build/embedded.c,
 * made by embed.sh). Each array ends with one NUL byte not counted in its _size. */
#ifndef PTX_MODULE_EMBEDDED_H
#define PTX_MODULE_EMBEDDED_H
#include <stddef.h>

extern const unsigned char kernels_ptx[]; /* build/kernels.ptx: nvcc -ptx kernels.cu */
extern const size_t kernels_ptx_size;
extern const unsigned char kernels_cubin[]; /* build/kernels.cubin: nvcc -cubin kernels.cu */
extern const size_t kernels_cubin_size;
extern const unsigned char kernels_fatbin[]; /* build/kernels.fatbin: nvcc -fatbin, every ARCH */
extern const size_t kernels_fatbin_size;
extern const unsigned char kernels_cu[]; /* kernels.cu itself, for NVRTC */
extern const size_t kernels_cu_size;
extern const int kernels_arch; /* the XX of the cubin's sm_XX */

#endif
