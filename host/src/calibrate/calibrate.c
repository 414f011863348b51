/*
 * calibrate/calibrate.c - the calibrate-and-select loop (olc/host.h).
 *
 * Per workload: plugin key -> store lookup with the plugin's validator ->
 * a valid hit is selected and nothing is measured; otherwise the
 * candidates are timed by the configured strategy (strategy.h: 'race' by
 * default, or 'full'), the winner is saved with
 * its measurements through the plugin's serialized bytes, and a second
 * lookup selects it and explains the rest.
 *
 * The key is olc_plugins__make_key's: backend = the plugin's name,
 * implementation = its version, the workload's operator and model digest
 * (model = PATH / model_digest; for a workload without a model the config
 * supplies "workload:<sorted properties>", so that exact records of
 * different shapes stay apart), and the plugin's processor, thread count
 * and structure.
 *
 * Progress: options->progress is called before candidate j (0-based) of m
 * is first measured, with the best so far (< 0 before the first), and
 * once more at the end with j = the number measured (j < m when the time
 * budget stopped the workload) and the winner's median.  Workloads selected from the
 * store measure nothing and report no progress.
 */
#include "calibrate/calibrate_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/isolate.h"
#include "calibrate/measure.h"
#include "calibrate/strategy.h"
#include "util/error.h"
#include "util/options.h"

static olc_status set_status(olc_calibration *cal, olc_workload_result *r, olc_status status,
                             const char *fmt, ...) OLC_PRINTF(4, 5);

static olc_status set_status(olc_calibration *cal, olc_workload_result *r, olc_status status,
                             const char *fmt, ...) {
  char msg[OLC_ERROR_MESSAGE_SIZE];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  r->status = status;
  r->message = olc_arena__strdup(&cal->arena, msg);
  return r->message != NULL ? OLC_OK : OLC_E_NOMEM;
}

/* What one workload needs while it is being calibrated. */
typedef struct job {
  olc_calibration *cal;
  olc_workload_result *r;
  olc_host *host;
  const olc_workload_config *wc;
  const olc_calibrate_options *opt;
  const olc_calibration_settings *settings;
  olc_loaded_plugin *plugin;
  olc_plugin_workload w;
  olc_key key;
  int force_portable;
  size_t index, count;
} job;

static olc_status lookup(olc_lookup_result **out, job *j, olc_error *e) {
  olc_lookup_options lo = OLC_LOOKUP_OPTIONS_INIT;
  lo.key = &j->key;
  lo.force_portable = j->force_portable;
  lo.validate = olc_plugins__store_validator;
  lo.validate_payload = j->plugin;
  return olc_store_lookup(out, olc_plugins__store(j->host), &lo, e);
}

static void progress(job *j, size_t candidate, size_t count, double best_us) {
  if (j->opt->progress != NULL)
    j->opt->progress(j->opt->progress_payload, j->wc->name, j->index, j->count, candidate, count,
                     best_us);
}

static void strategy_progress(void *payload, size_t i, size_t count, double best_us) {
  progress(payload, i, count, best_us);
}

/* Times the candidates with the configured strategy (strategy.h), in a
 * worker process unless in-process (isolate.h). */
static olc_status measure_all(job *j, const olc_policy_list *list, olc_measure_session *ms,
                              olc_candidate_result *results, size_t *measured, size_t *winner) {
  olc_strategy_ctx ctx;
  ctx.arena = &j->cal->arena;
  ctx.settings = j->settings;
  ctx.list = list;
  ctx.session = ms;
  ctx.results = results;
  ctx.progress = strategy_progress;
  ctx.progress_payload = j;
  if (j->settings->strategy == OLC_STRATEGY_FULL)
    return olc_strategy__full(&ctx, measured, winner);
  return olc_strategy__race(&ctx, measured, winner);
}

static olc_status save_winner(job *j, const olc_policy_list *list, size_t w,
                              const olc_candidate_result *c, olc_error *e) {
  olc_measurement m[4];
  olc_save_request req = OLC_SAVE_REQUEST_INIT;
  double flops = 0;
  olc_error fe;
  size_t n = 0;
  m[n].name = "median_latency";
  m[n].value = c->median_us;
  m[n++].unit = "us";
  m[n].name = "latency_mad";
  m[n].value = c->spread_us;
  m[n++].unit = "us";
  m[n].name = "samples";
  m[n].value = (double)c->samples;
  m[n++].unit = "count";
  if (olc_plugins__flops(&flops, j->plugin, &j->w, &fe) == OLC_OK && flops > 0 &&
      c->median_us > 0) {
    m[n].name = "gflops";
    m[n].value = flops / (c->median_us * 1e3);
    m[n++].unit = "GFLOP/s";
  }
  req.key = &j->key;
  req.measurements = m;
  req.measurement_count = n;
  req.policy = list->serialized[w].data;
  req.policy_len = list->serialized[w].len;
  req.validate = olc_plugins__store_validator;
  req.validate_payload = j->plugin;
  return olc_store_save(olc_plugins__store(j->host), &req, e);
}

