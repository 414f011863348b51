/*
 * host/prune.c - olc_host_prune: removes calibrated records that a
 * loaded plugin rejects, as outdated (an older implementation than the
 * plugin's) or invalid (its validate says no).  Overrides are the user's and
 * are never touched; records of plugins not loaded here, and records of a
 * newer implementation (a downgraded plugin), are kept.
 */
#include <stdio.h>
#include <string.h>

#include "host/host_int.h"
#include "store/version.h"
#include "util/error.h"

typedef struct prune_ctx {
  olc_host *host;
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

static int prune_predicate(const olc_record *record, void *payload) {
  prune_ctx *c = payload;
  char why[OLC_ERROR_MESSAGE_SIZE + 64];
  if (!prune_reason(c->host, record, why, sizeof why))
    return 0;
  if (c->report != NULL)
    c->report(c->payload, record, why);
  return 1;
}

olc_status olc_host_prune(olc_host *host, int dry_run, olc_prune_report_fn report, void *payload,
                          size_t *removed, olc_error *err) {
  prune_ctx c;
  olc_status st;
  if (removed != NULL)
    *removed = 0;
  if (host == NULL || host->store == NULL)
    return olc_error__set(err, OLC_E_INVALID, "prune", "the host has no store");
  c.host = host;
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
