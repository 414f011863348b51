/*
 * host/key_measure.c - measuring one key: the process's one measurer, the
 * waits a select makes, and olc_host__measure_key, the one place where a
 * key is measured and its winner saved (the ini loop's calibrate and the
 * runtime's on_miss both come here), so a machine-wide measurement lock
 * wraps it here: take it, look the key up again, measure, save, release.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "calibrate/calibrate.h"
#include "host/host_int.h"
#include "util/error.h"
#include "util/platform.h"

/* How often a wait with a cancel callback polls it. */
#define POLL_MS 5

/* The process's one measurer (under the global lock). */
static int measurer_busy;

olc_status olc_host__wait(int64_t timeout_ms, uint64_t start_ns, olc_cancel_fn cancel,
                          void *cancel_payload) {
  int64_t slice = -1;
  if (cancel != NULL) {
    int stop;
    /* The caller's code runs without the lock: it may call the library. */
    olc_host__global_unlock();
    stop = cancel(cancel_payload);
    olc_host__global_lock();
    if (stop)
      return OLC_E_CANCELLED;
  }
  if (timeout_ms >= 0) {
    int64_t spent = (int64_t)((olc_util__now_ns() - start_ns) / 1000000u);
    if (spent >= timeout_ms)
      return OLC_E_TIMEOUT;
    slice = timeout_ms - spent;
  }
  if (cancel != NULL && (slice < 0 || slice > POLL_MS))
    slice = POLL_MS;
  olc_host__global_wait(slice);
  return OLC_OK;
}

olc_status olc_host__claim_measurer(int64_t timeout_ms, uint64_t start_ns, olc_cancel_fn cancel,
                                    void *cancel_payload) {
  while (measurer_busy) {
    olc_status st = olc_host__wait(timeout_ms, start_ns, cancel, cancel_payload);
    if (st != OLC_OK)
      return st;
  }
  measurer_busy = 1;
  return OLC_OK;
}

void olc_host__release_measurer(void) {
  measurer_busy = 0;
  olc_host__global_broadcast();
}

static void set_outcome(olc_host_measure *m, olc_status st, const char *fmt, ...) OLC_PRINTF(3, 4);

static void set_outcome(olc_host_measure *m, olc_status st, const char *fmt, ...) {
  char msg[OLC_ERROR_MESSAGE_SIZE];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  m->status = st;
  m->message = olc_arena__strdup(m->arena, msg);
  if (m->message == NULL)
    m->message = "out of memory";
}

/* The budget that cut a measurement short, as saved with its winner. */
typedef struct budget_mark {
  const char *kind; /* NULL: none; else "total", "workload" or "runs" */
  double limit;
} budget_mark;

static olc_status save_winner(olc_host_measure *m, const olc_calibrate_outcome *out,
                              const budget_mark *mark, olc_error *e) {
  const olc_candidate_result *c = &out->candidates[out->winner];
  const double first_median_us = out->first_median_us;
  olc_measurement ms[12];
  olc_save_request req = OLC_SAVE_REQUEST_INIT;
  double flops = 0;
  olc_error fe;
  size_t n = 0;
  ms[n].name = OLC_MEASUREMENT_MEDIAN;
  ms[n].value = c->median_us;
  ms[n++].unit = "us";
  ms[n].name = "latency_mad";
  ms[n].value = c->spread_us;
  ms[n++].unit = "us";
  ms[n].name = "samples";
  ms[n].value = (double)c->samples;
  ms[n++].unit = "count";
  if (first_median_us >= 0) {
    /* On the record, so that a later selection can tell the speedup. */
    ms[n].name = OLC_MEASUREMENT_FIRST_MEDIAN;
    ms[n].value = first_median_us;
    ms[n++].unit = "us";
  }
  /* Whether the winner passed the numerical check: a later selection says
   * "checked" or "not checked" from its record. */
  ms[n].name = OLC_MEASUREMENT_NUMERICAL_CHECK;
  ms[n].value = c->checked ? 1.0 : 0.0;
  ms[n++].unit = "flag";
  /* Warm (one instance) or cold: how the latency was measured. */
  ms[n].name = OLC_MEASUREMENT_ROTATING_COUNT;
  ms[n].value = (double)out->rotate_count;
  ms[n++].unit = "count";
  if (out->rotate_count > 1) {
    ms[n].name = OLC_MEASUREMENT_ROTATING_BYTES;
    ms[n].value = (double)out->rotate_bytes;
    ms[n++].unit = "bytes";
  }
  if (olc_plugins__flops(&flops, m->plugin, m->workload, &fe) == OLC_OK && flops > 0 &&
      c->median_us > 0) {
    ms[n].name = "gflops";
    ms[n].value = flops / (c->median_us * 1e3);
    ms[n++].unit = "GFLOP/s";
  }
  if (out->speedup_low >= 0) {
    /* How sure the pick is: a later selection headlines the speedup only
     * when the intervals are apart (above 1). */
    ms[n].name = OLC_MEASUREMENT_SPEEDUP_LOW;
    ms[n].value = out->speedup_low;
    ms[n++].unit = "x";
  }
  if (mark->kind != NULL) {
    /* Served as stored; measured again with --refine. */
    ms[n].name = OLC_MEASUREMENT_BUDGET;
    ms[n].value = mark->limit;
    ms[n++].unit = mark->kind;
  }
  if (out->contended.signal != NULL) {
    /* Provisional like a budget-cut record: --refine, or an on_miss
     * select on a quiet machine, measures it again. */
    ms[n].name = OLC_MEASUREMENT_CONTENDED;
    ms[n].value = out->contended.figure;
    ms[n++].unit = out->contended.signal;
  }
  req.key = m->key;
  req.measurements = ms;
  req.measurement_count = n;
  req.policy = c->policy != NULL ? (const void *)c->policy : "";
  req.policy_len = c->policy_len;
  req.validate = olc_plugins__store_validator;
  req.validate_payload = m->plugin;
  return olc_store_save(m->host->store, &req, e);
}

