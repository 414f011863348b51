/*
 * calibrate/calibrate.c - measuring the candidates of one workload
 * (calibrate.h): the plugin's candidates, a measure session (in a worker
 * unless in-process), the configured strategy, the winner.
 */
#include "calibrate/calibrate.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/rotate.h"
#include "calibrate/stats.h"
#include "calibrate/strategy.h"
#include "util/error.h"
#include "util/platform.h"

static olc_status fail(olc_calibrate_outcome *out, const olc_calibrate_request *req,
                       olc_status status, const char *fmt, ...) OLC_PRINTF(4, 5);

/* The workload's failure: status and a formatted message in the arena. */
static olc_status fail(olc_calibrate_outcome *out, const olc_calibrate_request *req,
                       olc_status status, const char *fmt, ...) {
  char msg[OLC_ERROR_MESSAGE_SIZE];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  out->status = status;
  out->message = olc_arena__strdup(req->arena, msg);
  return out->message != NULL ? OLC_OK : OLC_E_NOMEM;
}

/* Measurements of one workload at most: the first, and the ones after
 * waits for a quiet machine. */
#define MAX_MEASURES 3u
/* How often a wait for a quiet machine looks, and how long it pauses
 * when the load source tells nothing. */
#define QUIET_POLL_MS 200u
#define BLIND_PAUSE_MS 1000u

/* Times the candidates with the configured strategy. */
static olc_status measure_all(olc_calibrate_outcome *out, const olc_calibrate_request *req,
                              const olc_calibration_settings *settings, const olc_policy_list *list,
                              olc_measure_session *ms, olc_load_watch *watch) {
  olc_strategy_ctx ctx;
  ctx.arena = req->arena;
  ctx.settings = settings;
  ctx.list = list;
  ctx.session = ms;
  ctx.results = out->candidates;
  ctx.runs = out->runs;
  ctx.progress = req->progress;
  ctx.progress_payload = req->progress_payload;
  ctx.budget_cut = &out->budget_cut;
  ctx.watch = watch;
  if (settings->strategy == OLC_STRATEGY_FULL)
    return olc_strategy__full(&ctx, &out->reached, &out->winner);
  return olc_strategy__race(&ctx, &out->reached, &out->winner);
}

/* Waits until the load source says the machine is quiet, leaving `need`
 * ns before end_ns to measure again.  1: quiet (or the source tells
 * nothing and one pause was made), 0: the budget ended first. */
static int wait_quiet(olc_calibrate_outcome *out, uint32_t threads, uint64_t end_ns,
                      uint64_t need) {
  uint64_t t0 = olc_util__now_ns();
  int quiet = 0;
  for (;;) {
    uint64_t now = olc_util__now_ns();
    int q;
    if (now + need + (uint64_t)QUIET_POLL_MS * 1000000u >= end_ns)
      break;
    q = olc_calibrate__load_quiet(threads, QUIET_POLL_MS);
    if (q < 0) {
      /* Nothing to watch: one pause, then the spreads judge again. */
      if (olc_util__now_ns() + need + (uint64_t)BLIND_PAUSE_MS * 1000000u < end_ns) {
        olc_calibrate__load_nap(BLIND_PAUSE_MS);
        quiet = 1;
      }
      break;
    }
    if (q > 0) {
      quiet = 1;
      break;
    }
  }
  out->waited_seconds += (double)(olc_util__now_ns() - t0) / 1e9;
  return quiet;
}

/* Forgets a measurement's results before the candidates are measured
 * again. */
static void forget(olc_calibrate_outcome *out, const olc_policy_list *list) {
  memset(out->candidates, 0, list->count * sizeof *out->candidates);
  if (out->runs != NULL)
    memset(out->runs, 0, list->count * sizeof *out->runs);
  out->reached = 0;
  out->winner = list->count;
  out->budget_cut = OLC_CALIBRATE_CUT_NONE;
}

