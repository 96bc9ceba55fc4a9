/* tests/hostile/swap.c - a student's race against the grader's copy of a submission: swaps two
 * paths (a file and a symbolic link to somebody else's file, or a folder and a link to another
 * folder) with renameat2(RENAME_EXCHANGE), atomically and as fast as it can, for as long as
 * the file STOP exists. usage: swap A B STOP */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: swap A B STOP\n");
        return 2;
    }
    for (long n = 0;; n++) {
        if (renameat2(AT_FDCWD, argv[1], AT_FDCWD, argv[2], RENAME_EXCHANGE) != 0) {
            perror("swap: renameat2");
            return 1;
        }
        if (n % 4096 == 0 && access(argv[3], F_OK) != 0)
            break;
    }
    return 0;
}
