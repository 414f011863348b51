/* calibrate/timing.c - the timing loop of one candidate. */
#include "calibrate/timing.h"

#include <stdlib.h>
#include <string.h>

#include "calibrate/stats.h"
#include "util/error.h"
#include "util/platform.h"

/* Enough samples that three slow ones are not bad luck. */
#define ABANDON_MIN_SAMPLES 3u

/*
 * Runs shorter than a sample's least duration are timed in batches.  The
 * clock ticks in steps (10 ns on some virtual machines, 100 ns for a
 * 10 MHz QueryPerformanceCounter), so a 0.7 us run timed alone reads as
 * one of a few multiples of the step: its median moves by whole steps
 * (a 10 ns step is 1.4% of it) and its MAD reads 0, which makes the
 * race's tie rule see a one-step difference as a certain lead.  A sample
 * lasts at least
 * BATCH_STEPS steps and BATCH_MIN_NS; it is the mean run time of its
 * batch.
 */
#define BATCH_STEPS 1000u
#define BATCH_MIN_NS 10000u
#define BATCH_MAX_NS 1000000u
#define BATCH_MAX_RUNS (1u << 20)

/* Appends a sample; scratch always has room for every sample. */
static int push(double **samples, double **scratch, size_t *cap, size_t n, double v) {
  if (n == *cap) {
    size_t c = *cap ? *cap * 2 : 64;
    double *s = realloc(*samples, c * sizeof *s);
    if (s == NULL)
      return 0;
    *samples = s;
    s = realloc(*scratch, c * sizeof *s);
    if (s == NULL)
      return 0;
    *scratch = s;
    *cap = c;
  }
  (*samples)[n] = v;
  return 1;
}

/*
 * Clearly slower: every sample so far (at least three) exceeds factor x
 * best, or, once the minimum count (and at least two runs) is reached,
 * the lower median does.  One run never condemns a candidate and of two
 * the faster counts: a single preemption can make any run look many
 * times slower.  The median is recomputed only at the minimum count and
 * at powers of two, so the check stays cheap for fast kernels.
 */
static int clearly_slower(const double *samples, size_t n, double *scratch,
                          const olc_timing_params *p) {
  double limit;
  size_t i;
  if (p->best_us < 0)
    return 0;
  limit = p->abandon_factor * p->best_us;
  if (n >= ABANDON_MIN_SAMPLES && olc_stats__min(samples, n) > limit)
    return 1;
  if (n >= 2u && n >= p->min_repetitions && (n == p->min_repetitions || (n & (n - 1u)) == 0)) {
    for (i = 0; i < n; i++)
      scratch[i] = samples[i];
    return olc_stats__low_median_sort(scratch, n) > limit;
  }
  return 0;
}

/* The state of the next run, in turn: with one, always the same (warm). */
static void *next_state(void *const *states, uint32_t count, uint32_t *next) {
  void *s;
  if (*next >= count)
    *next = 0;
  s = states[*next];
  *next = *next + 1 < count ? *next + 1 : 0;
  return s;
}

/* The clock's step: the smallest change of olc_util__now_ns seen over
 * a few changes (a few readings on a fine clock), or 1 us when it did not
 * change in STEP_READS readings. */
#define STEP_READS 1000
static uint64_t clock_step_ns(void) {
  uint64_t prev = olc_util__now_ns(), step = 0;
  int changes = 0;
  for (int i = 0; i < STEP_READS && changes < 3; i++) {
    uint64_t now = olc_util__now_ns();
    if (now > prev) {
      step = step == 0 || now - prev < step ? now - prev : step;
      changes++;
      prev = now;
    }
  }
  return step > 0 ? step : 1000u;
}

/* The least duration of a sample for a clock of this step. */
static uint64_t batch_ns(uint64_t step) {
  uint64_t t = step * BATCH_STEPS;
  return t < BATCH_MIN_NS ? BATCH_MIN_NS : t > BATCH_MAX_NS ? BATCH_MAX_NS : t;
}

/* The runs of the next sample after one of `runs` runs took `took` ns:
 * as many more as make it last `want` (never fewer than before: one
 * preempted sample must not shrink the batch back to single runs). */
