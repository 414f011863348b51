/*
 * host/misses_file.c - the missed-workloads file on disk (misses.h):
 * every change is persist's locked reload-merge-replace, so a record added
 * by one process while another adds or removes is never lost, a file that
 * is not a missed-workloads file (or is newer) is never rewritten, and a
 * record line that does not parse is written back as it was.
 */
#include <string.h>

#include "host/misses.h"
#include "persist/persist.h"
#include "util/error.h"

#define MAX_FILE_SIZE (64u * 1024u * 1024u)

/* Before a lock file is created beside an existing file: only beside one
 * that begins like a missed-workloads file (or is empty). */
static olc_status probe(const unsigned char *head, size_t len, uint64_t size, const char *path,
                        void *payload, olc_error *err) {
  static const char magic[] = OLC_MISSES_MAGIC;
  size_t n = len < size ? len : (size_t)size;
  size_t m = n < sizeof magic - 1 ? n : sizeof magic - 1;
  (void)payload;
  if (memcmp(head, magic, m) == 0)
    return OLC_OK;
  return olc_error__set(err, OLC_E_MALFORMED, "recorded",
                        "'%s' is not a recorded-workloads file (it does not begin with \"%s\"); "
                        "nothing written",
                        path, magic);
}

/* What one change does to the file read under the lock. */
typedef struct change {
  const char *path;
  const olc_misses_entry *add; /* append this, or */
  const olc_misses_set *drop;  /* remove these, or */
  olc_misses_drop_fn drop_if;  /* those it says */
  void *drop_payload;
  int added;
  size_t removed;
} change;

