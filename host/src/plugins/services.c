/*
 * plugins/services.c - the olc_plugin_host table each plugin gets: log,
 * set_error, now_ns, and store lookup/save on the plugin's behalf (done by
 * the set's olc_plugins_store_ops).
 *
 * One table per shared library, kept until the process ends (the plugin may
 * keep the pointer that long); its ctx is the library record, which knows
 * the loaded plugins attached to it.  A library loaded by two sets at once
 * serves the one that loaded it last, and the other again once that one is
 * freed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/plugins_int.h"
#include "util/error.h"
#include "util/platform.h"
#include "util/text.h"

#if defined(_MSC_VER)
#define PLUGINS_TLS __declspec(thread)
#else
#define PLUGINS_TLS _Thread_local
#endif

/* set_error detail: per thread, tagged with the library that set it
 * (olc_plugins__error_lib), so a wrapper only ever picks up the message of
 * the plugin it called. */
typedef struct plugins_tls_error {
  int32_t code;
  char message[OLC_ERROR_MESSAGE_SIZE];
} plugins_tls_error;

static PLUGINS_TLS plugins_tls_error tls_error;
OLC_PLUGINS_TLS_FAST const olc_plugins_lib *olc_plugins__error_lib;

static olc_plugins_lib *plugins_libs; /* global lock */

#define MAX_MEASUREMENTS 64u

/* Copies a plugin string into a one-line buffer; invalid UTF-8 is replaced
 * whole, control characters become spaces. */
static void copy_line(char *dst, size_t size, const char *src) {
  size_t i;
  if (src == NULL)
    src = "";
  if (!olc_util__utf8_valid(src, strlen(src)))
    src = "(message is not valid utf-8)";
  snprintf(dst, size, "%s", src);
  /* snprintf may cut a multi-byte sequence: drop a torn tail. */
  i = strlen(dst);
  while (i > 0 && !olc_util__utf8_valid(dst, i))
    dst[--i] = 0;
  for (i = 0; dst[i] != 0; i++)
    if ((unsigned char)dst[i] < 0x20 || dst[i] == 0x7f)
      dst[i] = ' ';
}

static olc_loaded_plugin *current_of(void *ctx) {
  olc_plugins_lib *lib = ctx;
  olc_loaded_plugin *p;
  if (lib == NULL)
    return NULL;
  olc_plugins__lock();
  p = lib->current;
  olc_plugins__unlock();
  return p;
}

/* Appends a line to p's set's ring (global lock held). */
static void ring_add(olc_loaded_plugin *p, int32_t level, const char *name, const char *text) {
  olc_plugin_set *set = p->set;
  olc_plugins_log_line *line = &set->log[set->log_total % OLC_PLUGINS_LOG_LINES];
  line->level = level;
  snprintf(line->text, sizeof line->text, "%s: %s", name, text);
  set->log_total++;
}

/* Keeps a line for p's set and hands warnings and errors to its sink.  The
 * sink is called after the lock is released: it may take its time, and the
 * set (hence its sink) lives until its plugins are destroyed. */
static void log_line(olc_plugins_lib *lib, olc_loaded_plugin *p, int32_t level,
                     const char *message) {
  char text[OLC_PLUGINS_LOG_LINE_SIZE - OLC_PLUGINS_MAX_NAME - 8];
  char where[OLC_DIAG_WHERE_SIZE];
  olc_diag_sink *diag = NULL;
  if (level < OLC_PLUGIN_LOG_ERROR)
    level = OLC_PLUGIN_LOG_ERROR;
  if (level > OLC_PLUGIN_LOG_DEBUG)
    level = OLC_PLUGIN_LOG_DEBUG;
  copy_line(text, sizeof text, message);
  olc_plugins__lock();
  if (p == NULL)
    p = lib->current;
  if (p != NULL && p->set != NULL) {
    const char *who = p->name != NULL ? p->name : lib->path;
    ring_add(p, level, who, text);
    if (level <= OLC_PLUGIN_LOG_WARN) {
      diag = p->set->diag;
      snprintf(where, sizeof where, "plugin %s", who);
    }
  }
  olc_plugins__unlock();
  if (diag != NULL)
    olc_diag__emit(diag, OLC_DIAG_WARNING, where, "%s", text);
}

