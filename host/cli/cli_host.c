/*
 * host/cli/cli_host.c - opening config, store and plugin host for the host
 * commands, and the load report as text and JSON.
 */
#include "cli_host.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int cli_host_option(cli_host_args *a, int id, const char *value) {
  switch (id) {
  case CLI_HOST_CONFIG:
    a->config_path = value;
    return 1;
  case CLI_HOST_JSON:
    a->json = 1;
    return 1;
  case CLI_HOST_VERBOSE:
    a->verbose = 1;
    return 1;
  case CLI_HOST_QUIET:
    a->quiet = 1;
    return 1;
  default:
    return 0;
  }
}

static const char *env_config(void) {
  const char *v;
#if defined(_WIN32)
  v = getenv("OLC_CONFIG");
#else
  /* Not honoured in a set-uid or otherwise privileged process. */
  v = secure_getenv("OLC_CONFIG");
#endif
  return v != NULL && v[0] != 0 ? v : NULL;
}

/* The host's diagnostics but its "plugins" warning (no plugin loaded): the
 * commands say that themselves, naming the workloads left without one,
 * and stay quiet about it with the embedded default. */
static void host_diag(void *payload, olc_diag_level level, const char *where, const char *message) {
  if (strcmp(where, "plugins") != 0)
    cli_print_diag(payload, level, where, message);
}

int cli_host_open(const cli_ctx *ctx, const cli_host_args *a, cli_host *h) {
  olc_store_options so = OLC_STORE_OPTIONS_INIT;
  olc_host_options ho = OLC_HOST_OPTIONS_INIT;
  void *payload = (void *)(uintptr_t)ctx;
  const char *path = a->config_path != NULL     ? a->config_path
                     : ctx->config_path != NULL ? ctx->config_path
                                                : env_config();
  olc_error err;
  olc_status st;
  int rc;

  memset(h, 0, sizeof *h);
  olc_error_clear(&err);
  st = path != NULL ? olc_config_load_file(&h->config, path, &err)
                    : olc_config_load_default(&h->config, 0, &err);
  if (st != OLC_OK) {
    h->config = NULL;
    return cli_fail(ctx, st, &err);
  }
  olc_config_store_options(h->config, &so);
  olc_error_clear(&err);
  st = cli_store_options(ctx, &so, &err);
  if (st == OLC_OK)
    st = olc_store_open(&h->store, &so, &err);
  if (st != OLC_OK) {
    h->store = NULL;
    rc = cli_fail(ctx, st, &err);
    goto fail;
  }
  /* Never present an unreadable store as empty, nor calibrate over it. */
  rc = cli_require_loaded(ctx, h->store);
  if (rc != CLI_EXIT_OK)
    goto fail;
  /* Load failures, missing plugin directories and the plugins' warnings
   * are printed as they arise. */
  ho.diag = host_diag;
  ho.diag_payload = payload;
  olc_error_clear(&err);
  st = olc_host_open(&h->host, h->config, h->store, &ho, &err);
  if (st != OLC_OK) {
    h->host = NULL;
    rc = cli_fail(ctx, st, &err);
    goto fail;
  }
  return CLI_EXIT_OK;
fail:
  cli_host_close(h);
  return rc;
}

void cli_host_close(cli_host *h) {
  olc_host_free(h->host);
  olc_store_free(h->store);
  olc_config_free(h->config);
  memset(h, 0, sizeof *h);
}

void cli_host_print_report(FILE *out, const cli_host *h) {
  size_t i, n = olc_host_report_count(h->host), loaded = 0;
  size_t dirs = olc_config_plugin_dir_count(h->config);
  fputs("config: ", out);
  cli_put_safe(out, olc_config_source(h->config));
  fputc('\n', out);
  for (i = 0; i < dirs; i++) {
    fputs("plugin directory: ", out);
    cli_put_safe(out, olc_config_plugin_dir(h->config, i));
    fputc('\n', out);
  }
  for (i = 0; i < n; i++) {
    const olc_load_entry *e = olc_host_report(h->host, i);
    if (e == NULL)
      continue;
    if (e->stage == OLC_LOAD_LOADED)
      loaded++;
    cli_put_safe(out, e->path);
    fputs("\n  plugin: ", out);
    cli_put_safe(out, e->plugin_name != NULL ? e->plugin_name : "(unknown)");
    if (e->plugin_version != NULL) {
      fputs(" version ", out);
      cli_put_safe(out, e->plugin_version);
    }
    fprintf(out, "\n  stage: %s (%s%s)\n", olc_load_stage_str(e->stage), olc_status_name(e->status),
            e->unavailable ? ", unavailable here: skipped" : "");
    if (e->message != NULL && e->message[0] != 0) {
      fputs("  message: ", out);
      cli_put_safe(out, e->message);
      fputc('\n', out);
    }
  }
  fprintf(out, "%zu plugin file%s, %zu loaded\n", n, n == 1 ? "" : "s", loaded);
}

void cli_host_json_source(cli_json *j, const cli_host *h) {
  cli_json_key(j, "config");
  cli_json_string(j, olc_config_source(h->config));
  cli_json_key(j, "store");
  cli_json_string(j, olc_store_path(h->store));
}

void cli_host_json_report(cli_json *j, const cli_host *h) {
  size_t i, n = olc_host_report_count(h->host);
  size_t dirs = olc_config_plugin_dir_count(h->config);
  cli_json_key(j, "config");
  cli_json_string(j, olc_config_source(h->config));
  cli_json_key(j, "plugin_dirs");
  cli_json_begin_array(j);
  for (i = 0; i < dirs; i++)
    cli_json_string(j, olc_config_plugin_dir(h->config, i));
  cli_json_end_array(j);
  cli_json_key(j, "plugins");
  cli_json_begin_array(j);
  for (i = 0; i < n; i++) {
    const olc_load_entry *e = olc_host_report(h->host, i);
    if (e == NULL)
      continue;
    cli_json_break(j);
    cli_json_begin_object(j);
    cli_json_key(j, "path");
    cli_json_string(j, e->path);
    cli_json_key(j, "name");
    cli_json_string(j, e->plugin_name);
    cli_json_key(j, "version");
    cli_json_string(j, e->plugin_version);
    cli_json_key(j, "stage");
    cli_json_string(j, olc_load_stage_str(e->stage));
    cli_json_key(j, "status");
    cli_json_string(j, olc_status_name(e->status));
    cli_json_key(j, "plugin_status");
    cli_json_int(j, e->plugin_status);
    cli_json_key(j, "unavailable");
    cli_json_bool(j, e->unavailable);
    cli_json_key(j, "message");
    cli_json_string(j, e->message);
    cli_json_end_object(j);
  }
  cli_json_end_array(j);
}
