/*
 * test_example_gpu.c - the example_gpu plugin on the machine's OpenCL
 * device, loaded with dlopen through a minimal host: ABI table, key,
 * candidates, codec round trip through the ABI, device limits, correctness
 * against a host reference (shapes that are not multiples of the tiles, and
 * every candidate on a small shape).  Exits 77 when no device exists.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "egpu.h"
#include "egpu_harness.h"
#include "test_support.h"

static void *g_handle;
static const olc_plugin *g_table;
static egpu_instance *g_inst;

/* ---- helpers ----------------------------------------------------------- */

static int collect_candidates(const harness_workload *hw, harness_policies *out) {
  olc_plugin_policy_sink sink = {sizeof sink, OLC_PLUGIN_ABI_MINOR, out, hp_emit};
  memset(out, 0, sizeof *out);
  return (int)g_table->candidates(g_inst, &hw->w, &sink);
}

static void release_all(harness_policies *ps) {
  int i;
  for (i = 0; i < ps->count; i++)
    g_table->release_policy(g_inst, ps->items[i]);
  ps->count = 0;
}

static void serialize(const void *policy, harness_bytes *b) {
  olc_plugin_byte_sink sink = {sizeof sink, OLC_PLUGIN_ABI_MINOR, b, hb_write};
  memset(b, 0, sizeof *b);
  CU_ASSERT_EQUAL_FATAL(g_table->serialize(g_inst, policy, &sink), OLC_PLUGIN_OK);
}

/*
 * Runs the policy on m x n x k and compares every element of C with a
 * double-precision host product; C is first filled with NaN so an element
 * the kernel never writes fails too.  Returns the number of bad elements.
 */
static long check_policy(const void *policy, unsigned m, unsigned n, unsigned k) {
  harness_workload hw;
  void *state = NULL;
  egpu_state *s;
  float *c = NULL, nan_value = NAN;
  long bad = 0;
  size_t i, j, p;
  harness_bytes text;
  harness_matmul(&hw, "float32", m, n, k);
  serialize(policy, &text);
  CU_ASSERT_EQUAL_FATAL(g_table->prepare(g_inst, &hw.w, &state), OLC_PLUGIN_OK);
  s = state;
  CU_ASSERT_EQUAL_FATAL(clEnqueueFillBuffer(g_inst->queue, s->c, &nan_value, sizeof nan_value, 0,
                                            (size_t)m * n * sizeof(float), 0, NULL, NULL),
                        CL_SUCCESS);
  if (g_table->run(g_inst, &hw.w, state, policy) != OLC_PLUGIN_OK) {
    fprintf(stderr, "run %s on %ux%ux%u: %s\n", text.data, m, n, k, harness_last_error.message);
    g_table->unprepare(g_inst, state);
    return -1;
  }
  c = malloc((size_t)m * n * sizeof(float));
  CU_ASSERT_PTR_NOT_NULL_FATAL(c);
  CU_ASSERT_EQUAL_FATAL(clEnqueueReadBuffer(g_inst->queue, s->c, CL_TRUE, 0,
                                            (size_t)m * n * sizeof(float), c, 0, NULL, NULL),
                        CL_SUCCESS);
  for (i = 0; i < m; i++) {
    for (j = 0; j < n; j++) {
      double ref = 0.0, mag = 0.0, got = c[i * n + j];
      for (p = 0; p < k; p++) {
        double t = (double)s->host_a[i * k + p] * (double)s->host_b[p * n + j];
        ref += t;
        mag += fabs(t);
      }
      if (!(fabs(got - ref) <= 1e-5 * mag + 1e-6)) {
        if (bad < 3)
          fprintf(stderr, "%s on %ux%ux%u: C[%zu][%zu] = %g, expected %g\n", text.data, m, n, k, i,
                  j, got, ref);
        bad++;
      }
    }
  }
  free(c);
  g_table->unprepare(g_inst, state);
  return bad;
}

/* ---- tests ------------------------------------------------------------- */

