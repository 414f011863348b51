/*
 * calibrate/strategy.c - the 'full' strategy (every candidate timed in
 * full, clear losers abandoned) and what both strategies share.
 */
#include "calibrate/strategy.h"

#include <stdarg.h>
#include <stdio.h>

#include "calibrate/stats.h"
#include "util/error.h"
#include "util/platform.h"

olc_status olc_strategy__record(const olc_strategy_ctx *ctx, size_t i, olc_status status,
                                const char *fmt, ...) {
  olc_candidate_result *c = &ctx->results[i];
  const olc_buf *policy = &ctx->list->serialized[i];
  if (c->policy == NULL && policy->len > 0) {
    c->policy = olc_arena__memdup(ctx->arena, policy->data, policy->len);
    if (c->policy == NULL)
      return OLC_E_NOMEM;
  }
  c->policy_len = policy->len;
  c->status = status;
  if (fmt != NULL) {
    char msg[OLC_ERROR_MESSAGE_SIZE];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if ((c->message = olc_arena__strdup(ctx->arena, msg)) == NULL)
      return OLC_E_NOMEM;
  }
  return OLC_OK;
}

void olc_strategy__stats(const olc_strategy_ctx *ctx, size_t i, const double *v, size_t n,
                         double *scratch) {
  olc_candidate_result *c = &ctx->results[i];
  size_t k;
  for (k = 0; k < n; k++)
    scratch[k] = v[k];
  c->median_us = olc_stats__median_sort(scratch, n);
  c->spread_us = olc_stats__mad(v, n, c->median_us, scratch);
  c->samples = (uint32_t)n;
}

olc_status olc_strategy__keep_runs(const olc_strategy_ctx *ctx, size_t i, const double *v,
                                   size_t n) {
  double *copy;
  if (ctx->runs == NULL || n == 0 || v == NULL)
    return OLC_OK;
  copy = olc_arena__memdup(ctx->arena, v, n * sizeof *v);
  if (copy == NULL)
    return OLC_E_NOMEM;
  ctx->runs[i].v = copy;
  ctx->runs[i].n = n;
  return OLC_OK;
}

void olc_strategy__progress(const olc_strategy_ctx *ctx, size_t i, double best_us) {
  if (ctx->progress != NULL)
    ctx->progress(ctx->progress_payload, i, ctx->list->count, best_us);
}

/* Which budget, if any, ended candidate m's measurement first. */
static void full_note_cut(const olc_strategy_ctx *ctx, const olc_timing_result *m, int deadline) {
  const olc_calibration_settings *s = ctx->settings;
  int why = OLC_CALIBRATE_CUT_NONE;
  if (deadline)
    why = OLC_CALIBRATE_CUT_TIME;
  else if (m->end == OLC_TIMING_DONE && s->max_runs_per_candidate != 0 &&
           m->samples >= s->max_runs_per_candidate &&
           (m->samples < s->min_repetitions || m->timed_us < s->min_seconds * 1e6))
    why = OLC_CALIBRATE_CUT_RUNS;
  if (why != OLC_CALIBRATE_CUT_NONE && ctx->budget_cut != NULL &&
      *ctx->budget_cut == OLC_CALIBRATE_CUT_NONE)
    *ctx->budget_cut = why;
}

/* The measurement settings of one candidate against the best median so
 * far; deadline_ns 0: none. */
static void full_params(olc_timing_params *mp, const olc_calibration_settings *s, double best,
                        uint64_t deadline_ns) {
  mp->warmup = s->warmup;
  mp->min_repetitions = s->min_repetitions;
  mp->min_seconds = s->min_seconds;
  mp->abandon_factor = s->abandon_factor;
  mp->best_us = best;
  mp->deadline_ns = deadline_ns;
  mp->max_runs = s->max_runs_per_candidate;
}

/* Records candidate i's status with the message that says how its
 * measurement ended. */
static olc_status full_record(const olc_strategy_ctx *ctx, size_t i, olc_status st,
                              olc_timing_end end, const olc_error *e, double best) {
  const olc_calibration_settings *s = ctx->settings;
  if (st != OLC_OK)
    return olc_strategy__record(ctx, i, st, "%s", e->message[0] ? e->message : olc_status_str(st));
  if (end == OLC_TIMING_ABANDONED)
    return olc_strategy__record(ctx, i, st, "abandoned: slower than %g x the best median (%.3f us)",
                                s->abandon_factor, best);
  if (end == OLC_TIMING_DEADLINE)
    return olc_strategy__record(ctx, i, st, "stopped at the time budget of %g s",
                                s->max_seconds_per_workload);
  return olc_strategy__record(ctx, i, st, NULL);
}

olc_status olc_strategy__full(const olc_strategy_ctx *ctx, size_t *reached, size_t *winner) {
  const olc_calibration_settings *s = ctx->settings;
  const size_t count = ctx->list->count;
  uint64_t start = olc_util__now_ns();
  uint64_t budget = (uint64_t)(s->max_seconds_per_workload * 1e9);
  double best = -1.0;
  size_t i;
  *reached = 0;
  *winner = count;
  for (i = 0; i < count; i++) {
    olc_candidate_result *c = &ctx->results[i];
    olc_timing_params mp;
    olc_timing_result m;
    olc_error e;
    olc_status st, rs;
    /* The first candidate is always measured in full: a workload whose
     * budget is smaller than one candidate still gets a selection. */
    if (i > 0 && olc_util__now_ns() - start >= budget) {
      if (ctx->budget_cut != NULL && *ctx->budget_cut == OLC_CALIBRATE_CUT_NONE)
        *ctx->budget_cut = OLC_CALIBRATE_CUT_TIME;
      break;
    }
    olc_strategy__progress(ctx, i, best);
    full_params(&mp, s, best, i > 0 ? start + budget : 0);
    olc_error_clear(&e);
    if (ctx->watch != NULL)
      olc_calibrate__watch_sample(ctx->watch);
    st = olc_calibrate__session_measure(ctx->session, i, &mp, &m, &e);
    if (st == OLC_OK)
      full_note_cut(ctx, &m, m.end == OLC_TIMING_DEADLINE);
    c->median_us = m.median_us;
    c->spread_us = m.mad_us;
    c->samples = m.samples;
    rs = olc_strategy__keep_runs(ctx, i, m.values, m.samples);
    olc_timing_result__free(&m);
    if (st == OLC_E_NOMEM || rs != OLC_OK)
      return OLC_E_NOMEM;
    c->abandoned = st == OLC_OK && m.end != OLC_TIMING_DONE;
    rs = full_record(ctx, i, st, m.end, &e, best);
    if (rs != OLC_OK)
      return rs;
    *reached = i + 1;
    if (st == OLC_OK && !c->abandoned && (best < 0 || m.median_us < best)) {
      best = m.median_us;
      *winner = i;
    }
    if (m.end == OLC_TIMING_DEADLINE)
      break;
  }
  olc_strategy__progress(ctx, *reached, best);
  return OLC_OK;
}