/* The lookup after a save, or before measuring: the outcome's selection. */
static void final_lookup(olc_host_measure *m, const char *miss) {
  olc_error e;
  olc_status st =
      olc_host__lookup(&m->lookup, m->host, m->plugin, m->key, m->force_portable, 0, &e);
  if (st == OLC_OK)
    m->status = OLC_OK;
  else if (st == OLC_E_NOT_FOUND)
    set_outcome(m, st, "%s", miss);
  else
    set_outcome(m, st, "lookup: %s", e.message);
}

/* The settings to measure with: the total budget's remainder bounds the
 * workload's.  *total_bound = 1 when it is the tighter bound.  OLC_E_LIMIT
 * (m's outcome set) when the total budget is spent. */
static olc_status budget_settings(olc_calibration_settings *eff, int *total_bound,
                                  olc_host_measure *m) {
  const olc_host_budget *b = m->budget;
  double left;
  *eff = *m->settings;
  *total_bound = 0;
  if (m->host->contention_env > 0)
    eff->contention = m->host->contention_env - 1;
  if (b == NULL || !(b->total_seconds > 0))
    return OLC_OK;
  left = b->total_seconds - (double)b->spent_ns / 1e9;
  if (left <= 0) {
    set_outcome(m, OLC_E_LIMIT,
                "not measured: the total budget of %g s ([calibration] max_seconds_total) is "
                "spent",
                b->total_seconds);
    return OLC_E_LIMIT;
  }
  if (left < eff->max_seconds_per_workload) {
    eff->max_seconds_per_workload = left;
    *total_bound = 1;
  }
  return OLC_OK;
}

static void budget_mark_of(budget_mark *mark, const olc_calibrate_outcome *out,
                           const olc_calibration_settings *eff, const olc_host_measure *m,
                           int total_bound) {
  mark->kind = NULL;
  mark->limit = 0;
  if (out->budget_cut == OLC_CALIBRATE_CUT_RUNS) {
    mark->kind = "runs";
    mark->limit = (double)eff->max_runs_per_candidate;
  } else if (out->budget_cut == OLC_CALIBRATE_CUT_TIME) {
    mark->kind = total_bound ? "total" : "workload";
    mark->limit = total_bound ? m->budget->total_seconds : eff->max_seconds_per_workload;
  }
}

/* The outcome's note, with what the machine's load did to the
 * measurement when it did something: how often it was measured, how long
 * it waited, and whether the winner is provisional. */
static const char *contention_note(olc_host_measure *m, const olc_calibrate_outcome *out) {
  char msg[OLC_ERROR_MESSAGE_SIZE];
  const char *s;
  if (out->contended.signal == NULL && out->measures <= 1)
    return out->note;
  if (out->contended.signal == NULL)
    snprintf(msg, sizeof msg,
             "%s%sthe machine was busy: measured %u times, %.1f s waited for a quiet machine",
             out->note != NULL ? out->note : "", out->note != NULL ? "; " : "",
             (unsigned)out->measures, out->waited_seconds);
  else
    snprintf(msg, sizeof msg,
             "%s%sthe machine was busy (%s %.2f) in %u measurement%s (%.1f s waited): the "
             "winner is provisional, measured again by olc calibrate --refine",
             out->note != NULL ? out->note : "", out->note != NULL ? "; " : "",
             out->contended.signal, out->contended.figure, (unsigned)out->measures,
             out->measures == 1 ? "" : "s", out->waited_seconds);
  s = olc_arena__strdup(m->arena, msg);
  return s != NULL ? s : out->note;
}

