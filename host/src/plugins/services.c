/*
 * plugins/services.c - the olc_plugin_host table each plugin gets: log,
 * set_error, now_ns, and store lookup/save on the plugin's behalf.
 *
 * One table per shared library, kept until the process ends (the plugin may
 * keep the pointer that long); its ctx is the library record, which knows
 * the loaded plugins attached to it.  A library loaded by two hosts at once
 * serves the one that loaded it last, and the other again once that one is
 * freed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/plugins_int.h"
#include "util/error.h"

#if defined(_MSC_VER)
#define PLUGINS_TLS __declspec(thread)
#else
#define PLUGINS_TLS _Thread_local
#endif

/* set_error detail: per thread, tagged with the library that set it, so a
 * wrapper only ever picks up the message of the plugin it called. */
typedef struct plugins_tls_error {
  const olc_plugins_lib *lib;
  int32_t code;
  char message[OLC_ERROR_MESSAGE_SIZE];
} plugins_tls_error;

static PLUGINS_TLS plugins_tls_error tls_error;

static olc_plugins_lib *plugins_libs; /* global lock */

#define MAX_MEASUREMENTS 64u

/* Copies a plugin string into a one-line buffer; invalid UTF-8 is replaced
 * whole, control characters become spaces. */
static void copy_line(char *dst, size_t size, const char *src) {
  size_t i;
  if (src == NULL)
    src = "";
  if (!olc_plugins__utf8_valid(src, strlen(src)))
    src = "(message is not valid utf-8)";
  snprintf(dst, size, "%s", src);
  /* snprintf may cut a multi-byte sequence: drop a torn tail. */
  i = strlen(dst);
  while (i > 0 && !olc_plugins__utf8_valid(dst, i))
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

static void svc_log(void *ctx, int32_t level, const char *message) {
  olc_plugins_lib *lib = ctx;
  olc_loaded_plugin *p;
  olc_plugins_log_line *line;
  char text[OLC_PLUGINS_LOG_LINE_SIZE - OLC_PLUGINS_MAX_NAME - 8];
  if (lib == NULL)
    return;
  if (level < OLC_PLUGIN_LOG_ERROR)
    level = OLC_PLUGIN_LOG_ERROR;
  if (level > OLC_PLUGIN_LOG_DEBUG)
    level = OLC_PLUGIN_LOG_DEBUG;
  copy_line(text, sizeof text, message);
  olc_plugins__lock();
  p = lib->current;
  if (p != NULL && p->host != NULL) {
    olc_host *h = p->host;
    line = &h->log[h->log_total % OLC_PLUGINS_LOG_LINES];
    line->level = level;
    snprintf(line->text, sizeof line->text, "%s: %s", p->name ? p->name : lib->path, text);
    h->log_total++;
  }
  olc_plugins__unlock();
}

static void svc_set_error(void *ctx, int32_t code, const char *message) {
  tls_error.lib = ctx;
  tls_error.code = code;
  copy_line(tls_error.message, sizeof tls_error.message, message);
}

static uint64_t svc_now_ns(void *ctx) {
  (void)ctx;
  return olc_plugins__now_ns();
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

/* The key of w for p with instance (the instance may be the one create is
 * still building, hence the copy of p). */
static olc_status key_for(olc_key *key, olc_plugin_key *pk, olc_loaded_plugin *tmp,
                          const olc_plugin_workload *w, olc_error *err) {
  olc_status st = olc_plugins__key(pk, tmp, w, err);
  if (st != OLC_OK)
    return st;
  olc_plugins__make_key(key, tmp, w, pk);
  return OLC_OK;
}

static int32_t svc_store_lookup(void *ctx, void *instance, const olc_plugin_workload *workload,
                                const olc_plugin_byte_sink *out) {
  olc_loaded_plugin *p = current_of(ctx);
  olc_loaded_plugin tmp;
  olc_plugin_key pk;
  olc_key key;
  olc_lookup_options lo = OLC_LOOKUP_OPTIONS_INIT;
  olc_lookup_result *res = NULL;
  const olc_record *sel;
  olc_status st;
  int32_t rc;
  if (p == NULL || p->host == NULL || p->host->store == NULL || workload == NULL ||
      !OLC_PLUGIN_HAS_FIELD(out, olc_plugin_byte_sink, write) || out->write == NULL)
    return p == NULL || p->host == NULL || p->host->store == NULL ? OLC_PLUGIN_E_FAILED
                                                                  : OLC_PLUGIN_E_INVALID;
  tmp = *p;
  tmp.instance = instance;
  memset(&pk, 0, sizeof pk);
  st = key_for(&key, &pk, &tmp, workload, NULL);
  if (st != OLC_OK)
    return to_plugin_status(st);
  lo.key = &key;
  lo.force_portable = p->host->force_portable;
  lo.validate = olc_plugins__store_validator;
  lo.validate_payload = &tmp;
  st = olc_store_lookup(&res, p->host->store, &lo, NULL);
  sel = st == OLC_OK ? olc_lookup_result_selected(res) : NULL;
  if (sel != NULL)
    rc = out->write(out->ctx, sel->policy, (uint64_t)sel->policy_len);
  else
    rc = st == OLC_OK ? OLC_PLUGIN_E_NOT_FOUND : to_plugin_status(st);
  olc_lookup_result_free(res);
  olc_plugin_key__free(&pk);
  return rc;
}

static int32_t svc_store_save(void *ctx, void *instance, const olc_plugin_workload *workload,
                              const void *policy, uint64_t policy_len,
                              const olc_plugin_measurement *measurements,
                              uint32_t measurement_count) {
  olc_loaded_plugin *p = current_of(ctx);
  olc_loaded_plugin tmp;
  olc_plugin_key pk;
  olc_key key;
  olc_save_request req = OLC_SAVE_REQUEST_INIT;
  olc_measurement ms[MAX_MEASUREMENTS];
  olc_status st;
  uint32_t i;
  if (p == NULL || p->host == NULL || p->host->store == NULL)
    return OLC_PLUGIN_E_FAILED;
  if (workload == NULL || (policy == NULL && policy_len != 0) ||
      (measurements == NULL && measurement_count != 0))
    return OLC_PLUGIN_E_INVALID;
  if (measurement_count > MAX_MEASUREMENTS || policy_len > OLC_PLUGINS_MAX_POLICY)
    return OLC_PLUGIN_E_LIMIT;
  for (i = 0; i < measurement_count; i++) {
    const char *name = measurements[i].name;
    const char *unit = measurements[i].unit;
    if (name == NULL || !olc_plugins__utf8_valid(name, strlen(name)) ||
        (unit != NULL && !olc_plugins__utf8_valid(unit, strlen(unit))))
      return OLC_PLUGIN_E_INVALID;
    ms[i].name = name;
    ms[i].value = measurements[i].value;
    ms[i].unit = unit != NULL ? unit : "";
  }
  tmp = *p;
  tmp.instance = instance;
  memset(&pk, 0, sizeof pk);
  st = key_for(&key, &pk, &tmp, workload, NULL);
  if (st != OLC_OK)
    return to_plugin_status(st);
  req.key = &key;
  req.measurements = ms;
  req.measurement_count = measurement_count;
  req.policy = policy;
  req.policy_len = (size_t)policy_len;
  req.validate = olc_plugins__store_validator;
  req.validate_payload = &tmp;
  st = olc_store_save(p->host->store, &req, NULL);
  olc_plugin_key__free(&pk);
  return to_plugin_status(st);
}

void olc_plugins__make_key(olc_key *out, const olc_loaded_plugin *p, const olc_plugin_workload *w,
                           const olc_plugin_key *k) {
  memset(out, 0, sizeof *out);
  out->backend = p->name;
  out->operator_name = w->operator_name;
  out->implementation = p->version;
  out->model_digest =
      OLC_PLUGIN_HAS_FIELD(w, olc_plugin_workload, model_digest) ? w->model_digest : NULL;
  /* The store wants model and processor together; a workload configured
   * without a model is exact for "no model" (the empty digest). */
  if (out->model_digest == NULL)
    out->model_digest = "";
  out->processor = k->processor;
  out->thread_count = (int64_t)k->thread_count;
  out->structure = k->structure;
  out->structure_count = k->structure_count;
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

void olc_plugins__error_clear(void) {
  tls_error.lib = NULL;
  tls_error.code = 0;
  tls_error.message[0] = 0;
}

const char *olc_plugins__error_message(const olc_plugins_lib *lib, int32_t *code) {
  if (tls_error.lib == NULL || tls_error.lib != lib || tls_error.message[0] == 0)
    return NULL;
  if (code != NULL)
    *code = tls_error.code;
  return tls_error.message;
}

size_t olc_plugins__log_count(const olc_host *host) {
  size_t n;
  olc_plugins__lock();
  n = host->log_total < OLC_PLUGINS_LOG_LINES ? host->log_total : OLC_PLUGINS_LOG_LINES;
  olc_plugins__unlock();
  return n;
}

int32_t olc_plugins__log_line(const olc_host *host, size_t i, char *buf, size_t size) {
  int32_t level = -1;
  olc_plugins__lock();
  {
    size_t n = host->log_total < OLC_PLUGINS_LOG_LINES ? host->log_total : OLC_PLUGINS_LOG_LINES;
    if (i < n) {
      size_t first = host->log_total - n;
      const olc_plugins_log_line *l = &host->log[(first + i) % OLC_PLUGINS_LOG_LINES];
      level = l->level;
      snprintf(buf, size, "%s", l->text);
    }
  }
  olc_plugins__unlock();
  return level;
}
