/*
 * host/selection.c - the olc_selection objects: a stored record (a copy of
 * it, so a selection keeps no store snapshot alive) with its policy as the
 * plugin deserialized it, the policy of the nearest measured workload
 * (nearest.c) or the plugin's first candidate with the reason;
 * kept on their slot's list until olc_host_free, and their getters.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host_int.h"
#include "util/error.h"

static olc_selection *new_selection(olc_host_slot *slot) {
  olc_selection *s = calloc(1, sizeof *s);
  if (s != NULL) {
    s->slot = slot;
    olc_recset__init(&s->set);
  }
  return s;
}

static void free_selection(olc_selection *s) {
  if (s->owns_handle && s->handle != NULL)
    olc_plugins__release(s->slot->plugin, s->handle);
  olc_recset__free(&s->set);
  free(s);
}

/* The copy keeps where the record came from (the record module's copy
 * leaves that to a snapshot): a selection says which file served it, and
 * verify_layers tells a layer's record from the user's. */
static olc_status keep_source(olc_selection *s, const olc_record *from) {
  olc_record *r = &s->set.recs[0];
  r->from_layer = from->from_layer;
  if (from->source != NULL && (r->source = olc_arena__strdup(&s->set.arena, from->source)) == NULL)
    return OLC_E_NOMEM;
  return OLC_OK;
}

olc_status olc_host__stored_selection(olc_selection **out, olc_host_slot *slot,
                                      const olc_record *record, int calibrated_now,
                                      olc_error *err) {
  olc_selection *s = new_selection(slot);
  olc_status st;
  *out = NULL;
  if (s == NULL || olc_recset__append_copy(&s->set, record) != OLC_OK ||
      keep_source(s, record) != OLC_OK) {
    if (s != NULL)
      free_selection(s);
    return olc_error__set(err, OLC_E_NOMEM, "select", "out of memory");
  }
  s->record = &s->set.recs[0];
  s->policy = s->record->policy;
  s->policy_len = s->record->policy_len;
  /* The lookup's validator accepted the bytes; deserialize them for
   * execute. */
  st = olc_plugins__validate(&s->handle, slot->plugin, s->policy, s->policy_len, err);
  if (st != OLC_OK) {
    free_selection(s);
    return st;
  }
  s->owns_handle = 1;
  s->calibrated_now = calibrated_now;
  s->why = OLC_OK;
  snprintf(s->message, sizeof s->message, "%s %s record%s", olc_level_str(s->record->level),
           olc_origin_str(s->record->origin),
           calibrated_now ? ", measured now" : " from the store");
  *out = s;
  return OLC_OK;
}

/* The plugin's first candidate for the slot, made once. */
static olc_status make_first(olc_host_slot *slot, olc_error *err) {
  olc_policy_list list;
  olc_status st;
  olc_host__global_lock();
  st = slot->first_made ? OLC_OK : OLC_E_NOT_FOUND;
  olc_host__global_unlock();
  if (st == OLC_OK)
    return OLC_OK;
  st = olc_plugins__candidates(&list, slot->plugin, &slot->workload, err);
  if (st != OLC_OK)
    return st;
  if (list.count == 0) {
    olc_policy_list__free(&list, slot->plugin);
    return olc_error__set(err, OLC_E_PLUGIN, "select", "plugin %s: no candidate for workload '%s'",
                          olc_plugins__name(slot->plugin), slot->name);
  }
  olc_host__global_lock();
  if (!slot->first_made) {
    slot->first_handle = list.policies[0];
    slot->first_bytes = list.serialized[0];
    list.policies[0] = NULL;
    memset(&list.serialized[0], 0, sizeof list.serialized[0]);
    slot->first_made = 1;
  }
  olc_host__global_unlock();
  olc_policy_list__free(&list, slot->plugin);
  return OLC_OK;
}

static const char *const first_why[OLC_HOST_FIRST_KINDS] = {
    "nothing stored (select mode never)", "the wait for a measurement timed out",
    "the wait for a measurement was cancelled", "measuring failed"};

/* Whether old is the first-candidate answer for why and text. */
static int same_first(const olc_selection *old, olc_status why, const char *text) {
  return old != NULL && old->why == why && strcmp(old->message, text) == 0;
}

olc_status olc_host__first_selection(olc_selection **out, olc_host_slot *slot, int kind,
                                     olc_status why, const char *message, olc_error *err) {
  olc_selection *s, *old;
  char text[sizeof s->message];
  olc_status st = make_first(slot, err);
  *out = NULL;
  if (st != OLC_OK)
    return st;
  snprintf(text, sizeof text, "first candidate of workload '%s': %s",
           slot->name != NULL ? slot->name : "", message != NULL ? message : first_why[kind]);
  olc_host__global_lock();
  old = slot->first[kind];
  /* The same answer keeps its selection; a retried failure may say
   * something else (selections live as long as the slot). */
  if (same_first(old, why, text)) {
    *out = old;
    olc_host__global_unlock();
    return OLC_OK;
  }
  olc_host__global_unlock();
  s = new_selection(slot);
  if (s == NULL)
    return olc_error__set(err, OLC_E_NOMEM, "select", "out of memory");
  s->policy = slot->first_bytes.data != NULL ? slot->first_bytes.data : (const unsigned char *)"";
  s->policy_len = slot->first_bytes.len;
  s->handle = slot->first_handle;
  s->why = why;
  memcpy(s->message, text, sizeof s->message);
  olc_host__global_lock();
  old = slot->first[kind];
  if (same_first(old, why, text)) {
    /* Another thread made the same answer meanwhile: one selection. */
    olc_host__global_unlock();
    free_selection(s);
    *out = old;
    return OLC_OK;
  }
  s->next = slot->selections;
  slot->selections = s;
  slot->first[kind] = s;
  olc_host__global_unlock();
  *out = s;
  return OLC_OK;
}

