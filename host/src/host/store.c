/*
 * host/store.c - the store services a host gives its plugins
 * (plugin.h: store_lookup, store_save): the same key as the select path,
 * validated by the plugin itself.
 */
#include <string.h>

#include "host/host_int.h"

static olc_status key_for(olc_key *key, olc_plugin_key *pk, olc_loaded_plugin *p,
                          const olc_plugin_workload *w) {
  olc_status st = olc_plugins__key(pk, p, w, NULL);
  if (st == OLC_OK)
    olc_host__make_key(key, p, w, pk);
  return st;
}

static olc_status host_lookup(void *payload, olc_loaded_plugin *p, const olc_plugin_workload *w,
                              olc_buf *policy) {
  olc_host *h = payload;
  olc_plugin_key pk;
  olc_key key;
  olc_lookup_options lo = OLC_LOOKUP_OPTIONS_INIT;
  olc_lookup_result *res = NULL;
  const olc_record *sel;
  olc_status st;
  memset(&pk, 0, sizeof pk);
  st = key_for(&key, &pk, p, w);
  if (st != OLC_OK)
    return st;
  lo.key = &key;
  lo.force_portable = h->force_portable;
  lo.validate = olc_plugins__store_validator;
  lo.validate_payload = p;
  st = olc_store_lookup(&res, h->store, &lo, NULL);
  sel = st == OLC_OK ? olc_lookup_result_selected(res) : NULL;
  if (sel != NULL)
    st = olc_buf__append(policy, sel->policy, sel->policy_len);
  else if (st == OLC_OK)
    st = OLC_E_NOT_FOUND;
  olc_lookup_result_free(res);
  olc_plugin_key__free(&pk);
  return st;
}

static olc_status host_save(void *payload, olc_loaded_plugin *p, const olc_plugin_workload *w,
                            const void *policy, size_t policy_len,
                            const olc_measurement *measurements, size_t measurement_count) {
  olc_host *h = payload;
  olc_plugin_key pk;
  olc_key key;
  olc_save_request req = OLC_SAVE_REQUEST_INIT;
  olc_status st;
  memset(&pk, 0, sizeof pk);
  st = key_for(&key, &pk, p, w);
  if (st != OLC_OK)
    return st;
  req.key = &key;
  req.measurements = measurements;
  req.measurement_count = measurement_count;
  req.policy = policy;
  req.policy_len = policy_len;
  req.validate = olc_plugins__store_validator;
  req.validate_payload = p;
  st = olc_store_save(h->store, &req, NULL);
  olc_plugin_key__free(&pk);
  return st;
}

const olc_plugins_store_ops olc_host__store_ops = {host_lookup, host_save};
