/*
 * host/verify.c - olc_host_verify: the calibrated records of the store's
 * read-only layers (profiles shipped from a machine "of the same type")
 * raced again here, each against its plugin's candidates, in the first
 * candidate's place so that a tie keeps it; one that no longer wins beyond
 * the noise is recalibrated into the user's store, where it shadows the
 * layer.  Also the on_first_use check of one key that the runtime makes
 * ([store] verify_layers, olc_host__verify_key).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host_int.h"
#include "util/error.h"
#include "util/options.h"

#define VERIFY_MAX_PROPS 64

/* One record's verification: the outcome and what the report shows. */
typedef struct verify_one {
  olc_host *host;
  const olc_record *rec;
  int read_only;
  int in_process;
  olc_verify_entry e;
  char msg[OLC_ERROR_MESSAGE_SIZE];
  olc_arena arena;
} verify_one;

static void say(verify_one *v, olc_verify_outcome outcome, olc_status st, const char *fmt, ...)
    OLC_PRINTF(4, 5);

static void say(verify_one *v, olc_verify_outcome outcome, olc_status st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(v->msg, sizeof v->msg, fmt, ap);
  va_end(ap);
  v->e.outcome = outcome;
  v->e.status = st;
  v->e.message = v->msg;
}

/* The workload r was measured for, as a workload described in code:
 * properties from its identity into props (cut from text, a copy), its
 * model the digest's model part (none for "workload:").  0 with v's
 * message when it has none. */
static int record_workload(verify_one *v, olc_workload *w, olc_property *props, char **text,
                           char **model) {
  const olc_record *r = v->rec;
  olc_plugin_kv kv[VERIFY_MAX_PROPS];
  olc_workload init = OLC_WORKLOAD_INIT;
  const char *id;
  int n, i;
  *w = init;
  *text = NULL;
  *model = NULL;
  w->backend = r->backend;
  w->operator_name = r->operator_name;
  if (r->level == OLC_LEVEL_PORTABLE) {
    if (r->structure_count > VERIFY_MAX_PROPS)
      return 0;
    for (i = 0; i < (int)r->structure_count; i++)
      props[i] = r->structure[i];
    w->properties = props;
    w->property_count = r->structure_count;
    return 1;
  }
  id = olc_store_workload_of_digest(r->model_digest);
  if (id == NULL) {
    say(v, OLC_VERIFY_SKIPPED, OLC_E_NOT_FOUND,
        "skipped: a record without a workload identity (written before records were per "
        "workload)");
    return 0;
  }
  if (strncmp(r->model_digest, "workload:", 9) != 0) {
    size_t len = (size_t)(id - 1 - r->model_digest); /* up to the last '#' */
    *model = malloc(len + 1);
    if (*model == NULL)
      return 0;
    memcpy(*model, r->model_digest, len);
    (*model)[len] = 0;
    w->model_digest = *model;
  }
  *text = strdup(id);
  n = *text != NULL ? olc_host__split_structure(kv, VERIFY_MAX_PROPS, *text) : -1;
  if (n < 0) {
    say(v, OLC_VERIFY_SKIPPED, OLC_E_MALFORMED, "skipped: its workload identity does not parse");
    return 0;
  }
  for (i = 0; i < n; i++) {
    props[i].name = kv[i].key;
    props[i].value = kv[i].value;
  }
  w->properties = props;
  w->property_count = (size_t)n;
  return 1;
}

/* 1 when the host selects r itself for binding b's key (no record of the
 * user's file or an earlier layer shadows it, this machine's processor
 * and thread count); else 0 with v's message. */
static int served_here(verify_one *v, olc_binding *b) {
  const olc_key *k = &b->slot->key.key;
  const olc_record *r = v->rec, *sel;
  olc_lookup_result *lr = NULL;
  olc_error e;
  int same;
  if (r->level == OLC_LEVEL_EXACT &&
      (k->processor == NULL || strcmp(k->processor, r->processor) != 0)) {
    say(v, OLC_VERIFY_SKIPPED, OLC_OK, "skipped: recorded on processor '%s', this machine is '%s'",
        r->processor, k->processor != NULL ? k->processor : "");
    return 0;
  }
  if (r->level == OLC_LEVEL_EXACT && k->thread_count != r->thread_count) {
    say(v, OLC_VERIFY_SKIPPED, OLC_OK, "skipped: recorded with %lld threads, this host runs %lld",
        (long long)r->thread_count, (long long)k->thread_count);
    return 0;
  }
  (void)olc_host__lookup(&lr, v->host, b->slot->plugin, k, v->host->force_portable, 0, &e);
  sel = olc_lookup_result_selected(lr);
  same = sel != NULL && olc_host__same_record(sel, r) && sel->from_layer &&
         (sel->source == NULL) == (r->source == NULL) &&
         (sel->source == NULL || strcmp(sel->source, r->source) == 0);
  if (!same && sel == NULL)
    say(v, OLC_VERIFY_SKIPPED, OLC_OK, "skipped: this host selects nothing for its workload");
  else if (!same)
    say(v, OLC_VERIFY_SKIPPED, OLC_OK, "skipped: shadowed here by the %s %s record of %s",
        olc_level_str(sel->level), olc_origin_str(sel->origin),
        sel->source != NULL ? sel->source : "memory");
  olc_lookup_result_free(lr);
  return same;
}

