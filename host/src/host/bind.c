/*
 * host/bind.c - olc_host_bind and olc_host_select's cache of bindings: a
 * workload described in code is checked, its plugin found, its key asked
 * for and composed with the identity digest, and the binding joins the
 * slot of that key.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "digest/digest.h"
#include "host/host_int.h"
#include "util/error.h"
#include "util/options.h"

#define LABEL_SIZE 160

/* "workload 'NAME'" (NAME: the name, or backend/operator). */
static void label_of(char *buf, const olc_workload *w) {
  if (w->name != NULL)
    snprintf(buf, LABEL_SIZE, "workload '%.120s'", w->name);
  else
    snprintf(buf, LABEL_SIZE, "workload '%.60s/%.60s'", w->backend ? w->backend : "",
             w->operator_name ? w->operator_name : "");
}

const char *olc_binding__name(const olc_binding *b) { return b->name; }

/* The plugin of w->backend: NULL with the status in *st when there is
 * none, it is unavailable here, or it does not serve the operator. */
static olc_loaded_plugin *find_plugin(olc_status *st, olc_host *host, const olc_workload *w,
                                      olc_error *err) {
  olc_loaded_plugin *p = olc_plugins__find(host->plugins, w->backend);
  size_t i;
  *st = OLC_OK;
  if (p != NULL && olc_plugins__serves(p, w->operator_name))
    return p;
  if (p != NULL) {
    *st = olc_error__set(err, OLC_E_UNSUPPORTED, "bind", "plugin '%s' does not serve operator '%s'",
                         w->backend, w->operator_name);
    return NULL;
  }
  for (i = 0; i < olc_host_report_count(host); i++) {
    const olc_load_entry *e = olc_host_report(host, i);
    if (e->unavailable && e->plugin_name != NULL && strcmp(e->plugin_name, w->backend) == 0) {
      *st = olc_error__set(err, OLC_E_UNAVAILABLE, "bind", "plugin '%s' is unavailable here: %s",
                           w->backend, e->message != NULL ? e->message : "");
      return NULL;
    }
  }
  *st = olc_error__set(err, OLC_E_NOT_FOUND, "bind", "plugin '%s' not loaded", w->backend);
  return NULL;
}

/* A key failure as bind reports it: what the plugin finds invalid is the
 * caller's bad input. */
static olc_status key_status(olc_status st, const olc_error *e) {
  if (st == OLC_E_PLUGIN && e->backend_code == OLC_PLUGIN_E_INVALID)
    return OLC_E_INVALID;
  return st;
}

olc_status olc_host__bind_with_digest(olc_binding **out, olc_host *host, const olc_workload *w,
                                      const char *model_digest, olc_error *err) {
  char label[LABEL_SIZE];
  olc_binding *b;
  olc_host_key key;
  olc_loaded_plugin *p;
  olc_status st;
  *out = NULL;
  st = olc_host__check_fork(host, "bind", err);
  if (st != OLC_OK)
    return st;
  p = find_plugin(&st, host, w, err);
  if (p == NULL)
    return st;
  b = calloc(1, sizeof *b);
  if (b == NULL)
    return olc_error__set(err, OLC_E_NOMEM, "bind", "out of memory");
  b->host = host;
  if (w->name != NULL)
    snprintf(label, sizeof label, "%s", w->name);
  else
    snprintf(label, sizeof label, "%s/%s", w->backend, w->operator_name);
  if (olc_host__copy_workload(b, w, label, model_digest) != OLC_OK) {
    olc_binding_free(b);
    return olc_error__set(err, OLC_E_NOMEM, "bind", "out of memory");
  }
  /* Before the key: the plugin keys on which inputs are constant. */
  st = olc_host__bind_constants(b, w, p, err);
  if (st != OLC_OK) {
    olc_binding_free(b);
    return st;
  }
  st = olc_host__key(&key, p, &b->workload, err);
  if (st == OLC_OK)
    st = olc_host__slot_get(&b->slot, host, p, &key, &b->workload, b->name, err);
  else if (err != NULL)
    err->code = st = key_status(st, err);
  if (st != OLC_OK) {
    olc_binding_free(b);
    return st;
  }
  *out = b;
  return OLC_OK;
}

void olc_binding_free(olc_binding *b) {
  if (b == NULL)
    return;
  olc_host__free_constants(b);
  olc_arena__free(&b->arena);
  free(b);
}

/* Loads, labels and checks the caller's workload, and its model digest. */
static olc_status take_workload(olc_workload *full, char *label, const char **model, char *buf,
                                const olc_workload *w, olc_error *err) {
  olc_status st = olc_options__load(full, &olc_options__workload, w, "bind", err);
  if (st != OLC_OK)
    return st;
  label_of(label, full);
  st = olc_host__check_workload(full, label, err);
  if (st == OLC_OK)
    st = olc_host__model_digest(model, buf, full, err);
  return st;
}

/* A bind failure with the workload named first. */
static olc_status named(olc_error *err, const olc_error *e, olc_status st, const char *label) {
  olc_error__set(err, st, e->where, "%s: %s", label, e->message);
  if (err != NULL)
    err->backend_code = e->backend_code;
  return st;
}