static void test_table(void) {
  const olc_plugin *t = NULL;
  olc_plugin_entry_fn entry;
  void *sym = dlsym(g_handle, OLC_PLUGIN_ENTRY_SYMBOL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(sym);
  memcpy(&entry, &sym, sizeof entry);
  CU_ASSERT_EQUAL(entry(OLC_PLUGIN_ABI_MAJOR + 1, &harness_host, &t), OLC_PLUGIN_E_ABI);
  CU_ASSERT_STRING_EQUAL(g_table->name, "example_gpu");
  CU_ASSERT_STRING_EQUAL(g_table->implementation_version, "3");
  CU_ASSERT_EQUAL(g_table->abi_major, OLC_PLUGIN_ABI_MAJOR);
  CU_ASSERT_EQUAL(g_table->struct_size, sizeof(olc_plugin));
  CU_ASSERT_EQUAL_FATAL(g_table->operator_count, 2);
  CU_ASSERT_STRING_EQUAL(g_table->operators[0], "MatMul");
  CU_ASSERT_STRING_EQUAL(g_table->operators[1], "Gemm");
  /* Views (ABI 1.3): transposed and broadcast operands are its to read. */
  CU_ASSERT_EQUAL(g_table->features & OLC_PLUGIN_FEATURE_VIEWS, OLC_PLUGIN_FEATURE_VIEWS);
  CU_ASSERT_EQUAL(g_table->tolerance_count, 2);
  CU_ASSERT_STRING_EQUAL(g_table->tolerances[1].operator_name, "Gemm");
  CU_ASSERT_PTR_NOT_NULL(g_table->prepare);
  CU_ASSERT_PTR_NOT_NULL(g_table->unprepare);
  CU_ASSERT_PTR_NOT_NULL(g_table->flops);
}

static void test_key(void) {
  harness_workload hw;
  harness_key k1, k2;
  olc_plugin_key_sink sink = {sizeof sink, OLC_PLUGIN_ABI_MINOR, &k1, hk_processor,
                              hk_threads,  hk_structure,         NULL};
  harness_matmul(&hw, "float32", 128, 64, 32);
  memset(&k1, 0, sizeof k1);
  memset(&k2, 0, sizeof k2);
  CU_ASSERT_EQUAL_FATAL(g_table->key(g_inst, &hw.w, &sink), OLC_PLUGIN_OK);
  sink.ctx = &k2;
  CU_ASSERT_EQUAL_FATAL(g_table->key(g_inst, &hw.w, &sink), OLC_PLUGIN_OK);
  CU_ASSERT_STRING_EQUAL(k1.processor, k2.processor);
  CU_ASSERT_PTR_NOT_NULL(strstr(k1.processor, "platform=\""));
  CU_ASSERT_PTR_NOT_NULL(strstr(k1.processor, ";device=\""));
  CU_ASSERT_PTR_NOT_NULL(strstr(k1.processor, ";driver=\""));
  CU_ASSERT_PTR_NOT_NULL(strstr(k1.processor, ";compute_units="));
  CU_ASSERT_PTR_NOT_NULL(strstr(k1.processor, ";local_mem="));
  CU_ASSERT_PTR_NOT_NULL(strstr(k1.processor, ";global_cacheline="));
  CU_ASSERT_PTR_NULL(strchr(k1.processor, '\n'));
  CU_ASSERT_EQUAL(k1.threads, 1);
  CU_ASSERT_EQUAL_FATAL(k1.structure_count, 4);
  CU_ASSERT_STRING_EQUAL(k1.names[0], "dtype");
  CU_ASSERT_STRING_EQUAL(k1.values[0], "float32");
  CU_ASSERT_STRING_EQUAL(k1.names[1], "m");
  CU_ASSERT_STRING_EQUAL(k1.values[1], "128");
  CU_ASSERT_STRING_EQUAL(k1.names[2], "n");
  CU_ASSERT_STRING_EQUAL(k1.values[2], "64");
  CU_ASSERT_STRING_EQUAL(k1.names[3], "k");
  CU_ASSERT_STRING_EQUAL(k1.values[3], "32");
  printf("\n  processor: %s\n", k1.processor);
}

static void test_key_unsupported(void) {
  harness_workload hw;
  harness_key k;
  olc_plugin_key_sink sink = {sizeof sink, OLC_PLUGIN_ABI_MINOR, &k,  hk_processor,
                              hk_threads,  hk_structure,         NULL};
  double flops = 0.0;
  memset(&k, 0, sizeof k);
  harness_matmul(&hw, "float16", 8, 8, 8);
  olc_stub_host_clear_error();
  CU_ASSERT_EQUAL(g_table->key(g_inst, &hw.w, &sink), OLC_PLUGIN_E_UNSUPPORTED);
  CU_ASSERT_EQUAL(harness_last_error.code, OLC_PLUGIN_E_UNSUPPORTED);
  CU_ASSERT_PTR_NOT_NULL(strstr(harness_last_error.message, "float16"));
  harness_matmul(&hw, "float32", 8, 8, 8);
  hw.w.operator_name = "Conv";
  CU_ASSERT_EQUAL(g_table->key(g_inst, &hw.w, &sink), OLC_PLUGIN_E_UNSUPPORTED);
  harness_matmul(&hw, "float32", 0, 8, 8);
  CU_ASSERT_EQUAL(g_table->key(g_inst, &hw.w, &sink), OLC_PLUGIN_E_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(harness_last_error.message, "m=0"));
  harness_matmul(&hw, "float32", 8, 8, 8);
  hw.props[3].value = "8x";
  CU_ASSERT_EQUAL(g_table->key(g_inst, &hw.w, &sink), OLC_PLUGIN_E_INVALID);
  hw.w.property_count = 3; /* no k */
  CU_ASSERT_EQUAL(g_table->key(g_inst, &hw.w, &sink), OLC_PLUGIN_E_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(harness_last_error.message, "missing"));
  harness_matmul(&hw, "float32", 3, 5, 7);
  CU_ASSERT_EQUAL(g_table->flops(g_inst, &hw.w, &flops), OLC_PLUGIN_OK);
  CU_ASSERT_DOUBLE_EQUAL(flops, 210.0, 1e-9);
}

static void test_candidates_codec(void) {
  harness_workload hw;
  harness_policies ps;
  harness_bytes b1, b2;
  void *back = NULL;
  int i;
  harness_matmul(&hw, "float32", 256, 256, 256);
  CU_ASSERT_EQUAL_FATAL(collect_candidates(&hw, &ps), OLC_PLUGIN_OK);
  CU_ASSERT_FATAL(ps.count >= 2);
  for (i = 0; i < ps.count; i++) {
    serialize(ps.items[i], &b1);
    CU_ASSERT_EQUAL(g_table->validate(g_inst, b1.data, b1.len, NULL), OLC_PLUGIN_OK);
    CU_ASSERT_EQUAL_FATAL(g_table->validate(g_inst, b1.data, b1.len, &back), OLC_PLUGIN_OK);
    serialize(back, &b2);
    CU_ASSERT_STRING_EQUAL(b1.data, b2.data);
    g_table->release_policy(g_inst, back);
    printf("\n  candidate %d: %s", i, b1.data);
  }
  /* The simplest candidate comes last. */
  serialize(ps.items[ps.count - 1], &b1);
  CU_ASSERT_PTR_NOT_NULL(strstr(b1.data, "wm=1 wn=1 vec=1 local=0"));
  release_all(&ps);
  g_table->release_policy(g_inst, NULL);
}

static void test_validate_rejects(void) {
  static const char *const bad[] = {
      "v1 tm=64 tn=64 tk=16 wm=4 wn=4 vec=4 local=1 wg=16x8",
      "v1 tm=64 tn=64 tk=16 wm=4 wn=4 vec=3 local=1 wg=16x16",
      "v1 tm=64 tn=64 tk=16 wm=4 wn=4 vec=4 local=1 wg=16x16 ",
      "v2 tm=64 tn=64 tk=16 wm=4 wn=4 vec=4 local=1 wg=16x16",
      "",
  };
  /* 64 x 256 = 16384 items: beyond any device's work-group limit. */
  const char *huge = "v1 tm=256 tn=256 tk=16 wm=1 wn=4 vec=4 local=0 wg=64x256";
  /* 131328 bytes of local memory: beyond most GPUs, within POCL's. */
  const char *big_local = "v1 tm=256 tn=256 tk=64 wm=16 wn=4 vec=4 local=1 wg=64x16";
  size_t i;
  void *p = &p;
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    olc_stub_host_clear_error();
    CU_ASSERT_EQUAL(g_table->validate(g_inst, bad[i], strlen(bad[i]), &p), OLC_PLUGIN_E_INVALID);
    CU_ASSERT_PTR_NULL(p);
    CU_ASSERT_EQUAL(harness_last_error.code, OLC_PLUGIN_E_INVALID);
    CU_ASSERT(strlen(harness_last_error.message) > 0);
  }
  CU_ASSERT_EQUAL(g_table->validate(g_inst, huge, strlen(huge), NULL), OLC_PLUGIN_E_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(harness_last_error.message, "work-group"));
  if (4u * (64u * 257u + 64u * 256u) > g_inst->limits.local_mem_size) {
    CU_ASSERT_EQUAL(g_table->validate(g_inst, big_local, strlen(big_local), NULL),
                    OLC_PLUGIN_E_INVALID);
    CU_ASSERT_PTR_NOT_NULL(strstr(harness_last_error.message, "local memory"));
  } else {
    CU_ASSERT_EQUAL(g_table->validate(g_inst, big_local, strlen(big_local), NULL), OLC_PLUGIN_OK);
  }
}

