/* tests/cli/fd_probe.c - what lesson_init does for a program started with stdout closed:
 * prints (on stderr) the descriptor that the next file opened gets; it must not be 1. */
#include "check.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    (void)argc;
    lesson_init(argv[0]);
    int fd = open("/dev/null", O_WRONLY);
    fprintf(stderr, "next file descriptor: %d\n", fd);
    printf("this line goes to stdout\n");
    return fd > 2 ? 0 : 1;
}
