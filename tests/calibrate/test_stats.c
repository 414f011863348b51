/* tests/calibrate/test_stats.c - median and median absolute deviation. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdlib.h>

#include "calibrate/stats.h"
#include "test_support.h"

static void test_median(void) {
  double odd[] = {5, 1, 3};
  double even[] = {4, 1, 3, 2};
  double one[] = {7.5};
  double dup[] = {2, 2, 2, 9, 2};
  CU_ASSERT_DOUBLE_EQUAL(olc_stats__median_sort(odd, 3), 3.0, 0);
  CU_ASSERT_DOUBLE_EQUAL(odd[0], 1.0, 0); /* sorted in place */
  CU_ASSERT_DOUBLE_EQUAL(odd[2], 5.0, 0);
  CU_ASSERT_DOUBLE_EQUAL(olc_stats__median_sort(even, 4), 2.5, 0);
  CU_ASSERT_DOUBLE_EQUAL(olc_stats__median_sort(one, 1), 7.5, 0);
  CU_ASSERT_DOUBLE_EQUAL(olc_stats__median_sort(dup, 5), 2.0, 0);
  CU_ASSERT_DOUBLE_EQUAL(olc_stats__median_sort(NULL, 0), 0.0, 0);
}

static void test_median_no_overflow(void) {
  double big[] = {1.5e308, 1.7e308};
  double m = olc_stats__median_sort(big, 2);
  CU_ASSERT(isfinite(m));
  CU_ASSERT_DOUBLE_EQUAL(m, 1.6e308, 1e294);
}

static void test_mad(void) {
  /* median 3; deviations 2,1,0,1,97 -> MAD 1 (the outlier does not count) */
  double v[] = {1, 2, 3, 4, 100};
  double keep[] = {1, 2, 3, 4, 100};
  double scratch[5];
  size_t i;
  CU_ASSERT_DOUBLE_EQUAL(olc_stats__mad(v, 5, 3.0, scratch), 1.0, 0);
  for (i = 0; i < 5; i++)
    CU_ASSERT_DOUBLE_EQUAL(v[i], keep[i], 0); /* values untouched */
  {
    double same[] = {4, 4, 4, 4};
    CU_ASSERT_DOUBLE_EQUAL(olc_stats__mad(same, 4, 4.0, scratch), 0.0, 0);
  }
  {
    double two[] = {10, 20};
    CU_ASSERT_DOUBLE_EQUAL(olc_stats__mad(two, 2, 15.0, scratch), 5.0, 0);
  }
  CU_ASSERT_DOUBLE_EQUAL(olc_stats__mad(NULL, 0, 0.0, scratch), 0.0, 0);
}

static void test_min(void) {
  double v[] = {3, -1, 2};
  CU_ASSERT_DOUBLE_EQUAL(olc_stats__min(v, 3), -1.0, 0);
  CU_ASSERT_DOUBLE_EQUAL(olc_stats__min(v, 1), 3.0, 0);
  CU_ASSERT_DOUBLE_EQUAL(olc_stats__min(NULL, 0), 0.0, 0);
}

static void test_median_se(void) {
  CU_ASSERT_DOUBLE_EQUAL(olc_stats__median_se(2.0, 4), 1.2533 * 1.4826, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(olc_stats__median_se(2.0, 16), 1.2533 * 1.4826 / 2.0, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(olc_stats__median_se(0.0, 9), 0.0, 0);
  CU_ASSERT_DOUBLE_EQUAL(olc_stats__median_se(3.0, 0), 0.0, 0);
}

/* The race's tie rule on paired turns: B's time / A's time per turn. */
static void test_paired_faster(void) {
  double scratch[8], lead;
  /* Every turn 2% faster: the margin decides, the spread is nil. */
  double steady[] = {0.98, 0.98, 0.98, 0.98};
  double small[] = {0.995, 0.995, 0.995, 0.995};
  /* A 10% lead in most turns, one turn (a busy moment) the other way. */
  double mostly[] = {0.9, 0.91, 1.3, 0.89, 0.9};
  /* Half the turns faster, half slower: no lead at all. */
  double mixed[] = {0.8, 1.2, 0.8, 1.2};
  /* 0.25, 0.5, 1: a lead of 0.5 within two standard errors (0.536). */
  double three[] = {1.0, 0.25, 0.5};
  double six[] = {1.0, 0.25, 0.5, 0.25, 0.5, 1.0};
  double two[] = {0.5, 0.5};
  CU_ASSERT_TRUE(olc_stats__paired_faster(steady, 4, scratch, 0.01, 2.0, &lead));
  CU_ASSERT_DOUBLE_EQUAL(lead, 0.02, 1e-12);
  CU_ASSERT_FALSE(olc_stats__paired_faster(small, 4, scratch, 0.01, 2.0, &lead));
  CU_ASSERT_TRUE(olc_stats__paired_faster(mostly, 5, scratch, 0.01, 2.0, &lead));
  CU_ASSERT_DOUBLE_EQUAL(lead, 0.1, 1e-12);
  CU_ASSERT_FALSE(olc_stats__paired_faster(mixed, 4, scratch, 0.01, 2.0, &lead));
  CU_ASSERT_FALSE(olc_stats__paired_faster(three, 3, scratch, 0.01, 2.0, &lead));
  CU_ASSERT_DOUBLE_EQUAL(lead, 0.5, 1e-12);
  CU_ASSERT_TRUE(olc_stats__paired_faster(six, 6, scratch, 0.01, 2.0, &lead));
  /* Fewer than three turns never decide, however large the lead. */
  CU_ASSERT_FALSE(olc_stats__paired_faster(two, 2, scratch, 0.01, 2.0, &lead));
  CU_ASSERT_DOUBLE_EQUAL(lead, 0.5, 1e-12);
  CU_ASSERT_FALSE(olc_stats__paired_faster(NULL, 0, scratch, 0.01, 2.0, &lead));
  CU_ASSERT_DOUBLE_EQUAL(lead, 0.0, 0);
  CU_ASSERT_FALSE(olc_stats__paired_faster(NULL, 0, scratch, 0.01, 2.0, NULL));
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 2;
  s = CU_add_suite("stats", NULL, NULL);
  CU_add_test(s, "median", test_median);
  CU_add_test(s, "median of huge values", test_median_no_overflow);
  CU_add_test(s, "median absolute deviation", test_mad);
  CU_add_test(s, "minimum", test_min);
  CU_add_test(s, "standard error of a median", test_median_se);
  CU_add_test(s, "paired ratios clearly below 1", test_paired_faster);
  return olc_test_run(argc, argv);
}
