/*
 * config/config.c - loading (file, string, embedded default), freeing and
 * the getters of olc_config.  The parser is ini_parse.c.
 */
#include "config/config_impl.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "olc_default_config.h"
#include "util/error.h"
#include "util/options.h"
#include "util/platform.h"

#ifndef _WIN32
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

/* A config file is a few kilobytes; anything this big is a mistake. */
#define CONFIG_MAX_SIZE ((size_t)4 << 20)

#define DEFAULT_SOURCE "<embedded default>"

/* Opens a config file for reading.  On POSIX the open does not block (a
 * FIFO would wait for a writer forever) and only a regular file is read. */
static olc_status open_config(FILE **out, const char *path, olc_error *err) {
#ifndef _WIN32
  struct stat st;
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  *out = NULL;
  if (fd < 0)
    return olc_error__sys(err, OLC_E_IO, errno, "open", "cannot open config '%s'", path);
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return olc_error__set(err, OLC_E_CONFIG, "open", "config '%s' is not a regular file", path);
  }
  *out = fdopen(fd, "rb");
  if (*out == NULL) {
    olc_status code = olc_error__sys(err, OLC_E_IO, errno, "open", "cannot open config '%s'", path);
    close(fd);
    return code;
  }
  return OLC_OK;
#else
  *out = fopen(path, "rb");
  if (*out == NULL)
    return olc_error__sys(err, OLC_E_IO, errno, "open", "cannot open config '%s'", path);
  return OLC_OK;
#endif
}

olc_status olc_config_load_string(olc_config **out, const char *text, size_t len, const char *name,
                                  const char *base_dir, olc_error *err) {
  if (out == NULL)
    return olc_error__set(err, OLC_E_INVALID, "config", "no output pointer");
  *out = NULL;
  if (text == NULL && len > 0)
    return olc_error__set(err, OLC_E_INVALID, "config", "no text");
  if (len > CONFIG_MAX_SIZE)
    return olc_error__set(err, OLC_E_CONFIG, "config", "%s: larger than %lu bytes",
                          name ? name : "<string>", (unsigned long)CONFIG_MAX_SIZE);
  return olc_config__parse(out, text != NULL ? text : "", len, name ? name : "<string>", base_dir,
                           err);
}

/* The directory that holds path, made absolute (malloc'ed). */
static char *dir_of(const char *path) {
  char *abs = NULL, *slash;
#ifndef _WIN32
  abs = realpath(path, NULL);
#endif
  if (abs == NULL)
    abs = strdup(path);
  if (abs == NULL)
    return NULL;
  slash = strrchr(abs, '/');
  if (slash == NULL) {
    free(abs);
    return NULL; /* the current directory */
  }
  if (slash == abs)
    slash[1] = 0;
  else
    *slash = 0;
  return abs;
}

olc_status olc_config_load_file(olc_config **out, const char *path, olc_error *err) {
  FILE *f = NULL;
  char *text = NULL, *dir = NULL;
  size_t len = 0;
  olc_status st;
  if (out == NULL || path == NULL)
    return olc_error__set(err, OLC_E_INVALID, "config", "no path or output pointer");
  *out = NULL;
  st = open_config(&f, path, err);
  if (st != OLC_OK)
    goto done;
  text = malloc(CONFIG_MAX_SIZE + 1);
  if (text == NULL) {
    st = olc_error__set(err, OLC_E_NOMEM, "config", "out of memory reading '%s'", path);
    goto done;
  }
  len = fread(text, 1, CONFIG_MAX_SIZE + 1, f);
  if (ferror(f)) {
    st = olc_error__sys(err, OLC_E_IO, errno, "read", "cannot read config '%s'", path);
    goto done;
  }
  if (len > CONFIG_MAX_SIZE) {
    st = olc_error__set(err, OLC_E_CONFIG, "config", "%s: larger than %lu bytes", path,
                        (unsigned long)CONFIG_MAX_SIZE);
    goto done;
  }
  dir = dir_of(path);
  st = olc_config__parse(out, text, len, path, dir, err);
done:
  if (f != NULL)
    fclose(f);
  free(text);
  free(dir);
  return st;
}

const char *olc_config__env(const char *name) {
  const char *v;
#if defined(_WIN32)
  v = getenv(name);
#elif defined(__GLIBC__)
  /* Not honoured in a set-uid or otherwise privileged process. */
  v = secure_getenv(name);
#else
  v = getuid() == geteuid() && getgid() == getegid() ? getenv(name) : NULL;
#endif
  return v != NULL && v[0] != 0 ? v : NULL;
}

olc_status olc_config_load_default(olc_config **out, unsigned flags, olc_error *err) {
  const char *env =
      (flags & OLC_CONFIG_LOAD_IGNORE_ENV) != 0 ? NULL : olc_config__env("OLC_CONFIG");
  char *exe;
  olc_status st;
  if (out == NULL)
    return olc_error__set(err, OLC_E_INVALID, "config", "no output pointer");
  if ((flags & ~(unsigned)OLC_CONFIG_LOAD_IGNORE_ENV) != 0)
    return olc_error__set(err, OLC_E_INVALID, "config", "unknown flags 0x%x", flags);
  if (env != NULL) {
    olc_error inner;
    olc_error_clear(&inner);
    st = olc_config_load_file(out, env, &inner);
    if (st == OLC_OK)
      return st;
    /* The variable named, for a runtime's user who never passed a path. */
    if (strstr(inner.message, env) != NULL)
      olc_error__set(err, st, "OLC_CONFIG", "OLC_CONFIG: %s", inner.message);
    else
      olc_error__set(err, st, "OLC_CONFIG", "OLC_CONFIG=%.200s: %s", env, inner.message);
    if (err != NULL)
      err->line = inner.line;
    return st;
  }
  exe = olc_util__exe_dir();
  st = olc_config__parse(out, (const char *)olc_default_config, (size_t)olc_default_config_len,
                         DEFAULT_SOURCE, exe, err);
  if (st == OLC_OK) {
    (*out)->is_default = 1;
    (*out)->ignore_env = (flags & OLC_CONFIG_LOAD_IGNORE_ENV) != 0;
  }
  free(exe);
  return st;
}

