/*
 * Exercise 1 - pin_it: page-lock memory you already have, and see the copy speed up.
 *
 * This file is yours (the only one graded). The harness (harness/pin_it/) has a pageable buffer
 * it copies to the device; it calls pin() before the copies and unpin() after them. It asks
 * the runtime whether the buffer's first and last bytes are page-locked, and times copies from
 * it against a pageable and a pinned (cudaMallocHost) buffer of the same run. As given, nothing
 * is pinned, and the copies run at the pageable rate.
 * FIXME 1: in pin(), page-lock the buffer in place (no new allocation, no copy): cudaHostRegister.
 * FIXME 2: in unpin(), undo it (cudaHostUnregister): free() must never see pages the driver still
 *          has locked.
 * Check each call. Grade it: make check   (from 03_pinned_memory/; README.md beside this file)
 */
#include "pin_it.h"

bool pin(void *p, size_t bytes)
{
    (void)p;
    (void)bytes;
    /* FIXME 1: page-lock [p, p + bytes) where it is, and return whether that worked. */
    return true;
}

bool unpin(void *p)
{
    (void)p;
    /* FIXME 2: undo pin(), and return whether that worked. */
    return true;
}
