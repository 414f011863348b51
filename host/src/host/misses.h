/*
 * host/misses.h - the missed-workloads file: the workloads a runtime
 * in never mode met with no stored profile, for `olc calibrate --recorded`
 * to tune offline.  Users meet it under its public names (`--recorded`,
 * record_misses, "recorded-workloads file" in messages); inside the code
 * it is "misses", so that it never shares a word with the store's records.
 *
 * Its format (misses_format.c) is a text file of its own, never a store:
 *
 *   # onnx-light recorded workloads v1
 *   workload backend=B operator=O processor=P threads=T identity=I model=M prop.NAME=VALUE...
 *
 * one workload per line, its fields separated by one space, every value
 * (and property name) percent-encoded outside [A-Za-z0-9._:/@,;+#-] (so
 * never a space, '=' or '%' unencoded).  model is "-" for a workload
 * without a model.  identity is the exact key's composed model digest
 * (olc/host.h: "<model digest>#<structure>" or "workload:<structure>");
 * backend, operator, processor, threads and identity together are the
 * record's key: a file holds at most one record per key.  Properties are
 * the workload as described (sorted by name), which recreates it.  Blank
 * lines are allowed; '#' begins a comment only on the header line.  A
 * newer version is OLC_E_VERSION, a first line that is not the header
 * OLC_E_MALFORMED "FILE:LINE:COLUMN: ...", and a file that is either is
 * never rewritten.  A record line that does not parse (a hand edit, a line
 * over OLC_MISSES_MAX_LINE) is skipped and kept in the set's bad lines
 * with its "FILE:LINE:COLUMN: why"; a rewrite keeps it as it was, so one
 * such line never stops a process recording nor the others being read.
 *
 * Writes (misses_file.c) go through persist's locked reload-merge-replace
 * (the store's lock, temporary, fsync and rename), so processes that
 * record at once lose nothing and duplicate nothing.
 */
#ifndef OLC_HOST_MISSES_H
#define OLC_HOST_MISSES_H

#include <stddef.h>
#include <stdint.h>

#include "olc/error.h"
#include "olc/store.h"
#include "util/arena.h"
#include "util/buf.h"

#define OLC_MISSES_MAGIC "# onnx-light recorded workloads v"
#define OLC_MISSES_VERSION 1u
/* How long a change waits for the file's lock. */
#define OLC_MISSES_LOCK_TIMEOUT_MS 10000
/* The longest line read, and the most properties of a record (those of
 * olc_host_bind): the writer refuses an entry past either (OLC_E_LIMIT),
 * so it never writes a line the reader skips.  A record is a few hundred
 * bytes. */
#define OLC_MISSES_MAX_LINE (64u * 1024u)
#define OLC_MISSES_MAX_PROPS 256u

/* One recorded workload; strings live in its set's arena. */
typedef struct olc_misses_entry {
  const char *backend;
  const char *operator_name;
  const char *processor;
  int64_t threads;
  const char *identity; /* the exact key's model digest */
  const char *model;    /* NULL: none */
  olc_property *props;  /* sorted by name */
  size_t prop_count;
  uint32_t line; /* where it was read (0: made in memory) */
} olc_misses_entry;

/* A record line that did not parse (a hand edit, an older or other
 * writer's): skipped, reported, and written back as it was. */
typedef struct olc_misses_bad {
  const unsigned char *text; /* the line without its newline (in the arena) */
  size_t len;
  uint32_t line;
  const char *message; /* "NAME:LINE:COLUMN: why" */
} olc_misses_bad;

typedef struct olc_misses_set {
  olc_arena arena;
  olc_misses_entry *v;
  size_t count, cap;
  olc_misses_bad *bad;
  size_t bad_count, bad_cap;
} olc_misses_set;

#define OLC_MISSES_SET_INIT                                                                        \
  { OLC_ARENA_INIT, NULL, 0, 0, NULL, 0, 0 }

void olc_misses__free(olc_misses_set *set);

/* 1 when a and b have the same key (backend, operator, processor, threads,
 * identity). */
int olc_misses__same(const olc_misses_entry *a, const olc_misses_entry *b);
/* The index of e's key in set, or set->count. */
size_t olc_misses__find(const olc_misses_set *set, const olc_misses_entry *e);

/* Copies e (its strings and properties, sorted) into set unless its key is
 * there; *added says which.  OLC_OK, OLC_E_NOMEM. */
olc_status olc_misses__add(olc_misses_set *set, const olc_misses_entry *e, int *added);

/* Parses a whole file (name for messages) into set (appended; bad record
 * lines into set->bad).  OLC_OK, OLC_E_MALFORMED (the header:
 * "NAME:LINE:COLUMN: ..." with err->line/column), OLC_E_VERSION (a newer
 * version), OLC_E_NOMEM. */
olc_status olc_misses__parse(olc_misses_set *set, const unsigned char *bytes, size_t len,
                             const char *name, olc_error *err);

/* Appends the whole file for set (header first, its bad lines last, as
 * they were) to out.  OLC_OK, OLC_E_NOMEM. */
olc_status olc_misses__write(olc_buf *out, const olc_misses_set *set);

/* Keeps a copy of a line that did not parse (message: why) in set.
 * OLC_OK, OLC_E_NOMEM. */
olc_status olc_misses__add_bad(olc_misses_set *set, const unsigned char *text, size_t len,
                               uint32_t line, const char *message);

/* OLC_OK when e fits the format's limits (at most OLC_MISSES_MAX_PROPS
 * properties, a line of at most OLC_MISSES_MAX_LINE bytes); else
 * OLC_E_LIMIT naming name and the limit, or OLC_E_NOMEM. */
olc_status olc_misses__check(const olc_misses_entry *e, const char *name, olc_error *err);

/* misses_file.c: the file on disk. */

/* Reads path into set.  A missing file is an empty set (OLC_OK).  Returns
 * OLC_OK, the parser's failures, OLC_E_LIMIT, OLC_E_IO, OLC_E_NOMEM. */
olc_status olc_misses__load(olc_misses_set *set, const char *path, olc_error *err);

/* Adds e to the file at path under its lock (nothing written when its key
 * is there).  *added (may be NULL) says whether it was.  Refuses a file
 * that is not a missed-workloads file (a store, say: OLC_E_MALFORMED,
 * nothing written), an entry with an empty backend, operator, processor,
 * identity or model (OLC_E_INVALID), and one over the format's limits
 * (OLC_E_LIMIT: olc_misses__check).  Returns OLC_OK, the parser's
 * failures, persist's. */
olc_status olc_misses__append(int *added, const char *path, const olc_misses_entry *e,
                              int64_t lock_timeout_ms, olc_error *err);

/* Removes from the file at path, under its lock, every record whose key is
 * in done (records added meanwhile by others are kept).  *removed (may be
 * NULL) counts them.  Returns like olc_misses__append. */
olc_status olc_misses__remove(size_t *removed, const char *path, const olc_misses_set *done,
                              int64_t lock_timeout_ms, olc_error *err);

/* Removes from the file at path, under its lock, every record for which
 * drop(payload, record) returns nonzero; it sees the file as read under
 * the lock.  Returns like olc_misses__remove. */
typedef int (*olc_misses_drop_fn)(void *payload, const olc_misses_entry *e);
olc_status olc_misses__remove_if(size_t *removed, const char *path, olc_misses_drop_fn drop,
                                 void *payload, int64_t lock_timeout_ms, olc_error *err);

#endif
