/*
 * tests/config/test_config_fuzz.c - replays the config fuzz target
 * (fuzz_config.c, which aborts when an invariant breaks) on inputs made
 * from a valid file: every prefix, and every byte replaced by each of the
 * characters that mean something to an ini parser.
 */
#include <CUnit/CUnit.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char seed[] = "; seed\n"
                           "[host]\n"
                           "plugin_dirs = /a:b, c\n"
                           "threads = 2\n"
                           "allow_insecure_plugins = no\n"
                           "[store]\n"
                           "path = p.txt\n"
                           "persistence = false\n"
                           "force_portable = 1\n"
                           "lock_timeout_ms = 5\n"
                           "[calibration]\n"
                           "warmup = 1\n"
                           "min_repetitions = 3\n"
                           "min_seconds = 0.5\n"
                           "max_seconds_per_workload = 2\n"
                           "abandon_factor = 1.5\n"
                           "[workload.w]\n"
                           "backend = b\n"
                           "operator = o\n"
                           "model = m.onnx\n"
                           "m = 1\n"
                           "[workload.v]\n"
                           "backend = b\n"
                           "operator = o\n"
                           "model_digest = sha256:"
                           "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n"
                           "[plugin.p]\n"
                           "enabled = true\n"
                           "x = y\n";

static void test_prefixes(void) {
  size_t n = sizeof seed - 1, i;
  unsigned char *copy = malloc(n);
  CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
  /* The whole seed names a missing model file: an error, not a crash. */
  for (i = 0; i <= n; i++) {
    memcpy(copy, seed, i); /* exactly i bytes: no terminator to lean on */
    CU_ASSERT_EQUAL(LLVMFuzzerTestOneInput(copy, i), 0);
  }
  free(copy);
}

/* Found by the fuzzer: a file that is only a UTF-8 byte order mark. */
static void test_regressions(void) {
  static const char *const inputs[] = {"\xEF\xBB\xBF", "\xEF\xBB\xBF\n", "\xEF\xBB\xBF[host]\n",
                                       "\xEF\xBB"};
  size_t i;
  for (i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
    size_t n = strlen(inputs[i]);
    unsigned char *copy = malloc(n); /* exact size, so ASan sees overreads */
    CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
    memcpy(copy, inputs[i], n);
    CU_ASSERT_EQUAL(LLVMFuzzerTestOneInput(copy, n), 0);
    free(copy);
  }
}

static void test_replacements(void) {
  static const unsigned char bytes[] = {0,   '\n', '\r', '[', ']',  '=',
                                        ':', ' ',  ';',  '#', 0xff, '\t'};
  size_t n = sizeof seed - 1, i, b, runs = 0;
  unsigned char *copy = malloc(n);
  CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
  for (i = 0; i < n; i++)
    for (b = 0; b < sizeof bytes; b++) {
      memcpy(copy, seed, n);
      copy[i] = bytes[b];
      CU_ASSERT_EQUAL(LLVMFuzzerTestOneInput(copy, n), 0);
      runs++;
    }
  CU_ASSERT_EQUAL(runs, n * sizeof bytes);
  free(copy);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 2;
  s = CU_add_suite("config_fuzz", NULL, NULL);
  CU_add_test(s, "every prefix", test_prefixes);
  CU_add_test(s, "every byte replaced", test_replacements);
  CU_add_test(s, "regressions", test_regressions);
  return olc_test_run(argc, argv);
}
