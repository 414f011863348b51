/*
 * tests/config/fuzz_config.c - the ini parser on arbitrary bytes.
 *
 * The invariants every input must keep: the call returns OLC_OK (and the
 * config is freed cleanly) or OLC_E_CONFIG with a message "f.ini:LINE: ..."
 * whose LINE lies inside the input.  Built as a libFuzzer target with
 * -DOLC_FUZZ=ON (clang), and replayed on generated inputs by
 * test_config_fuzz.c in every build.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "olc/host.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  olc_config *c = NULL;
  olc_error err;
  uint32_t lines = 1;
  size_t i;
  olc_status st;
  char prefix[32];
  for (i = 0; i < size; i++)
    lines += data[i] == '\n';
  olc_error_clear(&err);
  /* base_dir points nowhere, so model = PATH never reads a real file. */
  st = olc_config_load_string(&c, (const char *)data, size, "f.ini", "/nonexistent-olc-fuzz", &err);
  if (st == OLC_OK) {
    if (c == NULL)
      abort();
    (void)olc_config_threads(c);
    for (i = 0; i < olc_config_workload_count(c); i++)
      if (olc_config_workload(c, i)->backend == NULL ||
          olc_config_workload(c, i)->operator_name == NULL ||
          olc_config_workload(c, i)->model_digest == NULL)
        abort();
    olc_config_free(c);
    return 0;
  }
  if (st != OLC_E_CONFIG || c != NULL || err.code != st || err.line < 1 || err.line > lines)
    abort();
  snprintf(prefix, sizeof prefix, "f.ini:%u: ", (unsigned)err.line);
  if (strncmp(err.message, prefix, strlen(prefix)) != 0 ||
      memchr(err.message, '\n', strlen(err.message)) != NULL)
    abort();
  return 0;
}
