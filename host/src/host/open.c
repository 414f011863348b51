/*
 * host/open.c - olc_host_open (the loader driven by a config), the host's
 * own olc_host__open, freeing, the load report and the diagnostics.
 */
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "host/host_int.h"
#include "util/error.h"
#include "util/options.h"

/* How the runtime path measures: the caller's settings, the config's, or
 * (neither) those of an empty configuration, the key table's defaults. */
static olc_status runtime_settings(olc_host *h, const olc_host_params *params, olc_error *err) {
  olc_config *empty = NULL;
  olc_status st = OLC_OK;
  int mode;
  if (params->settings != NULL) {
    h->settings = *params->settings;
  } else if (params->config != NULL) {
    h->settings = *olc_config_calibration(params->config);
  } else {
    st = olc_config_load_string(&empty, "", 0, "<defaults>", NULL, err);
    if (st == OLC_OK)
      h->settings = *olc_config_calibration(empty);
    olc_config_free(empty);
  }
  mode = params->select_mode != OLC_SELECT_HOST_DEFAULT ? params->select_mode
                                                        : h->settings.select_mode;
  if (st == OLC_OK && mode != OLC_SELECT_NEVER && mode != OLC_SELECT_ON_MISS)
    st = olc_error__set(err, OLC_E_INVALID, "olc_host_open",
                        "select_mode %d is not an olc_select_mode (0, 1 or 2)", mode);
  h->rt.select_mode = mode;
  return st;
}

static void runtime_init(olc_host *h) {
  olc_host__rwlock_init(&h->rt.lock);
  atomic_init(&h->rt.epoch, 1);
  atomic_init(&h->rt.measurements, 0);
  h->rt.recheck_ns = (uint64_t)OLC_SELECT_RECHECK_MS * 1000000u;
}

olc_status olc_host__open(olc_host **out, const olc_host_params *params, olc_error *err) {
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
  olc_diag__init(&h->diag, params->diag, params->diag_payload);
  h->config = params->config;
  h->store = params->store;
  h->threads = params->load.threads > 0 ? params->load.threads : 1;
  h->force_portable = params->force_portable;
  h->allow_insecure_plugins = params->load.allow_insecure_plugins;
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

static const olc_plugin_config *config_plugin(void *payload, const char *name) {
  return olc_config_plugin((const olc_config *)payload, name);
}

/* The config's directories, and which of them may be missing quietly. */
static olc_status config_dirs(const char ***dirs, unsigned char **optional,
                              const olc_config *config) {
  size_t n = olc_config_plugin_dir_count(config), i;
  *dirs = NULL;
  *optional = NULL;
  if (n == 0)
    return OLC_OK;
  *dirs = calloc(n, sizeof **dirs);
  *optional = calloc(n, 1);
  if (*dirs == NULL || *optional == NULL)
    return OLC_E_NOMEM;
  for (i = 0; i < n; i++) {
    (*dirs)[i] = olc_config_plugin_dir(config, i);
    (*optional)[i] = (unsigned char)olc_config__plugin_dir_optional(config, i);
  }
  return OLC_OK;
}

olc_status olc_host_open(olc_host **out, const olc_config *config, olc_store *store,
                         const olc_host_options *options, olc_error *err) {
  olc_host_options o;
  olc_host_params params;
  const char **dirs = NULL;
  unsigned char *optional = NULL;
  olc_status st;
  if (out != NULL)
    *out = NULL;
  if (out == NULL || config == NULL)
    return olc_error__set(err, OLC_E_INVALID, "olc_host_open", "out and config are required");
  st = olc_options__load(&o, &olc_options__host, options, "olc_host_open", err);
  if (st != OLC_OK)
    return st;
  if (config_dirs(&dirs, &optional, config) != OLC_OK) {
    st = olc_error__set(err, OLC_E_NOMEM, "olc_host_open", "out of memory");
    goto done;
  }
  memset(&params, 0, sizeof params);
  params.load.dirs = dirs;
  params.load.dir_count = olc_config_plugin_dir_count(config);
  params.load.dir_optional = optional;
  params.load.threads = olc_config_threads(config);
  params.load.plugin_config = config_plugin;
  params.load.plugin_config_payload = (void *)(uintptr_t)config;
  /* Either the caller or [host] allow_insecure_plugins may allow it. */
  params.load.allow_insecure_plugins =
      o.allow_insecure_plugins || olc_config__allow_insecure_plugins(config);
  params.load.ignore_env = o.ignore_env;
  params.config = config;
  params.store = store;
  params.force_portable = olc_config_force_portable(config);
  params.diag = o.diag;
  params.diag_payload = o.diag_payload;
  params.select_mode = o.select_mode;
  params.measure_lock = o.measure_lock;
  st = olc_host__open(out, &params, err);
done:
  free(dirs);
  free(optional);
  return st;
}

static void free_binding(void *b) { olc_binding_free(b); }

void olc_host_free(olc_host *host) {
  if (host == NULL)
    return;
  /* Selections hold plugin policies: released before the instances. */
  olc_host__table_free(&host->rt.bindings, free_binding);
  olc_host__table_free(&host->rt.slots, olc_host__slot_free);
  olc_host__rwlock_destroy(&host->rt.lock);
  olc_plugins__free(host->plugins);
  olc_host__mlock_free(host);
  olc_diag__destroy(&host->diag);
  free(host);
}

olc_plugin_set *olc_host__plugins(const olc_host *host) {
  return host != NULL ? host->plugins : NULL;
}

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
  olc_host__rdlock(&host->rt.lock);
  out->slots = host->rt.slots.count;
  out->bindings = host->rt.bindings.count;
  olc_host__rdunlock(&host->rt.lock);
}

void olc_host__set_recheck_ms(olc_host *host, int64_t ms) {
  host->rt.recheck_ns = ms > 0 ? (uint64_t)ms * 1000000u : 0;
}

void olc_host__set_measure_hook(olc_host *host, olc_host_measure_hook fn, void *payload) {
  host->measure_hook = fn;
  host->measure_hook_payload = payload;
}
