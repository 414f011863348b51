/*
 * store/lookup.c - precedence, the validator and the rejection list.
 *
 * Only the records of the key's backend and operator are examined: with
 * all_candidates one bucket of the snapshot index, otherwise only the
 * records the candidate index (index.c) names, so a lookup costs the size
 * of its answer.
 * A record is a candidate when it matches the key or differs from it in
 * exactly one identity field; the reason names that field.  With
 * all_candidates every record of the bucket is reported, and one that
 * differs in several fields gets OLC_REASON_DIFFERENT_IDENTITY with a
 * message listing the fields (an exact record looked up without an exact
 * identity counts as differing in model_digest, processor and thread_count).
 * Rejections are ordered by the record's precedence, then canonical order.
 *
 * A scoped lookup (OLC_LOOKUP_SCOPE_WORKLOAD) filters the candidates to the
 * key's workload before anything else (in_scope), and its index probes
 * (OLC_CAND_SCOPED) never walk the chains that hold the other workloads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_int.h"
#include "util/error.h"
#include "util/options.h"

enum {
  FIELD_IMPL = 1u,
  FIELD_MODEL = 2u,
  FIELD_PROCESSOR = 4u,
  FIELD_THREADS = 8u,
  FIELD_STRUCTURE = 16u
};

typedef struct lookup_ctx {
  const olc_lookup_options *opts;
  const olc_key *key;
  const olc_property *props; /* sorted */
  size_t nprops;
  int has_exact;
  int scoped;               /* OLC_LOOKUP_SCOPE_WORKLOAD, without all_candidates */
  const char *key_workload; /* the key digest's workload identity, or NULL */
  size_t key_model_part;    /* its model part's length, or (size_t)-1 */
  olc_lookup_result *res;
} lookup_ctx;

enum { SCOPE_OUT = 0, SCOPE_IN = 1, SCOPE_LEGACY = 2 };

#define MSG_VALUE_MAX 96

static int str_eq(const char *a, const char *b) {
  return strcmp(a != NULL ? a : "", b != NULL ? b : "") == 0;
}

static unsigned diff_fields(const olc_record *r, const lookup_ctx *c) {
  unsigned d = 0;
  size_t i;
  if (!str_eq(r->implementation, c->key->implementation))
    d |= FIELD_IMPL;
  if (r->level == OLC_LEVEL_EXACT) {
    if (!c->has_exact)
      return d | FIELD_MODEL | FIELD_PROCESSOR | FIELD_THREADS;
    if (!str_eq(r->model_digest, c->key->model_digest))
      d |= FIELD_MODEL;
    if (!str_eq(r->processor, c->key->processor))
      d |= FIELD_PROCESSOR;
    if (r->thread_count != c->key->thread_count)
      d |= FIELD_THREADS;
    return d;
  }
  if (r->structure_count != c->nprops)
    return d | FIELD_STRUCTURE;
  for (i = 0; i < c->nprops; i++)
    if (!str_eq(r->structure[i].name, c->props[i].name) ||
        !str_eq(r->structure[i].value, c->props[i].value))
      return d | FIELD_STRUCTURE;
  return d;
}

/* Appends s quoted, with quotes, backslashes and control bytes escaped so
 * that a message stays on one line, cut after MSG_VALUE_MAX bytes. */
static void put_quoted(char *buf, size_t size, size_t *pos, const char *s) {
  size_t n = 0;
  if (s == NULL)
    s = "";
#define PUT(ch)                                                                                    \
  do {                                                                                             \
    if (*pos + 1 < size)                                                                           \
      buf[(*pos)++] = (ch);                                                                        \
  } while (0)
  PUT('"');
  for (; *s != 0; s++, n++) {
    unsigned char ch = (unsigned char)*s;
    if (n == MSG_VALUE_MAX) {
      PUT('.');
      PUT('.');
      PUT('.');
      break;
    }
    if (ch == '"' || ch == '\\') {
      PUT('\\');
      PUT((char)ch);
    } else if (ch < 0x20 || ch == 0x7f) {
      static const char hex[] = "0123456789abcdef";
      PUT('\\');
      PUT('x');
      PUT(hex[ch >> 4]);
      PUT(hex[ch & 15]);
    } else {
      PUT((char)ch);
    }
  }
  PUT('"');
#undef PUT
  buf[*pos < size ? *pos : size - 1] = 0;
}

