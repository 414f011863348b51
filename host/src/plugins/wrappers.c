/*
 * plugins/wrappers.c - the only code that calls a loaded plugin's table
 * after loading.  Optional fields are read only inside struct_size; plugin
 * output arrives through sinks with caps and is copied; plugin statuses plus
 * set_error detail become olc_status + "plugin NAME: ..." messages.
 */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/plugins_int.h"
#include "util/error.h"
#include "util/text.h"

#define SINK_MSG_SIZE 200

size_t olc_plugins__count(const olc_plugin_set *set) { return set ? set->plugin_count : 0; }

olc_loaded_plugin *olc_plugins__at(const olc_plugin_set *set, size_t i) {
  return set != NULL && i < set->plugin_count ? set->plugins[i] : NULL;
}

olc_loaded_plugin *olc_plugins__find(const olc_plugin_set *set, const char *name) {
  size_t i;
  if (set == NULL || name == NULL)
    return NULL;
  for (i = 0; i < set->plugin_count; i++)
    if (strcmp(set->plugins[i]->name, name) == 0)
      return set->plugins[i];
  return NULL;
}

const char *olc_plugins__name(const olc_loaded_plugin *p) { return p->name; }

const char *olc_plugins__version(const olc_loaded_plugin *p) { return p->version; }

const char *olc_plugins__path(const olc_loaded_plugin *p) { return p->path; }

int olc_plugins__serves(const olc_loaded_plugin *p, const char *operator_name) {
  uint32_t i;
  if (operator_name == NULL)
    return 0;
  for (i = 0; i < p->table->operator_count; i++)
    if (strcmp(p->table->operators[i], operator_name) == 0)
      return 1;
  return 0;
}

void olc_plugins__set_after_run(olc_loaded_plugin *p, olc_plugins_after_run_fn fn, void *payload) {
  p->after_run = fn;
  p->after_run_payload = payload;
}

int olc_plugins__forked(const olc_loaded_plugin *p, const char *fn, olc_error *err) {
  if (p->forks == olc_plugins__forks())
    return 0;
  olc_error__set(err, OLC_E_UNSUPPORTED, fn,
                 "plugin %s was created before fork() in a parent process: its threads are not "
                 "in this one; open a new host here",
                 p->name);
  return 1;
}

/* A plugin call failed with rc: the plugin's set_error detail, or a generic
 * one.  invalid_as is what OLC_PLUGIN_E_INVALID becomes. */
static olc_status plugin_fail(olc_error *err, const olc_loaded_plugin *p, const char *fn,
                              int32_t rc, olc_status invalid_as) {
  int32_t code = 0;
  const char *detail = olc_plugins__error_message(p->lib, &code);
  olc_status st;
  switch (rc) {
  case OLC_PLUGIN_E_UNAVAILABLE:
    st = OLC_E_UNAVAILABLE;
    break;
  case OLC_PLUGIN_E_UNSUPPORTED:
    st = OLC_E_UNSUPPORTED;
    break;
  case OLC_PLUGIN_E_INVALID:
    st = invalid_as;
    break;
  default:
    st = OLC_E_PLUGIN;
    break;
  }
  if (detail != NULL)
    olc_error__set(err, st, fn, "plugin %s: %s", p->name, detail);
  else
    olc_error__set(err, st, fn, "plugin %s: %s failed with status %d", p->name, fn, (int)rc);
  if (err != NULL)
    err->backend_code = rc;
  return st;
}

/* --------------------------------------------------------------- key */

typedef struct key_ctx {
  olc_arena *arena;
  char *processor;
  uint32_t threads;
  olc_property *props; /* malloc'ed while collecting */
  size_t count;
  size_t cap;
  const char **used; /* use_property's names, unique, in the arena */
  size_t used_count;
  size_t used_cap;
  int32_t fail; /* first sink refusal, returned again for later calls */
  olc_status fail_status;
  char fail_msg[SINK_MSG_SIZE];
} key_ctx;

static int32_t sink_refuse(key_ctx *k, int32_t code, olc_status st, const char *msg) {
  if (k->fail == 0) {
    k->fail = code;
    k->fail_status = st;
    snprintf(k->fail_msg, sizeof k->fail_msg, "%s", msg);
  }
  return code;
}