static uint32_t next_batch(uint32_t runs, uint64_t took, uint64_t want, uint64_t step) {
  double grow;
  if (took >= want)
    return runs;
  grow = (double)runs * (double)want / (double)(took > step ? took : step);
  return grow >= (double)BATCH_MAX_RUNS ? BATCH_MAX_RUNS : (uint32_t)grow + 1u;
}

void olc_timing_result__free(olc_timing_result *out) {
  free(out->values);
  out->values = NULL;
  out->samples = 0;
}

olc_status olc_calibrate__time(olc_timing_result *out, olc_loaded_plugin *plugin,
                               const olc_plugin_workload *workload, void *state, const void *policy,
                               const olc_timing_params *params, olc_error *err) {
  uint32_t next = 0;
  return olc_calibrate__time_rotating(out, plugin, workload, &state, 1, &next, policy, params, err);
}

olc_status olc_calibrate__time_rotating(olc_timing_result *out, olc_loaded_plugin *plugin,
                                        const olc_plugin_workload *workload, void *const *states,
                                        uint32_t state_count, uint32_t *next, const void *policy,
                                        const olc_timing_params *params, olc_error *err) {
  double *samples = NULL, *scratch = NULL;
  size_t n = 0, cap = 0;
  uint32_t i, batch = 1;
  uint64_t start, min_ns, step, want;
  olc_status st = OLC_OK;
  out->median_us = 0;
  out->mad_us = 0;
  out->samples = 0;
  out->timed_us = 0;
  out->end = OLC_TIMING_DONE;
  out->values = NULL;
  /* A capped run count (max_runs_per_candidate) is a count of runs: they
   * are timed one by one then.  The last warm-up run sizes the first
   * batch. */
  step = clock_step_ns();
  want = params->max_runs != 0 ? 0 : batch_ns(step);
  for (i = 0; i < params->warmup; i++) {
    uint64_t t0 = olc_util__now_ns();
    st = olc_plugins__run(plugin, workload, next_state(states, state_count, next), policy, err);
    if (st != OLC_OK)
      goto done;
    if (i + 1 == params->warmup)
      batch = next_batch(1, olc_util__now_ns() - t0, want, step);
  }
  min_ns = params->min_seconds > 0 ? (uint64_t)(params->min_seconds * 1e9) : 0;
  start = olc_util__now_ns();
  for (;;) {
    uint64_t t0 = olc_util__now_ns(), t1;
    for (i = 0; i < batch && st == OLC_OK; i++)
      st = olc_plugins__run(plugin, workload, next_state(states, state_count, next), policy, err);
    t1 = olc_util__now_ns();
    if (st != OLC_OK)
      goto done;
    if (!push(&samples, &scratch, &cap, n, (double)(t1 - t0) / 1e3 / (double)batch)) {
      st = olc_error__set(err, OLC_E_NOMEM, "measure", "out of memory");
      goto done;
    }
    n++;
    out->timed_us += (double)(t1 - t0) / 1e3;
    batch = next_batch(batch, t1 - t0, want, step);
    if (clearly_slower(samples, n, scratch, params)) {
      out->end = OLC_TIMING_ABANDONED;
      break;
    }
    if (n >= params->min_repetitions && t1 - start >= min_ns)
      break;
    if (n >= OLC_TIMING_MAX_SAMPLES && n >= params->min_repetitions)
      break;
    /* [calibration] max_runs_per_candidate: the strategy sees the cut
     * from the run count. */
    if (params->max_runs != 0 && n >= params->max_runs)
      break;
    if (params->deadline_ns != 0 && t1 >= params->deadline_ns) {
      out->end = OLC_TIMING_DEADLINE;
      break;
    }
  }
  out->samples = (uint32_t)n;
  memcpy(scratch, samples, n * sizeof *samples);
  out->median_us = olc_stats__median_sort(scratch, n);
  out->mad_us = olc_stats__mad(samples, n, out->median_us, scratch);
  out->values = samples;
  samples = NULL;
done:
  free(samples);
  free(scratch);
  return st;
}
