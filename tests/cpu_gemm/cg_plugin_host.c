/*
 * cg_plugin_host.c - see cg_plugin_host.h.
 */
#include "cg_plugin_host.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

const olc_plugin *cg_test_plugin;
static void *dl;

int cg_test_load(const char *path) {
  olc_plugin_entry_fn entry;
  dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (dl == NULL) {
    fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
    return 1;
  }
  *(void **)&entry = dlsym(dl, OLC_PLUGIN_ENTRY_SYMBOL);
  if (entry == NULL)
    return 1;
  if (entry(2u, &olc_stub_host, &cg_test_plugin) != OLC_PLUGIN_E_ABI) /* wrong major refused */
    return 1;
  return entry(OLC_PLUGIN_ABI_MAJOR, &olc_stub_host, &cg_test_plugin) == OLC_PLUGIN_OK ? 0 : 1;
}

void cg_test_unload(void) {
  if (dl != NULL)
    dlclose(dl);
  dl = NULL;
}

void cg_test_workload_set(cg_test_workload *w, const char *op, const char *m, const char *n,
                          const char *k) {
  memset(w, 0, sizeof(*w));
  w->props[0] = (olc_plugin_kv){"dtype", "float32"};
  w->props[1] = (olc_plugin_kv){"m", m};
  w->props[2] = (olc_plugin_kv){"n", n};
  w->props[3] = (olc_plugin_kv){"k", k};
  w->wl.struct_size = sizeof(w->wl);
  w->wl.abi_minor = OLC_PLUGIN_ABI_MINOR;
  w->wl.name = "mm";
  w->wl.operator_name = op;
  w->wl.properties = w->props;
  w->wl.property_count = 4;
}

void cg_test_workload_shape(cg_test_workload *w, int64_t m, int64_t n, int64_t k) {
  char dm[24], dn[24], dk[24];
  snprintf(dm, sizeof dm, "%lld", (long long)m);
  snprintf(dn, sizeof dn, "%lld", (long long)n);
  snprintf(dk, sizeof dk, "%lld", (long long)k);
  cg_test_workload_set(w, "MatMul", "", "", "");
  memcpy(w->dims[0], dm, sizeof dm);
  memcpy(w->dims[1], dn, sizeof dn);
  memcpy(w->dims[2], dk, sizeof dk);
  w->props[1].value = w->dims[0];
  w->props[2].value = w->dims[1];
  w->props[3].value = w->dims[2];
}

static int32_t k_proc(void *ctx, const char *p) {
  snprintf(((cg_test_key *)ctx)->processor, 512, "%s", p);
  return OLC_PLUGIN_OK;
}
static int32_t k_threads(void *ctx, uint32_t t) {
  ((cg_test_key *)ctx)->threads = t;
  return OLC_PLUGIN_OK;
}
static int32_t k_struct(void *ctx, const char *name, const char *value) {
  cg_test_key *k = ctx;
  size_t len = strlen(k->structure);
  snprintf(k->structure + len, sizeof(k->structure) - len, "%s=%s;", name, value);
  return OLC_PLUGIN_OK;
}

int32_t cg_test_get_key(void *inst, const olc_plugin_workload *wl, cg_test_key *k) {
  olc_plugin_key_sink sink = {sizeof(sink), OLC_PLUGIN_ABI_MINOR, k, k_proc, k_threads, k_struct,
                              NULL};
  memset(k, 0, sizeof(*k));
  return cg_test_plugin->key(inst, wl, &sink);
}

static int32_t c_emit(void *ctx, void *policy) {
  cg_test_cands *c = ctx;
  c->p[c->n++] = policy;
  if (c->n >= 64)
    return OLC_PLUGIN_E_LIMIT;
  return c->stop_after > 0 && c->n >= c->stop_after ? OLC_PLUGIN_E_LIMIT : OLC_PLUGIN_OK;
}

int32_t cg_test_candidates(void *inst, const olc_plugin_workload *wl, cg_test_cands *c) {
  olc_plugin_policy_sink sink = {sizeof(sink), OLC_PLUGIN_ABI_MINOR, c, c_emit};
  c->n = 0;
  return cg_test_plugin->candidates(inst, wl, &sink);
}

void cg_test_release_all(void *inst, cg_test_cands *c) {
  for (int i = 0; i < c->n; i++)
    cg_test_plugin->release_policy(inst, c->p[i]);
  c->n = 0;
}

static int32_t b_write(void *ctx, const void *data, uint64_t len) {
  cg_test_bytes *b = ctx;
  if (b->len + len >= sizeof(b->s))
    return OLC_PLUGIN_E_LIMIT;
  memcpy(b->s + b->len, data, (size_t)len);
  b->len += (size_t)len;
  b->s[b->len] = '\0';
  return OLC_PLUGIN_OK;
}

int32_t cg_test_serialize(void *inst, const void *policy, cg_test_bytes *b) {
  olc_plugin_byte_sink out = {sizeof(out), OLC_PLUGIN_ABI_MINOR, b, b_write};
  b->len = 0;
  b->s[0] = '\0';
  return cg_test_plugin->serialize(inst, policy, &out);
}
