/* tests/common/platform_probe.c - drives common/platform.c from the command line, so that
 * tests/common.bats can check its decisions without a GPU:
 *   platform_probe tool    prints under_tool()'s answer: "tool: <why>" or "no tool" */
#include "check.h"
#include "platform.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    lesson_init(argv[0]);
    if (argc == 2 && strcmp(argv[1], "tool") == 0) {
        char why[512];
        if (under_tool(why, sizeof why))
            printf("tool: %s\n", why);
        else
            printf("no tool\n");
        return 0;
    }
    fprintf(stderr, "usage: %s tool\n", lesson_prog);
    return 2;
}
