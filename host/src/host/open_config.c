/*
 * host/open_config.c - olc_host_open: the loader driven by a config (its
 * plugin directories, threads, [plugin.NAME] sections and permission
 * policy), through olc_host__open_params (open.c).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "host/host_int.h"
#include "util/error.h"
#include "util/options.h"

static const olc_plugin_config *config_plugin(void *payload, const char *name) {
  return olc_config_plugin((const olc_config *)payload, name);
}

/* The plugin directories, the caller's (options) or the config's, and
 * which of them may be missing quietly (only the config's built-in
 * places: a directory the caller names must exist). */
static olc_status plugin_dirs(const char ***dirs, size_t *count, unsigned char **optional,
                              const olc_host_options *o, const olc_config *config) {
  size_t n = o->plugin_dirs != NULL ? o->plugin_dir_count : olc_config_plugin_dir_count(config), i;
  *dirs = NULL;
  *optional = NULL;
  *count = n;
  if (n == 0)
    return OLC_OK;
  *dirs = calloc(n, sizeof **dirs);
  *optional = calloc(n, 1);
  if (*dirs == NULL || *optional == NULL)
    return OLC_E_NOMEM;
  for (i = 0; i < n; i++) {
    if (o->plugin_dirs != NULL) {
      (*dirs)[i] = o->plugin_dirs[i];
      continue;
    }
    (*dirs)[i] = olc_config_plugin_dir(config, i);
    (*optional)[i] = (unsigned char)olc_config__plugin_dir_optional(config, i);
  }
  return OLC_OK;
}

/* The typed fields of version 6 that can be wrong on their own. */
static olc_status check_typed(const olc_host_options *o, olc_error *err) {
  size_t i;
  if (o->plugin_dirs == NULL && o->plugin_dir_count > 0)
    return olc_error__set(err, OLC_E_INVALID, "olc_host_open",
                          "plugin_dirs is NULL with plugin_dir_count %lu",
                          (unsigned long)o->plugin_dir_count);
  for (i = 0; o->plugin_dirs != NULL && i < o->plugin_dir_count; i++)
    if (o->plugin_dirs[i] == NULL || o->plugin_dirs[i][0] == '\0')
      return olc_error__set(err, OLC_E_INVALID, "olc_host_open", "plugin_dirs[%lu] is %s",
                            (unsigned long)i, o->plugin_dirs[i] == NULL ? "NULL" : "empty");
  if (o->force_portable != 0 && o->force_portable != 1)
    return olc_error__set(err, OLC_E_INVALID, "olc_host_open", "force_portable %d is not 0 or 1",
                          o->force_portable);
  if (o->verify_layers < OLC_VERIFY_LAYERS_DEFAULT ||
      o->verify_layers > OLC_VERIFY_LAYERS_ON_FIRST_USE)
    return olc_error__set(err, OLC_E_INVALID, "olc_host_open",
                          "verify_layers %d is not an olc_verify_layers (0, 1 or 2)",
                          o->verify_layers);
  return OLC_OK;
}

/* OLC_SELECT_MODE over the config's select_mode, under an explicit
 * options field (host.h's precedence): the mode, or -1 after an error. */
static int env_select_mode(olc_error *err) {
  const char *v = olc_config__env("OLC_SELECT_MODE");
  if (v == NULL)
    return OLC_SELECT_HOST_DEFAULT;
  if (strcmp(v, "never") == 0)
    return OLC_SELECT_NEVER;
  if (strcmp(v, "on_miss") == 0)
    return OLC_SELECT_ON_MISS;
  olc_error__set(err, OLC_E_CONFIG, "OLC_SELECT_MODE",
                 "OLC_SELECT_MODE=\"%.60s\": expected never or on_miss", v);
  return -1;
}

/* OLC_CONTENTION over [calibration] contention, for every measurement of
 * the host: the mode + 1, 0 when unset, or -1 after an error. */
static int env_contention(olc_error *err) {
  const char *v = olc_config__env("OLC_CONTENTION");
  if (v == NULL)
    return 0;
  if (strcmp(v, "wait") == 0)
    return OLC_CONTENTION_WAIT + 1;
  if (strcmp(v, "mark") == 0)
    return OLC_CONTENTION_MARK + 1;
  if (strcmp(v, "ignore") == 0)
    return OLC_CONTENTION_IGNORE + 1;
  olc_error__set(err, OLC_E_CONFIG, "OLC_CONTENTION",
                 "OLC_CONTENTION=\"%.60s\": expected wait, mark or ignore", v);
  return -1;
}