/* Checks a plugin string: 0, or the refusal. */
static int32_t check_str(key_ctx *k, const char *s, size_t cap, const char *what) {
  char msg[SINK_MSG_SIZE];
  size_t n;
  if (s == NULL) {
    snprintf(msg, sizeof msg, "key: %s is NULL", what);
    return sink_refuse(k, OLC_PLUGIN_E_INVALID, OLC_E_PLUGIN, msg);
  }
  n = strnlen(s, cap + 1);
  if (n > cap) {
    snprintf(msg, sizeof msg, "key: %s is longer than %lu bytes", what, (unsigned long)cap);
    return sink_refuse(k, OLC_PLUGIN_E_LIMIT, OLC_E_LIMIT, msg);
  }
  if (n == 0) {
    snprintf(msg, sizeof msg, "key: %s is empty", what);
    return sink_refuse(k, OLC_PLUGIN_E_INVALID, OLC_E_PLUGIN, msg);
  }
  if (!olc_util__utf8_valid(s, n)) {
    snprintf(msg, sizeof msg, "key: %s is not valid utf-8", what);
    return sink_refuse(k, OLC_PLUGIN_E_INVALID, OLC_E_PLUGIN, msg);
  }
  return 0;
}

static int32_t key_set_processor(void *ctx, const char *processor) {
  key_ctx *k = ctx;
  int32_t rc;
  if (k->fail != 0)
    return k->fail;
  rc = check_str(k, processor, OLC_PLUGINS_MAX_PROCESSOR, "processor");
  if (rc != 0)
    return rc;
  k->processor = olc_arena__strdup(k->arena, processor);
  return k->processor ? OLC_PLUGIN_OK
                      : sink_refuse(k, OLC_PLUGIN_E_NOMEM, OLC_E_NOMEM, "out of memory");
}

static int32_t key_set_thread_count(void *ctx, uint32_t thread_count) {
  key_ctx *k = ctx;
  if (k->fail != 0)
    return k->fail;
  if (thread_count == 0)
    return sink_refuse(k, OLC_PLUGIN_E_INVALID, OLC_E_PLUGIN, "key: thread count 0");
  k->threads = thread_count;
  return OLC_PLUGIN_OK;
}

static int32_t key_add_structure(void *ctx, const char *name, const char *value) {
  key_ctx *k = ctx;
  char msg[SINK_MSG_SIZE];
  size_t i;
  int32_t rc;
  if (k->fail != 0)
    return k->fail;
  if (k->count >= OLC_PLUGINS_MAX_STRUCTURE) {
    snprintf(msg, sizeof msg, "key: more than %u structural properties", OLC_PLUGINS_MAX_STRUCTURE);
    return sink_refuse(k, OLC_PLUGIN_E_LIMIT, OLC_E_LIMIT, msg);
  }
  rc = check_str(k, name, OLC_PLUGINS_MAX_STRING, "structure name");
  if (rc == 0)
    rc = check_str(k, value, OLC_PLUGINS_MAX_STRING, "structure value");
  if (rc != 0)
    return rc;
  for (i = 0; i < k->count; i++)
    if (strcmp(k->props[i].name, name) == 0) {
      snprintf(msg, sizeof msg, "key: structural property \"%s\" given twice", name);
      return sink_refuse(k, OLC_PLUGIN_E_INVALID, OLC_E_PLUGIN, msg);
    }
  if (k->count == k->cap) {
    size_t ncap = k->cap ? k->cap * 2 : 8;
    olc_property *n = realloc(k->props, ncap * sizeof *n);
    if (n == NULL)
      return sink_refuse(k, OLC_PLUGIN_E_NOMEM, OLC_E_NOMEM, "out of memory");
    k->props = n;
    k->cap = ncap;
  }
  k->props[k->count].name = olc_arena__strdup(k->arena, name);
  k->props[k->count].value = olc_arena__strdup(k->arena, value);
  if (k->props[k->count].name == NULL || k->props[k->count].value == NULL)
    return sink_refuse(k, OLC_PLUGIN_E_NOMEM, OLC_E_NOMEM, "out of memory");
  k->count++;
  return OLC_PLUGIN_OK;
}