/* The spreads of the winner and the reference (the first candidate). */
static void watch_spreads(olc_load_watch *w, const olc_calibrate_outcome *out) {
  const olc_candidate_result *c;
  if (out->winner < out->reached) {
    c = &out->candidates[out->winner];
    olc_calibrate__watch_spread(w, c->median_us, c->spread_us, c->samples);
  }
  if (out->reached > 0 && out->candidates[0].status == OLC_OK && !out->candidates[0].abandoned) {
    c = &out->candidates[0];
    olc_calibrate__watch_spread(w, c->median_us, c->spread_us, c->samples);
  }
}

/* The contention mode to measure with.  The test-hook build lets
 * $OLC_CONTENTION override it for every host, those that ignore the
 * environment included: the suite runs on busy machines, and only the
 * tests about contention watch the load (tests/CMakeLists.txt). */
static int contention_mode(const olc_calibration_settings *s) {
#ifdef OLC_TEST_HOOKS
  const char *v = getenv("OLC_CONTENTION");
  if (v != NULL && strcmp(v, "ignore") == 0)
    return OLC_CONTENTION_IGNORE;
  if (v != NULL && strcmp(v, "mark") == 0)
    return OLC_CONTENTION_MARK;
  if (v != NULL && strcmp(v, "wait") == 0)
    return OLC_CONTENTION_WAIT;
#endif
  return s->contention;
}

/*
 * Measures the candidates, watching the load (unless the contention mode
 * is ignore): a measurement the machine was busy for is repeated after a
 * wait for a quiet machine, within the workload's budget, up to
 * MAX_MEASURES times; the last one's verdict stays in out->contended.
 */
static olc_status measure_watched(olc_calibrate_outcome *out, const olc_calibrate_request *req,
                                  const olc_policy_list *list, olc_measure_session *ms) {
  const olc_calibration_settings *s = req->settings;
  olc_calibration_settings eff = *s;
  const uint64_t start = olc_util__now_ns();
  const uint64_t end = start + (uint64_t)(s->max_seconds_per_workload * 1e9);
  const int mode = contention_mode(s);
  olc_load_watch watch;
  olc_status st;
  for (;;) {
    uint64_t t0 = olc_util__now_ns(), now;
    if (out->measures > 0)
      forget(out, list);
    out->measures++;
    if (mode == OLC_CONTENTION_IGNORE)
      return measure_all(out, req, &eff, list, ms, NULL);
    olc_calibrate__watch_begin(&watch, req->target.threads);
    st = measure_all(out, req, &eff, list, ms, &watch);
    if (st != OLC_OK)
      return st;
    olc_calibrate__watch_sample(&watch);
    watch_spreads(&watch, out);
    olc_calibrate__watch_verdict(&out->contended, &watch);
    if (out->contended.signal == NULL || mode != OLC_CONTENTION_WAIT ||
        out->measures >= MAX_MEASURES || out->winner >= list->count)
      return OLC_OK;
    now = olc_util__now_ns();
    if (!wait_quiet(out, req->target.threads, end, now - t0))
      return OLC_OK;
    now = olc_util__now_ns();
    if (now >= end)
      return OLC_OK;
    eff.max_seconds_per_workload = (double)(end - now) / 1e9;
  }
}

