/*
 * host/ini_loop.c - olc_host_calibrate: the configured workloads, each
 * through the select path (ini_workload.c).
 *
 * Progress: options->progress is called before candidate j (0-based) of m
 * is first measured, with the best so far (< 0 before the first), and
 * once more at the end with j = the number measured (j < m when the time
 * budget stopped the workload) and the winner's median.  Workloads
 * selected from the store measure nothing and report no progress.
 */
#include <inttypes.h>
#include <string.h>

#include "host/host_int.h"
#include "util/error.h"
#include "util/options.h"
#include "util/platform.h"

/* One configured workload: its place in the loop, for progress. */
typedef struct loop_item {
  const olc_calibrate_options *opt;
  const char *name;
  size_t index, count;
} loop_item;

static void item_progress(void *payload, size_t candidate, size_t count, double best_us) {
  const loop_item *it = payload;
  it->opt->progress(it->opt->progress_payload, it->name, it->index, it->count, candidate, count,
                    best_us);
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

/* The ini workload wc through the select path into result i. */
static olc_status run_configured(olc_calibration *cal, size_t i, olc_host *host,
                                 const olc_workload_config *wc, olc_host_select_params *sp,
                                 loop_item *it) {
  olc_status st;
  it->name = wc->name;
  it->index = i;
  st = olc_calibration__name(cal, &cal->results[i], wc->name, wc->backend, wc->operator_name);
  if (st == OLC_OK)
    st = olc_host__calibrate_workload(cal, i, host, wc, sp);
  return st;
}

/* The select parameters of the loop: options over the config. */
static void loop_params(olc_host_select_params *sp, loop_item *it, const olc_host *host,
                        const olc_calibrate_options *opt) {
  const olc_config *cfg = host->config;
  memset(sp, 0, sizeof *sp);
  sp->settings = host->loop_settings != NULL ? host->loop_settings : olc_config_calibration(cfg);
  sp->force_portable = opt->force_portable || host->force_portable;
  sp->recalibrate = opt->recalibrate;
  sp->select_only = opt->select_only;
  sp->in_process = opt->in_process;
  sp->run_timeout_seconds = opt->run_timeout_seconds;
  sp->keep_samples = opt->keep_samples;
  sp->refine = opt->refine;
  if (opt->progress != NULL) {
    sp->progress = item_progress;
    sp->progress_payload = it;
  }
  it->opt = opt;
}

/* A recorded record that is not tuned here: result i says why. */
static olc_status run_skipped(olc_calibration *cal, size_t i, const olc_workload_config *wc,
                              const char *why) {
  olc_workload_result *r = &cal->results[i];
  olc_status st = olc_calibration__name(cal, r, wc->name, wc->backend, wc->operator_name);
  if (st != OLC_OK)
    return st;
  r->status = OLC_E_UNAVAILABLE;
  r->message = olc_arena__strdup(&cal->arena, why);
  return r->message != NULL ? OLC_OK : OLC_E_NOMEM;
}

/* The loop over it->count workloads: the recorded file's (rec set) or the
 * configured ones. */
static olc_status run_loop(olc_calibration *cal, olc_host *host, const olc_calibrate_options *opt,
                           const olc_host_misses *rec, olc_host_select_params *sp, loop_item *it,
                           olc_error *err) {
  size_t i;
  for (i = 0; i < it->count; i++) {
    const olc_workload_config *wc = rec != NULL ? &rec->wcs[i]
                                    : opt->workloads != NULL
                                        ? olc_config_find_workload(host->config, opt->workloads[i])
                                        : olc_config_workload(host->config, i);
    uint64_t t0 = olc_util__now_ns();
    olc_status st = rec != NULL && rec->skip[i] != NULL ? run_skipped(cal, i, wc, rec->skip[i])
                                                        : run_configured(cal, i, host, wc, sp, it);
    cal->results[i].seconds = (double)(olc_util__now_ns() - t0) / 1e9;
    if (st != OLC_OK)
      return olc_error__set(err, st, "calibrate", "workload '%s': %s", wc->name,
                            olc_status_str(st));
  }
  return OLC_OK;
}

/* What the loop runs: it->count workloads, from rec when recorded. */
static olc_status loop_workloads(olc_host_misses **rec, olc_host_misses *storage, loop_item *it,
                                 olc_host *host, const olc_calibrate_options *opt, olc_error *err) {
  olc_status st;
  *rec = NULL;
  if (opt->recorded == NULL) {
    if (opt->shard_count > 0 || opt->shard_index > 0)
      return olc_error__set(err, OLC_E_INVALID, "calibrate", "a shard needs a recorded file");
    if (opt->workloads != NULL && (st = check_names(host->config, opt, err)) != OLC_OK)
      return st;
    it->count =
        opt->workloads != NULL ? opt->workload_count : olc_config_workload_count(host->config);
    return OLC_OK;
  }
  if (opt->workloads != NULL)
    return olc_error__set(err, OLC_E_INVALID, "calibrate",
                          "recorded and workloads cannot be given together");
  if ((opt->shard_count > 0 || opt->shard_index > 0) && opt->shard_index >= opt->shard_count)
    return olc_error__set(err, OLC_E_INVALID, "calibrate",
                          "shard %" PRIu32 " of %" PRIu32 ": the index must be below the count",
                          opt->shard_index, opt->shard_count);
  *rec = storage;
  st = olc_host__misses_open(storage, host, opt->recorded, opt->shard_index, opt->shard_count, err);
  it->count = storage->count;
  return st;
}

olc_status olc_host_calibrate(olc_calibration **out, olc_host *host,
                              const olc_calibrate_options *options, olc_error *err) {
  olc_calibrate_options full;
  const olc_calibrate_options *opt = &full;
  olc_host_misses storage, *rec = NULL;
  olc_host_select_params sp;
  olc_host_budget budget;
  loop_item it;
  olc_calibration *cal = NULL;
  olc_status st;
  if (out == NULL || host == NULL)
    return olc_error__set(err, OLC_E_INVALID, "calibrate", "no host or output pointer");
  *out = NULL;
  st = olc_options__load(&full, &olc_options__calibrate, options, "calibrate", err);
  if (st != OLC_OK)
    return st;
  if (host->config == NULL || host->store == NULL)
    return olc_error__set(err, OLC_E_INVALID, "calibrate", "the host has no config or store");
  memset(&storage, 0, sizeof storage);
  st = loop_workloads(&rec, &storage, &it, host, opt, err);
  if (st == OLC_OK)
    st = olc_host__require_plugins(host, it.count, err);
  if (st == OLC_OK && olc_calibration__new(&cal, it.count) != OLC_OK)
    st = olc_error__set(err, OLC_E_NOMEM, "calibrate", "out of memory");
  if (st == OLC_OK) {
    loop_params(&sp, &it, host, opt);
    /* [calibration] max_seconds_total: this call's workloads together. */
    budget.total_seconds = sp.settings->max_seconds_total;
    budget.spent_ns = 0;
    sp.budget = &budget;
    st = run_loop(cal, host, opt, rec, &sp, &it, err);
  }
  /* A shard leaves the file to the merge (olc_recorded_remove_stored):
   * its store is not the one the fleet ships. */
  if (st == OLC_OK && rec != NULL && opt->shard_count == 0)
    st = olc_host__misses_finish(cal, rec, opt->recorded, err);
  olc_host__misses_free(&storage);
  if (st != OLC_OK) {
    olc_calibration_free(cal);
    return st;
  }
  *out = cal;
  return OLC_OK;
}
