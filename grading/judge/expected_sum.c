/* grading/judge/expected_sum.c - what grading/judge/harness.bash's expected_sum computes,
 * compiled: the sum over the N values of case K of A * x + B, the values as
 * grading/harness/exercise_harness.h's harness_fill makes them from the seed. The graders compute it
 * themselves, outside the program under test; awk took about 5 s for the 16 Mi values of one
 * lesson-03 case, this a few milliseconds. Same arithmetic as the awk version (integers exact
 * in a double), same output ("%.1f").
 *   expected_sum SEED K N A B
 *   expected_sum input SEED N      lesson 04's input (x % 65536 - 32768 from the seed itself:
 *                                  grading/judge/04_streams_overlap.bats, input_sum) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "input") == 0) {
        int64_t s = strtoll(argv[2], NULL, 10) % 2147483646 + 1, n = strtoll(argv[3], NULL, 10);
        double sum = 0;
        for (int64_t i = 0; i < n; i++) {
            s = s * 48271 % 2147483647;
            sum += (double)(s % 65536) - 32768;
        }
        printf("%.1f\n", sum);
        return 0;
    }
    if (argc != 6) {
        fprintf(stderr, "usage: expected_sum SEED K N A B\n");
        return 2;
    }
    int64_t seed = strtoll(argv[1], NULL, 10), k = strtoll(argv[2], NULL, 10);
    int64_t n = strtoll(argv[3], NULL, 10);
    double a = strtod(argv[4], NULL), b = strtod(argv[5], NULL), sum = 0;
    int64_t s = (seed + k * 7919) % 2147483646 + 1;
    for (int64_t i = 0; i < n; i++) {
        s = s * 48271 % 2147483647;
        sum += a * (double)(s % 1000) + b;
    }
    printf("%.1f\n", sum);
    return 0;
}