/* The best median among the challengers (candidates 1..), or -1. */
static double best_challenger(const olc_host_measure *m) {
  double best = -1;
  size_t i;
  for (i = 1; i < m->candidate_count; i++) {
    const olc_candidate_result *c = &m->candidates[i];
    if (c->status == OLC_OK && c->samples > 0 && (best < 0 || c->median_us < best))
      best = c->median_us;
  }
  return best;
}

olc_status olc_host__verify_measure(olc_host_measure *m, olc_host_slot *slot, const olc_record *rec,
                                    int no_save, int in_process, olc_arena *arena) {
  olc_host *h = slot->host;
  olc_status st;
  memset(m, 0, sizeof *m);
  m->host = h;
  m->plugin = slot->plugin;
  m->workload = &slot->workload;
  m->key = &slot->key.key;
  m->name = slot->name;
  m->settings = h->loop_settings != NULL ? h->loop_settings : &h->settings;
  m->in_process = in_process;
  m->arena = arena;
  m->incumbent = rec->policy;
  m->incumbent_len = rec->policy_len;
  m->no_save = no_save;
  olc_host__global_lock();
  (void)olc_host__claim_measurer(-1, 0, NULL, NULL);
  olc_host__global_unlock();
  st = olc_host__measure_key(m);
  olc_host__global_lock();
  olc_host__release_measurer();
  olc_host__global_unlock();
  return st;
}

/* Races r's policy against its plugin's candidates; the outcome in v. */
static olc_status race(verify_one *v, olc_binding *b) {
  olc_host_measure m;
  olc_status st =
      olc_host__verify_measure(&m, b->slot, v->rec, v->read_only, v->in_process, &v->arena);
  const olc_candidate_result *w;
  char against[OLC_ERROR_MESSAGE_SIZE / 2];
  if (st != OLC_OK)
    return st;
  olc_lookup_result_free(m.lookup);
  v->e.candidates = m.candidate_count;
  if (m.status != OLC_OK || m.winner >= m.candidate_count) {
    say(v, OLC_VERIFY_FAILED, m.status != OLC_OK ? m.status : OLC_E_INTERNAL, "failed: %s",
        m.message != NULL ? m.message : "no candidate won");
    return OLC_OK;
  }
  if (m.candidates[0].status == OLC_OK && m.candidates[0].samples > 0)
    v->e.stored_median_us = m.candidates[0].median_us;
  w = &m.candidates[m.winner];
  v->e.winner_median_us = w->median_us;
  if (m.kept) {
    double best = best_challenger(&m);
    say(v, OLC_VERIFY_KEPT, OLC_OK, "kept: still wins here, %.1f us (best challenger %s%.1f us)",
        v->e.stored_median_us, best < 0 ? "none, " : "", best < 0 ? 0.0 : best);
    return OLC_OK;
  }
  v->e.winner_policy = w->policy;
  v->e.winner_policy_len = w->policy_len;
  if (v->e.stored_median_us >= 0)
    snprintf(against, sizeof against, "against the stored policy's %.1f us", v->e.stored_median_us);
  else
    snprintf(against, sizeof against, "the stored policy failed here (%s)",
             m.candidates[0].message != NULL ? m.candidates[0].message
                                             : olc_status_str(m.candidates[0].status));
  if (v->read_only) {
    say(v, OLC_VERIFY_STALE, OLC_OK, "stale: a candidate wins here, %.1f us, %s; not saved (%s)",
        w->median_us, against,
        olc_store_is_read_only(v->host->store) ? "the store is read-only" : "dry run");
    return OLC_OK;
  }
  say(v, OLC_VERIFY_RECALIBRATED, OLC_OK,
      "recalibrated: a candidate wins here, %.1f us, %s; saved to %s", w->median_us, against,
      olc_store_path(v->host->store) != NULL ? olc_store_path(v->host->store) : "memory");
  return OLC_OK;
}