static void test_correct_shapes(void) {
  static const unsigned shapes[][3] = {{1, 1, 1},      {7, 5, 3},     {64, 64, 64},   {100, 75, 33},
                                       {129, 67, 130}, {33, 257, 17}, {128, 128, 128}};
  harness_workload hw;
  harness_policies ps;
  size_t i;
  harness_matmul(&hw, "float32", 128, 128, 128);
  CU_ASSERT_EQUAL_FATAL(collect_candidates(&hw, &ps), OLC_PLUGIN_OK);
  CU_ASSERT_FATAL(ps.count >= 2);
  for (i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
    CU_ASSERT_EQUAL(check_policy(ps.items[0], shapes[i][0], shapes[i][1], shapes[i][2]), 0);
    CU_ASSERT_EQUAL(check_policy(ps.items[ps.count - 1], shapes[i][0], shapes[i][1], shapes[i][2]),
                    0);
  }
  release_all(&ps);
}

static void test_every_candidate(void) {
  harness_workload hw;
  harness_policies ps;
  int i;
  harness_matmul(&hw, "float32", 37, 45, 29);
  CU_ASSERT_EQUAL_FATAL(collect_candidates(&hw, &ps), OLC_PLUGIN_OK);
  for (i = 0; i < ps.count; i++) {
    CU_ASSERT_EQUAL(check_policy(ps.items[i], 37, 45, 29), 0);
    /* One full tile plus a ragged edge in every dimension. */
    CU_ASSERT_EQUAL(check_policy(ps.items[i], 67, 131, 19), 0);
  }
  release_all(&ps);
}