/* A host with no plugin serves every select untuned: said once, with the
 * places searched, since a runtime otherwise sees nothing wrong. */
static void warn_no_plugin(olc_host *h) {
  olc_plugin_set *set = h->plugins;
  char dirs[1024];
  size_t i, n = olc_plugins__searched_count(set), used = 0;
  if (olc_plugins__count(set) > 0)
    return;
  dirs[0] = 0;
  for (i = 0; i < n && used < sizeof dirs; i++) {
    int w = snprintf(dirs + used, sizeof dirs - used, "%s%s", i > 0 ? ", " : "",
                     olc_plugins__searched(set, i));
    if (w < 0)
      break;
    used += (size_t)w;
  }
  olc_diag__emit(&h->diag, OLC_DIAG_WARNING, "plugins",
                 "no plugin loaded (searched: %s); every select gives no tuned policy",
                 n > 0 ? dirs : "no directory");
}

olc_status olc_host_open(olc_host **out, const olc_config *config, olc_store *store,
                         const olc_host_options *options, olc_error *err) {
  olc_host_options o;
  olc_host_params params;
  const char **dirs = NULL;
  unsigned char *optional = NULL;
  olc_config *own = NULL;
  size_t dir_count = 0;
  int contention;
  olc_status st;
  if (out != NULL)
    *out = NULL;
  if (out == NULL)
    return olc_error__set(err, OLC_E_INVALID, "olc_host_open", "out is required");
  st = olc_options__load(&o, &olc_options__host, options, "olc_host_open", err);
  if (st == OLC_OK)
    st = check_typed(&o, err);
  if (st != OLC_OK)
    return st;
  if (config == NULL) {
    /* No ini text at all: the key table's defaults, as an empty file. */
    st = olc_config_load_string(&own, "", 0, "<built-in defaults>", NULL, err);
    if (st != OLC_OK)
      return st;
    config = own;
  }
  /* A config marked to ignore the environment ignores it here too. */
  o.ignore_env = o.ignore_env || olc_config_ignore_env(config);
  if (o.select_mode == OLC_SELECT_HOST_DEFAULT && !o.ignore_env) {
    o.select_mode = env_select_mode(err);
    if (o.select_mode < 0) {
      st = OLC_E_CONFIG;
      goto done;
    }
  }
  if (plugin_dirs(&dirs, &dir_count, &optional, &o, config) != OLC_OK) {
    st = olc_error__set(err, OLC_E_NOMEM, "olc_host_open", "out of memory");
    goto done;
  }
  contention = o.ignore_env ? 0 : env_contention(err);
  if (contention < 0) {
    st = OLC_E_CONFIG;
    goto done;
  }
  memset(&params, 0, sizeof params);
  params.load.dirs = dirs;
  params.load.dir_count = dir_count;
  params.load.dir_optional = optional;
  params.load.threads = o.threads > 0 ? o.threads : olc_config_threads(config);
  params.load.plugin_config = config_plugin;
  params.load.plugin_config_payload = (void *)(uintptr_t)config;
  /* Either the caller or [host] allow_insecure_plugins may allow it. */
  params.load.allow_insecure_plugins =
      o.allow_insecure_plugins || olc_config__allow_insecure_plugins(config);
  params.load.ignore_env = o.ignore_env;
  params.config = config;
  params.store = store;
  params.force_portable = o.force_portable || olc_config_force_portable(config);
  params.settings = o.calibration; /* NULL: the config's */
  params.diag = o.diag;
  params.diag_payload = o.diag_payload;
  params.select_mode = o.select_mode;
  params.measure_lock = o.measure_lock;
  params.record_misses = o.record_misses;
  params.max_seconds_total = o.max_seconds_total;
  params.max_runs_per_candidate = o.max_runs_per_candidate;
  st = olc_host__open_params(out, &params, err);
  if (st == OLC_OK) {
    (*out)->own_config = own;
    (*out)->contention_env = contention;
    if (o.calibration != NULL) {
      (*out)->loop_copy = *o.calibration;
      (*out)->loop_settings = &(*out)->loop_copy;
    }
    (*out)->rt.verify_layers = o.verify_layers != OLC_VERIFY_LAYERS_DEFAULT
                                   ? o.verify_layers
                                   : olc_config__verify_layers(config);
    own = NULL;
    warn_no_plugin(*out);
  }
done:
  olc_config_free(own);
  free(dirs);
  free(optional);
  return st;
}
