/*
 * plugins/host_open.c - olc_host_open: the loader driven by a config.
 *
 * Kept apart from loader.c so that tests of the loader (olc_plugins__open)
 * link without the config module.
 */
#include <stdlib.h>

#include "config/config.h"
#include "plugins/plugins_int.h"
#include "util/error.h"
#include "util/options.h"

static const olc_plugin_config *config_plugin(void *payload, const char *name) {
  return olc_config_plugin((const olc_config *)payload, name);
}

olc_status olc_host_open(olc_host **out, const olc_config *config, olc_store *store,
                         const olc_host_options *options, olc_error *err) {
  olc_host_options opts;
  olc_plugins_params params;
  const char **dirs = NULL;
  size_t n;
  size_t i;
  olc_status st;
  if (out != NULL)
    *out = NULL;
  if (out == NULL || config == NULL)
    return olc_error__set(err, OLC_E_INVALID, "olc_host_open", "out and config are required");
  st = olc_options__load(&opts, &olc_options__host, options, "olc_host_open", err);
  if (st != OLC_OK)
    return st;
  options = &opts;
  n = olc_config_plugin_dir_count(config);
  if (n > 0) {
    dirs = calloc(n, sizeof *dirs);
    if (dirs == NULL)
      return olc_error__set(err, OLC_E_NOMEM, "olc_host_open", "out of memory");
    for (i = 0; i < n; i++)
      dirs[i] = olc_config_plugin_dir(config, i);
  }
  params.dirs = dirs;
  params.dir_count = n;
  params.threads = olc_config_threads(config);
  params.plugin_config = config_plugin;
  params.plugin_config_payload = (void *)(uintptr_t)config;
  params.config = config;
  params.force_portable = olc_config_force_portable(config);
  /* Either the caller or [host] allow_insecure_plugins may allow it. */
  params.allow_insecure_plugins =
      options->allow_insecure_plugins || olc_config__allow_insecure_plugins(config);
  params.ignore_env = options->ignore_env;
  st = olc_plugins__open(out, &params, store, err);
  free(dirs);
  return st;
}
