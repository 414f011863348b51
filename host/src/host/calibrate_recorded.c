/*
 * host/calibrate_recorded.c - olc_host_calibrate with the recorded option:
 * the workloads of a recorded-workloads file (recorded.h) as configured
 * workloads, those recorded on another processor or thread count skipped,
 * and, after the loop, each one that ended with a stored selection
 * removed from the file under its lock.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host_int.h"
#include "util/error.h"

/* "backend/operator{k=v,...}": the workload's name in results. */
static const char *entry_name(olc_arena *a, const olc_recorded_entry *e) {
  olc_buf b = OLC_BUF_INIT;
  const char *name = NULL;
  olc_status st = olc_buf__puts(&b, e->backend);
  size_t i;
  if (st == OLC_OK)
    st = olc_buf__putc(&b, '/');
  if (st == OLC_OK)
    st = olc_buf__puts(&b, e->operator_name);
  for (i = 0; i < e->prop_count && st == OLC_OK; i++) {
    st = olc_buf__putc(&b, i == 0 ? '{' : ',');
    if (st == OLC_OK)
      st = olc_buf__puts(&b, e->props[i].name);
    if (st == OLC_OK)
      st = olc_buf__putc(&b, '=');
    if (st == OLC_OK)
      st = olc_buf__puts(&b, e->props[i].value);
  }
  if (st == OLC_OK && e->prop_count > 0)
    st = olc_buf__putc(&b, '}');
  if (st == OLC_OK)
    name = olc_arena__strndup(a, (const char *)b.data, b.len);
  olc_buf__free(&b);
  return name;
}

/* Why entry e is not tuned here (NULL: it is): its key on this machine
 * must have the processor and thread count it was recorded with.  A
 * workload that does not bind is left to the loop, which reports why. */
static const char *skip_reason(olc_arena *a, olc_host *host, const olc_workload_config *wc,
                               const olc_recorded_entry *e) {
  char msg[OLC_ERROR_MESSAGE_SIZE];
  olc_workload w = OLC_WORKLOAD_INIT;
  olc_binding *b = NULL;
  const olc_key *k;
  olc_error err;
  w.backend = wc->backend;
  w.operator_name = wc->operator_name;
  w.properties = wc->properties;
  w.property_count = wc->property_count;
  w.model_digest = wc->model_digest;
  w.name = wc->name;
  /* The loop would take it for no model (olc_host__config_model) and
   * measure the workload without one under its identity. */
  if (olc_host__workload_identity(wc->model_digest)) {
    snprintf(msg, sizeof msg, "skipped: model '%.80s' is not a model digest (a hand edit?)",
             wc->model_digest);
    return olc_arena__strdup(a, msg);
  }
  if (olc_host__check_workload(&w, wc->name, &err) != OLC_OK ||
      olc_host__bind(&b, host, &w, w.model_digest, &err) != OLC_OK)
    return NULL;
  k = &b->slot->key.key;
  msg[0] = '\0';
  if (k->processor == NULL || strcmp(k->processor, e->processor) != 0)
    snprintf(msg, sizeof msg, "skipped: recorded on processor '%s', this machine is '%s'",
             e->processor, k->processor != NULL ? k->processor : "");
  else if (k->thread_count != e->threads)
    snprintf(msg, sizeof msg,
             "skipped: recorded with %" PRId64 " threads, this host runs %" PRId64
             " ([host] threads)",
             e->threads, k->thread_count);
  olc_binding_free(b);
  return msg[0] != '\0' ? olc_arena__strdup(a, msg) : NULL;
}

olc_status olc_host__recorded_open(olc_host_recorded *r, olc_host *host, const char *path,
                                   olc_error *err) {
  size_t i;
  olc_status st;
  memset(r, 0, sizeof *r);
  st = olc_recorded__load(&r->set, path, err);
  if (st != OLC_OK)
    return st;
  r->count = r->set.count;
  if (r->count == 0)
    return OLC_OK;
  r->wcs = olc_arena__alloc(&r->arena, r->count * sizeof *r->wcs);
  r->skip = olc_arena__alloc(&r->arena, r->count * sizeof *r->skip);
  if (r->wcs == NULL || r->skip == NULL)
    return olc_error__set(err, OLC_E_NOMEM, "calibrate", "out of memory");
  for (i = 0; i < r->count; i++) {
    const olc_recorded_entry *e = &r->set.v[i];
    olc_workload_config *wc = &r->wcs[i];
    memset(wc, 0, sizeof *wc);
    wc->name = entry_name(&r->arena, e);
    if (wc->name == NULL)
      return olc_error__set(err, OLC_E_NOMEM, "calibrate", "out of memory");
    wc->backend = e->backend;
    wc->operator_name = e->operator_name;
    wc->model_digest = e->model;
    wc->properties = e->props;
    wc->property_count = e->prop_count;
    wc->line = e->line;
    r->skip[i] = skip_reason(&r->arena, host, wc, e);
  }
  return OLC_OK;
}

olc_status olc_host__recorded_finish(olc_calibration *cal, const olc_host_recorded *r,
                                     const char *path, olc_error *err) {
  olc_recorded_set done = OLC_RECORDED_SET_INIT;
  olc_status st = OLC_OK;
  size_t i;
  int added;
  for (i = 0; i < r->count && st == OLC_OK; i++)
    if (r->skip[i] == NULL && cal->results[i].status == OLC_OK && cal->results[i].selected != NULL)
      st = olc_recorded__add(&done, &r->set.v[i], &added);
  if (st != OLC_OK)
    st = olc_error__set(err, st, "calibrate", "out of memory");
  else if (done.count > 0)
    st = olc_recorded__remove(&cal->recorded_removed, path, &done, OLC_RECORDED_LOCK_TIMEOUT_MS,
                              err);
  olc_recorded__free(&done);
  return st;
}

void olc_host__recorded_free(olc_host_recorded *r) {
  olc_recorded__free(&r->set);
  olc_arena__free(&r->arena);
}