static void put_text(char *buf, size_t size, size_t *pos, const char *s) {
  for (; *s != 0 && *pos + 1 < size; s++)
    buf[(*pos)++] = *s;
  buf[*pos] = 0;
}

static void put_structure(char *buf, size_t size, size_t *pos, const olc_property *p, size_t n) {
  size_t i;
  put_text(buf, size, pos, "{");
  for (i = 0; i < n; i++) {
    if (i > 0)
      put_text(buf, size, pos, ", ");
    put_text(buf, size, pos, p[i].name);
    put_text(buf, size, pos, "=");
    put_quoted(buf, size, pos, p[i].value);
  }
  put_text(buf, size, pos, "}");
}

static void pair_message(char *buf, size_t size, const char *head, const char *rec,
                         const char *look) {
  size_t pos = 0;
  buf[0] = 0;
  put_text(buf, size, &pos, head);
  put_text(buf, size, &pos, ": record ");
  put_quoted(buf, size, &pos, rec);
  put_text(buf, size, &pos, " vs lookup ");
  put_quoted(buf, size, &pos, look);
}

static olc_reason single_reason(char *msg, size_t size, const olc_record *r, unsigned field,
                                const lookup_ctx *c) {
  size_t pos = 0;
  switch (field) {
  case FIELD_IMPL: {
    int cmp = olc_store__version_cmp(r->implementation, c->key->implementation);
    if (cmp == 0)
      cmp = strcmp(r->implementation, c->key->implementation);
    pair_message(msg, size, cmp < 0 ? "implementation is older" : "implementation is newer",
                 r->implementation, c->key->implementation);
    return cmp < 0 ? OLC_REASON_OUTDATED_IMPLEMENTATION : OLC_REASON_NEWER_IMPLEMENTATION;
  }
  case FIELD_MODEL:
    pair_message(msg, size, "model_digest differs", r->model_digest, c->key->model_digest);
    return OLC_REASON_DIFFERENT_MODEL;
  case FIELD_PROCESSOR:
    pair_message(msg, size, "processor differs", r->processor, c->key->processor);
    return OLC_REASON_DIFFERENT_PROCESSOR;
  case FIELD_THREADS:
    snprintf(msg, size, "thread_count differs: record %lld vs lookup %lld",
             (long long)r->thread_count, (long long)c->key->thread_count);
    return OLC_REASON_DIFFERENT_THREAD_COUNT;
  default:
    msg[0] = 0;
    put_text(msg, size, &pos, "structure differs: record ");
    put_structure(msg, size, &pos, r->structure, r->structure_count);
    put_text(msg, size, &pos, " vs lookup ");
    put_structure(msg, size, &pos, c->props, c->nprops);
    return OLC_REASON_DIFFERENT_STRUCTURE;
  }
}

static void identity_message(char *msg, size_t size, const olc_record *r, unsigned d,
                             const lookup_ctx *c) {
  static const struct {
    unsigned bit;
    const char *name;
  } names[] = {{FIELD_IMPL, "implementation"},
               {FIELD_MODEL, "model_digest"},
               {FIELD_PROCESSOR, "processor"},
               {FIELD_THREADS, "thread_count"},
               {FIELD_STRUCTURE, "structure"}};
  size_t pos = 0, i;
  int first = 1;
  msg[0] = 0;
  put_text(msg, size, &pos, "identity differs in ");
  for (i = 0; i < sizeof names / sizeof names[0]; i++) {
    if ((d & names[i].bit) == 0)
      continue;
    if (!first)
      put_text(msg, size, &pos, ", ");
    put_text(msg, size, &pos, names[i].name);
    first = 0;
  }
  if (r->level == OLC_LEVEL_EXACT && !c->has_exact)
    put_text(msg, size, &pos, " (the lookup has no exact identity)");
}