/* Candidates -> prepare -> measure -> unprepare -> save -> lookup. */
static olc_status calibrate_now(job *j) {
  olc_workload_result *r = j->r;
  olc_policy_list list;
  olc_candidate_result *results;
  olc_lookup_result *lr = NULL;
  olc_measure_session ms;
  size_t measured = 0, winner = 0;
  olc_error e;
  olc_status st, fatal = OLC_OK;

  memset(&list, 0, sizeof list);
  olc_error_clear(&e);
  st = olc_plugins__candidates(&list, j->plugin, &j->w, &e);
  if (st != OLC_OK)
    return set_status(j->cal, r, st, "candidates: %s", e.message);
  if (list.count == 0) {
    fatal = set_status(j->cal, r, OLC_E_PLUGIN, "plugin '%s' offered no candidates",
                       olc_plugins__name(j->plugin));
    goto done;
  }
  results = olc_arena__alloc(&j->cal->arena, list.count * sizeof *results);
  if (results == NULL) {
    fatal = OLC_E_NOMEM;
    goto done;
  }
  memset(results, 0, list.count * sizeof *results);
  r->candidates = results;
  /* The workload is prepared where it is measured: in the worker, or here
   * when measuring in-process. */
  olc_calibrate__session_init(&ms, j->host, j->plugin, &j->w, &list, j->settings,
                              j->opt->in_process || !j->settings->isolation,
                              j->opt->run_timeout_seconds > 0 ? j->opt->run_timeout_seconds
                                                              : j->settings->run_timeout_seconds);
  st = olc_calibrate__session_begin(&ms, &e);
  if (st != OLC_OK) {
    olc_calibrate__session_end(&ms);
    fatal = set_status(j->cal, r, st, "prepare: %s", e.message);
    goto done;
  }
  r->calibrated_now = 1;
  fatal = measure_all(j, &list, &ms, results, &measured, &winner);
  olc_calibrate__session_end(&ms);
  if (fatal == OLC_OK && olc_calibrate__session_note(&ms) != NULL &&
      (r->message = olc_arena__strdup(&j->cal->arena, olc_calibrate__session_note(&ms))) == NULL)
    fatal = OLC_E_NOMEM;
  r->candidate_count = measured;
  if (fatal != OLC_OK)
    goto done;
  if (winner == list.count) {
    const char *why = measured > 0 && results[0].message ? results[0].message : "none measured";
    fatal = set_status(j->cal, r, measured > 0 ? results[0].status : OLC_E_PLUGIN,
                       "no candidate could be measured: %s", why);
    goto done;
  }
  olc_error_clear(&e);
  st = save_winner(j, &list, winner, &results[winner], &e);
  if (st != OLC_OK && st != OLC_COMMITTED_UNSYNCED) {
    fatal = set_status(j->cal, r, st, "save: %s", e.message);
    goto done;
  }
  st = lookup(&lr, j, &e);
  if (st == OLC_OK || st == OLC_E_NOT_FOUND)
    olc_calibration__set_lookup(j->cal, j->index, lr);
  if (st == OLC_E_NOT_FOUND)
    fatal = set_status(j->cal, r, st, "the saved policy was not selected (see rejections)");
  else if (st != OLC_OK)
    fatal = set_status(j->cal, r, st, "lookup: %s", e.message);
done:
  olc_policy_list__free(&list, j->plugin);
  return fatal;
}

