/*
 * host/select.c - the calibrate-and-select path for one workload
 * (host_int.h): plugin key -> store lookup with the plugin's validator ->
 * a valid hit is selected and nothing is measured; otherwise the calibrate
 * module times the candidates, the winner is saved with its measurements
 * through the plugin's serialized bytes, and a second lookup selects it
 * and explains the rest.
 *
 * The key is olc_host__make_key's: backend = the plugin's name,
 * implementation = its version, the workload's operator and model digest
 * (for an ini workload: model = PATH / model_digest, or for one without a
 * model "workload:<sorted properties>", so that exact records of different
 * shapes stay apart), and the plugin's processor, thread count and
 * structure.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/calibrate.h"
#include "host/host_int.h"
#include "util/error.h"

/* What one workload needs while it is selected. */
typedef struct job {
  olc_calibration *cal;
  size_t index;
  olc_workload_result *r;
  olc_host *host;
  const olc_host_workload *w;
  const olc_host_select_params *p;
  olc_loaded_plugin *plugin;
  olc_key key;
} job;

static olc_status set_status(job *j, olc_status status, const char *fmt, ...) OLC_PRINTF(3, 4);

static olc_status set_status(job *j, olc_status status, const char *fmt, ...) {
  char msg[OLC_ERROR_MESSAGE_SIZE];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  j->r->status = status;
  j->r->message = olc_arena__strdup(&j->cal->arena, msg);
  return j->r->message != NULL ? OLC_OK : OLC_E_NOMEM;
}

static olc_status lookup(olc_lookup_result **out, job *j, olc_error *e) {
  olc_lookup_options lo = OLC_LOOKUP_OPTIONS_INIT;
  lo.key = &j->key;
  lo.force_portable = j->p->force_portable;
  lo.validate = olc_plugins__store_validator;
  lo.validate_payload = j->plugin;
  return olc_store_lookup(out, j->host->store, &lo, e);
}

static olc_status save_winner(job *j, const olc_candidate_result *c, double first_median_us,
                              olc_error *e) {
  olc_measurement m[5];
  olc_save_request req = OLC_SAVE_REQUEST_INIT;
  double flops = 0;
  olc_error fe;
  size_t n = 0;
  m[n].name = OLC_MEASUREMENT_MEDIAN;
  m[n].value = c->median_us;
  m[n++].unit = "us";
  m[n].name = "latency_mad";
  m[n].value = c->spread_us;
  m[n++].unit = "us";
  m[n].name = "samples";
  m[n].value = (double)c->samples;
  m[n++].unit = "count";
  if (first_median_us >= 0) {
    /* On the record, so that a later selection can tell the speedup. */
    m[n].name = OLC_MEASUREMENT_FIRST_MEDIAN;
    m[n].value = first_median_us;
    m[n++].unit = "us";
  }
  if (olc_plugins__flops(&flops, j->plugin, &j->w->plugin, &fe) == OLC_OK && flops > 0 &&
      c->median_us > 0) {
    m[n].name = "gflops";
    m[n].value = flops / (c->median_us * 1e3);
    m[n++].unit = "GFLOP/s";
  }
  req.key = &j->key;
  req.measurements = m;
  req.measurement_count = n;
  req.policy = c->policy != NULL ? (const void *)c->policy : "";
  req.policy_len = c->policy_len;
  req.validate = olc_plugins__store_validator;
  req.validate_payload = j->plugin;
  return olc_store_save(j->host->store, &req, e);
}

/* Saves the winner and selects again. */
static olc_status save_and_select(job *j, const olc_candidate_result *winner,
                                  double first_median_us) {
  olc_lookup_result *lr = NULL;
  olc_error e;
  olc_status st;
  olc_error_clear(&e);
  st = save_winner(j, winner, first_median_us, &e);
  if (st != OLC_OK && st != OLC_COMMITTED_UNSYNCED)
    return set_status(j, st, "save: %s", e.message);
  st = lookup(&lr, j, &e);
  if (st == OLC_OK || st == OLC_E_NOT_FOUND)
    olc_calibration__set_lookup(j->cal, j->index, lr);
  if (st == OLC_E_NOT_FOUND)
    return set_status(j, st, "the saved policy was not selected (see rejections)");
  if (st != OLC_OK)
    return set_status(j, st, "lookup: %s", e.message);
  return OLC_OK;
}