/*
 * The candidates a GPU would get (the instance is made to look like one for
 * the call), and odd tilings, are checked here too, whatever device runs
 * the test.
 */
static void test_gpu_tilings(void) {
  static const char *const texts[] = {
      "v1 tm=16 tn=24 tk=3 wm=2 wn=3 vec=2 local=0 wg=8x8",
      "v1 tm=20 tn=12 tk=5 wm=5 wn=2 vec=2 local=1 wg=6x4",
  };
  egpu_limits saved = g_inst->limits;
  harness_workload hw;
  harness_policies ps;
  size_t i;
  int j;
  harness_matmul(&hw, "float32", 256, 256, 256);
  g_inst->limits.type = CL_DEVICE_TYPE_GPU;
  g_inst->limits.local_mem_type = CL_LOCAL;
  CU_ASSERT_EQUAL(collect_candidates(&hw, &ps), OLC_PLUGIN_OK);
  g_inst->limits = saved;
  CU_ASSERT(ps.count >= 2);
  for (j = 0; j < ps.count; j++)
    CU_ASSERT_EQUAL(check_policy(ps.items[j], 67, 131, 19), 0);
  release_all(&ps);
  for (i = 0; i < sizeof texts / sizeof texts[0]; i++) {
    void *p = NULL;
    CU_ASSERT_EQUAL_FATAL(g_table->validate(g_inst, texts[i], strlen(texts[i]), &p), OLC_PLUGIN_OK);
    CU_ASSERT_EQUAL(check_policy(p, 67, 131, 19), 0);
    g_table->release_policy(g_inst, p);
  }
}

