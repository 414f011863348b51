/*
 * host/prune.c - olc_host_prune: removes calibrated records that a
 * loaded plugin rejects, as outdated (an older implementation than the
 * plugin's) or invalid (its validate says no).  Overrides are the user's and
 * are never touched; records of plugins not loaded here, and records of a
 * newer implementation (a downgraded plugin), are kept.  With
 * OLC_PRUNE_FOREIGN also the exact calibrated records of another machine:
 * their plugin, asked for the key of the record's own workload (decoded
 * from its model digest), reports another processor or thread count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host_int.h"
#include "store/version.h"
#include "util/error.h"

#define PRUNE_MAX_PROPS 64

typedef struct prune_ctx {
  olc_host *host;
  int foreign;
  olc_prune_report_fn report;
  void *payload;
} prune_ctx;

/* 1 when r should go, with the reason in why. */
static int prune_reason(olc_host *h, const olc_record *r, char *why, size_t size) {
  olc_loaded_plugin *p;
  char msg[OLC_ERROR_MESSAGE_SIZE];
  int cmp;
  if (r->origin != OLC_ORIGIN_CALIBRATED)
    return 0;
  p = olc_plugins__find(h->plugins, r->backend);
  if (p == NULL)
    return 0;
  /* The store's order of implementation versions, so prune agrees with
   * lookup's outdated/newer rejections. */
  cmp = olc_store__version_cmp(r->implementation, olc_plugins__version(p));
  if (cmp == 0)
    cmp = strcmp(r->implementation, olc_plugins__version(p));
  if (cmp < 0) {
    snprintf(why, size, "outdated implementation \"%s\" (plugin %s is \"%s\")", r->implementation,
             olc_plugins__name(p), olc_plugins__version(p));
    return 1;
  }
  if (cmp > 0)
    return 0;
  msg[0] = 0;
  if (olc_plugins__store_validator(r->policy, r->policy_len, p, msg, sizeof msg) != OLC_OK) {
    snprintf(why, size, "invalid: %s", msg[0] ? msg : "rejected by the plugin");
    return 1;
  }
  return 0;
}

/* Decodes one %XX-escaped name or value of canonical structure text in
 * place (olc/store.h). */
static void unescape(char *s) {
  char *o = s;
  for (; *s != 0; s++) {
    if (s[0] == '%' && s[1] != 0 && s[2] != 0) {
      char hex[3] = {s[1], s[2], 0};
      *o++ = (char)strtol(hex, NULL, 16);
      s += 2;
    } else {
      *o++ = *s;
    }
  }
  *o = 0;
}

int olc_host__split_structure(olc_plugin_kv *kv, int max, char *text) {
  int n = 0;
  char *item = text;
  if (*text == 0)
    return 0;
  while (item != NULL) {
    char *next = strchr(item, ';'), *eq;
    if (next != NULL)
      *next++ = 0;
    eq = strchr(item, '=');
    if (eq == NULL || n == max)
      return -1;
    *eq = 0;
    unescape(item);
    unescape(eq + 1);
    kv[n].key = item;
    kv[n].value = eq + 1;
    n++;
    item = next;
  }
  return n;
}

/* The workload a record was measured for, as its plugin sees it. */
static void record_workload(olc_plugin_workload *w, const olc_record *r, olc_plugin_kv *kv, int n) {
  memset(w, 0, sizeof *w);
  w->struct_size = (uint32_t)sizeof *w;
  w->abi_minor = OLC_PLUGIN_ABI_MINOR;
  w->name = r->operator_name;
  w->operator_name = r->operator_name;
  w->properties = n > 0 ? kv : NULL;
  w->property_count = n > 0 ? (uint32_t)n : 0u;
}

/* 1 when r is an exact calibrated record that its plugin, asked for the
 * key of r's workload here, gives another processor or thread count. */
static int foreign_reason(olc_host *h, const olc_record *r, char *why, size_t size) {
  olc_plugin_kv kv[PRUNE_MAX_PROPS];
  olc_plugin_workload w;
  olc_plugin_key pk;
  olc_loaded_plugin *p;
  const char *text;
  char *copy;
  int n, foreign = 0;
  if (r->origin != OLC_ORIGIN_CALIBRATED || r->level != OLC_LEVEL_EXACT || r->processor == NULL)
    return 0;
  p = olc_plugins__find(h->plugins, r->backend);
  text = olc_store_workload_of_digest(r->model_digest);
  if (p == NULL || text == NULL || (copy = strdup(text)) == NULL)
    return 0; /* no plugin here, or a legacy record: cannot tell */
  n = olc_host__split_structure(kv, PRUNE_MAX_PROPS, copy);
  record_workload(&w, r, kv, n);
  if (n >= 0 && olc_plugins__key(&pk, p, &w, NULL) == OLC_OK) {
    if (strcmp(pk.processor, r->processor) != 0) {
      snprintf(why, size, "foreign processor \"%s\" (plugin %s here: \"%s\")", r->processor,
               olc_plugins__name(p), pk.processor);
      foreign = 1;
    } else if ((int64_t)pk.thread_count != r->thread_count) {
      snprintf(why, size, "foreign thread count %lld (plugin %s here: %u)",
               (long long)r->thread_count, olc_plugins__name(p), (unsigned)pk.thread_count);
      foreign = 1;
    }
    olc_plugin_key__free(&pk);
  }
  free(copy);
  return foreign;
}

static int prune_predicate(const olc_record *record, void *payload) {
  prune_ctx *c = payload;
  char why[OLC_ERROR_MESSAGE_SIZE + 64];
  if (!prune_reason(c->host, record, why, sizeof why) &&
      !(c->foreign && foreign_reason(c->host, record, why, sizeof why)))
    return 0;
  if (c->report != NULL)
    c->report(c->payload, record, why);
  return 1;
}

olc_status olc_host_prune(olc_host *host, unsigned flags, olc_prune_report_fn report, void *payload,
                          size_t *removed, olc_error *err) {
  int dry_run = (flags & OLC_PRUNE_DRY_RUN) != 0;
  prune_ctx c;
  olc_status st;
  if (removed != NULL)
    *removed = 0;
  if (host == NULL || host->store == NULL)
    return olc_error__set(err, OLC_E_INVALID, "prune", "the host has no store");
  if ((flags & ~(OLC_PRUNE_DRY_RUN | OLC_PRUNE_FOREIGN)) != 0)
    return olc_error__set(err, OLC_E_INVALID, "prune", "unknown prune flags 0x%x", flags);
  /* In a child of fork() every validator rejects: each record would go. */
  st = olc_host__check_fork(host, "prune", err);
  if (st != OLC_OK)
    return st;
  c.host = host;
  c.foreign = (flags & OLC_PRUNE_FOREIGN) != 0;
  c.report = report;
  c.payload = payload;
  if (dry_run) {
    olc_record_list *list = NULL;
    size_t i;
    size_t n = 0;
    st = olc_store_list(&list, host->store, err);
    if (st != OLC_OK)
      return st;
    for (i = 0; i < olc_record_list_count(list); i++)
      n += (size_t)prune_predicate(olc_record_list_get(list, i), &c);
    olc_record_list_free(list);
    if (removed != NULL)
      *removed = n;
    return OLC_OK;
  }
  return olc_store_remove_if(host->store, prune_predicate, &c, removed, err);
}