static int32_t key_use_property(void *ctx, const char *name) {
  key_ctx *k = ctx;
  char msg[SINK_MSG_SIZE];
  size_t i;
  int32_t rc;
  if (k->fail != 0)
    return k->fail;
  rc = check_str(k, name, OLC_PLUGINS_MAX_STRING, "used property name");
  if (rc != 0)
    return rc;
  /* Declaring a name twice, or one the structure carries, says nothing
   * new: accepted, kept once. */
  for (i = 0; i < k->used_count; i++)
    if (strcmp(k->used[i], name) == 0)
      return OLC_PLUGIN_OK;
  if (k->used_count >= OLC_PLUGINS_MAX_STRUCTURE) {
    snprintf(msg, sizeof msg, "key: more than %u used properties", OLC_PLUGINS_MAX_STRUCTURE);
    return sink_refuse(k, OLC_PLUGIN_E_LIMIT, OLC_E_LIMIT, msg);
  }
  if (k->used_count == k->used_cap) {
    size_t ncap = k->used_cap ? k->used_cap * 2 : 8;
    const char **n = realloc(k->used, ncap * sizeof *n);
    if (n == NULL)
      return sink_refuse(k, OLC_PLUGIN_E_NOMEM, OLC_E_NOMEM, "out of memory");
    k->used = n;
    k->used_cap = ncap;
  }
  k->used[k->used_count] = olc_arena__strdup(k->arena, name);
  if (k->used[k->used_count] == NULL)
    return sink_refuse(k, OLC_PLUGIN_E_NOMEM, OLC_E_NOMEM, "out of memory");
  k->used_count++;
  return OLC_PLUGIN_OK;
}