/* One workload; returns only failures that stop the whole loop. */
static olc_status run_workload(job *j) {
  olc_workload_result *r = j->r;
  const olc_workload_config *wc = j->wc;
  olc_plugin_kv *kv = NULL;
  olc_plugin_key pk;
  olc_lookup_result *lr = NULL;
  olc_error e;
  olc_status st, fatal = OLC_OK;
  int have_key = 0;

  memset(&pk, 0, sizeof pk);
  olc_error_clear(&e);
  j->plugin = olc_plugins__find(j->host, wc->backend);
  if (j->plugin == NULL)
    return set_status(j->cal, r, OLC_E_UNAVAILABLE, "plugin '%s' not loaded", wc->backend);
  if (!olc_plugins__serves(j->plugin, wc->operator_name))
    return set_status(j->cal, r, OLC_E_UNSUPPORTED, "plugin '%s' does not serve operator '%s'",
                      wc->backend, wc->operator_name);
  kv = malloc((wc->property_count ? wc->property_count : 1) * sizeof *kv);
  if (kv == NULL)
    return OLC_E_NOMEM;
  olc_plugins__workload(&j->w, kv, wc->property_count, wc);
  st = olc_plugins__key(&pk, j->plugin, &j->w, &e);
  if (st != OLC_OK) {
    fatal = set_status(j->cal, r, st, "key: %s", e.message);
    goto done;
  }
  have_key = 1;
  /* The same key as explain, prune and the plugins' lazy lookups. */
  olc_plugins__make_key(&j->key, j->plugin, &j->w, &pk);
  st = lookup(&lr, j, &e);
  if (st != OLC_OK && st != OLC_E_NOT_FOUND) {
    fatal = set_status(j->cal, r, st, "lookup: %s", e.message);
    goto done;
  }
  if (j->opt->select_only || (st == OLC_OK && !j->opt->recalibrate)) {
    olc_calibration__set_lookup(j->cal, j->index, lr);
    lr = NULL;
    if (st == OLC_E_NOT_FOUND)
      fatal = set_status(j->cal, r, st, "no stored selection for workload '%s'", wc->name);
    goto done;
  }
  olc_lookup_result_free(lr);
  lr = NULL;
  fatal = calibrate_now(j);
done:
  if (have_key)
    olc_plugin_key__free(&pk);
  free(kv);
  return fatal;
}

static olc_status check_names(const olc_config *cfg, const olc_calibrate_options *opt,
                              olc_error *err) {
  size_t i;
  for (i = 0; i < opt->workload_count; i++) {
    if (opt->workloads[i] == NULL)
      return olc_error__set(err, OLC_E_INVALID, "calibrate", "workload name %lu is null",
                            (unsigned long)i);
    if (olc_config_find_workload(cfg, opt->workloads[i]) == NULL)
      return olc_error__set(err, OLC_E_NOT_FOUND, "calibrate", "no workload '%s' in %s",
                            opt->workloads[i], olc_config_source(cfg));
  }
  return OLC_OK;
}

olc_status olc_host_calibrate(olc_calibration **out, olc_host *host,
                              const olc_calibrate_options *options, olc_error *err) {
  olc_calibrate_options full;
  const olc_calibrate_options *opt = &full;
  const olc_config *cfg;
  olc_calibration *cal;
  size_t i, n;
  olc_status st;
  if (out == NULL || host == NULL)
    return olc_error__set(err, OLC_E_INVALID, "calibrate", "no host or output pointer");
  *out = NULL;
  st = olc_options__load(&full, &olc_options__calibrate, options, "calibrate", err);
  if (st != OLC_OK)
    return st;
  cfg = olc_plugins__config(host);
  if (cfg == NULL || olc_plugins__store(host) == NULL)
    return olc_error__set(err, OLC_E_INVALID, "calibrate", "the host has no config or store");
  if (opt->workloads != NULL && (st = check_names(cfg, opt, err)) != OLC_OK)
    return st;
  n = opt->workloads != NULL ? opt->workload_count : olc_config_workload_count(cfg);
  st = olc_calibration__new(&cal, n);
  if (st != OLC_OK)
    return olc_error__set(err, st, "calibrate", "out of memory");
  for (i = 0; i < n; i++) {
    job j;
    uint64_t t0 = olc_plugins__now_ns();
    memset(&j, 0, sizeof j);
    j.cal = cal;
    j.r = &cal->results[i];
    j.host = host;
    j.wc = opt->workloads != NULL ? olc_config_find_workload(cfg, opt->workloads[i])
                                  : olc_config_workload(cfg, i);
    j.opt = opt;
    j.settings = olc_config_calibration(cfg);
    j.force_portable = opt->force_portable || olc_config_force_portable(cfg);
    j.index = i;
    j.count = n;
    st = olc_calibration__name(cal, j.r, j.wc);
    if (st == OLC_OK)
      st = run_workload(&j);
    j.r->seconds = (double)(olc_plugins__now_ns() - t0) / 1e9;
    if (st != OLC_OK) {
      olc_calibration_free(cal);
      return olc_error__set(err, st, "calibrate", "workload '%s': %s", j.wc->name,
                            olc_status_str(st));
    }
  }
  *out = cal;
  return OLC_OK;
}
