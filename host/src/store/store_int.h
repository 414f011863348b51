/*
 * store/store_int.h - internals shared by the files of the store module.
 *
 * The store keeps an immutable, reference-counted snapshot of every record
 * in canonical order.  Readers (lookup, list) take a reference under a short
 * mutex and then work without any lock; writers build a new snapshot and
 * swap the pointer.  A snapshot is never modified after it is published.
 */
#ifndef OLC_STORE_STORE_INT_H
#define OLC_STORE_STORE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "format/format.h"
#include "olc/store.h"
#include "persist/persist.h"
#include "record/record.h"
#include "store/version.h"
#include "util/diag.h"
#include "util/platform.h"

#if defined(_WIN32)
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
typedef volatile LONG olc_refcount;
typedef volatile LONG olc_flag;
#else
#include <stdatomic.h>
typedef atomic_size_t olc_refcount;
typedef atomic_int olc_flag;
#endif

/* A flag set once (acquire/release). */
int olc_flag__get(olc_flag *f);
void olc_flag__set(olc_flag *f);

/* The candidate indexes of a snapshot (index.c): one for every lookup,
 * one more for scoped lookups (OLC_LOOKUP_SCOPE_WORKLOAD). */
typedef struct olc_cand_index olc_cand_index;
enum { OLC_CAND_KEY_INDEX = 0, OLC_CAND_WORKLOAD_INDEX = 1, OLC_CAND_INDEXES = 2 };
typedef struct olc_cand_fields {
  uint64_t bucket, impl, model, processor, threads, structure;
  uint64_t workload;   /* the model digest's workload identity (has_workload) */
  uint64_t model_part; /* the model digest's model part (has_model_part) */
  int has_workload, has_model_part;
} olc_cand_fields;

/* Which probes olc_cand__find makes. */
#define OLC_CAND_EXACT 1u    /* the exact levels */
#define OLC_CAND_PORTABLE 2u /* the portable levels */
#define OLC_CAND_SCOPED 4u   /* only the key's workload, and legacy records of its model */

/* What a save keeps with the snapshot it publishes (keep.c): the bytes it
 * wrote, each record's offset in them, and the arenas (shared, counted)
 * the records' strings live in. */
typedef struct olc_keep_share olc_keep_share;
typedef struct olc_save_keep {
  olc_keep_share **shares;
  size_t nshares;
  olc_buf text; /* the file as written */
  size_t *offs; /* set.count + 1: record i is text[offs[i], offs[i + 1]) */
} olc_save_keep;

/* An immutable set of records with an index by (backend, operator). */
typedef struct olc_snapshot {
  olc_refcount refs;
  /* Canonical (identity) order with unique identities, which groups the
   * records of one backend and operator together: the identity order
   * begins with backend and operator (strcmp). */
  olc_recset set;
  olc_file_id id; /* the file this snapshot was read from or written to */
  /* Set (before publishing) by the save that wrote the file or found it
   * unchanged under the lock: its identity and the P.lock counter then, so
   * that the next save may skip re-reading it (save.c).  0: a load. */
  int saved;
  olc_persist_known known;
  /* Set with saved when the bytes were kept (NULL otherwise); the records'
   * strings then live in keep's shares, set.arena is empty. */
  olc_save_keep *keep;
  /* Each built by the first lookup that needs it (index.c). */
  olc_util_mutex cand_lock;
  olc_flag cand_ready[OLC_CAND_INDEXES];
  olc_cand_index *cand[OLC_CAND_INDEXES];
  /* A view (layers.c): the snapshots its records point into, referenced;
   * its own set then owns only the array of records. */
  struct olc_snapshot **parts;
  size_t part_count;
} olc_snapshot;

/* One read-only layer file (layers.c). */
typedef struct olc_layer_file {
  char *path;         /* as found: the configured path or DIR/NAME of a glob */
  olc_snapshot *snap; /* the last one that parsed; NULL before one did */
  olc_file_id seen;   /* identity at the last look, loaded or not */
} olc_layer_file;

typedef struct olc_layers {
  olc_util_mutex lock; /* guards files[].snap, files[].seen and gen */
  olc_layer_file *files;
  size_t count;
  uint64_t gen; /* incremented whenever a layer's snapshot changes */
  int live;     /* lock initialized */
} olc_layers;

/* A keep for a snapshot whose records' strings are in parent's shares
 * (parent may be NULL) and in own (moved into a new share), with text and
 * offs (owned from now on).  NULL on out of memory: nothing was taken. */
olc_save_keep *olc_keep__new(const olc_save_keep *parent, olc_arena *own, olc_buf *text,
                             size_t *offs);
void olc_keep__free(olc_save_keep *keep);
/* out (initialized here) gets a copy of set's record array, not of the
 * strings (they stay where set's point).  OLC_OK or OLC_E_NOMEM. */
olc_status olc_keep__shallow_copy(olc_recset *out, const olc_recset *set);
/* spans[i] (merged->count entries): base's kept bytes of merged's record i
 * when it is one of base's records unchanged, else bytes NULL.  base must
 * have a keep; both sets canonical. */
