/*
 * host/open.c - the host's own olc_host__open_params (no config), freeing, the
 * load report and the diagnostics.  olc_host_open, the config's door, is
 * in open_config.c, so a program that opens a host without a config links
 * no config code (the Windows build without inih, tests/windows).
 */
#include <stdlib.h>
#include <string.h>

#include "host/host_int.h"
#include "util/error.h"

/* How the runtime path measures: the caller's settings, the config's, or
 * (neither) those of an empty configuration, the key table's defaults. */
static olc_status runtime_settings(olc_host *h, const olc_host_params *params, olc_error *err) {
  olc_config *empty = NULL;
  olc_status st = OLC_OK;
  int mode;
  if (params->settings != NULL) {
    h->settings = *params->settings;
  } else {
#ifdef OLC_WITHOUT_CONFIG
    (void)empty;
    return olc_error__set(err, OLC_E_INVALID, "olc_host_open",
                          "no settings given, and this build has no config for their defaults");
#else
    if (params->config != NULL) {
      h->settings = *olc_config_calibration(params->config);
    } else {
      st = olc_config_load_string(&empty, "", 0, "<defaults>", NULL, err);
      if (st == OLC_OK)
        h->settings = *olc_config_calibration(empty);
      olc_config_free(empty);
    }
#endif
  }
  if (params->max_seconds_total > 0)
    h->settings.max_seconds_total = params->max_seconds_total;
  if (params->max_runs_per_candidate > 0)
    h->settings.max_runs_per_candidate = params->max_runs_per_candidate;
  if (!(h->settings.max_seconds_total >= 0 && h->settings.max_seconds_total < 1e12))
    st = olc_error__set(err, OLC_E_INVALID, "olc_host_open",
                        "max_seconds_total %g is not a number of seconds >= 0",
                        h->settings.max_seconds_total);
  h->lazy_budget.total_seconds = h->settings.max_seconds_total;
  if (params->record_misses != NULL)
    h->settings.record_misses = params->record_misses;
  if (st == OLC_OK && h->settings.record_misses != NULL) {
    size_t n = strlen(h->settings.record_misses) + 1;
    if ((h->record_misses = malloc(n)) == NULL)
      st = olc_error__set(err, OLC_E_NOMEM, "olc_host_open", "out of memory");
    else
      memcpy(h->record_misses, h->settings.record_misses, n);
  }
  /* settings points into the config or the caller's options: the host
   * keeps its own copy. */
  h->settings.record_misses = h->record_misses;
  mode = params->select_mode != OLC_SELECT_HOST_DEFAULT ? params->select_mode
                                                        : h->settings.select_mode;
  if (st == OLC_OK && mode != OLC_SELECT_NEVER && mode != OLC_SELECT_ON_MISS)
    st = olc_error__set(err, OLC_E_INVALID, "olc_host_open",
                        "select_mode %d is not an olc_select_mode (0, 1 or 2)", mode);
  h->rt.select_mode = mode;
  return st;
}

static void runtime_init(olc_host *h) {
  olc_util__rwlock_init(&h->rt.lock);
  atomic_init(&h->rt.epoch, 1);
  atomic_init(&h->rt.measurements, 0);
  h->rt.recheck_ns = (uint64_t)OLC_SELECT_RECHECK_MS * 1000000u;
}

