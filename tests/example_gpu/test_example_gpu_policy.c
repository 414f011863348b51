/*
 * test_example_gpu_policy.c - the example_gpu policy codec, its rules, the
 * device limits and the candidate list, on made-up device limits (the
 * plugin's sources are compiled in; no OpenCL device is needed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "egpu.h"
#include "egpu_harness.h"
#include "test_support.h"

/* A small GPU-like device: 256 items per group, 16 KiB of local memory. */
static egpu_limits small_gpu(void) {
  egpu_limits l;
  memset(&l, 0, sizeof l);
  l.max_work_group_size = 256;
  l.max_work_item_sizes[0] = 256;
  l.max_work_item_sizes[1] = 256;
  l.max_work_item_sizes[2] = 64;
  l.local_mem_size = 16384;
  l.max_mem_alloc_size = 1u << 30;
  l.compute_units = 8;
  l.type = CL_DEVICE_TYPE_GPU;
  l.local_mem_type = CL_LOCAL;
  return l;
}

static void test_round_trip(void) {
  static const char *const texts[] = {
      "v1 tm=64 tn=64 tk=16 wm=4 wn=4 vec=4 local=1 wg=16x16",
      "v1 tm=8 tn=8 tk=1 wm=1 wn=1 vec=1 local=0 wg=8x8",
      "v1 tm=1 tn=1 tk=1 wm=1 wn=1 vec=1 local=0 wg=1x1",
      "v1 tm=96 tn=40 tk=7 wm=6 wn=10 vec=2 local=1 wg=4x16",
  };
  egpu_limits l = small_gpu();
  size_t i;
  for (i = 0; i < sizeof texts / sizeof texts[0]; i++) {
    egpu_policy p;
    char msg[256], out[160];
    CU_ASSERT_EQUAL_FATAL(egpu_policy_parse(texts[i], strlen(texts[i]), &p, msg, sizeof msg), 0);
    CU_ASSERT_EQUAL(egpu_policy_check(&p, &l, msg, sizeof msg), 0);
    CU_ASSERT_EQUAL(egpu_policy_format(&p, out, sizeof out), strlen(texts[i]));
    CU_ASSERT_STRING_EQUAL(out, texts[i]);
  }
}

static void test_strict_rejections(void) {
  static const struct {
    const char *text;
    const char *reason;
  } cases[] = {
      {"", "empty"},
      {"v2 tm=64 tn=64 tk=16 wm=4 wn=4 vec=4 local=1 wg=16x16", "version"},
      {"V1 tm=64 tn=64 tk=16 wm=4 wn=4 vec=4 local=1 wg=16x16", "version"},
      {"v1 tm=64 tn=64 tk=16 wm=4 wn=4 vec=4 local=1 wg=16x16 ", "trailing"},
      {"v1 tm=64 tn=64 tk=16 wm=4 wn=4 vec=4 local=1 wg=16x16\n", "trailing"},
      {"v1  tm=64 tn=64 tk=16 wm=4 wn=4 vec=4 local=1 wg=16x16", "expected \"tm=\""},
      {"v1 tn=64 tm=64 tk=16 wm=4 wn=4 vec=4 local=1 wg=16x16", "expected \"tm=\""},
      {"v1 tm=064 tn=64 tk=16 wm=4 wn=4 vec=4 local=1 wg=16x16", "field tm"},
      {"v1 tm=+64 tn=64 tk=16 wm=4 wn=4 vec=4 local=1 wg=16x16", "field tm"},
      {"v1 tm=64 tn=64 tk=16 wm=4 wn=4 vec=4 local=1", "expected \"wg=\""},
      {"v1 tm=64 tn=64 tk=16 wm=4 wn=4 vec=4 local=1 wg=16", "field wg"},
      {"v1 tm=64 tn=64 tk=16 wm=4 wn=4 vec=4 local=1 wg=16*16", "field wg"},
      {"v1 tm=64 tn=64 tk=16 wm=4 wn=4 vec=4 local=1 wg=16x", "field wg"},
      {"v1 tm=99999 tn=64 tk=16 wm=4 wn=4 vec=4 local=1 wg=16x16", "field tm"},
      {"v1 tm=64 tn=64 tk= wm=4 wn=4 vec=4 local=1 wg=16x16", "field tk"},
  };
  size_t i;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    egpu_policy p;
    char msg[256] = "";
    int rc = egpu_policy_parse(cases[i].text, strlen(cases[i].text), &p, msg, sizeof msg);
    CU_ASSERT_EQUAL(rc, -1);
    if (rc != -1 || strstr(msg, cases[i].reason) == NULL)
      fprintf(stderr, "\n  case %zu (%s): got \"%s\"\n", i, cases[i].text, msg);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, cases[i].reason));
  }
  {
    /* An embedded NUL ends nothing: the length is what counts. */
    static const char nul[] = "v1 tm=64 tn=64 tk=16 wm=4 wn=4 vec=4 local=1 wg=16x16\0x";
    egpu_policy p;
    char msg[256];
    CU_ASSERT_EQUAL(egpu_policy_parse(nul, sizeof nul - 1, &p, msg, sizeof msg), -1);
    CU_ASSERT_EQUAL(egpu_policy_parse(nul, sizeof nul - 3, &p, msg, sizeof msg), 0);
  }
}