static void svc_log(void *ctx, int32_t level, const char *message) {
  if (ctx != NULL)
    log_line(ctx, NULL, level, message);
}

void olc_plugins__log(olc_loaded_plugin *p, int32_t level, const char *text) {
  if (p != NULL)
    log_line(p->lib, p, level, text);
}

static void svc_set_error(void *ctx, int32_t code, const char *message) {
  olc_plugins__error_lib = ctx;
  tls_error.code = code;
  copy_line(tls_error.message, sizeof tls_error.message, message);
}

static uint64_t svc_now_ns(void *ctx) {
  (void)ctx;
  return olc_util__now_ns();
}

static int32_t to_plugin_status(olc_status st) {
  switch (st) {
  case OLC_OK:
  case OLC_COMMITTED_UNSYNCED:
    return OLC_PLUGIN_OK;
  case OLC_E_NOT_FOUND:
    return OLC_PLUGIN_E_NOT_FOUND;
  case OLC_E_NOMEM:
    return OLC_PLUGIN_E_NOMEM;
  case OLC_E_VALIDATION:
  case OLC_E_INVALID:
    return OLC_PLUGIN_E_INVALID;
  case OLC_E_LIMIT:
    return OLC_PLUGIN_E_LIMIT;
  case OLC_E_UNSUPPORTED:
    return OLC_PLUGIN_E_UNSUPPORTED;
  case OLC_E_UNAVAILABLE:
    return OLC_PLUGIN_E_UNAVAILABLE;
  default:
    return OLC_PLUGIN_E_FAILED;
  }
}

/* The set whose store services act for lib now, with p copied into tmp
 * with the calling instance (which may be the one create is still
 * building); NULL when there are none. */
static olc_plugin_set *acting(olc_loaded_plugin *tmp, void *ctx, void *instance) {
  olc_loaded_plugin *p = current_of(ctx);
  if (p == NULL || p->set == NULL || p->set->store_ops == NULL)
    return NULL;
  *tmp = *p;
  tmp->instance = instance;
  return p->set;
}

static int32_t svc_store_lookup(void *ctx, void *instance, const olc_plugin_workload *workload,
                                const olc_plugin_byte_sink *out) {
  olc_loaded_plugin tmp;
  olc_plugin_set *set = acting(&tmp, ctx, instance);
  olc_buf policy = OLC_BUF_INIT;
  olc_status st;
  int32_t rc;
  if (set == NULL || set->store_ops->lookup == NULL)
    return OLC_PLUGIN_E_FAILED;
  if (workload == NULL || !OLC_PLUGIN_HAS_FIELD(out, olc_plugin_byte_sink, write) ||
      out->write == NULL)
    return OLC_PLUGIN_E_INVALID;
  st = set->store_ops->lookup(set->store_payload, &tmp, workload, &policy);
  if (st == OLC_OK)
    rc = out->write(out->ctx, policy.data != NULL ? (const void *)policy.data : "",
                    (uint64_t)policy.len);
  else
    rc = to_plugin_status(st);
  olc_buf__free(&policy);
  return rc;
}

static int32_t svc_store_save(void *ctx, void *instance, const olc_plugin_workload *workload,
                              const void *policy, uint64_t policy_len,
                              const olc_plugin_measurement *measurements,
                              uint32_t measurement_count) {
  olc_loaded_plugin tmp;
  olc_plugin_set *set = acting(&tmp, ctx, instance);
  olc_measurement ms[MAX_MEASUREMENTS];
  uint32_t i;
  if (set == NULL || set->store_ops->save == NULL)
    return OLC_PLUGIN_E_FAILED;
  if (workload == NULL || (policy == NULL && policy_len != 0) ||
      (measurements == NULL && measurement_count != 0))
    return OLC_PLUGIN_E_INVALID;
  if (measurement_count > MAX_MEASUREMENTS || policy_len > OLC_PLUGINS_MAX_POLICY)
    return OLC_PLUGIN_E_LIMIT;
  for (i = 0; i < measurement_count; i++) {
    const char *name = measurements[i].name;
    const char *unit = measurements[i].unit;
    if (name == NULL || !olc_util__utf8_valid(name, strlen(name)) ||
        (unit != NULL && !olc_util__utf8_valid(unit, strlen(unit))))
      return OLC_PLUGIN_E_INVALID;
    ms[i].name = name;
    ms[i].value = measurements[i].value;
    ms[i].unit = unit != NULL ? unit : "";
  }
  return to_plugin_status(set->store_ops->save(set->store_payload, &tmp, workload, policy,
                                               (size_t)policy_len, ms, measurement_count));
}

