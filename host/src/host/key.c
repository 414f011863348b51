/*
 * host/key.c - what the host adds to a plugin's view of a workload: the
 * workload of an ini section, the store key, and what a measuring worker
 * needs to rebuild the plugin.
 */
#include <string.h>

#include "host/host_int.h"

void olc_host__workload_from_config(olc_host_workload *out, olc_plugin_kv *kv, size_t kv_cap,
                                    const olc_workload_config *wc) {
  olc_plugin_workload *w = &out->plugin;
  size_t i;
  size_t n = wc->property_count < kv_cap ? wc->property_count : kv_cap;
  memset(out, 0, sizeof *out);
  out->name = wc->name;
  out->backend = wc->backend;
  w->struct_size = (uint32_t)sizeof *w;
  w->abi_minor = OLC_PLUGIN_ABI_MINOR;
  w->name = wc->name;
  w->operator_name = wc->operator_name;
  for (i = 0; i < n; i++) {
    kv[i].key = wc->properties[i].name;
    kv[i].value = wc->properties[i].value;
  }
  w->properties = n > 0 ? kv : NULL;
  w->property_count = (uint32_t)n;
  w->model_digest = wc->model_digest;
}

void olc_host__make_key(olc_key *out, const olc_loaded_plugin *p, const olc_plugin_workload *w,
                        const olc_plugin_key *k) {
  memset(out, 0, sizeof *out);
  out->backend = olc_plugins__name(p);
  out->operator_name = w->operator_name;
  out->implementation = olc_plugins__version(p);
  out->model_digest =
      OLC_PLUGIN_HAS_FIELD(w, olc_plugin_workload, model_digest) ? w->model_digest : NULL;
  /* The store wants model and processor together; a workload configured
   * without a model is exact for "no model" (the empty digest). */
  if (out->model_digest == NULL)
    out->model_digest = "";
  out->processor = k->processor;
  out->thread_count = (int64_t)k->thread_count;
  out->structure = k->structure;
  out->structure_count = k->structure_count;
}

void olc_host__isolate_plugin(olc_isolate_plugin *out, const olc_host *host, olc_loaded_plugin *p) {
  const olc_plugin_config *pc = NULL;
  memset(out, 0, sizeof *out);
  out->plugin = p;
  out->threads = host->threads;
  out->allow_insecure_plugins = host->allow_insecure_plugins;
  if (host->plugin_config != NULL)
    pc = host->plugin_config(host->plugin_config_payload, olc_plugins__name(p));
  if (pc != NULL) {
    out->entries = pc->entries;
    out->entry_count = pc->entry_count;
  }
}