olc_status olc_host_bind(olc_binding **out, olc_host *host, const olc_workload *w, olc_error *err) {
  olc_workload full;
  char label[LABEL_SIZE], digest[OLC_DIGEST_SIZE];
  const char *model = NULL;
  olc_error e;
  olc_status st;
  if (out != NULL)
    *out = NULL;
  if (out == NULL || host == NULL || w == NULL)
    return olc_error__set(err, OLC_E_INVALID, "bind", "no output, host or workload");
  st = take_workload(&full, label, &model, digest, w, err);
  if (st != OLC_OK)
    return st;
  olc_error_clear(&e);
  st = olc_host__bind_with_digest(out, host, &full, model, &e);
  return st == OLC_OK ? OLC_OK : named(err, &e, st, label);
}

/* ------------------------------------------------- olc_host_select's cache */

typedef struct description {
  const olc_workload *w;
  const char *model;
} description;

static int same_description(const void *entry, const void *ctx) {
  const description *d = ctx;
  return olc_host__same_description(entry, d->w, d->model);
}

/* The host's binding of the described workload, or NULL. */
static olc_binding *find_cached(olc_host *host, const olc_workload *w, const char *model,
                                uint64_t h) {
  description d = {w, model};
  olc_binding *b;
  olc_util__rwlock_rdlock(&host->rt.lock);
  b = olc_host__table_find(&host->rt.bindings, h, same_description, &d);
  olc_util__rwlock_rdunlock(&host->rt.lock);
  return b;
}

/* Binds the described workload (checked) and caches the binding; another
 * thread's, made meanwhile, wins. */
static olc_status cache_binding(olc_binding **out, olc_host *host, const olc_workload *w,
                                const char *model, uint64_t h, const char *label, olc_error *err) {
  description d = {w, model};
  olc_binding *b, *made = NULL;
  olc_error e;
  olc_status st;
  olc_error_clear(&e);
  st = olc_host__bind_with_digest(&made, host, w, model, &e);
  if (st != OLC_OK)
    return named(err, &e, st, label);
  olc_util__rwlock_wrlock(&host->rt.lock);
  b = olc_host__table_find(&host->rt.bindings, h, same_description, &d);
  if (b == NULL && olc_host__table_put(&host->rt.bindings, made, h) == OLC_OK) {
    made->cached = 1;
    b = made;
    made = NULL;
  }
  olc_util__rwlock_wrunlock(&host->rt.lock);
  olc_binding_free(made);
  *out = b;
  return b != NULL ? OLC_OK : olc_error__set(err, OLC_E_NOMEM, "select", "out of memory");
}

olc_status olc_host_select(const olc_selection **out, olc_host *host, const olc_workload *w,
                           const olc_select_options *opt, olc_error *err) {
  olc_workload full;
  char label[LABEL_SIZE], digest[OLC_DIGEST_SIZE];
  const char *model = NULL;
  olc_binding *b = NULL;
  uint64_t h = 0;
  olc_status st;
  if (out != NULL)
    *out = NULL;
  if (out == NULL || host == NULL || w == NULL)
    return olc_error__set(err, OLC_E_INVALID, "select", "no output, host or workload");
  st = olc_options__load(&full, &olc_options__workload, w, "select", err);
  if (st != OLC_OK)
    return st;
  if (full.constant_count > 0) {
    label_of(label, &full);
    return olc_error__set(err, OLC_E_INVALID, "select",
                          "%s: a workload with constants is bound with olc_host_bind and executed "
                          "with olc_binding_execute (olc_host_select shares its bindings)",
                          label);
  }
  /* A warm call: only what the comparison needs is checked (a cached
   * description was checked in full when it was bound). */
  if (olc_host__describable(&full) &&
      olc_host__model_digest(&model, digest, &full, err) == OLC_OK) {
    h = olc_host__describe(&full, model);
    b = find_cached(host, &full, model, h);
  }
  if (b == NULL) {
    st = take_workload(&full, label, &model, digest, w, err);
    if (st == OLC_OK) {
      h = olc_host__describe(&full, model);
      st = cache_binding(&b, host, &full, model, h, label, err);
    }
    if (st != OLC_OK)
      return st;
  }
  return olc_binding_select(out, b, opt, err);
}

const olc_key *olc_binding_key(const olc_binding *b) {
  return b != NULL ? &b->slot->key.key : NULL;
}

olc_status olc_host_validate_policy(olc_host *host, const char *backend, const void *policy,
                                    size_t len, olc_error *err) {
  char message[OLC_ERROR_MESSAGE_SIZE];
  olc_loaded_plugin *p;
  olc_status st;
  if (host == NULL || backend == NULL || (policy == NULL && len > 0))
    return olc_error__set(err, OLC_E_INVALID, "validate", "no host, backend or policy");
  st = olc_host__check_fork(host, "validate", err);
  if (st != OLC_OK)
    return st;
  p = olc_plugins__find(host->plugins, backend);
  if (p == NULL) {
    olc_workload w = OLC_WORKLOAD_INIT;
    w.backend = backend;
    w.operator_name = "";
    (void)find_plugin(&st, host, &w, err); /* unavailable here, or not loaded */
    return st;
  }
  /* The validator select and calibrate give the store's lookups, so what
   * passes here is what they accept. */
  message[0] = 0;
  st = olc_plugins__store_validator(policy, len, p, message, sizeof message);
  if (st == OLC_OK)
    return OLC_OK;
  return olc_error__set(err, st, "validate", "plugin %s rejects the policy: %s", backend, message);
}
