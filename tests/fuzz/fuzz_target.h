/*
 * tests/fuzz/fuzz_target.h - what every fuzz target of tests/fuzz/ defines
 * and what the two drivers (libFuzzer, fuzz_replay.c) call.
 */
#ifndef OLC_FUZZ_TARGET_H
#define OLC_FUZZ_TARGET_H

#include <stddef.h>
#include <stdint.h>

/* The exit code of a target that cannot run here (no device): skipped. */
#define OLC_FUZZ_SKIP 77

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Optional one-time setup (targets built with -DOLC_FUZZ_INIT): 0, or
 * OLC_FUZZ_SKIP after printing why the target cannot run here. */
int olc_fuzz_init(void);

#endif
