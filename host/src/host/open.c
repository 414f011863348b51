/*
 * host/open.c - the host's own olc_host__open (no config), freeing, the
 * load report and the diagnostics.  olc_host_open, the config's door, is
 * in open_config.c, so a program that opens a host without a config links
 * no config code (the Windows build without inih, tests/windows).
 */
#include <stdlib.h>

#include "host/host_int.h"
#include "util/error.h"

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
  olc_diag__init(&h->diag, params->diag, params->diag_payload);
  h->config = params->config;
  h->store = params->store;
  h->threads = params->load.threads > 0 ? params->load.threads : 1;
  h->force_portable = params->force_portable;
  h->allow_insecure_plugins = params->load.allow_insecure_plugins;
  h->plugin_config = params->load.plugin_config;
  h->plugin_config_payload = params->load.plugin_config_payload;
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

void olc_host_free(olc_host *host) {
  if (host == NULL)
    return;
  olc_plugins__free(host->plugins);
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