static void test_rules(void) {
  static const struct {
    const char *text;
    const char *reason;
  } cases[] = {
      {"v1 tm=64 tn=64 tk=16 wm=4 wn=4 vec=3 local=1 wg=16x16", "vec=3"},
      {"v1 tm=64 tn=64 tk=16 wm=4 wn=4 vec=4 local=2 wg=16x16", "local=2"},
      {"v1 tm=64 tn=64 tk=16 wm=4 wn=4 vec=4 local=1 wg=16x8", "does not match"},
      {"v1 tm=64 tn=64 tk=16 wm=3 wn=4 vec=4 local=1 wg=16x21", "not multiples"},
      {"v1 tm=64 tn=64 tk=16 wm=4 wn=2 vec=4 local=1 wg=32x16", "not a multiple of vec"},
      {"v1 tm=128 tn=128 tk=16 wm=16 wn=8 vec=4 local=1 wg=16x8", "accumulators"},
      {"v1 tm=0 tn=64 tk=16 wm=4 wn=4 vec=4 local=1 wg=16x0", "must be in"},
      {"v1 tm=64 tn=64 tk=0 wm=4 wn=4 vec=4 local=1 wg=16x16", "must be in"},
      {"v1 tm=512 tn=64 tk=16 wm=4 wn=4 vec=4 local=1 wg=16x128", "must be in"},
      /* Device limits of small_gpu(): 256 items, 16 KiB local memory. */
      {"v1 tm=32 tn=32 tk=16 wm=1 wn=1 vec=1 local=1 wg=32x32", "work-group 32x32"},
      {"v1 tm=128 tn=128 tk=32 wm=8 wn=8 vec=4 local=1 wg=16x16", "local memory"},
  };
  egpu_limits l = small_gpu();
  size_t i;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    egpu_policy p;
    char msg[256] = "";
    CU_ASSERT_EQUAL_FATAL(
        egpu_policy_parse(cases[i].text, strlen(cases[i].text), &p, msg, sizeof msg), 0);
    CU_ASSERT_EQUAL(egpu_policy_check(&p, &l, msg, sizeof msg), -1);
    if (strstr(msg, cases[i].reason) == NULL)
      fprintf(stderr, "\n  case %zu (%s): got \"%s\"\n", i, cases[i].text, msg);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, cases[i].reason));
  }
  /* The same local-memory policy fits a device with more. */
  {
    egpu_policy p;
    char msg[256];
    const char *t = "v1 tm=128 tn=128 tk=32 wm=8 wn=8 vec=4 local=1 wg=16x16";
    l.local_mem_size = 65536;
    CU_ASSERT_EQUAL_FATAL(egpu_policy_parse(t, strlen(t), &p, msg, sizeof msg), 0);
    CU_ASSERT_EQUAL(egpu_policy_check(&p, &l, msg, sizeof msg), 0);
    CU_ASSERT_EQUAL(egpu_policy_local_bytes(&p), 4u * (32u * 129u + 32u * 128u));
  }
}

/* A fake instance with made-up limits: what candidates and validate consult. */
static egpu_instance fake_instance(egpu_limits l) {
  egpu_instance inst;
  memset(&inst, 0, sizeof inst);
  inst.host = &harness_host;
  olc_stub_host_set_observer(harness_count_message, NULL);
  inst.limits = l;
  return inst;
}

static int candidate_count(egpu_instance *inst, const harness_workload *hw, harness_policies *ps) {
  olc_plugin_policy_sink sink = {sizeof sink, OLC_PLUGIN_ABI_MINOR, ps, hp_emit};
  memset(ps, 0, sizeof *ps);
  CU_ASSERT_EQUAL(egpu_candidates(inst, &hw->w, &sink), OLC_PLUGIN_OK);
  return ps->count;
}

