/* grading/judge/expected_sum.c - what grading/judge/harness.bash's expected_sum computes,
 * compiled: the sum over the N values of case K of A * x + B, the values as
 * grading/harness/exercise_harness.h's harness_fill makes them from the seed. The graders compute it
 * themselves, outside the program under test; awk took about 5 s for the 16 Mi values of one
 * lesson-03 case, this a few milliseconds. Same arithmetic as the awk version (integers exact
 * in a double), same output ("%.1f").
 *   expected_sum SEED K N A B
 *   expected_sum input SEED N      lesson 04's input, times 32768: (h & 0xffff) - 32768 for each
 *                                  position's hash h from the seed (grading/harness/pick.h's
 *                                  harness_input_fill; grading/judge/04_streams_overlap.bats,
 *                                  input_sum) */
#include "../harness/minstd.h"
#include "../harness/pick.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the sum over n values of the sequence after state s of a * (x % 1000) + b: a times the sum of
 * the x % 1000 (a whole number, exact) plus n b, which is the sum term by term wherever each term
 * and each partial sum is exact in a double, as with the graders' a and b (0.5, 1, 2 and 3; 0
 * and 1) */
static double sum_of(uint64_t s, int64_t n, double a, double b)
{
    struct minstd m;
    if (n <= 0)
        return 0;
    minstd_start(&m, s);
    return a * (double)minstd_sum(&m, (size_t)n) + b * (double)n;
}

/* lesson 04's input from the seed, times 32768, summed over its first n positions: whole
 * numbers, summed exactly */
static double input_sum(uint32_t seed, int64_t n)
{
    int64_t sum = 0;
    for (int64_t i = 0; i < n; i++)
        sum += (int64_t)(harness_input_at(seed, (uint64_t)i) & 0xffffu) - 32768;
    return (double)sum;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "input") == 0) {
        uint32_t seed = (uint32_t)strtoul(argv[2], NULL, 10);
        printf("%.1f\n", input_sum(seed, strtoll(argv[3], NULL, 10)));
        return 0;
    }
    if (argc != 6) {
        fprintf(stderr, "usage: expected_sum SEED K N A B\n");
        return 2;
    }
    int64_t seed = strtoll(argv[1], NULL, 10), k = strtoll(argv[2], NULL, 10);
    int64_t n = strtoll(argv[3], NULL, 10);
    double a = strtod(argv[4], NULL), b = strtod(argv[5], NULL);
    int64_t s = (seed + k * 7919) % 2147483646 + 1;
    printf("%.1f\n", sum_of((uint64_t)s, n, a, b));
    return 0;
}