olc_status olc_host__open_params(olc_host **out, const olc_host_params *params, olc_error *err) {
  olc_plugins_params load;
  olc_host *h;
  olc_status st;
  if (out != NULL)
    *out = NULL;
  if (out == NULL || params == NULL)
    return olc_error__set(err, OLC_E_INVALID, "olc_host_open", "invalid argument");
  h = calloc(1, sizeof *h);
  if (h == NULL)
    return olc_error__set(err, OLC_E_NOMEM, "olc_host_open", "out of memory");
  runtime_init(h);
  h->forks = olc_plugins__forks();
  olc_diag__init(&h->diag, params->diag, params->diag_payload);
  h->config = params->config;
  h->store = params->store;
  h->threads = params->load.threads > 0 ? params->load.threads : 1;
  h->force_portable = params->force_portable;
  h->allow_insecure_plugins = params->load.allow_insecure_plugins;
  h->ignore_env = params->load.ignore_env;
  h->plugin_config = params->load.plugin_config;
  h->plugin_config_payload = params->load.plugin_config_payload;
  st = runtime_settings(h, params, err);
  if (st != OLC_OK) {
    olc_host_free(h);
    return st;
  }
  if (olc_host__mlock_init(h, params->measure_lock) != OLC_OK) {
    olc_host_free(h);
    return olc_error__set(err, OLC_E_NOMEM, "olc_host_open", "out of memory");
  }
  load = params->load;
  /* The plugins may use the store during create: the host is ready for
   * that before they load. */
  load.store_ops = h->store != NULL ? &olc_host__store_ops : NULL;
  load.store_payload = h;
  load.diag = &h->diag;
  st = olc_plugins__open(&h->plugins, &load, err);
  if (st != OLC_OK) {
    olc_host_free(h);
    return st;
  }
  *out = h;
  return OLC_OK;
}

olc_status olc_host__fork_refused(const char *fn, olc_error *err) {
  return olc_error__set(err, OLC_E_UNSUPPORTED, fn,
                        "this host was opened before fork() in a parent process: its plugins' "
                        "threads and its selections are not in this one; open a new host here");
}

static void free_binding(void *b) { olc_binding_free(b); }

void olc_host_free(olc_host *host) {
  if (host == NULL)
    return;
  /* Selections hold plugin policies: released before the instances. */
  olc_host__table_free(&host->rt.bindings, free_binding);
  olc_host__table_free(&host->rt.slots, olc_host__slot_free);
  olc_util__rwlock_destroy(&host->rt.lock);
  olc_plugins__free(host->plugins);
  olc_host__mlock_free(host);
  free(host->record_misses);
  olc_diag__destroy(&host->diag);
#ifndef OLC_WITHOUT_CONFIG
  olc_config_free(host->own_config);
#endif
  free(host);
}

olc_plugin_set *olc_host__plugins(const olc_host *host) {
  return host != NULL ? host->plugins : NULL;
}

int olc_host__select_mode(const olc_host *host) { return host != NULL ? host->rt.select_mode : 0; }

olc_store *olc_host__store(const olc_host *host) { return host != NULL ? host->store : NULL; }

const olc_config *olc_host__config(const olc_host *host) {
  return host != NULL ? host->config : NULL;
}

size_t olc_host_report_count(const olc_host *host) {
  return host != NULL ? olc_plugins__report_count(host->plugins) : 0;
}

const olc_load_entry *olc_host_report(const olc_host *host, size_t i) {
  return host != NULL ? olc_plugins__report(host->plugins, i) : NULL;
}

olc_status olc_host_next_diagnostic(olc_diagnostic *out, olc_host *host) {
  if (out == NULL || host == NULL)
    return OLC_E_INVALID;
  return olc_diag__take(out, &host->diag);
}

uint64_t olc_host_diagnostics_dropped(olc_host *host) {
  return host != NULL ? olc_diag__dropped(&host->diag) : 0;
}

void olc_host__stats(olc_host_stats *out, olc_host *host) {
  memset(out, 0, sizeof *out);
  if (host == NULL)
    return;
  out->measurements = atomic_load(&host->rt.measurements);
  olc_util__rwlock_rdlock(&host->rt.lock);
  out->slots = host->rt.slots.count;
  out->bindings = host->rt.bindings.count;
  olc_util__rwlock_rdunlock(&host->rt.lock);
}

void olc_host__set_recheck_ms(olc_host *host, int64_t ms) {
  host->rt.recheck_ns = ms > 0 ? (uint64_t)ms * 1000000u : 0;
}

void olc_host__set_measure_hook(olc_host *host, olc_host_measure_hook fn, void *payload) {
  host->measure_hook = fn;
  host->measure_hook_payload = payload;
}

void olc_host__set_retry_clock(olc_host *host, olc_host_clock_fn fn, void *payload) {
  host->retry_clock = fn;
  host->retry_clock_payload = payload;
}