olc_plugins_lib *olc_plugins__lib_get(void *handle, const char *path) {
  olc_plugins_lib *lib;
  olc_plugins__lock();
  for (lib = plugins_libs; lib != NULL; lib = lib->next)
    if (lib->handle == handle)
      break;
  if (lib == NULL) {
    lib = calloc(1, sizeof *lib);
    if (lib != NULL) {
      size_t n = strlen(path) + 1;
      lib->path = malloc(n);
      if (lib->path == NULL) {
        free(lib);
        lib = NULL;
      } else {
        memcpy(lib->path, path, n);
        lib->handle = handle;
        lib->services.struct_size = (uint32_t)sizeof lib->services;
        lib->services.abi_minor = OLC_PLUGIN_ABI_MINOR;
        lib->services.ctx = lib;
        lib->services.log = svc_log;
        lib->services.set_error = svc_set_error;
        lib->services.now_ns = svc_now_ns;
        lib->services.store_lookup = svc_store_lookup;
        lib->services.store_save = svc_store_save;
        /* Never freed: reachable from this list for the process's life. */
        lib->next = plugins_libs;
        plugins_libs = lib;
      }
    }
  }
  olc_plugins__unlock();
  return lib;
}

void olc_plugins__lib_attach(olc_plugins_lib *lib, olc_loaded_plugin *p) {
  olc_plugins__lock();
  p->lib_next = lib->current;
  lib->current = p;
  olc_plugins__unlock();
}

void olc_plugins__lib_detach(olc_plugins_lib *lib, olc_loaded_plugin *p) {
  olc_loaded_plugin **link;
  olc_plugins__lock();
  for (link = &lib->current; *link != NULL; link = &(*link)->lib_next)
    if (*link == p) {
      *link = p->lib_next;
      break;
    }
  p->lib_next = NULL;
  olc_plugins__unlock();
}

const char *olc_plugins__error_message(const olc_plugins_lib *lib, int32_t *code) {
  if (olc_plugins__error_lib == NULL || olc_plugins__error_lib != lib || tls_error.message[0] == 0)
    return NULL;
  if (code != NULL)
    *code = tls_error.code;
  return tls_error.message;
}

size_t olc_plugins__log_count(const olc_plugin_set *set) {
  size_t n;
  olc_plugins__lock();
  n = set->log_total < OLC_PLUGINS_LOG_LINES ? set->log_total : OLC_PLUGINS_LOG_LINES;
  olc_plugins__unlock();
  return n;
}

size_t olc_plugins__log_total(const olc_plugin_set *set) {
  size_t n;
  olc_plugins__lock();
  n = set->log_total;
  olc_plugins__unlock();
  return n;
}

int32_t olc_plugins__log_line(const olc_plugin_set *set, size_t i, char *buf, size_t size) {
  int32_t level = -1;
  olc_plugins__lock();
  {
    size_t n = set->log_total < OLC_PLUGINS_LOG_LINES ? set->log_total : OLC_PLUGINS_LOG_LINES;
    if (i < n) {
      size_t first = set->log_total - n;
      const olc_plugins_log_line *l = &set->log[(first + i) % OLC_PLUGINS_LOG_LINES];
      level = l->level;
      snprintf(buf, size, "%s", l->text);
    }
  }
  olc_plugins__unlock();
  return level;
}
