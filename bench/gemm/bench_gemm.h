/*
 * bench_gemm.h - what the parts of bench_gemm share.
 */
#ifndef BENCH_GEMM_H
#define BENCH_GEMM_H

#include <stddef.h>
#include <stdint.h>

#include "olc/plugin.h"

/*
 * Extra configuration for the host's calibration of cpu_gemm: the other
 * plugins of the build stay unloaded, so that the bench's process holds
 * only what it measures (example_gpu on PoCL brings its own threads).  An
 * early series of runs with example_gpu loaded showed cpu_gemm 2-3x slower
 * for about a second; a later A/B did not reproduce it (see README.md).
 */
#ifndef BENCH_ONLY_CPU_GEMM
#define BENCH_ONLY_CPU_GEMM "[plugin.example_gpu]\nenabled = false\n"
#endif

/* The serialized text of a policy object; 0, or -1 on failure. */
int bench_policy_text(const olc_plugin *pl, void *inst, const void *policy, char *buf, size_t size);

/* One row of --quality. */
typedef struct bench_quality_row {
  char name[64];
  long m, n, k;
  int threads;
  double loop_s;         /* wall time of olc_host_calibrate for the workload */
  int loop_measured;     /* candidates the loop measured */
  int loop_abandoned;    /* of which abandoned early */
  char policy[256];      /* the loop's pick */
  int candidates;        /* measured exhaustively */
  int pick, best;        /* candidate indexes (pick -1: not a candidate) */
  double pick_s, best_s; /* medians per run in the exhaustive pass */
  double exhaustive_s;   /* wall time of the exhaustive pass */
  /* pick / best - 1 from Q_PAIRS interleaved re-measurements of the two
   * (median of the paired ratios; 0 when the pick is the best), so that
   * a load change between their single exhaustive measurements does not
   * decide the gap. */
  double paired_gap;
} bench_quality_row;

/* Runs --quality on the cpu_gemm workloads of config/default.ini; returns
 * the number of rows, or -1 (with a message on stderr). */
int bench_quality(const olc_plugin *pl, const olc_plugin_host *h, uint32_t threads,
                  bench_quality_row *rows, int max_rows);

/* --quality [ROUNDS]: runs bench_quality ROUNDS times and prints every
 * round and, per workload, the median gap and time share over the rounds
 * (a table, or a JSON object).  Returns 0, or -1. */
int bench_quality_report(const olc_plugin *pl, const olc_plugin_host *h, int threads, int rounds,
                         int json);

#endif
