/*
 * host/slots.c - one slot per key a host has bound (runtime.h): found by
 * the key's identity (backend, operator, implementation, identity digest,
 * processor, thread count: the digest holds the structure), made by the
 * first binding of that key, freed with the host.
 */
#include <stdlib.h>
#include <string.h>

#include "host/host_int.h"
#include "util/error.h"
#include "util/hash.h"

static uint64_t key_hash(const olc_key *k) {
  uint64_t h = olc_hash__str(0, k->backend);
  h = olc_hash__str(h, k->operator_name);
  h = olc_hash__str(h, k->implementation);
  h = olc_hash__str(h, k->model_digest);
  h = olc_hash__str(h, k->processor);
  return olc_hash__mix(h ^ (uint64_t)k->thread_count);
}

static int same_key(const void *entry, const void *ctx) {
  const olc_key *a = &((const olc_host_slot *)entry)->key.key;
  const olc_key *b = ctx;
  return a->thread_count == b->thread_count && strcmp(a->model_digest, b->model_digest) == 0 &&
         strcmp(a->processor, b->processor) == 0 && strcmp(a->backend, b->backend) == 0 &&
         strcmp(a->operator_name, b->operator_name) == 0 &&
         strcmp(a->implementation, b->implementation) == 0;
}

static char *dup_or_null(olc_arena *a, const char *s, int *fail) {
  char *d = s != NULL ? olc_arena__strdup(a, s) : NULL;
  if (s != NULL && d == NULL)
    *fail = 1;
  return d;
}

/* The workload w in the slot's arena. */
static olc_status copy_workload(olc_host_slot *s, const olc_plugin_workload *w, const char *name) {
  olc_plugin_workload *d = &s->workload;
  olc_plugin_kv *kv = NULL;
  uint32_t i;
  int fail = 0;
  *d = *w;
  d->struct_size = (uint32_t)sizeof *d;
  d->abi_minor = OLC_PLUGIN_ABI_MINOR;
  if (w->property_count > 0) {
    kv = olc_arena__alloc(&s->arena, w->property_count * sizeof *kv);
    if (kv == NULL)
      return OLC_E_NOMEM;
    for (i = 0; i < w->property_count; i++) {
      kv[i].key = dup_or_null(&s->arena, w->properties[i].key, &fail);
      kv[i].value = dup_or_null(&s->arena, w->properties[i].value, &fail);
    }
  }
  d->properties = kv;
  s->name = dup_or_null(&s->arena, name, &fail);
  d->name = s->name;
  d->operator_name = dup_or_null(&s->arena, w->operator_name, &fail);
  d->model_digest = dup_or_null(&s->arena, w->model_digest, &fail);
  return fail ? OLC_E_NOMEM : OLC_OK;
}

static olc_status new_slot(olc_host_slot **out, olc_host *host, olc_loaded_plugin *p,
                           olc_host_key *key, const olc_plugin_workload *w, const char *name) {
  olc_host_slot *s = calloc(1, sizeof *s);
  int i;
  *out = NULL;
  if (s == NULL)
    return OLC_E_NOMEM;
  s->host = host;
  s->plugin = p;
  s->key = *key;
  memset(key, 0, sizeof *key);
  /* The store key points into the plugin's key and the digest, which
   * moved with it, and at the workload's operator: point it at ours. */
  if (copy_workload(s, w, name) != OLC_OK) {
    olc_host__slot_free(s);
    return OLC_E_NOMEM;
  }
  s->key.key.operator_name = s->workload.operator_name;
  s->views = (olc_plugins__features(p) & OLC_PLUGIN_FEATURE_VIEWS) != 0;
  s->executes = olc_plugins__can_execute(p);
  s->matmul_f32 = olc_plugins__has_matmul_f32(p) && s->workload.operator_name != NULL &&
                  strcmp(s->workload.operator_name, "MatMul") == 0;
  for (i = 0; i < 2; i++) {
    atomic_init(&s->view[i].current, NULL);
    atomic_init(&s->view[i].epoch, 0);
    atomic_init(&s->view[i].checked_ns, 0);
    atomic_init(&s->view[i].checking, 0);
  }
  atomic_init(&s->recorded, 0);
  *out = s;
  return OLC_OK;
}

olc_status olc_host__slot_get(olc_host_slot **out, olc_host *host, olc_loaded_plugin *p,
                              olc_host_key *key, const olc_plugin_workload *w, const char *name,
                              olc_error *err) {
  uint64_t h = key_hash(&key->key);
  olc_host_slot *s, *made = NULL;
  olc_util__rwlock_rdlock(&host->rt.lock);
  s = olc_host__table_find(&host->rt.slots, h, same_key, &key->key);
  olc_util__rwlock_rdunlock(&host->rt.lock);
  if (s == NULL && new_slot(&made, host, p, key, w, name) != OLC_OK) {
    olc_host_key__free(key);
    return olc_error__set(err, OLC_E_NOMEM, "bind", "out of memory");
  }
  if (made != NULL) {
    olc_util__rwlock_wrlock(&host->rt.lock);
    /* Another thread may have made the slot meanwhile: its wins. */
    s = olc_host__table_find(&host->rt.slots, h, same_key, &made->key.key);
    if (s == NULL && olc_host__table_put(&host->rt.slots, made, h) == OLC_OK) {
      s = made;
      made = NULL;
    }
    olc_util__rwlock_wrunlock(&host->rt.lock);
    olc_host__slot_free(made);
  }
  olc_host_key__free(key);
  *out = s;
  if (s == NULL)
    return olc_error__set(err, OLC_E_NOMEM, "bind", "out of memory");
  return OLC_OK;
}

void olc_host__slot_free(void *slot) {
  olc_host_slot *s = slot;
  if (s == NULL)
    return;
  olc_host__free_selections(s);
  if (s->first_handle != NULL)
    olc_plugins__release(s->plugin, s->first_handle);
  olc_buf__free(&s->first_bytes);
  olc_host_key__free(&s->key);
  olc_arena__free(&s->arena);
  free(s);
}
