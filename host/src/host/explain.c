/*
 * host/explain.c - olc_host_explain and olc_binding_explain: a
 * workload's lookup with the plugin's validator,
 * scoped to the records that could have served it, or with every record of
 * its backend and operator, each with why it was or was not chosen.
 */
#include <stdio.h>
#include <string.h>

#include "host/host_int.h"
#include "util/error.h"

olc_status olc_binding_explain(olc_lookup_result **out, olc_binding *b, unsigned flags,
                               olc_error *err) {
  olc_host_slot *s;
  if (out != NULL)
    *out = NULL;
  if (out == NULL || b == NULL)
    return olc_error__set(err, OLC_E_INVALID, "explain", "no output or binding");
  if ((flags & ~OLC_EXPLAIN_ALL) != 0)
    return olc_error__set(err, OLC_E_INVALID, "explain", "unknown explain flags 0x%x", flags);
  s = b->slot;
  if (olc_host__check_fork(s->host, "explain", err) != OLC_OK)
    return OLC_E_UNSUPPORTED;
  if (s->host->store == NULL)
    return olc_error__set(err, OLC_E_INVALID, "explain", "the host has no store");
  return olc_host__lookup(out, s->host, s->plugin, &s->key.key, s->host->force_portable,
                          (flags & OLC_EXPLAIN_ALL) != 0, err);
}

/* The configured workload bound as calibrate binds it. */
static olc_status bind_configured(olc_binding **out, olc_host *host, const char *workload,
                                  const char *where, olc_error *err) {
  const olc_workload_config *wc;
  olc_workload w = OLC_WORKLOAD_INIT;
  olc_error e;
  olc_status st;
  if (host->config == NULL)
    return olc_error__set(err, OLC_E_INVALID, where, "the host has no config");
  wc = olc_config_find_workload(host->config, workload);
  if (wc == NULL)
    return olc_error__set(err, OLC_E_NOT_FOUND, where, "workload %s is not configured", workload);
  w.backend = wc->backend;
  w.operator_name = wc->operator_name;
  w.properties = wc->properties;
  w.property_count = wc->property_count;
  w.model_digest = olc_host__config_model(wc);
  w.name = wc->name;
  olc_error_clear(&e);
  st = olc_host__bind_with_digest(out, host, &w, w.model_digest, &e);
  /* Configured but its plugin not loaded: not the workload that is missing. */
  if (st == OLC_E_NOT_FOUND)
    return olc_error__set(err, OLC_E_UNAVAILABLE, where, "workload %s: %s", workload, e.message);
  if (st != OLC_OK)
    return olc_error__set(err, st, where, "workload %s: %s", workload, e.message);
  return OLC_OK;
}

olc_status olc_host_bind_workload(olc_binding **out, olc_host *host, const char *workload,
                                  olc_error *err) {
  if (out != NULL)
    *out = NULL;
  if (out == NULL || host == NULL || workload == NULL)
    return olc_error__set(err, OLC_E_INVALID, "bind", "no output, host or workload name");
  return bind_configured(out, host, workload, "bind", err);
}

/* The configured workload bound as calibrate binds it, then explained. */
olc_status olc_host_explain(olc_lookup_result **out, olc_host *host, const char *workload,
                            unsigned flags, olc_error *err) {
  olc_binding *b = NULL;
  olc_status st;
  if (out != NULL)
    *out = NULL;
  if (out == NULL || host == NULL || workload == NULL)
    return olc_error__set(err, OLC_E_INVALID, "explain", "invalid argument");
  if ((flags & ~OLC_EXPLAIN_ALL) != 0)
    return olc_error__set(err, OLC_E_INVALID, "explain", "unknown explain flags 0x%x", flags);
  if (host->config == NULL || host->store == NULL)
    return olc_error__set(err, OLC_E_INVALID, "explain", "the host has no config or no store");
  st = bind_configured(&b, host, workload, "explain", err);
  if (st != OLC_OK)
    return st;
  st = olc_binding_explain(out, b, flags, err);
  olc_binding_free(b);
  return st;
}