/* Prepares, measures and unprepares; the session's note joins out. */
static olc_status run_session(olc_calibrate_outcome *out, const olc_calibrate_request *req,
                              const olc_policy_list *list) {
  olc_measure_session ms;
  olc_check_spec spec;
  olc_error e;
  olc_status st, fatal;
  size_t i;
  /* The workload is prepared where it is measured: in the worker, or here
   * when measuring in-process. */
  olc_calibrate__session_init(&ms, &req->target, req->workload, list, req->settings,
                              req->in_process || !req->settings->isolation,
                              req->run_timeout_seconds > 0 ? req->run_timeout_seconds
                                                           : req->settings->run_timeout_seconds);
  olc_check__spec(&spec, req->target.plugin, req->workload, req->settings, list->serialized[0].data,
                  list->serialized[0].len);
  olc_calibrate__session_check(&ms, &spec);
  olc_calibrate__session_rotate(&ms, out->rotate_count);
  olc_error_clear(&e);
  st = olc_calibrate__session_begin(&ms, &e);
  if (st != OLC_OK) {
    olc_calibrate__session_end(&ms);
    return fail(out, req, st, "prepare: %s", e.message);
  }
  out->measured = 1;
  fatal = measure_watched(out, req, list, &ms);
  for (i = 0; i < list->count; i++)
    out->candidates[i].checked = olc_calibrate__session_checked(&ms, i);
  olc_calibrate__session_end(&ms);
  if (fatal == OLC_OK && olc_calibrate__session_note(&ms) != NULL &&
      (out->note = olc_arena__strdup(req->arena, olc_calibrate__session_note(&ms))) == NULL)
    fatal = OLC_E_NOMEM;
  return fatal;
}

/* Puts the request's incumbent first in list (validated and deserialized
 * by the plugin), the candidates with the same bytes dropped: verifying a
 * stored policy races it in the first candidate's place, so a tie keeps
 * it.  OLC_OK, OLC_E_NOMEM, or the plugin's rejection (in e). */
static olc_status prepend_incumbent(olc_policy_list *list, const olc_calibrate_request *req,
                                    olc_error *e) {
  void **policies = malloc((list->count + 1) * sizeof *policies);
  olc_buf *serialized = calloc(list->count + 1, sizeof *serialized);
  void *handle = NULL;
  olc_status st = policies != NULL && serialized != NULL ? OLC_OK : OLC_E_NOMEM;
  size_t i, n = 1;
  if (st == OLC_OK)
    st = olc_plugins__validate(&handle, req->target.plugin, req->incumbent, req->incumbent_len, e);
  if (st == OLC_OK)
    st = olc_buf__append(&serialized[0], req->incumbent, req->incumbent_len);
  if (st != OLC_OK) {
    if (handle != NULL)
      olc_plugins__release(req->target.plugin, handle);
    if (serialized != NULL)
      olc_buf__free(&serialized[0]);
    free(policies);
    free(serialized);
    return st;
  }
  policies[0] = handle;
  for (i = 0; i < list->count; i++) {
    olc_buf *b = &list->serialized[i];
    if (b->len == req->incumbent_len && memcmp(b->data, req->incumbent, b->len) == 0) {
      olc_plugins__release(req->target.plugin, list->policies[i]);
      olc_buf__free(b);
      continue;
    }
    policies[n] = list->policies[i];
    serialized[n++] = *b;
  }
  free(list->policies);
  free(list->serialized);
  list->policies = policies;
  list->serialized = serialized;
  list->count = n;
  return OLC_OK;
}

static double max_of(const double *v, size_t n) {
  double m = v[0];
  size_t i;
  for (i = 1; i < n; i++)
    if (v[i] > m)
      m = v[i];
  return m;
}

/* The low end of the winner's speedup over the first candidate: the
 * first's median less two standard errors over the winner's plus two (the
 * tie rule's two); < 0 when the winner is the first or either has no
 * figures. */
