/*
 * host/misses_append.c - a never-mode select that found nothing stored
 * appends its workload to the host's missed-workloads file (misses.h),
 * once per key and host: the slot's flag is the in-process set, so a hot
 * path that misses again appends nothing and takes no lock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host_int.h"
#include "util/error.h"

/* The slot's workload as a record (pointers into the slot and props). */
static void slot_entry(olc_misses_entry *e, olc_property *props, const olc_host_slot *s) {
  const olc_plugin_workload *w = &s->workload;
  uint32_t i;
  memset(e, 0, sizeof *e);
  e->backend = s->key.key.backend;
  e->operator_name = s->key.key.operator_name;
  e->processor = s->key.key.processor != NULL ? s->key.key.processor : "";
  e->threads = s->key.key.thread_count;
  e->identity = s->key.key.model_digest;
  e->model = w->model_digest;
  for (i = 0; i < w->property_count; i++) {
    props[i].name = w->properties[i].key;
    props[i].value = w->properties[i].value;
  }
  e->props = props;
  e->prop_count = w->property_count;
}

void olc_host__misses_append(olc_host_slot *s) {
  olc_host *h = s->host;
  olc_misses_entry e;
  olc_property *props;
  olc_error err;
  olc_status st;
  if (h->record_misses == NULL || atomic_load_explicit(&s->recorded, memory_order_acquire) != 0 ||
      atomic_exchange_explicit(&s->recorded, 1, memory_order_acq_rel) != 0)
    return;
  props = calloc(s->workload.property_count + 1u, sizeof *props);
  if (props == NULL) {
    olc_diag__emit(&h->diag, OLC_DIAG_WARNING, "record_misses",
                   "%s: out of memory; workload '%s' not recorded", h->record_misses, s->name);
    return;
  }
  slot_entry(&e, props, s);
  olc_error_clear(&err);
  st = olc_misses__append(NULL, h->record_misses, &e, OLC_MISSES_LOCK_TIMEOUT_MS, &err);
  if (st != OLC_OK)
    /* The select still answers; the miss is said once (not retried). */
    olc_diag__emit(&h->diag, OLC_DIAG_WARNING, "record_misses", "workload '%s' not recorded: %s",
                   s->name, err.message);
  free(props);
}