void olc_keep__spans(olc_format_span *spans, const olc_recset *merged, const olc_snapshot *base);

/* Hashes of the identity fields of a key or record (structure sorted);
 * the workload fields are left unset (has_workload, has_model_part 0). */
void olc_cand__fields(olc_cand_fields *f, const char *backend, const char *operator_name,
                      const char *implementation, const char *model, const char *processor,
                      int64_t threads, const olc_property *structure, size_t count);
/* Adds the hashes of the model digest's workload identity and model part
 * (what OLC_CAND_SCOPED probes need). */
void olc_cand__workload_fields(olc_cand_fields *f, const char *model);
/* The number of records of a backend and operator (bucket: their
 * olc_cand_fields hash), by one probe of the key index; (size_t)-1 when
 * that index cannot be built. */
size_t olc_cand__bucket_size(olc_snapshot *snap, uint64_t bucket, const char *backend,
                             const char *operator_name);
/* Indices (into snap->set.recs, ascending, unique) of every record that may
 * match the key or differ from it in one identity field, at the levels that
 * probes names (OLC_CAND_*): a superset that the caller filters exactly.
 * With OLC_CAND_SCOPED the exact records are only those with the key's
 * digest or workload identity, plus the legacy records of the digest's
 * model part, and the portable ones only those with the key's structure.
 * *out is buf when the answer fits in buf_cap entries, else malloc'ed (the
 * caller frees it when it is not buf).  OLC_E_NOMEM when an index cannot be
 * built (the caller scans the bucket instead). */
olc_status olc_cand__find(size_t **out, size_t *count, olc_snapshot *snap,
                          const olc_cand_fields *key, unsigned probes, size_t *buf, size_t buf_cap);
void olc_cand__free(olc_cand_index *ix);

/* Takes ownership of *set (left empty; it must be normalized, see
 * olc_recset__normalize).  NULL on out of memory (set is then freed). */
olc_snapshot *olc_snapshot__new(olc_recset *set, const olc_file_id *id);
void olc_snapshot__ref(olc_snapshot *snap);
void olc_snapshot__unref(olc_snapshot *snap);
/* [*first, *first + *count): the records of one backend and operator, by
 * binary search.  Use olc_snapshot__at to reach them. */
void olc_snapshot__bucket(const olc_snapshot *snap, const char *backend, const char *operator_name,
                          size_t *first, size_t *count);
const olc_record *olc_snapshot__at(const olc_snapshot *snap, size_t bucket_pos);

struct olc_store {
  olc_util_mutex state;  /* guards snap, gen, seen_id and the load status */
  olc_util_mutex write;  /* serializes this handle's writers */
  olc_util_mutex reload; /* one reload at a time */
  olc_snapshot *snap;
  uint64_t gen; /* incremented at every swap */
  /* Identity of the file last looked at, whether it loaded or not, so a
   * broken file is not re-parsed at every lookup. */
  olc_file_id seen_id;
  olc_status load_status;
  olc_error load_err;
  uint64_t failed_loads;
  int persist;
  int check_for_changes;
  int read_only;        /* persist and olc_store_options.read_only */
  int allow_network_fs; /* olc_store_options.allow_network_fs */
  /* A read-only handle's saves (normalized), laid over every snapshot it
   * reads from the file.  Guarded by the reload mutex. */
  olc_recset overlay;
  int said_read_only; /* the "read_only" warning was emitted (write mutex) */
  /* The bytes of the save before the last one, whose memory the next save
   * writes into: a fresh file-sized block costs page faults and zeroing
   * (write mutex). */
  olc_buf spare;
  /* The first write's file-system probe (writable.c); guarded by the write
   * mutex: 0 not yet, 1 local, 2 network (net_type names it). */
  int net_state;
  char net_type[64];
  char *path; /* resolved; NULL when persistence is off */
  /* The generation counter of P.lock: lookups skip the stat while it says
   * nothing was saved (persist.h).  Open only with check_for_changes. */
  olc_persist_watch watch;
  olc_persist_options popts;
  olc_format_limits limits;
  olc_diag_sink diag; /* olc_store_options.diag, or the kept diagnostics */
  olc_layers layers;
  /* What lookups and lists read (layers.c), guarded by state: built for
   * gen and layers.gen (view_gen, view_lgen); layers_gen_pub is layers.gen
   * as last published. */
  olc_snapshot *view;
  uint64_t view_gen, view_lgen, layers_gen_pub;
};

/* Layers (layers.c).  Open: expands and reads options->layers (nothing
 * with persistence off); the problems are diagnostics, only OLC_E_NOMEM
 * fails.  Refresh: one stat per layer file, a reload of those that changed
 * (force: also without check_for_changes). */
olc_status olc_store__layers_open(olc_store *s, const olc_store_options *o, olc_error *err);
void olc_store__layers_refresh(olc_store *s, int force);
void olc_store__layers_free(olc_store *s);
/* The view with a reference (the store's own snapshot when no layer holds
 * a record). */