static void test_run_errors(void) {
  harness_workload hw, other;
  harness_policies ps;
  void *state = NULL;
  egpu_policy bad = {64, 64, 16, 4, 4, 3, 1, 16, 16};
  harness_matmul(&hw, "float32", 16, 16, 16);
  harness_matmul(&other, "float32", 17, 16, 16);
  CU_ASSERT_EQUAL_FATAL(collect_candidates(&hw, &ps), OLC_PLUGIN_OK);
  CU_ASSERT_EQUAL_FATAL(g_table->prepare(g_inst, &hw.w, &state), OLC_PLUGIN_OK);
  CU_ASSERT_EQUAL(g_table->run(g_inst, &hw.w, state, ps.items[0]), OLC_PLUGIN_OK);
  CU_ASSERT_EQUAL(g_table->run(g_inst, &other.w, state, ps.items[0]), OLC_PLUGIN_E_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(harness_last_error.message, "prepared for 16x16x16"));
  CU_ASSERT_EQUAL(g_table->run(g_inst, &hw.w, state, &bad), OLC_PLUGIN_E_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(harness_last_error.message, "vec=3"));
  /* Without prepare the plugin allocates for the one run. */
  CU_ASSERT_EQUAL(g_table->run(g_inst, &other.w, NULL, ps.items[0]), OLC_PLUGIN_OK);
  g_table->unprepare(g_inst, state);
  g_table->unprepare(g_inst, NULL);
  release_all(&ps);
}

static void test_create_selectors(void) {
  olc_plugin_kv kv[2];
  void *inst = NULL;
  char sub[5];
  size_t i;
  kv[0].key = "device";
  kv[0].value = "0";
  CU_ASSERT_EQUAL(g_table->create(&harness_host, kv, 1, 1, &inst), OLC_PLUGIN_OK);
  g_table->destroy(inst);
  /* A case-changed piece of the chosen device's name selects a device too. */
  for (i = 0; i < 4 && g_inst->device_name[i] != '\0'; i++)
    sub[i] = (char)(g_inst->device_name[i] ^
                    (((g_inst->device_name[i] | 32) >= 'a' && (g_inst->device_name[i] | 32) <= 'z')
                         ? 32
                         : 0));
  sub[i] = '\0';
  kv[0].value = sub;
  CU_ASSERT_EQUAL(g_table->create(&harness_host, kv, 1, 1, &inst), OLC_PLUGIN_OK);
  g_table->destroy(inst);
  kv[0].value = "no such device anywhere";
  inst = &inst;
  CU_ASSERT_EQUAL(g_table->create(&harness_host, kv, 1, 1, &inst), OLC_PLUGIN_E_UNAVAILABLE);
  CU_ASSERT_PTR_NULL(inst);
  CU_ASSERT_PTR_NOT_NULL(strstr(harness_last_error.message, "no such device anywhere"));
  kv[0].value = "999";
  CU_ASSERT_EQUAL(g_table->create(&harness_host, kv, 1, 1, &inst), OLC_PLUGIN_E_UNAVAILABLE);
  kv[0].key = "platform";
  kv[0].value = "99";
  kv[1].key = "unknown_key";
  kv[1].value = "ignored";
  CU_ASSERT_EQUAL(g_table->create(&harness_host, kv, 2, 1, &inst), OLC_PLUGIN_E_UNAVAILABLE);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  void *inst = NULL;
  int32_t rc;
  int result;
  g_table = harness_load(EGPU_PLUGIN_PATH, &g_handle);
  if (g_table == NULL) {
    fprintf(stderr, "cannot load %s\n", EGPU_PLUGIN_PATH);
    return 1;
  }
  rc = g_table->create(&harness_host, NULL, 0, 1, &inst);
  if (rc == OLC_PLUGIN_E_UNAVAILABLE) {
    fprintf(stderr, "skipped: %s\n", harness_last_error.message);
    return 77;
  }
  if (rc != OLC_PLUGIN_OK) {
    fprintf(stderr, "create failed (%d): %s\n", (int)rc, harness_last_error.message);
    return 1;
  }
  g_inst = inst;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("example_gpu", NULL, NULL);
  CU_add_test(s, "table", test_table);
  CU_add_test(s, "key", test_key);
  CU_add_test(s, "key_unsupported", test_key_unsupported);
  CU_add_test(s, "candidates_codec", test_candidates_codec);
  CU_add_test(s, "validate_rejects", test_validate_rejects);
  CU_add_test(s, "correct_shapes", test_correct_shapes);
  CU_add_test(s, "every_candidate", test_every_candidate);
  CU_add_test(s, "gpu_tilings", test_gpu_tilings);
  CU_add_test(s, "run_errors", test_run_errors);
  CU_add_test(s, "create_selectors", test_create_selectors);
  CU_add_test(s, "messages_unprefixed", harness_test_messages_unprefixed);
  result = olc_test_run(argc, argv);
  g_table->destroy(g_inst);
  return result;
}