/* Candidates timed by the calibrate module; the winner saved. */
static olc_status measure_now(olc_host_measure *m) {
  olc_calibration_settings eff;
  olc_calibrate_request req;
  olc_calibrate_outcome out;
  budget_mark mark;
  olc_error e;
  olc_status st;
  uint64_t t0;
  int total_bound;
  if (budget_settings(&eff, &total_bound, m) != OLC_OK)
    return OLC_OK;
  memset(&req, 0, sizeof req);
  olc_host__isolate_plugin(&req.target, m->host, m->plugin);
  req.workload = m->workload;
  req.settings = &eff;
  req.in_process = m->in_process;
  req.run_timeout_seconds = m->run_timeout_seconds;
  req.arena = m->arena;
  req.progress = m->progress;
  req.progress_payload = m->progress_payload;
  req.keep_samples = m->keep_samples;
  req.incumbent = m->incumbent;
  req.incumbent_len = m->incumbent_len;
  t0 = olc_util__now_ns();
  st = olc_calibrate__workload(&out, &req);
  if (m->budget != NULL)
    m->budget->spent_ns += olc_util__now_ns() - t0;
  if (st != OLC_OK)
    return st;
  m->candidates = out.candidates;
  m->candidate_count = out.reached;
  m->runs = out.runs;
  m->winner = out.status == OLC_OK ? out.winner : out.reached;
  m->measured = out.measured;
  m->note = contention_note(m, &out);
  if (out.status != OLC_OK) {
    m->status = out.status;
    m->message = out.message;
    return OLC_OK;
  }
  if (out.winner >= out.reached) { /* calibrate.h: never with OLC_OK; nothing to save */
    m->winner = out.reached;
    set_outcome(m, OLC_E_INTERNAL, "no candidate won");
    return OLC_OK;
  }
  if ((m->incumbent != NULL && out.winner == 0) || m->no_save) {
    /* A verified policy that still wins, or a dry run: nothing to save. */
    m->kept = m->incumbent != NULL && out.winner == 0;
    return OLC_OK;
  }
  olc_error_clear(&e);
  budget_mark_of(&mark, &out, &eff, m, total_bound);
  st = save_winner(m, &out, &mark, &e);
  if (st != OLC_OK && st != OLC_COMMITTED_UNSYNCED) {
    set_outcome(m, st, "save: %s", e.message);
    return OLC_OK;
  }
  olc_host__changed(m->host);
  final_lookup(m, "the saved policy was not selected (see rejections)");
  return OLC_OK;
}

/* Looks again (when asked), else measures: what olc_host__measure_key
 * does holding the measurement lock. */
static olc_status look_again_or_measure(olc_host_measure *m) {
  olc_host *h = m->host;
  if (m->look_again) {
    /* Another thread, host or process may have saved it meanwhile (the
     * lookup re-checks the store file). */
    final_lookup(m, "");
    if (m->status != OLC_E_NOT_FOUND) {
      m->measured_elsewhere = m->status == OLC_OK;
      return OLC_OK;
    }
    olc_lookup_result_free(m->lookup);
    m->lookup = NULL;
    m->status = OLC_OK;
    m->message = NULL;
  }
  atomic_fetch_add(&h->rt.measurements, 1);
  if (h->measure_hook != NULL)
    h->measure_hook(h->measure_hook_payload, m->name);
  return measure_now(m);
}

/* A store that cannot be written (a read-only mount, permissions, a
 * network file system) fails the key before anything is measured, and
 * before the measurement lock is waited for: the winner could not be kept.
 * A store in read-only mode keeps it in memory instead. */
static int store_refuses(olc_host_measure *m) {
  olc_error e;
  olc_status st;
  if (olc_store_is_read_only(m->host->store))
    return 0;
  olc_error_clear(&e);
  st = olc_store_writable(m->host->store, NULL, &e);
  if (st != OLC_E_READ_ONLY)
    return 0; /* writable, persistence off, or the probe failed: the save says */
  set_outcome(m, st, "nothing measured: %s", e.message);
  return 1;
}

void olc_host__measure_request(olc_host_measure *m, olc_host_slot *s, const olc_plugin_workload *w,
                               const char *name, const olc_calibration_settings *settings,
                               int force_portable, int in_process, olc_host_budget *budget,
                               olc_arena *arena) {
  memset(m, 0, sizeof *m);
  m->host = s->host;
  m->plugin = s->plugin;
  m->workload = w;
  m->key = &s->key.key;
  m->name = name;
  m->settings = settings;
  m->force_portable = force_portable;
  m->in_process = in_process;
  m->look_again = 1;
  m->budget = budget;
  m->arena = arena;
}

olc_status olc_host__measure_key(olc_host_measure *m) {
  olc_persist_mlock *lock = NULL;
  olc_status st;
  olc_calibration_settings eff;
  int total_bound;
  m->status = OLC_OK;
  m->lookup = NULL;
  /* A spent total budget measures nothing: no lock taken, no wait. */
  if (budget_settings(&eff, &total_bound, m) != OLC_OK || (!m->no_save && store_refuses(m)))
    return OLC_OK;
  /* One measurer per machine: the processes measuring here take the lock
   * in turn, one key at a time (host_int.h, key_measure_lock.c). */
  st = olc_host__mlock_take(&lock, m);
  if (st == OLC_E_CANCELLED || st == OLC_E_TIMEOUT) {
    set_outcome(m, st, "%s while waiting for the measurement lock",
                st == OLC_E_CANCELLED ? "cancelled" : "timed out");
    return OLC_OK;
  }
  if (st != OLC_OK)
    return st;
  st = look_again_or_measure(m);
  olc_host__mlock_give(lock);
  return st;
}
