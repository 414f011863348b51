/*
 * host/key.c - what the host adds to a plugin's view of a workload: the
 * model of an ini section, the store key with the identity digest
 * (olc/runtime.h "Identity"), and what a measuring worker needs to rebuild
 * the plugin.
 */
#include <stdlib.h>
#include <string.h>

#include "host/host_int.h"
#include "util/error.h"

#define WORKLOAD_PREFIX "workload:"

int olc_host__workload_identity(const char *model_digest) {
  return model_digest != NULL &&
         strncmp(model_digest, WORKLOAD_PREFIX, sizeof WORKLOAD_PREFIX - 1) == 0;
}

const char *olc_host__config_model(const olc_workload_config *wc) {
  /* The config names a workload without a model "workload:<properties>";
   * the host composes that identity itself from the plugin's structure, so
   * such a workload has no model (the config refuses model_digest =
   * workload:..., so no model is taken for none here). */
  if (wc->model_digest == NULL || olc_host__workload_identity(wc->model_digest))
    return NULL;
  return wc->model_digest;
}

void olc_host__make_key(olc_key *out, const olc_loaded_plugin *p, const olc_plugin_workload *w,
                        const olc_plugin_key *k, const char *digest) {
  memset(out, 0, sizeof *out);
  out->backend = olc_plugins__name(p);
  out->operator_name = w->operator_name;
  out->implementation = olc_plugins__version(p);
  /* The store wants model and processor together; a key without an
   * identity digest is exact for "no model" (the empty digest). */
  out->model_digest = digest != NULL ? digest : "";
  out->processor = k->processor;
  out->thread_count = (int64_t)k->thread_count;
  out->structure = k->structure;
  out->structure_count = k->structure_count;
}

/* "<model>#<structure>" or "workload:<structure>", malloc'ed. */
static olc_status compose_digest(char **out, const char *model, const olc_plugin_key *pk,
                                 olc_error *err) {
  size_t len = 0;
  olc_status st;
  *out = NULL;
  st = olc_store_workload_digest(NULL, 0, &len, model, pk->structure, pk->structure_count, err);
  if (st != OLC_OK && st != OLC_E_LIMIT)
    return st;
  *out = malloc(len + 1);
  if (*out == NULL)
    return olc_error__set(err, OLC_E_NOMEM, "key", "out of memory");
  st = olc_store_workload_digest(*out, len + 1, NULL, model, pk->structure, pk->structure_count,
                                 err);
  if (st != OLC_OK) {
    free(*out);
    *out = NULL;
  }
  return st;
}

olc_status olc_host__key(olc_host_key *out, olc_loaded_plugin *p, const olc_plugin_workload *w,
                         olc_error *err) {
  const char *model = NULL;
  olc_status st;
  memset(out, 0, sizeof *out);
  st = olc_plugins__key(&out->pk, p, w, err);
  if (st != OLC_OK)
    return st;
  if (OLC_PLUGIN_HAS_FIELD(w, olc_plugin_workload, model_digest))
    model = w->model_digest;
  st = compose_digest(&out->digest, model, &out->pk, err);
  if (st != OLC_OK) {
    olc_plugin_key__free(&out->pk);
    return st;
  }
  olc_host__make_key(&out->key, p, w, &out->pk, out->digest);
  return OLC_OK;
}

void olc_host_key__free(olc_host_key *k) {
  if (k == NULL)
    return;
  olc_plugin_key__free(&k->pk);
  free(k->digest);
  memset(k, 0, sizeof *k);
}

void olc_host__isolate_plugin(olc_isolate_plugin *out, const olc_host *host, olc_loaded_plugin *p) {
  const olc_plugin_config *pc = NULL;
  memset(out, 0, sizeof *out);
  out->plugin = p;
  out->threads = host->threads;
  out->allow_insecure_plugins = host->allow_insecure_plugins;
  out->ignore_env = host->ignore_env;
  if (host->plugin_config != NULL)
    pc = host->plugin_config(host->plugin_config_payload, olc_plugins__name(p));
  if (pc != NULL) {
    out->entries = pc->entries;
    out->entry_count = pc->entry_count;
  }
}
