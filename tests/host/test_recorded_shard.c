/*
 * tests/host/test_recorded_shard.c - the shard of a recorded workload
 * (olc calibrate --recorded FILE --shard I/N, issue 43): fixed values of
 * the hash, so that a change to it (which would split one file differently
 * on machines of two releases) fails here; every key in exactly one shard;
 * the shard follows the key only, not the line or the other workloads.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <string.h>

#include "host/host_int.h"
#include "test_support.h"

static olc_misses_entry entry(const char *backend, const char *processor, int64_t threads,
                              const char *identity) {
  olc_misses_entry e;
  memset(&e, 0, sizeof e);
  e.backend = backend;
  e.operator_name = "MatMul";
  e.processor = processor;
  e.threads = threads;
  e.identity = identity;
  return e;
}

static void test_fixed_values(void) {
  olc_misses_entry a = entry("mock_det", "mock-cpu", 2, "workload:dtype=float32;k=2;m=8;n=4");
  olc_misses_entry b = entry("cpu_gemm", "x86_64:GenuineIntel:6:85", 8, "sha256:ab#m=4");
  /* Computed once from the documented definition (FNV-1a 64 over the key's
   * strings with their zero bytes, fmix64), independently of this code. */
  CU_ASSERT_EQUAL(olc_host__misses_shard(&a, 1000003u), 389815u);
  CU_ASSERT_EQUAL(olc_host__misses_shard(&b, 1000003u), 69490u);
  CU_ASSERT_EQUAL(olc_host__misses_shard(&a, 1u), 0u);
  CU_ASSERT_EQUAL(olc_host__misses_shard(&a, 0u), 0u);
}

static void test_every_field_counts(void) {
  olc_misses_entry a = entry("mock_det", "mock-cpu", 2, "workload:m=8");
  olc_misses_entry v[5];
  const uint32_t n = 1000003u, s = olc_host__misses_shard(&a, n);
  size_t i;
  v[0] = entry("mock_de", "mock-cpu", 2, "workload:m=8");
  v[1] = entry("mock_det", "mock-cp", 2, "workload:m=8");
  v[2] = entry("mock_det", "mock-cpu", 3, "workload:m=8");
  v[3] = entry("mock_det", "mock-cpu", 2, "workload:m=9");
  v[4] = a;
  v[4].operator_name = "Gemm";
  for (i = 0; i < 5; i++)
    CU_ASSERT_NOT_EQUAL(olc_host__misses_shard(&v[i], n), s);
  /* The properties and the model are not part of the key: the identity
   * already carries them. */
  v[0] = a;
  v[0].model = "sha256:ff";
  v[0].line = 77;
  CU_ASSERT_EQUAL(olc_host__misses_shard(&v[0], n), s);
}

static void test_spread(void) {
  /* 4000 shapes over 4 shards: each shard within 10% of its share. */
  unsigned counts[4] = {0, 0, 0, 0};
  char id[64];
  int i;
  for (i = 0; i < 4000; i++) {
    olc_misses_entry e;
    snprintf(id, sizeof id, "workload:dtype=float32;k=2;m=%d;n=4", i + 1);
    e = entry("mock_det", "mock-cpu", 2, id);
    counts[olc_host__misses_shard(&e, 4u)]++;
  }
  for (i = 0; i < 4; i++)
    CU_ASSERT(counts[i] > 900 && counts[i] < 1100);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("recorded-shard", NULL, NULL);
  if (s == NULL)
    return 1;
  CU_add_test(s, "fixed values of the hash", test_fixed_values);
  CU_add_test(s, "every field of the key counts", test_every_field_counts);
  CU_add_test(s, "an even spread", test_spread);
  return olc_test_run(argc, argv);
}
