/* grading/judge/expected_picks.c - the values a pick must give, computed by the grader outside
 * the program under test (grading/judge/harness.bash, harness_picks_wrong). Reads lines
 *   NAME INSEED PICKSEED N WORK
 * and writes for each the line the relay keeps for a right answer (grading/judge/channel.c,
 * FILE.picks), "NAME PICKSEED N AT:BITS ...": the PICK_COUNT positions PICKSEED gives over N
 * values (grading/harness/pick.h, pick_positions) and at each the bits of the float due there:
 * the input INSEED makes at that position (harness_input_value), after WORK of lesson 04's
 * multiply-adds (04_streams_overlap/work.h, work_on_host: x = fmaf(x, 0.9999f, 0.0001f), one
 * correctly rounded fma each; WORK 0: the input itself). A line that is not of that form: exit 2.
 *   expected_picks < REQUESTS */
#include "../harness/pick.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static float worked(float x, long work)
{
    for (long k = 0; k < work; k++)
        x = fmaf(x, 0.9999f, 0.0001f);
    return x;
}

int main(void)
{
    char name[128], line[512];
    unsigned long long in, s, n;
    long work;
    while (fgets(line, sizeof line, stdin)) {
        if (sscanf(line, "%127s %llu %llu %llu %ld", name, &in, &s, &n, &work) != 5 || n == 0 ||
            work < 0 || work > 10000000) {
            fprintf(stderr, "expected_picks: not 'NAME INSEED PICKSEED N WORK': %s", line);
            return 2;
        }
        uint64_t at[PICK_COUNT];
        pick_positions((uint32_t)s, n, at);
        printf("%s %llu %llu", name, s, n);
        for (int k = 0; k < PICK_COUNT; k++) {
            float v = worked(harness_input_value((uint32_t)in, at[k]), work);
            uint32_t bits;
            memcpy(&bits, &v, sizeof bits);
            printf(" %llu:%08x", (unsigned long long)at[k], bits);
        }
        putchar('\n');
    }
    return 0;
}
