/*
 * tests/host/test_runtime_buckets.c - dynamic shapes (issue 11 item
 * 10): a runtime that meets 200 sizes of m selects each through
 * olc_host_select with on_miss, and a plugin that buckets m in its key
 * (mock_det with bucket = m: exact up to 16, then power-of-two ranges, as
 * cpu_gemm does) gives one record and one measurement per bucket, 16 + 4
 * for m = 1..200, not 200; each size executes its bucket's policy
 * correctly.  Without bucketing, 20 sizes give 20 measurements.
 */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"
#include "runtime_util.h"

static char *tmp;

static int setup(void) {
  tmp = olc_test_tmpdir("runtime_buckets");
  return tmp == NULL;
}

static int teardown(void) {
  olc_test_rmtree(tmp);
  free(tmp);
  return 0;
}

/* Selects m = 1..count, executes each; returns the execute failures. */
static int select_sizes(rt_host *h, long count) {
  olc_select_options on_miss = rt_mode(OLC_SELECT_ON_MISS);
  static float a[200 * 3], b[3 * 2], c[200 * 2], want[200 * 2];
  rt_workload rw;
  const olc_selection *s;
  olc_error err;
  int bad = 0;
  long m;
  rt_fill(b, sizeof b / sizeof b[0], 9);
  for (m = 1; m <= count; m++) {
    rt_matmul(&rw, NULL, m, 2, 3);
    OLC_ASSERT_OK(olc_host_select(&s, h->s.host, &rw.w, &on_miss, &err), &err);
    rt_fill(a, (size_t)(m * 3), (unsigned)m);
    memset(c, 0, sizeof c);
    memset(want, 0, sizeof want);
    rt_reference(m, 2, 3, 1.0f, a, 3, b, 2, 0.0f, want, 2);
    if (olc_selection_matmul_f32(s, m, 2, 3, 1.0f, a, 3, b, 2, 0.0f, c, 2, &err) != OLC_OK ||
        memcmp(c, want, sizeof(float) * (size_t)(m * 2)) != 0)
      bad++;
  }
  return bad;
}

static void test_buckets(void) {
  olc_host_stats st;
  rt_host h;
  rt_open(&h, tmp, NULL, "buckets.txt", "[plugin.mock_det]\ncandidates = 3,1,2\nbucket = m\n");
  CU_ASSERT_EQUAL(select_sizes(&h, 200), 0);
  olc_host__stats(&st, h.s.host);
  CU_ASSERT_EQUAL(st.bindings, 200);
  CU_ASSERT_EQUAL(st.slots, 20);
  CU_ASSERT_EQUAL(st.measurements, 20);
  CU_ASSERT_EQUAL(rt_records(&h), 40); /* exact and portable per bucket */
  rt_close(&h);
  /* The control: without buckets every size is a key of its own. */
  rt_open(&h, tmp, NULL, "exact.txt", "[plugin.mock_det]\ncandidates = 3,1,2\n");
  CU_ASSERT_EQUAL(select_sizes(&h, 20), 0);
  olc_host__stats(&st, h.s.host);
  CU_ASSERT_EQUAL(st.measurements, 20);
  CU_ASSERT_EQUAL(rt_records(&h), 40);
  rt_close(&h);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 2;
  s = CU_add_suite("runtime_buckets", setup, teardown);
  CU_add_test(s, "200 sizes of m, 20 buckets", test_buckets);
  return olc_test_run(argc, argv);
}