static olc_status reject(lookup_ctx *c, const olc_record *r, olc_reason reason, const char *msg) {
  olc_lookup_result *res = c->res;
  olc_rejection *rj;
  if (res->rejected_count == res->rejected_cap) {
    size_t ncap = res->rejected_cap ? res->rejected_cap * 2 : 8;
    olc_rejection *n = realloc(res->rejected, ncap * sizeof *n);
    if (n == NULL)
      return OLC_E_NOMEM;
    res->rejected = n;
    res->rejected_cap = ncap;
  }
  rj = &res->rejected[res->rejected_count];
  rj->reason = reason;
  rj->record = r;
  rj->message = olc_arena__strdup(&res->arena, msg);
  if (rj->message == NULL)
    return OLC_E_NOMEM;
  res->rejected_count++;
  return OLC_OK;
}

static int rejection_cmp(const void *pa, const void *pb) {
  const olc_rejection *a = pa, *b = pb;
  olc_precedence x = olc_record_precedence(a->record), y = olc_record_precedence(b->record);
  if (x != y)
    return x < y ? -1 : 1;
  return a->record < b->record ? -1 : a->record > b->record;
}

/* One line from a callback's message buffer: cut at the first line break. */
static void one_line(char *s) {
  for (; *s != 0; s++)
    if (*s == '\n' || *s == '\r') {
      *s = 0;
      break;
    }
}

static olc_status choose(lookup_ctx *c, const olc_record *matched[5]) {
  char msg[512], vmsg[OLC_ERROR_MESSAGE_SIZE];
  const olc_lookup_options *o = c->opts;
  olc_status st = OLC_OK;
  int p;
  for (p = 1; p <= 4 && st == OLC_OK; p++) {
    const olc_record *r = matched[p];
    if (r == NULL)
      continue;
    if (o->force_portable && r->level == OLC_LEVEL_EXACT) {
      st = reject(c, r, OLC_REASON_FORCE_PORTABLE, "exact level skipped by force_portable");
    } else if (c->res->selected != NULL) {
      const olc_record *s = c->res->selected;
      snprintf(msg, sizeof msg, "shadowed by the selected %s %s record", olc_level_str(s->level),
               olc_origin_str(s->origin));
      st = reject(c, r, OLC_REASON_SHADOWED, msg);
    } else if (o->validate != NULL) {
      olc_status v;
      vmsg[0] = 0;
      v = o->validate(r->policy, r->policy_len, o->validate_payload, vmsg, sizeof vmsg);
      vmsg[sizeof vmsg - 1] = 0;
      one_line(vmsg);
      if (v == OLC_OK) {
        c->res->selected = r;
      } else {
        snprintf(msg, sizeof msg, "backend validation failed: %s",
                 vmsg[0] != 0 ? vmsg : olc_status_str(v));
        st = reject(c, r, OLC_REASON_VALIDATION_FAILED, msg);
      }
    } else {
      c->res->selected = r;
    }
  }
  return st;
}

/* Whether a record belongs to the key's workload (store.h): an exact one
 * by its digest or workload identity, or as a legacy record of the key's
 * model; a portable one by its structure. */
static int in_scope(const lookup_ctx *c, const olc_record *r) {
  const char *w;
  size_t part = c->key_model_part;
  if (r->level == OLC_LEVEL_PORTABLE)
    return (diff_fields(r, c) & FIELD_STRUCTURE) == 0 ? SCOPE_IN : SCOPE_OUT;
  if (!c->has_exact)
    return SCOPE_OUT;
  if (str_eq(r->model_digest, c->key->model_digest))
    return SCOPE_IN;
  w = olc_store_workload_of_digest(r->model_digest);
  if (w != NULL)
    return c->key_workload != NULL && strcmp(w, c->key_workload) == 0 ? SCOPE_IN : SCOPE_OUT;
  if (part != (size_t)-1 && strlen(r->model_digest) == part &&
      memcmp(r->model_digest, c->key->model_digest, part) == 0)
    return SCOPE_LEGACY;
  return SCOPE_OUT;
}

