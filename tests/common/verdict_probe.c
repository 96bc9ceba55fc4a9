/* tests/common/verdict_probe.c - drives common/check.c's claim / not_judged / verdict from
 * the command line, so that tests/common.bats can check the three outcomes without a GPU.
 *   verdict_probe ok fail nj cudafail ...   one claim per word, then the verdict */
#include "check.h"

#include <string.h>

int main(int argc, char **argv)
{
    bool ok_so_far = true;
    lesson_init(argv[0]);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "ok") == 0)
            claim(true, "claim %d holds", i);
        else if (strcmp(argv[i], "fail") == 0)
            claim(false, "claim %d does not hold", i);
        else if (strcmp(argv[i], "nj") == 0)
            not_judged("the regime hides it", "claim %d", i);
        else if (strcmp(argv[i], "cudafail") == 0)
            ok_so_far = false;
    }
    return verdict(ok_so_far);
}