static void test_candidates_fit(void) {
  harness_workload hw;
  harness_policies ps;
  egpu_limits tiny = small_gpu();
  egpu_instance inst;
  int i, full, limited;
  char msg[256], text[160];
  harness_matmul(&hw, "float32", 512, 512, 512);
  inst = fake_instance(small_gpu());
  full = candidate_count(&inst, &hw, &ps);
  CU_ASSERT(full >= 4);
  for (i = 0; i < ps.count; i++) {
    CU_ASSERT_EQUAL(egpu_policy_check(ps.items[i], &inst.limits, msg, sizeof msg), 0);
    egpu_release_policy(&inst, ps.items[i]);
  }
  /* A device with 64 items and 4 KiB: fewer candidates, all of which fit, simplest last. */
  tiny.max_work_group_size = 64;
  tiny.local_mem_size = 4096;
  inst = fake_instance(tiny);
  limited = candidate_count(&inst, &hw, &ps);
  CU_ASSERT(limited >= 1 && limited < full);
  for (i = 0; i < ps.count; i++)
    CU_ASSERT_EQUAL(egpu_policy_check(ps.items[i], &tiny, msg, sizeof msg), 0);
  egpu_policy_format(ps.items[ps.count - 1], text, sizeof text);
  CU_ASSERT_STRING_EQUAL(text, "v1 tm=8 tn=8 tk=1 wm=1 wn=1 vec=1 local=0 wg=8x8");
  for (i = 0; i < ps.count; i++)
    egpu_release_policy(&inst, ps.items[i]);
  /* A device allowing a single item per group still gets the simplest kernel. */
  tiny.max_work_group_size = 1;
  inst = fake_instance(tiny);
  CU_ASSERT_EQUAL(candidate_count(&inst, &hw, &ps), 1);
  egpu_policy_format(ps.items[0], text, sizeof text);
  CU_ASSERT_STRING_EQUAL(text, "v1 tm=1 tn=1 tk=1 wm=1 wn=1 vec=1 local=0 wg=1x1");
  egpu_release_policy(&inst, ps.items[0]);
  /* Not a workload it serves. */
  harness_matmul(&hw, "float16", 8, 8, 8);
  {
    olc_plugin_policy_sink sink = {sizeof sink, OLC_PLUGIN_ABI_MINOR, &ps, hp_emit};
    CU_ASSERT_EQUAL(egpu_candidates(&inst, &hw.w, &sink), OLC_PLUGIN_E_UNSUPPORTED);
  }
}

static void test_validate_abi(void) {
  egpu_instance inst = fake_instance(small_gpu());
  const char *good = "v1 tm=64 tn=64 tk=16 wm=4 wn=4 vec=4 local=1 wg=16x16";
  const char *too_big = "v1 tm=32 tn=32 tk=16 wm=1 wn=1 vec=1 local=1 wg=32x32";
  void *p = NULL;
  harness_bytes b;
  olc_plugin_byte_sink sink = {sizeof sink, OLC_PLUGIN_ABI_MINOR, &b, hb_write};
  char long_text[300];
  CU_ASSERT_EQUAL_FATAL(egpu_validate(&inst, good, strlen(good), &p), OLC_PLUGIN_OK);
  memset(&b, 0, sizeof b);
  CU_ASSERT_EQUAL(egpu_serialize(&inst, p, &sink), OLC_PLUGIN_OK);
  CU_ASSERT_STRING_EQUAL(b.data, good);
  egpu_release_policy(&inst, p);
  p = &p;
  olc_stub_host_clear_error();
  CU_ASSERT_EQUAL(egpu_validate(&inst, too_big, strlen(too_big), &p), OLC_PLUGIN_E_INVALID);
  CU_ASSERT_PTR_NULL(p);
  CU_ASSERT_EQUAL(harness_last_error.code, OLC_PLUGIN_E_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(harness_last_error.message, "policy: work-group"));
  memset(long_text, 'x', sizeof long_text);
  CU_ASSERT_EQUAL(egpu_validate(&inst, long_text, sizeof long_text, NULL), OLC_PLUGIN_E_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(harness_last_error.message, "bytes long"));
  CU_ASSERT_EQUAL(egpu_validate(&inst, NULL, 0, NULL), OLC_PLUGIN_E_INVALID);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("example_gpu_policy", NULL, NULL);
  CU_add_test(s, "round_trip", test_round_trip);
  CU_add_test(s, "strict_rejections", test_strict_rejections);
  CU_add_test(s, "rules", test_rules);
  CU_add_test(s, "candidates_fit", test_candidates_fit);
  CU_add_test(s, "validate_abi", test_validate_abi);
  CU_add_test(s, "messages_unprefixed", harness_test_messages_unprefixed);
  return olc_test_run(argc, argv);
}