void olc_config_set_ignore_env(olc_config *config, int ignore_env) {
  if (config != NULL)
    config->ignore_env = ignore_env != 0;
}

int olc_config_ignore_env(const olc_config *config) { return config != NULL && config->ignore_env; }

void olc_config_free(olc_config *config) {
  size_t i;
  if (config == NULL)
    return;
  for (i = 0; i < config->workload_count; i++)
    free(config->workloads[i].props.items);
  for (i = 0; i < config->plugin_count; i++)
    free(config->plugins[i].entries.items);
  free(config->workloads);
  free(config->plugins);
  olc_arena__free(&config->arena);
  free(config);
}

const char *olc_config_source(const olc_config *config) {
  return config != NULL ? config->source : NULL;
}

size_t olc_config_plugin_dir_count(const olc_config *config) {
  return config != NULL ? config->plugin_dir_count : 0;
}

const char *olc_config_plugin_dir(const olc_config *config, size_t i) {
  return config != NULL && i < config->plugin_dir_count ? config->plugin_dirs[i] : NULL;
}

int olc_config__plugin_dir_optional(const olc_config *config, size_t i) {
  return config != NULL && i < config->plugin_dir_count && config->plugin_dir_optional != NULL &&
         config->plugin_dir_optional[i];
}

int olc_config__is_default(const olc_config *config) {
  return config != NULL && config->is_default;
}

uint32_t olc_config_threads(const olc_config *config) {
  return config != NULL ? config->threads : 1u;
}

uint32_t olc_config__threads_configured(const olc_config *config) {
  return config != NULL ? config->threads_configured : 0u;
}

int olc_config__verify_layers(const olc_config *config) {
  return config != NULL && config->verify_layers != OLC_VERIFY_LAYERS_DEFAULT
             ? config->verify_layers
             : OLC_VERIFY_LAYERS_NEVER;
}

int olc_config__allow_insecure_plugins(const olc_config *config) {
  return config != NULL && config->allow_insecure_plugins;
}

void olc_config_store_options(const olc_config *config, olc_store_options *out) {
  olc_store_options full = OLC_STORE_OPTIONS_INIT;
  const olc_options_layout *l = &olc_options__store;
  uint32_t version;
  if (out == NULL)
    return;
  /* A caller that did not initialise its struct (as version 1 callers
   * were allowed to) gets version 1 bytes: every caller's struct has
   * them, and nothing is written past the end of an older one. */
  version = out->version >= 1 && out->version <= l->current ? out->version : 1u;
  if (config != NULL) {
    full.path = config->store_path;
    full.persistence_enabled = config->persistence != OLC_CONFIG_PERSIST_OFF;
    full.read_only = config->persistence == OLC_CONFIG_PERSIST_READ_ONLY;
    full.allow_network_fs = config->allow_network_fs;
    full.lock_timeout_ms = config->lock_timeout_ms;
    full.layers = config->store_layers;
    full.layer_count = config->store_layer_count;
    /* The environment over the file (the precedence of host.h). */
    if (!config->ignore_env) {
      const char *path = olc_config__env("OLC_STORE");
      const char *layers = olc_config__env("OLC_STORE_LAYERS");
      if (path != NULL)
        full.path = path;
      if (layers != NULL)
        full.layers_list = layers;
    }
  }
  full.version = version;
  memcpy(out, &full, l->ends[version - 1]);
}

int olc_config_force_portable(const olc_config *config) {
  return config != NULL && config->force_portable;
}

const olc_calibration_settings *olc_config_calibration(const olc_config *config) {
  return config != NULL ? &config->calibration : NULL;
}

olc_status olc_calibration_defaults(olc_calibration_settings *out) {
  olc_config *empty = NULL;
  olc_status st;
  if (out == NULL)
    return OLC_E_INVALID;
  st = olc_config_load_string(&empty, "", 0, "<built-in defaults>", NULL, NULL);
  if (st == OLC_OK)
    *out = empty->calibration; /* no string of it points into the config */
  olc_config_free(empty);
  return st;
}

size_t olc_config_workload_count(const olc_config *config) {
  return config != NULL ? config->workload_count : 0;
}

const olc_workload_config *olc_config_workload(const olc_config *config, size_t i) {
  return config != NULL && i < config->workload_count ? &config->workloads[i].pub : NULL;
}

const olc_workload_config *olc_config_find_workload(const olc_config *config, const char *name) {
  size_t i;
  if (config == NULL || name == NULL)
    return NULL;
  for (i = 0; i < config->workload_count; i++)
    if (strcmp(config->workloads[i].pub.name, name) == 0)
      return &config->workloads[i].pub;
  return NULL;
}

const olc_plugin_config *olc_config_plugin(const olc_config *config, const char *name) {
  size_t i;
  if (config == NULL || name == NULL)
    return NULL;
  for (i = 0; i < config->plugin_count; i++)
    if (strcmp(config->plugins[i].pub.name, name) == 0)
      return &config->plugins[i].pub;
  return NULL;
}