static olc_status reject_legacy(lookup_ctx *c, const olc_record *r) {
  char msg[512];
  size_t pos = 0;
  msg[0] = 0;
  put_text(msg, sizeof msg, &pos, "recorded for model ");
  put_quoted(msg, sizeof msg, &pos, r->model_digest);
  put_text(msg, sizeof msg, &pos, " before records were per workload (recalibrated)");
  return reject(c, r, OLC_REASON_DIFFERENT_MODEL, msg);
}

static olc_status consider(lookup_ctx *c, const olc_record *r, const olc_record *matched[5]) {
  char msg[512];
  unsigned d;
  if (c->scoped) {
    int scope = in_scope(c, r);
    if (scope == SCOPE_OUT)
      return OLC_OK;
    if (scope == SCOPE_LEGACY)
      return reject_legacy(c, r);
  }
  d = diff_fields(r, c);
  if (d == 0) {
    int p = (int)olc_record_precedence(r);
    if (matched[p] == NULL) {
      matched[p] = r;
      return OLC_OK;
    }
    /* The same identity in a later layer: the earlier source wins. */
    snprintf(msg, sizeof msg, "shadowed by the same record in '%.400s'",
             matched[p]->source != NULL ? matched[p]->source : "memory");
    return reject(c, r, OLC_REASON_SHADOWED, msg);
  }
  if ((d & (d - 1)) == 0) {
    olc_reason why = single_reason(msg, sizeof msg, r, d, c);
    return reject(c, r, why, msg);
  }
  if (c->opts->all_candidates) {
    identity_message(msg, sizeof msg, r, d, c);
    return reject(c, r, OLC_REASON_DIFFERENT_IDENTITY, msg);
  }
  return OLC_OK;
}

/* Every record of the backend and operator (all_candidates, or when the
 * candidate index could not be built). */
static olc_status scan_bucket(lookup_ctx *c, const olc_snapshot *snap,
                              const olc_record *matched[5]) {
  size_t first, count, i;
  olc_status st = OLC_OK;
  olc_snapshot__bucket(snap, c->key->backend, c->key->operator_name, &first, &count);
  c->res->bucket_count = count;
  for (i = 0; i < count && st == OLC_OK; i++)
    st = consider(c, olc_snapshot__at(snap, first + i), matched);
  return st;
}

/* Only the records the candidate index names: the cost follows the size of
 * the answer, not of the bucket. */
static olc_status scan_candidates(lookup_ctx *c, olc_snapshot *snap, const olc_record *matched[5]) {
  olc_cand_fields kf;
  size_t stack[32], *idx = NULL, n = 0, i;
  olc_status st;
  olc_cand__fields(&kf, c->key->backend, c->key->operator_name, c->key->implementation,
                   c->key->model_digest, c->key->processor, c->key->thread_count, c->props,
                   c->nprops);
  if (c->scoped)
    olc_cand__workload_fields(&kf, c->key->model_digest);
  st = olc_cand__find(&idx, &n, snap, &kf,
                      (c->has_exact ? OLC_CAND_EXACT : 0u) | OLC_CAND_PORTABLE |
                          (c->scoped ? OLC_CAND_SCOPED : 0u),
                      stack, sizeof stack / sizeof stack[0]);
  if (st != OLC_OK)
    return scan_bucket(c, snap, matched);
  c->res->bucket_count = (size_t)-1;
  c->res->bucket_hash = kf.bucket;
  for (i = 0; i < n && st == OLC_OK; i++) {
    const olc_record *r = &snap->set.recs[idx[i]];
    /* A hash collision may bring a record of another bucket. */
    if (strcmp(r->backend, c->key->backend) != 0 ||
        strcmp(r->operator_name, c->key->operator_name) != 0)
      continue;
    st = consider(c, r, matched);
  }
  if (idx != stack)
    free(idx);
  return st;
}

/* The names unlisted_count needs to count the bucket later: those of a
 * record in the result, or copies when it holds none. */
