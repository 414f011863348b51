/*
 * host/nearest.c - the nearest measured answer on a miss (olc/host.h,
 * olc_binding_select): of the exact calibrated records of the key's
 * plugin, operator, processor and thread count, the one whose workload
 * the plugin's distance (plugins/distance.c) puts nearest to the key's,
 * and whose policy the plugin validates.  A miss then serves a measured
 * policy of a similar shape instead of the plugin's first guess.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host_int.h"
#include "util/error.h"

#define NEAREST_MAX_PROPS 64
/* Neighbours tried, nearest first, when the plugin rejects one's policy. */
#define NEAREST_TRIES 4

static int same_text(const char *a, const char *b) {
  return a != NULL && b != NULL && strcmp(a, b) == 0;
}

/* A record whose policy may answer for key: measured (calibrated, exact)
 * for the same implementation, processor and thread count, with a
 * workload identity, and not the key's own record (a rejected one of
 * those is rejected for a reason). */
static int eligible(const olc_record *r, const olc_key *key) {
  return r->level == OLC_LEVEL_EXACT && r->origin == OLC_ORIGIN_CALIBRATED &&
         same_text(r->implementation, key->implementation) &&
         same_text(r->processor, key->processor) && r->thread_count == key->thread_count &&
         olc_store_workload_of_digest(r->model_digest) != NULL &&
         !same_text(r->model_digest, key->model_digest);
}

/* The distance from the key's structure to r's workload; -1: none. */
static double distance_to(olc_host_slot *slot, const olc_plugin_kv *mine, int mine_n,
                          const olc_record *r) {
  olc_plugin_kv kv[NEAREST_MAX_PROPS];
  char *copy = strdup(olc_store_workload_of_digest(r->model_digest));
  double d = -1;
  int n;
  if (copy == NULL)
    return -1;
  n = olc_host__split_structure(kv, NEAREST_MAX_PROPS, copy);
  if (n >= 0)
    d = olc_plugins__distance(slot->plugin, slot->key.key.operator_name, mine, (uint32_t)mine_n, kv,
                              (uint32_t)n);
  free(copy);
  return d;
}

/* The nearest eligible record not yet tried (tried[i] for rejection i),
 * or NULL; *best_d its distance.  Ties keep the store's order. */
static const olc_record *nearest_of(size_t *index, double *best_d, olc_host_slot *slot,
                                    const olc_lookup_result *lr, const unsigned char *tried,
                                    const olc_plugin_kv *mine, int mine_n) {
  const olc_record *best = NULL;
  size_t i, n = olc_lookup_result_rejected_count(lr);
  for (i = 0; i < n; i++) {
    const olc_rejection *rj = olc_lookup_result_rejected(lr, i);
    double d;
    if (tried[i] || rj == NULL || rj->record == NULL || !eligible(rj->record, &slot->key.key))
      continue;
    d = distance_to(slot, mine, mine_n, rj->record);
    if (d >= 0 && (best == NULL || d < *best_d)) {
      best = rj->record;
      *best_d = d;
      *index = i;
    }
  }
  return best;
}

olc_status olc_host__nearest_selection(olc_selection **out, olc_host_slot *slot, int fp,
                                       olc_status why, const char *reason, olc_error *err) {
  olc_plugin_kv mine[NEAREST_MAX_PROPS];
  const olc_plugin_key *pk = &slot->key.pk;
  olc_lookup_result *lr = NULL;
  unsigned char *tried;
  olc_status st;
  size_t i;
  int t;
  *out = NULL;
  if (fp || pk->structure_count > NEAREST_MAX_PROPS)
    return OLC_E_NOT_FOUND;
  for (i = 0; i < pk->structure_count; i++) {
    mine[i].key = pk->structure[i].name;
    mine[i].value = pk->structure[i].value;
  }
  /* Every record of the backend and operator, as explain --all lists
   * them; the slow path of a miss only. */
  st = olc_host__lookup(&lr, slot->host, slot->plugin, &slot->key.key, 0, 1, NULL);
  if (st != OLC_OK && st != OLC_E_NOT_FOUND) {
    olc_lookup_result_free(lr);
    return OLC_E_NOT_FOUND;
  }
  tried = calloc(olc_lookup_result_rejected_count(lr) + 1, 1);
  if (tried == NULL) {
    olc_lookup_result_free(lr);
    return olc_error__set(err, OLC_E_NOMEM, "select", "out of memory");
  }
  st = OLC_E_NOT_FOUND;
  for (t = 0; t < NEAREST_TRIES && st == OLC_E_NOT_FOUND; t++) {
    char msg[OLC_ERROR_MESSAGE_SIZE];
    double d = 0;
    size_t index = 0;
    const olc_record *r = nearest_of(&index, &d, slot, lr, tried, mine, (int)pk->structure_count);
    if (r == NULL)
      break;
    tried[index] = 1;
    snprintf(msg, sizeof msg,
             "nearest measured workload '%s' (distance %.2f%s%s) for workload '%s': %s",
             olc_store_workload_of_digest(r->model_digest), d, r->source != NULL ? ", " : "",
             r->source != NULL ? r->source : "", slot->name != NULL ? slot->name : "", reason);
    st = olc_host__neighbour_selection(out, slot, r, why, msg, NULL);
    if (st == OLC_E_VALIDATION || st == OLC_E_PLUGIN)
      st = OLC_E_NOT_FOUND; /* the plugin refuses this one: the next nearest */
  }
  free(tried);
  olc_lookup_result_free(lr);
  if (st == OLC_E_NOMEM)
    return olc_error__set(err, st, "select", "out of memory");
  return st == OLC_OK ? OLC_OK : OLC_E_NOT_FOUND;
}
