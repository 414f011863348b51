/* calibrate/measure.c - the timing loop of one candidate. */
#include "calibrate/measure.h"

#include <stdlib.h>
#include <string.h>

#include "calibrate/stats.h"
#include "util/error.h"

/* Enough samples that three slow ones are not bad luck. */
#define ABANDON_MIN_SAMPLES 3u

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
                          const olc_measure_params *p) {
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

void olc_measure_result__free(olc_measure_result *out) {
  free(out->values);
  out->values = NULL;
  out->samples = 0;
}

olc_status olc_calibrate__measure(olc_measure_result *out, olc_loaded_plugin *plugin,
                                  const olc_plugin_workload *workload, void *state,
                                  const void *policy, const olc_measure_params *params,
                                  olc_error *err) {
  uint32_t next = 0;
  return olc_calibrate__measure_rotating(out, plugin, workload, &state, 1, &next, policy, params,
                                         err);
}

olc_status olc_calibrate__measure_rotating(olc_measure_result *out, olc_loaded_plugin *plugin,
                                           const olc_plugin_workload *workload, void *const *states,
                                           uint32_t state_count, uint32_t *next, const void *policy,
                                           const olc_measure_params *params, olc_error *err) {
  double *samples = NULL, *scratch = NULL;
  size_t n = 0, cap = 0;
  uint32_t i;
  uint64_t start, min_ns;
  olc_status st = OLC_OK;
  out->median_us = 0;
  out->mad_us = 0;
  out->samples = 0;
  out->end = OLC_MEASURE_DONE;
  out->values = NULL;
  for (i = 0; i < params->warmup; i++) {
    st = olc_plugins__run(plugin, workload, next_state(states, state_count, next), policy, err);
    if (st != OLC_OK)
      goto done;
  }
  min_ns = params->min_seconds > 0 ? (uint64_t)(params->min_seconds * 1e9) : 0;
  start = olc_plugins__now_ns();
  for (;;) {
    void *state = next_state(states, state_count, next);
    uint64_t t0 = olc_plugins__now_ns(), t1;
    st = olc_plugins__run(plugin, workload, state, policy, err);
    t1 = olc_plugins__now_ns();
    if (st != OLC_OK)
      goto done;
    if (!push(&samples, &scratch, &cap, n, (double)(t1 - t0) / 1e3)) {
      st = olc_error__set(err, OLC_E_NOMEM, "measure", "out of memory");
      goto done;
    }
    n++;
    if (clearly_slower(samples, n, scratch, params)) {
      out->end = OLC_MEASURE_ABANDONED;
      break;
    }
    if (n >= params->min_repetitions && t1 - start >= min_ns)
      break;
    if (n >= OLC_MEASURE_MAX_SAMPLES && n >= params->min_repetitions)
      break;
    /* [calibration] max_runs_per_candidate: the strategy sees the cut
     * from the run count. */
    if (params->max_runs != 0 && n >= params->max_runs)
      break;
    if (params->deadline_ns != 0 && t1 >= params->deadline_ns) {
      out->end = OLC_MEASURE_DEADLINE;
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
