/*
 * host/explain.c - olc_host_explain: every record of a workload's backend
 * and operator, each with why it was or was not chosen, validated by the
 * plugin.
 */
#include <stdlib.h>
#include <string.h>

#include "host/host_int.h"
#include "util/error.h"

olc_status olc_host_explain(olc_lookup_result **out, olc_host *host, const char *workload,
                            olc_error *err) {
  const olc_workload_config *wc;
  olc_loaded_plugin *p;
  olc_host_workload hw;
  olc_plugin_kv *kv = NULL;
  olc_plugin_key pk;
  olc_key key;
  olc_lookup_options lo = OLC_LOOKUP_OPTIONS_INIT;
  olc_status st;
  if (out != NULL)
    *out = NULL;
  if (out == NULL || host == NULL || workload == NULL)
    return olc_error__set(err, OLC_E_INVALID, "explain", "invalid argument");
  if (host->config == NULL || host->store == NULL)
    return olc_error__set(err, OLC_E_INVALID, "explain", "the host has no config or no store");
  wc = olc_config_find_workload(host->config, workload);
  if (wc == NULL)
    return olc_error__set(err, OLC_E_NOT_FOUND, "explain", "workload %s is not configured",
                          workload);
  p = olc_plugins__find(host->plugins, wc->backend);
  if (p == NULL)
    return olc_error__set(err, OLC_E_UNAVAILABLE, "explain", "workload %s: plugin %s is not loaded",
                          workload, wc->backend ? wc->backend : "(none)");
  if (!olc_plugins__serves(p, wc->operator_name))
    return olc_error__set(err, OLC_E_UNSUPPORTED, "explain",
                          "workload %s: plugin %s does not serve operator %s", workload,
                          olc_plugins__name(p), wc->operator_name ? wc->operator_name : "(none)");
  if (wc->property_count > 0) {
    kv = calloc(wc->property_count, sizeof *kv);
    if (kv == NULL)
      return olc_error__set(err, OLC_E_NOMEM, "explain", "out of memory");
  }
  olc_host__workload_from_config(&hw, kv, wc->property_count, wc);
  st = olc_plugins__key(&pk, p, &hw.plugin, err);
  if (st == OLC_OK) {
    olc_host__make_key(&key, p, &hw.plugin, &pk);
    lo.key = &key;
    lo.force_portable = host->force_portable;
    lo.all_candidates = 1;
    lo.validate = olc_plugins__store_validator;
    lo.validate_payload = p;
    st = olc_store_lookup(out, host->store, &lo, err);
    olc_plugin_key__free(&pk);
  }
  free(kv);
  return st;
}