/* Measures (calibrate module), then saves the winner and selects. */
static olc_status calibrate_now(job *j) {
  olc_workload_result *r = j->r;
  olc_calibrate_request req;
  olc_calibrate_outcome out;
  olc_status st;
  memset(&req, 0, sizeof req);
  olc_host__isolate_plugin(&req.target, j->host, j->plugin);
  req.workload = &j->w->plugin;
  req.settings = j->p->settings;
  req.in_process = j->p->in_process;
  req.run_timeout_seconds = j->p->run_timeout_seconds;
  req.arena = &j->cal->arena;
  req.progress = j->p->progress;
  req.progress_payload = j->p->progress_payload;
  st = olc_calibrate__workload(&out, &req);
  if (st != OLC_OK)
    return st;
  r->candidates = out.candidates;
  r->candidate_count = out.reached;
  r->calibrated_now = out.measured;
  if (out.note != NULL)
    r->message = out.note;
  if (out.status != OLC_OK) {
    r->status = out.status;
    r->message = out.message;
    return OLC_OK;
  }
  return save_and_select(j, &out.candidates[out.winner], out.first_median_us);
}

/* The plugin that serves the workload, or NULL with the result set. */
static olc_loaded_plugin *find_plugin(job *j, olc_status *fatal) {
  const olc_host_workload *w = j->w;
  olc_loaded_plugin *p = olc_plugins__find(j->host->plugins, w->backend);
  char why[OLC_ERROR_MESSAGE_SIZE];
  *fatal = OLC_OK;
  if (p == NULL)
    *fatal =
        set_status(j, olc_host__missing_plugin(why, sizeof why, j->host, w->backend), "%s", why);
  else if (!olc_plugins__serves(p, w->plugin.operator_name)) {
    *fatal = set_status(j, OLC_E_UNSUPPORTED, "plugin '%s' does not serve operator '%s'",
                        w->backend, w->plugin.operator_name);
    p = NULL;
  }
  return p;
}

olc_status olc_host__select(olc_calibration *cal, size_t i, olc_host *host,
                            const olc_host_workload *w, const olc_host_select_params *p) {
  job j;
  olc_plugin_key pk;
  olc_lookup_result *lr = NULL;
  olc_error e;
  olc_status st, fatal = OLC_OK;
  memset(&j, 0, sizeof j);
  j.cal = cal;
  j.index = i;
  j.r = &cal->results[i];
  j.host = host;
  j.w = w;
  j.p = p;
  j.plugin = find_plugin(&j, &fatal);
  if (j.plugin == NULL)
    return fatal;
  olc_error_clear(&e);
  st = olc_plugins__key(&pk, j.plugin, &w->plugin, &e);
  if (st != OLC_OK)
    return set_status(&j, st, "key: %s", e.message);
  /* The same key as explain, prune and the plugins' lazy lookups. */
  olc_host__make_key(&j.key, j.plugin, &w->plugin, &pk);
  st = lookup(&lr, &j, &e);
  if (st != OLC_OK && st != OLC_E_NOT_FOUND) {
    fatal = set_status(&j, st, "lookup: %s", e.message);
  } else if (p->select_only || (st == OLC_OK && !p->recalibrate)) {
    olc_calibration__set_lookup(cal, i, lr);
    lr = NULL;
    if (st == OLC_E_NOT_FOUND)
      fatal = set_status(&j, st, "no stored selection for workload '%s'", w->name);
  } else {
    olc_lookup_result_free(lr);
    lr = NULL;
    fatal = calibrate_now(&j);
  }
  olc_lookup_result_free(lr);
  olc_plugin_key__free(&pk);
  return fatal;
}