olc_snapshot *olc_store__acquire_view(olc_store *s);
/* Sets every record's source (a copy in the snapshot's arena) before the
 * snapshot is shared, but for the records whose identity is in
 * memory_only (a read-only handle's overlay; may be NULL): no file holds
 * those, so their source stays NULL. */
olc_status olc_store__stamp(olc_snapshot *snap, const char *source, int from_layer,
                            const olc_recset *memory_only);

/* Puts "PATH: " before e's message (cut to fit), for a parse error that
 * names only its line and column. */
void olc_store__prefix_path(olc_error *e, const char *path);

/* The current snapshot with a reference the caller drops with
 * olc_snapshot__unref. */
olc_snapshot *olc_store__acquire(olc_store *store);
/* Publishes snap (takes the caller's reference) as the result of a write. */
void olc_store__publish(olc_store *store, olc_snapshot *snap);
/* Change detection before a read: reloads when the file changed. */
void olc_store__refresh(olc_store *store);
/* Number of loads that failed since the handle was opened (tests, CLI). */
uint64_t olc_store__failed_loads(olc_store *store);

/* Checks a key's common fields and copies its structure, sorted, into a
 * malloc'ed array (*sorted, NULL when there is none).  what names the key in
 * messages ("key", "lookup key"). */
olc_status olc_store__check_key(olc_property **sorted, const olc_key *key, const char *what,
                                olc_error *err);
/* 1 when the key carries the exact identity (model digest and processor). */
int olc_store__key_has_exact(const olc_key *key);

/* Resolves a level mask (OLC_LEVELS_DEFAULT: every level whose identity
 * the key carries) against the key. */
olc_status olc_store__levels(unsigned *levels, const olc_key *key, unsigned requested,
                             const char *what, olc_error *err);

/* Checks a save request, serializes and validates its policy, and appends
 * the records it saves (exact and/or portable) to out. */
olc_status olc_store__build_records(olc_recset *out, const olc_save_request *req, olc_origin origin,
                                    olc_error *err);

/* OLC_OK when a file of len bytes stays within what this handle and a
 * default reader read (save.c), else OLC_E_LIMIT naming both. */
olc_status olc_store__check_write_size(const olc_store *store, size_t len, const char *where,
                                       olc_error *err);

/* fork() (fork.c): open handles are registered so that fork() waits
 * until no other thread is inside a call on one of them; a thread marks
 * the handle it holds the write mutex of (NULL when done). */
olc_status olc_store__fork_register(olc_store *store);
void olc_store__fork_unregister(olc_store *store);
void olc_store__fork_writing(const olc_store *store);

/* The handle's persist options with the store probe (files.c): no lock
 * file is created next to an existing path that is not a store. */
void olc_store__persist_options(olc_persist_options *out, const olc_store *store);

/* Whether path (resolved) may be used as the store (--store), an import
 * source or (is_export) an export target next to the store at store_path
 * (may be NULL): never a store's lock file (P.lock beside an existing or
 * this store P, or a file with the lock file's header) nor one of its
 * temporaries; for an export never the store itself, and only an absent
 * path or a store file.  OLC_OK or OLC_E_INVALID (where = what). */
olc_status olc_store__check_role(const char *path, const char *store_path, const char *what,
                                 int is_export, olc_error *err);

/* Inserts copies of puts (normalized) into the normalized set, replacing
 * equal identities (save.c). */
olc_status olc_store__apply_puts(olc_recset *set, const olc_recset *puts);

/* Whether a write may touch the file (writable.c): OLC_OK, or
 * OLC_E_READ_ONLY naming the path, what (the operation) and why (read-only
 * mode; a network file system without allow_network_fs).  Caller holds the
 * write mutex. */
olc_status olc_store__check_write(olc_store *store, const char *what, olc_error *err);

/* Merges set into the store in one write (import; save.c). */
olc_status olc_store__import_set(olc_store *store, const olc_recset *set, olc_error *err);

/* The length of the model part of a model digest (before its last '#'),
 * or (size_t)-1 when it has none (identity.c). */
size_t olc_store__digest_model_part(const char *model_digest);

/* Lookup results and record lists (result.c). */
struct olc_lookup_result {
  olc_snapshot *snap;
  const olc_record *selected;
  olc_rejection *rejected;
  size_t rejected_count;
  size_t rejected_cap;
  /* The records of the key's backend and operator: bucket_count, or when
   * that is (size_t)-1, counted on demand (olc_lookup_result_unlisted_count)
   * from the key index by bucket_hash and the names, which point into the
   * snapshot or the arena; a hit pays nothing for it. */
  size_t bucket_count;
  uint64_t bucket_hash;
  const char *bucket_backend, *bucket_operator;
  olc_arena arena; /* messages, copied names */
};

struct olc_record_list {
  olc_snapshot *snap;
};

olc_record_list *olc_store__list_new(olc_snapshot *snap);

#endif
