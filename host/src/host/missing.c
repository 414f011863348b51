/*
 * host/missing.c - what a workload whose plugin is not loaded gets, and
 * the check that some plugin loaded at all (host_int.h).
 *
 * The load report says why a plugin is missing: it said it cannot run
 * here or the config disabled it (the workload is skipped), or its file
 * failed to load, or no file provides it.  The last two are a user's
 * misconfiguration and fail the workload, but not in the embedded
 * default configuration: it names the plugins of a full build, and a
 * build or an install may lack some of them.
 */
#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include "host/host_int.h"
#include "util/error.h"

/* 1 when the file name of path without "lib" and suffix is name: the
 * only hint at the plugin of a file that did not load far enough to say
 * its name. */
static int file_names(const char *path, const char *name) {
  const char *base = strrchr(path, '/'), *dot;
  size_t len;
#if defined(_WIN32)
  const char *bs = strrchr(path, '\\');
  if (bs != NULL && (base == NULL || bs > base))
    base = bs;
#endif
  base = base != NULL ? base + 1 : path;
  if (strncmp(base, "lib", 3) == 0 && strncmp(name, "lib", 3) != 0)
    base += 3;
  dot = strchr(base, '.');
  len = dot != NULL ? (size_t)(dot - base) : strlen(base);
  return strlen(name) == len && strncmp(base, name, len) == 0;
}

/* The load report's entry for the plugin backend: by its name, else by
 * its file's name; NULL when no file was found for it. */
static const olc_load_entry *report_entry(const olc_host *host, const char *backend) {
  size_t i, n = olc_plugins__report_count(host->plugins);
  const olc_load_entry *by_file = NULL;
  for (i = 0; i < n; i++) {
    const olc_load_entry *e = olc_plugins__report(host->plugins, i);
    if (e->plugin_name != NULL && strcmp(e->plugin_name, backend) == 0)
      return e;
    if (by_file == NULL && e->plugin_name == NULL && e->path != NULL &&
        file_names(e->path, backend))
      by_file = e;
  }
  return by_file;
}

/* The searched directories, ", "-separated, into buf. */
static void searched_list(char *buf, size_t size, const olc_host *host) {
  size_t i, used = 0, n = olc_plugins__searched_count(host->plugins);
  buf[0] = 0;
  for (i = 0; i < n && used + 1 < size; i++) {
    int k = snprintf(buf + used, size - used, "%s%s", i > 0 ? ", " : "",
                     olc_plugins__searched(host->plugins, i));
    if (k < 0)
      break;
    used += (size_t)k;
  }
  if (n == 0)
    snprintf(buf, size, "none configured");
}

/* 1 when the host runs a user's configuration: not the embedded default,
 * not none (a build without config has none). */
static int user_config(const olc_host *host) {
#ifdef OLC_WITHOUT_CONFIG
  (void)host;
  return 0;
#else
  return host->config != NULL && !olc_config__is_default(host->config);
#endif
}

static const char *config_source(const olc_host *host) {
#ifdef OLC_WITHOUT_CONFIG
  (void)host;
  return "the caller's settings";
#else
  return olc_config_source(host->config);
#endif
}

olc_status olc_host__missing_plugin(char *msg, size_t size, const olc_host *host,
                                    const char *backend) {
  const olc_load_entry *e = report_entry(host, backend);
  int strict = user_config(host);
  char dirs[OLC_ERROR_MESSAGE_SIZE];
  if (e != NULL && e->unavailable) {
    /* The report's message says "unavailable here: why". */
    snprintf(msg, size, "plugin '%s' %s", backend,
             e->message != NULL && e->message[0] != 0 ? e->message : "unavailable here");
    return OLC_E_UNAVAILABLE;
  }
  if (e != NULL && e->stage == OLC_LOAD_DISABLED) {
    snprintf(msg, size, "plugin '%s' is disabled ([plugin.%s] enabled = false)", backend, backend);
    return OLC_E_UNAVAILABLE;
  }
  if (e != NULL) {
    snprintf(msg, size, "plugin '%s' not loaded: %s failed (%s): %s", backend, e->path,
             olc_load_stage_str(e->stage),
             e->message != NULL && e->message[0] != 0 ? e->message : olc_status_str(e->status));
  } else {
    searched_list(dirs, sizeof dirs, host);
    snprintf(msg, size, "plugin '%s' not loaded: no plugin file provides it (searched: %s)",
             backend, dirs);
  }
  return strict ? OLC_E_PLUGIN : OLC_E_UNAVAILABLE;
}

olc_status olc_host__require_plugins(const olc_host *host, size_t workload_count, olc_error *err) {
  size_t i, n = olc_plugins__report_count(host->plugins);
  char dirs[OLC_ERROR_MESSAGE_SIZE];
  if (workload_count == 0 || !user_config(host) || olc_plugins__count(host->plugins) > 0)
    return OLC_OK;
  /* A plugin that cannot run here, or one the config turned off, is not a
   * misconfiguration: its workloads are skipped. */
  for (i = 0; i < n; i++) {
    const olc_load_entry *e = olc_plugins__report(host->plugins, i);
    if (e->unavailable || e->stage == OLC_LOAD_DISABLED)
      return OLC_OK;
  }
  searched_list(dirs, sizeof dirs, host);
  return olc_error__set(err, OLC_E_PLUGIN, "plugin_dirs",
                        "no plugin loaded for %lu workload%s of %s (%lu plugin file%s found; "
                        "searched: %s)",
                        (unsigned long)workload_count, workload_count == 1 ? "" : "s",
                        config_source(host), (unsigned long)n, n == 1 ? "" : "s", dirs);
}