/* 1 when the key reported name in the structure or declared it used. */
static int keys_on(const key_ctx *k, const char *name) {
  size_t i;
  for (i = 0; i < k->count; i++)
    if (strcmp(k->props[i].name, name) == 0)
      return 1;
  for (i = 0; i < k->used_count; i++)
    if (strcmp(k->used[i], name) == 0)
      return 1;
  return 0;
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "dtype, k, m, n": what the key reported or declared, sorted, unique,
 * cut with "..." where buf ends. */
static void keyed_names(char *buf, size_t size, const key_ctx *k) {
  const char *names[2 * OLC_PLUGINS_MAX_STRUCTURE];
  size_t n = 0, i, len = 0;
  for (i = 0; i < k->count; i++)
    names[n++] = k->props[i].name;
  for (i = 0; i < k->used_count; i++)
    names[n++] = k->used[i];
  qsort(names, n, sizeof *names, cmp_names);
  buf[0] = '\0';
  for (i = 0; i < n; i++) {
    size_t need;
    if (i > 0 && strcmp(names[i], names[i - 1]) == 0)
      continue;
    need = strlen(names[i]) + (len > 0 ? 2 : 0);
    if (len + need + 4 >= size) {
      snprintf(buf + len, size - len, "%s...", len > 0 ? ", " : "");
      return;
    }
    len += (size_t)snprintf(buf + len, size - len, "%s%s", len > 0 ? ", " : "", names[i]);
  }
}

/* Every property of w must be one the key reported or declared: a
 * property the plugin ignores would otherwise drop out of the identity,
 * and two workloads that differ in it would share one record. */
static olc_status check_keyed(const key_ctx *k, const olc_loaded_plugin *p,
                              const olc_plugin_workload *w, olc_error *err) {
  char names[128];
  uint32_t i;
  if (!OLC_PLUGIN_HAS_FIELD(w, olc_plugin_workload, property_count) || w->properties == NULL)
    return OLC_OK;
  for (i = 0; i < w->property_count; i++) {
    const char *name = w->properties[i].key;
    if (name == NULL || keys_on(k, name))
      continue;
    keyed_names(names, sizeof names, k);
    return olc_error__set(err, OLC_E_INVALID, "identity",
                          "property '%.64s' is not one plugin '%s' keys on (it keys on%s%s)", name,
                          p->name, names[0] != '\0' ? ": " : " nothing", names);
  }
  return OLC_OK;
}

static int cmp_props(const void *a, const void *b) {
  return strcmp(((const olc_property *)a)->name, ((const olc_property *)b)->name);
}

olc_status olc_plugins__key(olc_plugin_key *out, olc_loaded_plugin *p, const olc_plugin_workload *w,
                            olc_error *err) {
  key_ctx k;
  olc_plugin_key_sink sink;
  olc_arena *arena;
  int32_t rc;
  olc_status st = OLC_OK;
  memset(out, 0, sizeof *out);
  memset(&k, 0, sizeof k);
  if (olc_plugins__forked(p, "key", err))
    return OLC_E_UNSUPPORTED;
  arena = calloc(1, sizeof *arena);
  if (arena == NULL)
    return olc_error__set(err, OLC_E_NOMEM, "key", "out of memory");
  k.arena = arena;
  sink.struct_size = (uint32_t)sizeof sink;
  sink.abi_minor = OLC_PLUGIN_ABI_MINOR;
  sink.ctx = &k;
  sink.set_processor = key_set_processor;
  sink.set_thread_count = key_set_thread_count;
  sink.add_structure = key_add_structure;
  sink.use_property = key_use_property;
  if (p->table->abi_minor < 3) {
    /* Built before use_property: its sink ends at add_structure, so every
     * property it keys on must be in the structure. */
    sink.struct_size = (uint32_t)offsetof(olc_plugin_key_sink, use_property);
    sink.abi_minor = p->table->abi_minor;
    sink.use_property = NULL;
  }
  olc_plugins__error_clear();
  rc = p->table->key(p->instance, w, &sink);
  if (k.fail != 0)
    st = olc_error__set(err, k.fail_status, "key", "plugin %s: %s", p->name, k.fail_msg);
  else if (rc != OLC_PLUGIN_OK)
    st = plugin_fail(err, p, "key", rc, OLC_E_PLUGIN);
  else if (k.processor == NULL)
    st = olc_error__set(err, OLC_E_PLUGIN, "key", "plugin %s: key did not set the processor",
                        p->name);
  else if (k.threads == 0)
    st = olc_error__set(err, OLC_E_PLUGIN, "key", "plugin %s: key did not set the thread count",
                        p->name);
  if (st == OLC_OK)
    st = check_keyed(&k, p, w, err);
  if (st == OLC_OK && k.count > 0) {
    out->structure = olc_arena__alloc(arena, k.count * sizeof *out->structure);
    if (out->structure == NULL)
      st = olc_error__set(err, OLC_E_NOMEM, "key", "out of memory");
    else {
      memcpy(out->structure, k.props, k.count * sizeof *out->structure);
      qsort(out->structure, k.count, sizeof *out->structure, cmp_props);
      out->structure_count = k.count;
    }
  }
  free(k.props);
  free(k.used);
  if (st != OLC_OK) {
    olc_arena__free(arena);
    free(arena);
    memset(out, 0, sizeof *out);
    return st;
  }
  out->processor = k.processor;
  out->thread_count = k.threads;
  out->storage = arena;
  return OLC_OK;
}

void olc_plugin_key__free(olc_plugin_key *key) {
  if (key == NULL)
    return;
  if (key->storage != NULL) {
    olc_arena__free(key->storage);
    free(key->storage);
  }
  memset(key, 0, sizeof *key);
}

/* ----------------------------------------------------- serialize / bytes */

typedef struct bytes_ctx {
  olc_buf buf;
  int32_t fail;
} bytes_ctx;

static int32_t bytes_write(void *ctx, const void *bytes, uint64_t len) {
  bytes_ctx *b = ctx;
  olc_status st;
  if (b->fail != 0)
    return b->fail;
  if (len == 0)
    return OLC_PLUGIN_OK;
  if (bytes == NULL)
    return b->fail = OLC_PLUGIN_E_INVALID;
  if (len > OLC_PLUGINS_MAX_POLICY)
    return b->fail = OLC_PLUGIN_E_LIMIT;
  st = olc_buf__append(&b->buf, bytes, (size_t)len);
  if (st == OLC_E_LIMIT)
    return b->fail = OLC_PLUGIN_E_LIMIT;
  if (st != OLC_OK)
    return b->fail = OLC_PLUGIN_E_NOMEM;
  return OLC_PLUGIN_OK;
}

olc_status olc_plugins__serialize(olc_buf *out, olc_loaded_plugin *p, const void *policy,
                                  olc_error *err) {
  bytes_ctx b;
  olc_plugin_byte_sink sink;
  int32_t rc;
  memset(&b, 0, sizeof b);
  b.buf.limit = OLC_PLUGINS_MAX_POLICY;
  sink.struct_size = (uint32_t)sizeof sink;
  sink.abi_minor = OLC_PLUGIN_ABI_MINOR;
  sink.ctx = &b;
  sink.write = bytes_write;
  olc_plugins__error_clear();
  rc = p->table->serialize(p->instance, policy, &sink);
  if (b.fail != 0 || rc != OLC_PLUGIN_OK) {
    olc_status st;
    if (b.fail == OLC_PLUGIN_E_LIMIT)
      st = olc_error__set(err, OLC_E_LIMIT, "serialize",
                          "plugin %s: serialized policy is larger than %lu bytes", p->name,
                          (unsigned long)OLC_PLUGINS_MAX_POLICY);
    else if (b.fail != 0)
      st = olc_error__set(err, b.fail == OLC_PLUGIN_E_NOMEM ? OLC_E_NOMEM : OLC_E_PLUGIN,
                          "serialize", "plugin %s: serialize wrote %s", p->name,
                          b.fail == OLC_PLUGIN_E_NOMEM ? "more than memory allows"
                                                       : "from a NULL pointer");
    else
      st = plugin_fail(err, p, "serialize", rc, OLC_E_PLUGIN);
    olc_buf__free(&b.buf);
    return st;
  }
  olc_buf__free(out);
  *out = b.buf;
  out->limit = 0;
  if (olc_buf__terminate(out) != OLC_OK) {
    olc_buf__free(out);
    return olc_error__set(err, OLC_E_NOMEM, "serialize", "out of memory");
  }
  return OLC_OK;
}

/* ------------------------------------------------------------ validate */

olc_status olc_plugins__validate(void **policy, olc_loaded_plugin *p, const void *bytes, size_t len,
                                 olc_error *err) {
  void *made = NULL;
  int32_t rc;
  if (policy != NULL)
    *policy = NULL;
  if (bytes == NULL && len > 0)
    return olc_error__set(err, OLC_E_INVALID, "validate", "plugin %s: NULL policy bytes", p->name);
  if (olc_plugins__forked(p, "validate", err))
    return OLC_E_UNSUPPORTED;
  olc_plugins__error_clear();
  rc = p->table->validate(p->instance, bytes != NULL ? bytes : "", (uint64_t)len,
                          policy != NULL ? &made : NULL);
  if (rc != OLC_PLUGIN_OK) {
    /* A failing validate must not leave a policy behind; if it did, it is
     * the plugin's to free. */
    if (made != NULL)
      p->table->release_policy(p->instance, made);
    return plugin_fail(err, p, "validate", rc, OLC_E_VALIDATION);
  }
  if (policy != NULL)
    *policy = made;
  return OLC_OK;
}

olc_status olc_plugins__store_validator(const unsigned char *policy, size_t policy_len,
                                        void *payload, char *message, size_t message_size) {
  olc_loaded_plugin *p = payload;
  int32_t rc;
  const char *detail;
  olc_error e;
  if (olc_plugins__forked(p, "validate", &e)) {
    if (message != NULL && message_size > 0)
      snprintf(message, message_size, "%s", e.message);
    return OLC_E_UNSUPPORTED;
  }
  olc_plugins__error_clear();
  rc = p->table->validate(p->instance, policy != NULL ? (const void *)policy : "",
                          (uint64_t)policy_len, NULL);
  if (rc == OLC_PLUGIN_OK)
    return OLC_OK;
  detail = olc_plugins__error_message(p->lib, NULL);
  if (message != NULL && message_size > 0) {
    if (detail != NULL)
      snprintf(message, message_size, "%s", detail);
    else
      snprintf(message, message_size, "plugin %s: validate returned status %d", p->name, (int)rc);
  }
  return rc == OLC_PLUGIN_E_INVALID ? OLC_E_VALIDATION : OLC_E_PLUGIN;
}

void olc_plugins__release(olc_loaded_plugin *p, void *policy) {
  if (policy != NULL)
    p->table->release_policy(p->instance, policy);
}

/* ------------------------------------------------------- run and friends */

olc_status olc_plugins__prepare(void **state, olc_loaded_plugin *p, const olc_plugin_workload *w,
                                olc_error *err) {
  int32_t rc;
  *state = NULL;
  if (olc_plugins__forked(p, "prepare", err))
    return OLC_E_UNSUPPORTED;
  if (!OLC_PLUGIN_HAS_FIELD(p->table, olc_plugin, prepare) || p->table->prepare == NULL)
    return OLC_OK;
  olc_plugins__error_clear();
  rc = p->table->prepare(p->instance, w, state);
  if (rc != OLC_PLUGIN_OK) {
    *state = NULL;
    return plugin_fail(err, p, "prepare", rc, OLC_E_PLUGIN);
  }
  return OLC_OK;
}

olc_status olc_plugins__run(olc_loaded_plugin *p, const olc_plugin_workload *w, void *state,
                            const void *policy, olc_error *err) {
  int32_t rc;
  olc_status st;
  if (olc_plugins__forked(p, "run", err))
    return OLC_E_UNSUPPORTED;
  olc_plugins__error_clear();
  rc = p->table->run(p->instance, w, state, policy);
  st = rc == OLC_PLUGIN_OK ? OLC_OK : plugin_fail(err, p, "run", rc, OLC_E_PLUGIN);
  if (p->after_run != NULL)
    p->after_run(p->after_run_payload);
  return st;
}

void olc_plugins__unprepare(olc_loaded_plugin *p, void *state) {
  if (state == NULL || !OLC_PLUGIN_HAS_FIELD(p->table, olc_plugin, unprepare) ||
      p->table->unprepare == NULL)
    return;
  p->table->unprepare(p->instance, state);
}

olc_status olc_plugins__flops(double *flops, olc_loaded_plugin *p, const olc_plugin_workload *w,
                              olc_error *err) {
  double f = 0;
  int32_t rc;
  *flops = 0;
  if (!OLC_PLUGIN_HAS_FIELD(p->table, olc_plugin, flops) || p->table->flops == NULL)
    return olc_error__set(err, OLC_E_UNSUPPORTED, "flops", "plugin %s: flops not implemented",
                          p->name);
  olc_plugins__error_clear();
  rc = p->table->flops(p->instance, w, &f);
  if (rc != OLC_PLUGIN_OK)
    return plugin_fail(err, p, "flops", rc, OLC_E_PLUGIN);
  if (!(f >= 0 && f <= DBL_MAX)) /* also NaN; isfinite warns on some libcs */
    return olc_error__set(err, OLC_E_PLUGIN, "flops", "plugin %s: flops returned %g", p->name, f);
  *flops = f;
  return OLC_OK;
}

/* ------------------------------------------------------------- execute */

int olc_plugins__can_execute(const olc_loaded_plugin *p) {
  return OLC_PLUGIN_HAS_FIELD(p->table, olc_plugin, execute) && p->table->execute != NULL;
}

int olc_plugins__has_matmul_f32(const olc_loaded_plugin *p) {
  return olc_plugins__can_execute(p) && OLC_PLUGIN_HAS_FIELD(p->table, olc_plugin, matmul_f32) &&
         p->table->matmul_f32 != NULL;
}

olc_status olc_plugins__matmul_f32(olc_loaded_plugin *p, const olc_plugin_workload *w,
                                   const void *policy, const olc_plugin_matmul_args *args,
                                   olc_error *err) {
  int32_t rc;
  olc_plugins__error_clear();
  rc = p->table->matmul_f32(p->instance, w, policy, args);
  return rc == OLC_PLUGIN_OK ? OLC_OK : plugin_fail(err, p, "execute", rc, OLC_E_INVALID);
}

olc_status olc_plugins__execute(olc_loaded_plugin *p, const olc_plugin_workload *w,
                                const void *policy, const olc_plugin_exec_args *args,
                                olc_error *err) {
  int32_t rc;
  /* A table that ends before execute has the layout of ABI 1.0,
   * whatever minor it claims. */
  if (!OLC_PLUGIN_HAS_FIELD(p->table, olc_plugin, execute))
    return olc_error__set(err, OLC_E_UNSUPPORTED, "execute",
                          "plugin '%s' was built for plugin ABI 1.0 and cannot execute", p->name);
  if (p->table->execute == NULL)
    return olc_error__set(err, OLC_E_UNSUPPORTED, "execute",
                          "plugin '%s' does not implement execute and cannot execute", p->name);
  olc_plugins__error_clear();
  rc = p->table->execute(p->instance, w, policy, args);
  return rc == OLC_PLUGIN_OK ? OLC_OK : plugin_fail(err, p, "execute", rc, OLC_E_INVALID);
}
