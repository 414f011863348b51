/*
 * host/ini_workload.c - the calibrate-and-select path of one ini workload
 * (host_int.h), one user of the runtime's path: the section becomes an
 * olc_workload, bound like one described in code (the same checks, key and
 * identity), looked up scoped to the workload with the plugin's validator;
 * a valid hit is selected and nothing is measured; otherwise the key is
 * measured where every measurement happens (key_measure.c: the process's one
 * measurer, the winner saved, a second lookup that selects it and
 * explains the rest).  The result keeps the details the CLI prints
 * (candidates, rejections, the records of other workloads counted).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host_int.h"
#include "util/error.h"

/* What one workload needs while it is selected. */
typedef struct job {
  olc_calibration *cal;
  size_t index;
  olc_workload_result *r;
  olc_host *host;
  const olc_workload_config *wc;
  const olc_host_select_params *p;
  olc_binding *b;
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

/* The section as a workload described in code. */
static void as_workload(olc_workload *w, const olc_workload_config *wc) {
  olc_workload init = OLC_WORKLOAD_INIT;
  *w = init;
  w->backend = wc->backend;
  w->operator_name = wc->operator_name;
  w->properties = wc->properties;
  w->property_count = wc->property_count;
  w->model_digest = olc_host__config_model(wc);
  w->name = wc->name;
}

/* The host's ini file when the job's workload is one of its
 * [workload.NAME] sections (not a recorded one), else NULL. */
static const char *ini_file(const job *j) {
#ifdef OLC_WITHOUT_CONFIG
  (void)j;
  return NULL;
#else
  if (j->host->config == NULL || olc_config_find_workload(j->host->config, j->wc->name) != j->wc)
    return NULL;
  return olc_config_source(j->host->config);
#endif
}

/* Binds the workload; what fails lands in the result (*fatal: only
 * OLC_E_NOMEM).  A plugin unavailable here skips the workload
 * (OLC_E_UNAVAILABLE); in a user's configuration one that failed to load
 * or that no file provides fails it (olc_host__missing_plugin). */
static olc_status bind(job *j, olc_status *fatal) {
  char label[OLC_ERROR_MESSAGE_SIZE];
  olc_workload w;
  olc_error e;
  olc_status st;
  as_workload(&w, j->wc);
  snprintf(label, sizeof label, "workload '%s'", j->wc->name);
  olc_error_clear(&e);
  st = olc_host__check_workload(&w, label, &e);
  if (st == OLC_OK)
    st = olc_host__bind_with_digest(&j->b, j->host, &w, w.model_digest, &e);
  *fatal = OLC_OK;
  if (st == OLC_E_NOMEM)
    *fatal = st;
  else if (st == OLC_E_NOT_FOUND || st == OLC_E_UNAVAILABLE) {
    /* No plugin serves the backend: skipped when it is unavailable here,
     * a failure when its file failed to load or none provides it. */
    char why[OLC_ERROR_MESSAGE_SIZE];
    olc_status missing = olc_host__missing_plugin(why, sizeof why, j->host, w.backend);
    *fatal = set_status(j, missing, "%s", why);
  } else if (st != OLC_OK && strcmp(e.where, "identity") == 0 && ini_file(j) != NULL)
    /* A property the plugin does not key on: the fix is in the ini file. */
    *fatal = set_status(j, st, "%s:%u: [workload.%s]: %s", ini_file(j), (unsigned)j->wc->line,
                        j->wc->name, e.message);
  else if (st != OLC_OK)
    *fatal = set_status(j, st, "%s%s", strcmp(e.where, "key") == 0 ? "key: " : "", e.message);
  return st;
}

/* Measures the key (the process's measurer taken for as long as it
 * takes), then saves and selects; the outcome lands in the result.
 * refining: the stored record is measured again (no look first). */
static olc_status calibrate_now(job *j, int refining) {
  olc_host_slot *s = j->b->slot;
  olc_workload_result *r = j->r;
  olc_host_measure m;
  olc_status st;
  olc_host__measure_request(&m, s, &j->b->workload, j->wc->name, j->p->settings,
                            j->p->force_portable, j->p->in_process, j->p->budget, &j->cal->arena);
  m.run_timeout_seconds = j->p->run_timeout_seconds;
  m.look_again = !j->p->recalibrate && !refining;
  m.progress = j->p->progress;
  m.progress_payload = j->p->progress_payload;
  m.keep_samples = j->p->keep_samples;
  olc_host__global_lock();
  (void)olc_host__claim_measurer(-1, 0, NULL, NULL);
  olc_host__global_unlock();
  st = olc_host__measure_key(&m);
  olc_host__global_lock();
  olc_host__release_measurer();
  olc_host__global_unlock();
  if (st != OLC_OK)
    return st;
  r->candidates = m.candidates;
  r->candidate_count = m.candidate_count;
  j->cal->extras[j->index].runs = m.runs;
  j->cal->extras[j->index].winner = m.winner;
  r->calibrated_now = m.measured;
  r->lock_status = m.lock_status;
  r->lock_wait_seconds = m.lock_wait_seconds;
  r->lock_holder = m.lock_holder;
  r->measured_elsewhere = m.measured_elsewhere;
  r->message = m.note;
  if (m.lookup != NULL)
    olc_calibration__set_lookup(j->cal, j->index, m.lookup);
  if (m.status != OLC_OK) {
    r->status = m.status;
    r->message = m.message;
  }
  return OLC_OK;
}

/* 1 when rec is provisional: a budget cut its measuring short
 * (OLC_MEASUREMENT_BUDGET) or the machine was busy (OLC_MEASUREMENT_CONTENDED). */
static int provisional(const olc_record *rec) {
  size_t i;
  for (i = 0; rec != NULL && i < rec->measurement_count; i++)
    if (strcmp(rec->measurements[i].name, OLC_MEASUREMENT_BUDGET) == 0 ||
        strcmp(rec->measurements[i].name, OLC_MEASUREMENT_CONTENDED) == 0)
      return 1;
  return 0;
}

/* Looks the bound key up: a hit is selected, a miss measured (unless
 * select_only); with refine a provisional hit (a budget cut it short, or
 * the machine was busy) is measured again. */
static olc_status lookup_or_measure(job *j) {
  olc_host_slot *s = j->b->slot;
  olc_lookup_result *lr = NULL;
  olc_error e;
  olc_status st;
  int refining;
  st = olc_host__lookup(&lr, j->host, s->plugin, &s->key.key, j->p->force_portable, 0, &e);
  if (st != OLC_OK && st != OLC_E_NOT_FOUND)
    return set_status(j, st, "lookup: %s", e.message);
  olc_host__warn_rejected_overrides(s, lr);
  refining = st == OLC_OK && j->p->refine && provisional(olc_lookup_result_selected(lr));
  if (j->p->select_only || (st == OLC_OK && !j->p->recalibrate && !refining)) {
    olc_calibration__set_lookup(j->cal, j->index, lr);
    if (st == OLC_E_NOT_FOUND)
      return set_status(j, st, "no stored selection for workload '%s'", j->wc->name);
    return OLC_OK;
  }
  olc_lookup_result_free(lr);
  return calibrate_now(j, refining);
}

olc_status olc_host__calibrate_workload(olc_calibration *cal, size_t i, olc_host *host,
                                        const olc_workload_config *wc,
                                        const olc_host_select_params *p) {
  job j;
  olc_status fatal;
  memset(&j, 0, sizeof j);
  j.cal = cal;
  j.index = i;
  j.r = &cal->results[i];
  j.host = host;
  j.wc = wc;
  j.p = p;
  if (bind(&j, &fatal) != OLC_OK)
    return fatal;
  fatal = lookup_or_measure(&j);
  olc_binding_free(j.b);
  return fatal;
}
