/*
 * tests/fuzz/fuzz_init.c - libFuzzer's initialization hook for targets with
 * one-time setup: runs olc_fuzz_init() once, before the first input, so
 * that what it allocates (a plugin instance, a driver) is never counted as
 * a leak of one input.  A target that cannot run here exits 77 (skipped).
 */
#include <stdlib.h>

#include "fuzz_target.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  if (olc_fuzz_init() != 0)
    exit(OLC_FUZZ_SKIP);
  return 0;
}
