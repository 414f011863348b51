/*
 * options.h - bench_gemm's command line.
 */
#ifndef BENCH_GEMM_OPTIONS_H
#define BENCH_GEMM_OPTIONS_H

#include "bench_gemm.h"

#define MAX_SHAPES 40

typedef struct options {
  const char *plugin_path, *forced;
  const char *isa; /* cpu_gemm's isa cap (its [plugin.cpu_gemm] isa), or NULL */
  int quality, stability, overhead, buckets, concurrency, cold, nearest, quick, json, reps,
      nthreads, threads[8], nshapes;
  int reps_given, shapes_given; /* --reps; --shape or --table */
  int contention;               /* --contention (olc_contention_mode), -1: the host's */
  int peers[BENCH_PEER_COUNT];  /* --peers (all by default) */
  shape shapes[MAX_SHAPES];
} options;

/* Parses argv; a bad option ends the program with a one-line error. */
void bench_parse_args(options *o, int argc, char **argv);

#endif
