/*
 * store/keep.c - what a save keeps with the snapshot it publishes (save.c):
 * the bytes it wrote with each record's offset, and the arenas its
 * records' strings live in, shared by reference with the snapshots of
 * later saves.  The next save of the handle then copies the record array,
 * not the records, and copies each unchanged record's bytes instead of
 * serializing it again.
 */
#include <stdlib.h>
#include <string.h>

#include "store/store_int.h"
#include "util/bigmem.h"

struct olc_keep_share {
  olc_refcount refs;
  olc_arena arena;
};

#if defined(_WIN32)
static void share_ref(olc_keep_share *s) { InterlockedIncrement(&s->refs); }
static int share_unref_is_last(olc_keep_share *s) { return InterlockedDecrement(&s->refs) == 0; }
static void share_init(olc_keep_share *s) { s->refs = 1; }
#else
static void share_ref(olc_keep_share *s) {
  atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed);
}
static int share_unref_is_last(olc_keep_share *s) {
  return atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) == 1;
}
static void share_init(olc_keep_share *s) { atomic_init(&s->refs, 1); }
#endif

olc_save_keep *olc_keep__new(const olc_save_keep *parent, olc_arena *own, olc_buf *text,
                             size_t *offs) {
  size_t n = parent != NULL ? parent->nshares : 0, i;
  olc_save_keep *k = calloc(1, sizeof *k);
  olc_keep_share *mine = malloc(sizeof *mine);
  if (k != NULL)
    k->shares = malloc((n + 1) * sizeof *k->shares);
  if (k == NULL || mine == NULL || k->shares == NULL) {
    if (k != NULL)
      free(k->shares);
    free(k);
    free(mine);
    return NULL; /* the caller still owns own, text and offs */
  }
  for (i = 0; i < n; i++) {
    k->shares[i] = parent->shares[i];
    share_ref(k->shares[i]);
  }
  share_init(mine);
  mine->arena = *own;
  own->head = NULL;
  own->total = 0;
  k->shares[n] = mine;
  k->nshares = n + 1;
  k->text = *text;
  text->data = NULL;
  text->len = text->cap = 0;
  k->offs = offs;
  return k;
}

void olc_keep__free(olc_save_keep *k) {
  size_t i;
  if (k == NULL)
    return;
  for (i = 0; i < k->nshares; i++) {
    if (share_unref_is_last(k->shares[i])) {
      olc_arena__free(&k->shares[i]->arena);
      free(k->shares[i]);
    }
  }
  free(k->shares);
  olc_buf__free(&k->text);
  free(k->offs);
  free(k);
}

olc_status olc_keep__shallow_copy(olc_recset *out, const olc_recset *set) {
  size_t bytes;
  olc_recset__init(out);
  if (set->count == 0)
    return OLC_OK;
  if (set->count > SIZE_MAX / sizeof(olc_record))
    return OLC_E_NOMEM;
  bytes = set->count * sizeof(olc_record);
  out->recs = malloc(bytes);
  if (out->recs == NULL)
    return OLC_E_NOMEM;
  olc_bigmem__advise(out->recs, bytes);
  memcpy(out->recs, set->recs, bytes);
  out->count = out->cap = set->count;
  return OLC_OK;
}

/* A walk over both canonical sets: a record of merged that is the very
 * record of base (the same field values, pointers included) reuses its
 * bytes; one that replaced or joined base's records is serialized. */
void olc_keep__spans(olc_format_span *spans, const olc_recset *merged, const olc_snapshot *base) {
  const olc_save_keep *k = base->keep;
  size_t i = 0, j = 0;
  while (i < merged->count) {
    const olc_record *m = &merged->recs[i];
    if (j < base->set.count && memcmp(m, &base->set.recs[j], sizeof *m) == 0) {
      spans[i].bytes = k->text.data + k->offs[j];
      spans[i].len = k->offs[j + 1] - k->offs[j];
      i++;
      j++;
    } else if (j < base->set.count && olc_record__identity_cmp(&base->set.recs[j], m) <= 0) {
      j++; /* removed, or replaced by m */
    } else {
      spans[i].bytes = NULL; /* new */
      spans[i].len = 0;
      i++;
    }
  }
}
