/*
 * calibrate/timing.h - timing one candidate policy of one workload with
 * the host's clock: warm-up runs, then timed runs until both a minimum
 * count and a minimum time, with early abandon and a deadline.
 */
#ifndef OLC_CALIBRATE_TIMING_H
#define OLC_CALIBRATE_TIMING_H

#include <stddef.h>
#include <stdint.h>

#include "olc/host.h"
#include "plugins/plugins.h"

/* Cap on timed samples per candidate (a 1 us kernel with a long
 * min_seconds would otherwise collect millions). */
#define OLC_TIMING_MAX_SAMPLES 65536u

/* A field added here that the worker needs is a row of wire_params in
 * wire.c too (MEASURE frames carry them from that list). */
typedef struct olc_timing_params {
  uint32_t warmup;
  uint32_t min_repetitions;
  double min_seconds;
  double abandon_factor;
  double best_us;       /* best median so far; < 0 when none */
  uint64_t deadline_ns; /* olc_util__now_ns() value; 0: none */
  /* 1: the worker checks the candidate numerically (check.h) before timing
   * it; set by the measure session only (olc_calibrate__time ignores it). */
  uint32_t check;
  uint32_t max_runs; /* timed runs at most, before the others are met; 0: no cap */
} olc_timing_params;

typedef enum olc_timing_end {
  OLC_TIMING_DONE = 0,      /* enough samples */
  OLC_TIMING_ABANDONED = 1, /* clearly slower than best_us */
  OLC_TIMING_DEADLINE = 2   /* the deadline passed first */
} olc_timing_end;

typedef struct olc_timing_result {
  double median_us;
  double mad_us;
  uint32_t samples;
  olc_timing_end end;
  /* The wall time of the timed samples, in us: a sample of a batch of
   * short runs (timing.c) took its runs' count x its value. */
  double timed_us;
  /* The samples' run times in us, in run order (samples of them; NULL
   * when none): owned, released by olc_timing_result__free. */
  double *values;
} olc_timing_result;

/* A candidate the numerical check has just run and passed (checked != 0)
 * has had an untimed run on its workload's shape, which is what a warm-up
 * run is for (code and workspace faulted in, kernels built): its first
 * measurement takes one warm-up run fewer.  Where the check cannot run
 * the candidate (checked == 0), every warm-up run stays. */
static inline void olc_timing_params__after_check(olc_timing_params *p, int checked) {
  if (checked && p->warmup > 0)
    p->warmup--;
}

/* Frees out->values; the result reads as empty afterwards. */
void olc_timing_result__free(olc_timing_result *out);

/*
 * Times plugin `run` on (workload, state, policy).  Returns OLC_OK with
 * *out filled (free it with olc_timing_result__free), or the failure of
 * a run (err names it), OLC_E_NOMEM; *out holds no values then.
 */
olc_status olc_calibrate__time(olc_timing_result *out, olc_loaded_plugin *plugin,
                               const olc_plugin_workload *workload, void *state, const void *policy,
                               const olc_timing_params *params, olc_error *err);
/* The same, each run (warm-up included) on the next of state_count
 * prepared states in turn, from *next on (updated: the caller keeps it
 * across measurements, so that a measurement of one run does not land on
 * the state the one before used): cold-cache measurement (rotate.h). */
olc_status olc_calibrate__time_rotating(olc_timing_result *out, olc_loaded_plugin *plugin,
                                        const olc_plugin_workload *workload, void *const *states,
                                        uint32_t state_count, uint32_t *next, const void *policy,
                                        const olc_timing_params *params, olc_error *err);

#endif
