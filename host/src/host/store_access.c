/*
 * host/store_access.c - the host's lookups (scoped to the workload unless every
 * candidate is asked for), its change epoch, and the store services a host
 * gives its plugins (plugin.h: store_lookup, store_save): the same key as
 * the select path, validated by the plugin itself.
 */
#include <string.h>

#include "host/host_int.h"

olc_status olc_host__lookup(olc_lookup_result **out, olc_host *host, olc_loaded_plugin *p,
                            const olc_key *key, int force_portable, int all_candidates,
                            olc_error *err) {
  olc_lookup_options lo = OLC_LOOKUP_OPTIONS_INIT;
  lo.key = key;
  lo.force_portable = force_portable;
  lo.all_candidates = all_candidates;
  lo.scope = all_candidates ? OLC_LOOKUP_SCOPE_KEY : OLC_LOOKUP_SCOPE_WORKLOAD;
  lo.validate = olc_plugins__store_validator;
  lo.validate_payload = p;
  return olc_store_lookup(out, host->store, &lo, err);
}

void olc_host__changed(olc_host *host) { atomic_fetch_add(&host->rt.epoch, 1); }

static int rejected_override(const olc_rejection *r) {
  return r != NULL && r->reason == OLC_REASON_VALIDATION_FAILED && r->record != NULL &&
         r->record->origin == OLC_ORIGIN_OVERRIDE;
}

void olc_host__warn_rejected_overrides(olc_host_slot *s, const olc_lookup_result *lr) {
  size_t i, n = lr != NULL ? olc_lookup_result_rejected_count(lr) : 0;
  for (i = 0; i < n && !rejected_override(olc_lookup_result_rejected(lr, i)); i++)
    ;
  if (i == n || atomic_load_explicit(&s->override_warned, memory_order_acquire) != 0 ||
      atomic_exchange_explicit(&s->override_warned, 1, memory_order_acq_rel) != 0)
    return;
  for (; i < n; i++) {
    const olc_rejection *r = olc_lookup_result_rejected(lr, i);
    if (rejected_override(r))
      olc_diag__emit(&s->host->diag, OLC_DIAG_WARNING, "override",
                     "workload '%s': the %s user override is not used, plugin %s rejects its "
                     "policy: %s",
                     s->name, olc_level_str(r->record->level), s->key.key.backend, r->message);
  }
}

static olc_status host_lookup(void *payload, olc_loaded_plugin *p, const olc_plugin_workload *w,
                              olc_buf *policy) {
  olc_host *h = payload;
  olc_host_key key;
  olc_lookup_result *res = NULL;
  const olc_record *sel;
  olc_status st = olc_host__key(&key, p, w, NULL);
  if (st != OLC_OK)
    return st;
  st = olc_host__lookup(&res, h, p, &key.key, h->force_portable, 0, NULL);
  sel = st == OLC_OK ? olc_lookup_result_selected(res) : NULL;
  if (sel != NULL)
    st = olc_buf__append(policy, sel->policy, sel->policy_len);
  else if (st == OLC_OK)
    st = OLC_E_NOT_FOUND;
  olc_lookup_result_free(res);
  olc_host_key__free(&key);
  return st;
}

static olc_status host_save(void *payload, olc_loaded_plugin *p, const olc_plugin_workload *w,
                            const void *policy, size_t policy_len,
                            const olc_measurement *measurements, size_t measurement_count) {
  olc_host *h = payload;
  olc_host_key key;
  olc_save_request req = OLC_SAVE_REQUEST_INIT;
  olc_status st = olc_host__key(&key, p, w, NULL);
  if (st != OLC_OK)
    return st;
  req.key = &key.key;
  req.measurements = measurements;
  req.measurement_count = measurement_count;
  req.policy = policy;
  req.policy_len = policy_len;
  req.validate = olc_plugins__store_validator;
  req.validate_payload = p;
  st = olc_store_save(h->store, &req, NULL);
  if (st == OLC_OK || st == OLC_COMMITTED_UNSYNCED)
    olc_host__changed(h);
  olc_host_key__free(&key);
  return st;
}

const olc_plugins_store_ops olc_host__store_ops = {host_lookup, host_save};