/* Whether old is the nearest answer of rec for why and message. */
static int same_neighbour(const olc_selection *old, const olc_record *rec, olc_status why,
                          const char *message) {
  return old != NULL && old->why == why && olc_host__same_record(old->nearest, rec) &&
         strcmp(old->message, message) == 0;
}

olc_status olc_host__neighbour_selection(olc_selection **out, olc_host_slot *slot,
                                         const olc_record *rec, olc_status why, const char *message,
                                         olc_error *err) {
  olc_selection *s, *old;
  olc_status st;
  *out = NULL;
  olc_host__global_lock();
  old = slot->nearest;
  /* The same neighbour for the same reason keeps its selection: a
   * never-mode view refreshed every recheck allocates nothing new. */
  if (same_neighbour(old, rec, why, message)) {
    *out = old;
    olc_host__global_unlock();
    return OLC_OK;
  }
  olc_host__global_unlock();
  s = new_selection(slot);
  if (s == NULL || olc_recset__append_copy(&s->set, rec) != OLC_OK ||
      keep_source(s, rec) != OLC_OK) {
    if (s != NULL)
      free_selection(s);
    return olc_error__set(err, OLC_E_NOMEM, "select", "out of memory");
  }
  s->nearest = &s->set.recs[0];
  s->policy = s->nearest->policy;
  s->policy_len = s->nearest->policy_len;
  st = olc_plugins__validate(&s->handle, slot->plugin, s->policy, s->policy_len, err);
  if (st != OLC_OK) {
    free_selection(s);
    return st;
  }
  s->owns_handle = 1;
  s->why = why;
  snprintf(s->message, sizeof s->message, "%s", message);
  olc_host__global_lock();
  old = slot->nearest;
  if (same_neighbour(old, rec, why, s->message)) {
    /* Another thread made the same answer meanwhile: one selection. */
    olc_host__global_unlock();
    free_selection(s);
    *out = old;
    return OLC_OK;
  }
  s->next = slot->selections;
  slot->selections = s;
  slot->nearest = s;
  olc_host__global_unlock();
  *out = s;
  return OLC_OK;
}

void olc_host__keep_selection(olc_selection *s) {
  olc_host__global_lock();
  s->next = s->slot->selections;
  s->slot->selections = s;
  olc_host__global_unlock();
}

void olc_host__free_selections(olc_host_slot *slot) {
  olc_selection *s = slot->selections;
  while (s != NULL) {
    olc_selection *next = s->next;
    free_selection(s);
    s = next;
  }
  slot->selections = NULL;
}

static int same_text(const char *a, const char *b) {
  return (a == NULL) == (b == NULL) && (a == NULL || strcmp(a, b) == 0);
}

int olc_host__same_record(const olc_record *a, const olc_record *b) {
  size_t i;
  if (a->level != b->level || a->origin != b->origin || a->thread_count != b->thread_count ||
      a->policy_len != b->policy_len || a->measurement_count != b->measurement_count ||
      !same_text(a->implementation, b->implementation) ||
      !same_text(a->model_digest, b->model_digest) || !same_text(a->processor, b->processor) ||
      memcmp(a->policy, b->policy, a->policy_len) != 0)
    return 0;
  for (i = 0; i < a->measurement_count; i++)
    if (a->measurements[i].value != b->measurements[i].value ||
        !same_text(a->measurements[i].name, b->measurements[i].name))
      return 0;
  return 1;
}

/* ---------------------------------------------------------------- getters */

const olc_record *olc_selection_record(const olc_selection *s) {
  return s != NULL ? s->record : NULL;
}

const unsigned char *olc_selection_policy(const olc_selection *s, size_t *len) {
  if (len != NULL)
    *len = s != NULL ? s->policy_len : 0;
  return s != NULL ? s->policy : NULL;
}

int olc_selection_calibrated_now(const olc_selection *s) { return s != NULL && s->calibrated_now; }

olc_status olc_selection_why(const olc_selection *s) { return s != NULL ? s->why : OLC_E_INVALID; }

const char *olc_selection_message(const olc_selection *s) { return s != NULL ? s->message : ""; }

const olc_record *olc_selection_nearest(const olc_selection *s) {
  return s != NULL ? s->nearest : NULL;
}

int olc_selection_can_execute(const olc_selection *s) {
  return s != NULL && olc_plugins__can_execute(s->slot->plugin);
}