static olc_status note_bucket(lookup_ctx *c) {
  olc_lookup_result *res = c->res;
  const olc_record *r = res->selected;
  if (res->bucket_count != (size_t)-1)
    return OLC_OK;
  if (r == NULL && res->rejected_count > 0)
    r = res->rejected[0].record;
  if (r != NULL) {
    res->bucket_backend = r->backend;
    res->bucket_operator = r->operator_name;
    return OLC_OK;
  }
  res->bucket_backend = olc_arena__strdup(&res->arena, c->key->backend);
  res->bucket_operator = olc_arena__strdup(&res->arena, c->key->operator_name);
  return res->bucket_backend != NULL && res->bucket_operator != NULL ? OLC_OK : OLC_E_NOMEM;
}

static olc_status find(lookup_ctx *c, olc_snapshot *snap) {
  const olc_record *matched[5] = {NULL, NULL, NULL, NULL, NULL};
  olc_status st =
      c->opts->all_candidates ? scan_bucket(c, snap, matched) : scan_candidates(c, snap, matched);
  if (st == OLC_OK)
    st = choose(c, matched);
  if (st == OLC_OK)
    st = note_bucket(c);
  if (st == OLC_OK && c->res->rejected_count > 1)
    qsort(c->res->rejected, c->res->rejected_count, sizeof *c->res->rejected, rejection_cmp);
  return st;
}

static void ctx_init(lookup_ctx *c, const olc_lookup_options *o, const olc_property *props,
                     olc_lookup_result *res) {
  c->opts = o;
  c->key = o->key;
  c->props = props;
  c->nprops = o->key->structure_count;
  c->has_exact = olc_store__key_has_exact(o->key);
  /* all_candidates reports the whole bucket: it wins over the scope. */
  c->scoped = o->scope == OLC_LOOKUP_SCOPE_WORKLOAD && !o->all_candidates;
  c->key_workload = NULL;
  c->key_model_part = (size_t)-1;
  if (c->scoped && c->has_exact) {
    c->key_workload = olc_store_workload_of_digest(o->key->model_digest);
    c->key_model_part = olc_store__digest_model_part(o->key->model_digest);
  }
  c->res = res;
}

olc_status olc_store_lookup(olc_lookup_result **out, olc_store *store,
                            const olc_lookup_options *caller_options, olc_error *err) {
  olc_lookup_options opts;
  const olc_lookup_options *options = &opts;
  lookup_ctx c;
  olc_property *props = NULL;
  olc_lookup_result *res;
  olc_status st;
  if (out == NULL)
    return olc_error__set(err, OLC_E_INVALID, "lookup", "output pointer is NULL");
  *out = NULL;
  if (store == NULL || caller_options == NULL)
    return olc_error__set(err, OLC_E_INVALID, "lookup", "store or options is NULL");
  st = olc_options__load(&opts, &olc_options__lookup, caller_options, "lookup", err);
  if (st != OLC_OK)
    return st;
  if (opts.scope != OLC_LOOKUP_SCOPE_KEY && opts.scope != OLC_LOOKUP_SCOPE_WORKLOAD)
    return olc_error__set(err, OLC_E_INVALID, "lookup",
                          "scope %d is neither OLC_LOOKUP_SCOPE_KEY (0) nor "
                          "OLC_LOOKUP_SCOPE_WORKLOAD (1)",
                          opts.scope);
  st = olc_store__check_key(&props, options->key, "lookup key", err);
  if (st != OLC_OK)
    return st;
  res = calloc(1, sizeof *res);
  if (res == NULL) {
    free(props);
    return olc_error__set(err, OLC_E_NOMEM, "lookup", "out of memory");
  }
  olc_store__refresh(store);
  res->snap = olc_store__acquire_view(store);
  ctx_init(&c, options, props, res);
  /* The validator runs here, without any lock held. */
  st = find(&c, res->snap);
  free(props);
  if (st != OLC_OK) {
    olc_lookup_result_free(res);
    return olc_error__set(err, st, "lookup", "out of memory building the lookup result");
  }
  *out = res;
  if (res->selected == NULL)
    return olc_error__set(err, OLC_E_NOT_FOUND, "lookup",
                          "no usable profile for backend \"%.80s\" operator \"%.80s\" (%llu "
                          "rejected)",
                          options->key->backend, options->key->operator_name,
                          (unsigned long long)res->rejected_count);
  return OLC_OK;
}
