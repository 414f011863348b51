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

/* The race's tie rule: a lead must exceed the margin and the noise. */
static void test_clearly_faster(void) {
  /* Quiet samples (MAD 0.1 us of 100): the 1% margin decides. */
  CU_ASSERT_TRUE(olc_stats__clearly_faster(98.0, 0.1, 10, 100.0, 0.1, 10, 0.01, 2.0));
  CU_ASSERT_FALSE(olc_stats__clearly_faster(99.5, 0.1, 10, 100.0, 0.1, 10, 0.01, 2.0));
  CU_ASSERT_FALSE(olc_stats__clearly_faster(99.0, 0.0, 10, 100.0, 0.0, 10, 0.01, 2.0));
  CU_ASSERT_FALSE(olc_stats__clearly_faster(101.0, 0.1, 10, 100.0, 0.1, 10, 0.01, 2.0));
  /* Busy samples (MAD 5 us, 8 runs each: 2 standard errors are 9.3 us):
   * a 4% lead is noise, a 15% lead is not. */
  CU_ASSERT_FALSE(olc_stats__clearly_faster(96.0, 5.0, 8, 100.0, 5.0, 8, 0.01, 2.0));
  CU_ASSERT_TRUE(olc_stats__clearly_faster(85.0, 5.0, 8, 100.0, 5.0, 8, 0.01, 2.0));
  /* More runs shrink the error: the same 4% lead over 200 runs each. */
  CU_ASSERT_TRUE(olc_stats__clearly_faster(96.0, 5.0, 200, 100.0, 5.0, 200, 0.01, 2.0));
  /* One noisy side is enough to doubt the lead. */
  CU_ASSERT_FALSE(olc_stats__clearly_faster(95.0, 0.1, 8, 100.0, 8.0, 8, 0.01, 2.0));
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
  CU_add_test(s, "clearly faster", test_clearly_faster);
  return olc_test_run(argc, argv);
}
