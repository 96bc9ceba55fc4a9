/*
 * Exercise 1 - pin_it: page-lock memory you already have, and see the copy speed up.
 *
 * This file is yours (the only one graded). The harness (harness/pin_it/) has a malloc buffer
 * it copies to the device; it calls pin() before the copies and unpin() before free(). It asks
 * the runtime whether the buffer's first and last bytes are page-locked, and times copies from
 * it against a pageable and a pinned (cudaMallocHost) buffer of the same run. As given, nothing
 * is pinned, and the copies run at the pageable rate.
 * TODO 1: in pin(), page-lock the buffer in place (no new allocation, no copy): cudaHostRegister.
 * TODO 2: in unpin(), undo it (cudaHostUnregister): free() must never see pages the driver still
 *         has locked.
 * Check each call. Grade it: make check   (from 03_pinned_memory/)
 */
#include "pin_it.h"

bool pin(void *p, size_t bytes)
{
    (void)p;
    (void)bytes;
    /* TODO 1 goes here. */
    return true;
}

bool unpin(void *p)
{
    (void)p;
    /* TODO 2 goes here. */
    return true;
}