static double speedup_low(const olc_calibrate_outcome *out) {
  const olc_candidate_result *f, *w;
  double lo, hi;
  if (out->winner == 0 || out->winner >= out->reached || out->first_median_us < 0)
    return -1;
  f = &out->candidates[0];
  w = &out->candidates[out->winner];
  if (f->samples == 0 || w->samples == 0 || !(w->median_us > 0))
    return -1;
  lo = f->median_us - 2.0 * olc_stats__median_se(f->spread_us, f->samples);
  hi = w->median_us + 2.0 * olc_stats__median_se(w->spread_us, w->samples);
  /* With a few runs the normal approximation is loose (two runs, one of
   * them preempted, give an interval below zero): the median's interval
   * lies within the runs seen, which is what a distribution-free interval
   * of the median from so few runs is. */
  if (out->runs != NULL && out->runs[0].n > 0 && out->runs[out->winner].n > 0) {
    double fastest = olc_stats__min(out->runs[0].v, out->runs[0].n);
    double slowest = max_of(out->runs[out->winner].v, out->runs[out->winner].n);
    if (lo < fastest)
      lo = fastest;
    if (hi > slowest)
      hi = slowest;
  }
  return lo > 0 && hi > 0 ? lo / hi : 0.0;
}

olc_status olc_calibrate__workload(olc_calibrate_outcome *out, const olc_calibrate_request *req) {
  olc_policy_list list;
  olc_error e;
  olc_status st;
  memset(out, 0, sizeof *out);
  out->first_median_us = -1;
  out->speedup_low = -1;
  memset(&list, 0, sizeof list);
  olc_error_clear(&e);
  st = olc_plugins__candidates(&list, req->target.plugin, req->workload, &e);
  if (st != OLC_OK)
    return fail(out, req, st, "candidates: %s", e.message);
  if (req->incumbent != NULL && (st = prepend_incumbent(&list, req, &e)) != OLC_OK) {
    st = st == OLC_E_NOMEM ? st : fail(out, req, st, "stored policy: %s", e.message);
    goto done;
  }
  if (list.count == 0) {
    st = fail(out, req, OLC_E_PLUGIN, "plugin '%s' offered no candidates",
              olc_plugins__name(req->target.plugin));
    goto done;
  }
  out->candidates = olc_arena__alloc(req->arena, list.count * sizeof *out->candidates);
  if (out->candidates == NULL) {
    st = OLC_E_NOMEM;
    goto done;
  }
  memset(out->candidates, 0, list.count * sizeof *out->candidates);
  /* Kept in any case: the speedup's interval needs the run times of the
   * first candidate and the winner; handed out with keep_samples only. */
  out->runs = olc_arena__alloc(req->arena, list.count * sizeof *out->runs);
  if (out->runs == NULL) {
    st = OLC_E_NOMEM;
    goto done;
  }
  memset(out->runs, 0, list.count * sizeof *out->runs);
  out->winner = list.count;
  olc_error_clear(&e);
  st = olc_calibrate__rotation(&out->rotate_count, &out->rotate_bytes, req->target.plugin,
                               req->workload, req->settings->rotating_buffer_mb, &e);
  if (st != OLC_OK) {
    st = fail(out, req, st, "%s", e.message);
    goto done;
  }
  st = run_session(out, req, &list);
  if (st != OLC_OK || out->status != OLC_OK)
    goto done;
  if (out->reached > 0 && out->candidates[0].status == OLC_OK && out->candidates[0].samples > 0)
    out->first_median_us = out->candidates[0].median_us;
  out->speedup_low = speedup_low(out);
  if (out->winner >= list.count) {
    /* The first failure says why; a workload without a winner never
     * reports OLC_OK (its caller would save candidates[winner]). */
    const olc_candidate_result *why = NULL;
    size_t i;
    for (i = 0; i < out->reached && why == NULL; i++)
      if (out->candidates[i].status != OLC_OK)
        why = &out->candidates[i];
    out->winner = list.count;
    if (why != NULL)
      st = fail(out, req, why->status, "no candidate could be measured: %s",
                why->message != NULL ? why->message : olc_status_str(why->status));
    else
      st = fail(out, req, out->reached > 0 ? OLC_E_INTERNAL : OLC_E_PLUGIN,
                "no candidate could be measured: %s",
                out->reached > 0 ? "none was left in the race" : "none measured");
  }
done:
  if (!req->keep_samples)
    out->runs = NULL;
  olc_policy_list__free(&list, req->target.plugin);
  return st;
}
