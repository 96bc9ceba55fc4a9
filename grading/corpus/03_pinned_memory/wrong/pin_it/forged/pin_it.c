/* Wrong: prints what the grader used to look for; pins nothing. */
#include <stdio.h>
#include "pin_it.h"
bool pin(void *p, size_t bytes)
{
    (void)p;
    (void)bytes;
    printf("data is page-locked: yes\ndata: 50.0 GB/s, 2.00x the pageable reference, 1.00x the "
           "pinned reference\n");
    return true;
}
bool unpin(void *p)
{
    (void)p;
    printf("unpinned before free: yes\n");
    return true;
}