static int str_same(const char *a, const char *b) {
  return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* The entry of e's key in set, or NULL. */
static const olc_misses_entry *find_entry(const olc_misses_set *set, const olc_misses_entry *e) {
  size_t i = olc_misses__find(set, e);
  return i < set->count ? &set->v[i] : NULL;
}

/* Two versions of one key (NULL: absent) are the same. */
static int same_version(const olc_misses_entry *a, const olc_misses_entry *b) {
  size_t i;
  if (a == NULL || b == NULL)
    return a == b;
  if (!str_same(a->model, b->model) || a->prop_count != b->prop_count)
    return 0;
  for (i = 0; i < a->prop_count; i++)
    if (!str_same(a->props[i].name, b->props[i].name) ||
        !str_same(a->props[i].value, b->props[i].value))
      return 0;
  return 1;
}

/* persist's absorb (persist.h): a file another writer committed meanwhile
 * (P.lock replaced while held) descends from ancestor, the file this one
 * merged into, so what it changed from there (an entry recorded, or
 * removed once tuned) joins the current file, unless the current file
 * changed the same key itself since (the later change).  With no
 * ancestor (persist cannot tell what the other file descends from) the
 * entries the current file lacks join it.  Lines that do not parse stay
 * as the current file has them. */
static olc_status absorb(olc_buf *out, const unsigned char *base, size_t base_len, int base_exists,
                         const unsigned char *ancestor, size_t ancestor_len, int ancestor_exists,
                         const unsigned char *displaced, size_t displaced_len, void *payload,
                         olc_error *err) {
  const char *path = ((const change *)payload)->path;
  olc_misses_set cur = OLC_MISSES_SET_INIT, anc = OLC_MISSES_SET_INIT;
  olc_misses_set other = OLC_MISSES_SET_INIT, res = OLC_MISSES_SET_INIT;
  olc_status st = OLC_OK;
  size_t i;
  int added;
  if (base_exists && base_len > 0)
    st = olc_misses__parse(&cur, base, base_len, path, err);
  if (st == OLC_OK && ancestor_exists && ancestor_len > 0)
    st = olc_misses__parse(&anc, ancestor, ancestor_len, path, err);
  if (st == OLC_OK)
    st = olc_misses__parse(&other, displaced, displaced_len, path, err);
  for (i = 0; st == OLC_OK && i < cur.bad_count; i++)
    st = olc_misses__add_bad(&res, cur.bad[i].text, cur.bad[i].len, cur.bad[i].line,
                             cur.bad[i].message);
  /* Every key of the current file: the other writer's version where it
   * changed it (none: it removed it) and the current file did not. */
  for (i = 0; st == OLC_OK && i < cur.count; i++) {
    const olc_misses_entry *c = &cur.v[i], *a = find_entry(&anc, c), *d = find_entry(&other, c);
    const olc_misses_entry *keep = c;
    if (!same_version(a, d) && same_version(c, a))
      keep = d;
    if (keep != NULL)
      st = olc_misses__add(&res, keep, &added);
  }
  /* Keys the current file lacks: the other writer's additions (one the
   * ancestor had was removed here since, later). */
  for (i = 0; st == OLC_OK && i < other.count; i++)
    if (find_entry(&cur, &other.v[i]) == NULL && find_entry(&anc, &other.v[i]) == NULL)
      st = olc_misses__add(&res, &other.v[i], &added);
  if (st == OLC_OK)
    st = olc_misses__write(out, &res);
  if (st == OLC_E_NOMEM)
    olc_error__set(err, st, "recorded", "%s: out of memory", path);
  olc_misses__free(&cur);
  olc_misses__free(&anc);
  olc_misses__free(&other);
  olc_misses__free(&res);
  return st;
}

static void file_options(olc_persist_options *o, int64_t lock_timeout_ms) {
  memset(o, 0, sizeof *o);
  o->lock_timeout_ms = lock_timeout_ms;
  o->tmp_grace_seconds = 3600u;
  o->file_mode = 0600u;
  o->max_file_size = MAX_FILE_SIZE;
  o->probe = probe;
  o->absorb = absorb;
}

olc_status olc_misses__load(olc_misses_set *set, const char *path, olc_error *err) {
  olc_buf b = OLC_BUF_INIT;
  olc_status st = olc_persist__read(&b, NULL, path, MAX_FILE_SIZE, err);
  if (st == OLC_E_NOT_FOUND) {
    st = OLC_OK;
  } else if (st == OLC_OK) {
    st = olc_misses__parse(set, b.data, b.len, path, err);
  }
  olc_buf__free(&b);
  return st;
}

static olc_status keep_unless_dropped(olc_misses_set *out, const olc_misses_set *in, change *c) {
  size_t i;
  for (i = 0; i < in->bad_count; i++) {
    const olc_misses_bad *b = &in->bad[i];
    olc_status st = olc_misses__add_bad(out, b->text, b->len, b->line, b->message);
    if (st != OLC_OK)
      return st;
  }
  for (i = 0; i < in->count; i++) {
    int added;
    olc_status st;
    if (c->drop != NULL ? olc_misses__find(c->drop, &in->v[i]) < c->drop->count
                        : c->drop_if(c->drop_payload, &in->v[i]) != 0) {
      c->removed++;
      continue;
    }
    if ((st = olc_misses__add(out, &in->v[i], &added)) != OLC_OK)
      return st;
  }
  return OLC_OK;
}

static olc_status transform(olc_buf *out, int *unchanged, const unsigned char *base,
                            size_t base_len, int base_exists, void *payload, olc_error *err) {
  change *c = payload;
  olc_misses_set cur = OLC_MISSES_SET_INIT, kept = OLC_MISSES_SET_INIT;
  const olc_misses_set *result = &cur;
  olc_status st = OLC_OK;
  (void)base_exists;
  /* A file that is not a missed-workloads file (or is newer) fails here:
   * never rewritten.  Its bad record lines are written back as they were. */
  if (base_len > 0)
    st = olc_misses__parse(&cur, base, base_len, c->path, err);
  if (st == OLC_OK && c->add != NULL) {
    st = olc_misses__add(&cur, c->add, &c->added);
    *unchanged = st == OLC_OK && !c->added;
  } else if (st == OLC_OK) {
    st = keep_unless_dropped(&kept, &cur, c);
    result = &kept;
    *unchanged = st == OLC_OK && c->removed == 0;
  }
  if (st == OLC_OK && !*unchanged)
    st = olc_misses__write(out, result);
  if (st == OLC_E_NOMEM)
    olc_error__set(err, st, "recorded", "%s: out of memory", c->path);
  olc_misses__free(&cur);
  olc_misses__free(&kept);
  return st;
}

/* A record the format can hold: its key's strings are not empty. */
static int writable(const olc_misses_entry *e) {
  return e->backend != NULL && e->backend[0] != '\0' && e->operator_name != NULL &&
         e->operator_name[0] != '\0' && e->processor != NULL && e->processor[0] != '\0' &&
         e->identity != NULL && e->identity[0] != '\0' && e->threads >= 0 &&
         (e->model == NULL || e->model[0] != '\0');
}

olc_status olc_misses__append(int *added, const char *path, const olc_misses_entry *e,
                              int64_t lock_timeout_ms, olc_error *err) {
  olc_persist_options o;
  change c;
  olc_status st;
  if (added != NULL)
    *added = 0;
  if (!writable(e))
    return olc_error__set(err, OLC_E_INVALID, "recorded",
                          "%s: a workload without a backend, operator, processor or identity "
                          "cannot be recorded",
                          path);
  /* What the reader would skip is never written. */
  st = olc_misses__check(e, path, err);
  if (st != OLC_OK)
    return st;
  memset(&c, 0, sizeof c);
  c.path = path;
  c.add = e;
  file_options(&o, lock_timeout_ms);
  st = olc_persist__update(NULL, NULL, path, &o, transform, &c, err);
  if (added != NULL)
    *added = st == OLC_OK || st == OLC_COMMITTED_UNSYNCED ? c.added : 0;
  return st == OLC_COMMITTED_UNSYNCED ? OLC_OK : st;
}

static olc_status remove_change(size_t *removed, change *c, int64_t lock_timeout_ms,
                                olc_error *err) {
  olc_persist_options o;
  olc_status st;
  file_options(&o, lock_timeout_ms);
  st = olc_persist__update(NULL, NULL, c->path, &o, transform, c, err);
  if (removed != NULL)
    *removed = st == OLC_OK || st == OLC_COMMITTED_UNSYNCED ? c->removed : 0;
  return st == OLC_COMMITTED_UNSYNCED ? OLC_OK : st;
}

olc_status olc_misses__remove_if(size_t *removed, const char *path, olc_misses_drop_fn drop,
                                 void *payload, int64_t lock_timeout_ms, olc_error *err) {
  change c;
  memset(&c, 0, sizeof c);
  c.path = path;
  c.drop_if = drop;
  c.drop_payload = payload;
  return remove_change(removed, &c, lock_timeout_ms, err);
}

olc_status olc_misses__remove(size_t *removed, const char *path, const olc_misses_set *done,
                              int64_t lock_timeout_ms, olc_error *err) {
  change c;
  memset(&c, 0, sizeof c);
  c.path = path;
  c.drop = done;
  return remove_change(removed, &c, lock_timeout_ms, err);
}
