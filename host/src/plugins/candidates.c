/*
 * plugins/candidates.c - the candidates wrapper: collects the policies a
 * plugin emits (at most OLC_PLUGINS_MAX_CANDIDATES, best guess first) and
 * serializes each one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/plugins_int.h"
#include "util/error.h"

typedef struct cand_ctx {
  olc_loaded_plugin *p;
  void **policies;
  size_t count;
  size_t cap;
  int truncated; /* the cap was reached: later policies were released */
  int32_t fail;  /* a refusal other than the cap */
  olc_status fail_status;
  const char *fail_msg;
} cand_ctx;

/* Ownership of policy passes to the host whatever this returns, so what is
 * refused is released at once (plugin.h allows release_policy meanwhile). */
static int32_t cand_emit(void *ctx, void *policy) {
  cand_ctx *c = ctx;
  if (c->fail != 0) {
    olc_plugins__release(c->p, policy);
    return c->fail;
  }
  if (policy == NULL) {
    c->fail = OLC_PLUGIN_E_INVALID;
    c->fail_status = OLC_E_PLUGIN;
    c->fail_msg = "candidates emitted a NULL policy";
    return c->fail;
  }
  if (c->count >= OLC_PLUGINS_MAX_CANDIDATES) {
    c->truncated = 1;
    olc_plugins__release(c->p, policy);
    return OLC_PLUGIN_E_LIMIT;
  }
  if (c->count == c->cap) {
    size_t ncap = c->cap ? c->cap * 2 : 16;
    void **n = realloc(c->policies, ncap * sizeof *n);
    if (n == NULL) {
      olc_plugins__release(c->p, policy);
      c->fail = OLC_PLUGIN_E_NOMEM;
      c->fail_status = OLC_E_NOMEM;
      c->fail_msg = "out of memory";
      return c->fail;
    }
    c->policies = n;
    c->cap = ncap;
  }
  c->policies[c->count++] = policy;
  return OLC_PLUGIN_OK;
}

static void release_all(olc_loaded_plugin *p, void **policies, size_t count) {
  size_t i;
  for (i = 0; i < count; i++)
    olc_plugins__release(p, policies[i]);
  free(policies);
}

void olc_policy_list__free(olc_policy_list *list, olc_loaded_plugin *p) {
  size_t i;
  if (list == NULL)
    return;
  if (list->serialized != NULL) {
    for (i = 0; i < list->count; i++)
      olc_buf__free(&list->serialized[i]);
    free(list->serialized);
  }
  if (p != NULL)
    release_all(p, list->policies, list->count);
  else
    free(list->policies);
  memset(list, 0, sizeof *list);
}

/*
 * Reaching the cap is not a failure: the plugin lists its best guesses
 * first, so the first OLC_PLUGINS_MAX_CANDIDATES are kept (and the plugin,
 * told OLC_PLUGIN_E_LIMIT, may return that status).
 */
olc_status olc_plugins__candidates(olc_policy_list *out, olc_loaded_plugin *p,
                                   const olc_plugin_workload *w, olc_error *err) {
  cand_ctx c;
  olc_plugin_policy_sink sink;
  int32_t rc;
  size_t i;
  olc_status st = OLC_OK;
  memset(out, 0, sizeof *out);
  memset(&c, 0, sizeof c);
  c.p = p;
  sink.struct_size = (uint32_t)sizeof sink;
  sink.abi_minor = OLC_PLUGIN_ABI_MINOR;
  sink.ctx = &c;
  sink.emit = cand_emit;
  olc_plugins__error_clear();
  rc = p->table->candidates(p->instance, w, &sink);
  if (c.fail != 0)
    st = olc_error__set(err, c.fail_status, "candidates", "plugin %s: %s", p->name, c.fail_msg);
  else if (rc != OLC_PLUGIN_OK && !(c.truncated && rc == OLC_PLUGIN_E_LIMIT)) {
    /* plugin_fail lives in wrappers.c; the message shape is the same. */
    int32_t code = 0;
    const char *detail = olc_plugins__error_message(p->lib, &code);
    olc_status mapped = rc == OLC_PLUGIN_E_UNSUPPORTED   ? OLC_E_UNSUPPORTED
                        : rc == OLC_PLUGIN_E_UNAVAILABLE ? OLC_E_UNAVAILABLE
                                                         : OLC_E_PLUGIN;
    if (detail != NULL)
      st = olc_error__set(err, mapped, "candidates", "plugin %s: %s", p->name, detail);
    else
      st = olc_error__set(err, mapped, "candidates", "plugin %s: candidates failed with status %d",
                          p->name, (int)rc);
    if (err != NULL)
      err->backend_code = rc;
  } else if (c.count == 0)
    st = olc_error__set(err, OLC_E_PLUGIN, "candidates", "plugin %s: no candidates for workload %s",
                        p->name, w != NULL && w->name != NULL ? w->name : "(unnamed)");
  if (st == OLC_OK) {
    out->serialized = calloc(c.count, sizeof *out->serialized);
    if (out->serialized == NULL)
      st = olc_error__set(err, OLC_E_NOMEM, "candidates", "out of memory");
  }
  out->policies = c.policies;
  out->count = c.count;
  for (i = 0; st == OLC_OK && i < c.count; i++)
    st = olc_plugins__serialize(&out->serialized[i], p, c.policies[i], err);
  if (st != OLC_OK)
    olc_policy_list__free(out, p);
  return st;
}