/* Verifies one layer record into v (its report entry). */
static olc_status verify_record(verify_one *v) {
  olc_property props[VERIFY_MAX_PROPS];
  const olc_record *r = v->rec;
  olc_loaded_plugin *p;
  olc_binding *b = NULL;
  olc_workload w;
  char *text = NULL, *model = NULL;
  olc_error e;
  olc_status st = OLC_OK;
  if (r->origin != OLC_ORIGIN_CALIBRATED) {
    say(v, OLC_VERIFY_SKIPPED, OLC_OK, "skipped: an override (the user's choice, not measured)");
    return OLC_OK;
  }
  p = olc_plugins__find(v->host->plugins, r->backend);
  if (p == NULL) {
    say(v, OLC_VERIFY_SKIPPED, OLC_E_UNAVAILABLE, "skipped: plugin '%s' is not loaded here",
        r->backend);
    return OLC_OK;
  }
  if (strcmp(r->implementation, olc_plugins__version(p)) != 0) {
    say(v, OLC_VERIFY_SKIPPED, OLC_OK, "skipped: implementation \"%s\" (plugin %s is \"%s\")",
        r->implementation, olc_plugins__name(p), olc_plugins__version(p));
    return OLC_OK;
  }
  if (!record_workload(v, &w, props, &text, &model)) {
    if (v->e.message == NULL)
      st = OLC_E_NOMEM;
    goto done;
  }
  olc_error_clear(&e);
  st = olc_host__check_workload(&w, r->backend, &e);
  if (st == OLC_OK)
    st = olc_host__bind_with_digest(&b, v->host, &w, w.model_digest, &e);
  if (st != OLC_OK) {
    say(v, OLC_VERIFY_SKIPPED, st, "skipped: its workload does not bind here: %s", e.message);
    st = st == OLC_E_NOMEM ? st : OLC_OK;
    goto done;
  }
  if (served_here(v, b))
    st = race(v, b);
done:
  olc_binding_free(b);
  free(text);
  free(model);
  return st;
}

/* Whether the host's store keeps nothing that verify would save. */
static int store_read_only(olc_host *h) {
  olc_error e;
  if (olc_store_is_read_only(h->store))
    return 1;
  return olc_store_writable(h->store, NULL, &e) == OLC_E_READ_ONLY;
}

olc_status olc_host_verify(olc_host *host, const olc_verify_options *options,
                           olc_verify_report_fn report, void *payload, size_t counts[6],
                           olc_error *err) {
  olc_verify_options o;
  olc_record_list *list = NULL;
  size_t *layer = NULL, n_layer = 0, i, total, pick;
  olc_status st;
  int read_only;
  if (counts != NULL)
    memset(counts, 0, 6 * sizeof *counts);
  if (host == NULL || host->store == NULL)
    return olc_error__set(err, OLC_E_INVALID, "verify", "no host or no store");
  st = olc_options__load(&o, &olc_options__verify, options, "verify", err);
  if (st == OLC_OK)
    st = olc_host__check_fork(host, "verify", err);
  if (st == OLC_OK)
    st = olc_store_list(&list, host->store, err);
  if (st != OLC_OK)
    return st;
  total = olc_record_list_count(list);
  layer = malloc((total + 1) * sizeof *layer);
  if (layer == NULL) {
    olc_record_list_free(list);
    return olc_error__set(err, OLC_E_NOMEM, "verify", "out of memory");
  }
  for (i = 0; i < total; i++)
    if (olc_record_list_get(list, i)->from_layer)
      layer[n_layer++] = i;
  read_only = o.dry_run || store_read_only(host);
  pick = o.sample > 0 && o.sample < n_layer ? o.sample : n_layer;
  for (i = 0; i < pick && st == OLC_OK; i++) {
    verify_one v;
    /* A sample spread evenly over the store's order. */
    size_t at = pick == n_layer ? i : i * n_layer / pick;
    memset(&v, 0, sizeof v);
    {
      olc_arena init = OLC_ARENA_INIT;
      v.arena = init;
    }
    v.host = host;
    v.rec = olc_record_list_get(list, layer[at]);
    v.read_only = read_only;
    v.in_process = o.in_process;
    v.e.record = v.rec;
    v.e.stored_median_us = -1;
    v.e.winner_median_us = -1;
    st = verify_record(&v);
    if (st == OLC_OK) {
      if (counts != NULL) {
        counts[0]++;
        counts[v.e.outcome]++;
      }
      if (report != NULL)
        report(payload, &v.e);
    }
    olc_arena__free(&v.arena);
  }
  free(layer);
  olc_record_list_free(list);
  return st == OLC_OK ? OLC_OK : olc_error__set(err, st, "verify", "%s", olc_status_str(st));
}
