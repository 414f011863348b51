/*
 * host/cli/cli_diag.c - the library's diagnostics on standard error, and
 * opening a store that prints its own.  What is safe to show is
 * cli_safe_unit's (cli_fit.c).
 */
#include "cli.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void cli_put_safe(FILE *out, const char *text) {
  const unsigned char *s = (const unsigned char *)(text != NULL ? text : "");
  size_t i = 0, len = strlen((const char *)s), used;
  char unit[5];
  while (i < len) {
    fwrite(unit, 1, cli_safe_unit(unit, s + i, len - i, &used), out);
    i += used;
  }
}

#if defined(_WIN32)
#define cli_lock_stream _lock_file
#define cli_unlock_stream _unlock_file
#else
#define cli_lock_stream flockfile
#define cli_unlock_stream funlockfile
#endif

void cli_print_diag(void *payload, olc_diag_level level, const char *where, const char *message) {
  const cli_ctx *ctx = payload;
  /* One line at a time: a plugin's threads may warn at once. */
  cli_lock_stream(ctx->err);
  fprintf(ctx->err, "olc: %s: ", olc_diag_level_str(level));
  cli_put_safe(ctx->err, where);
  fputs(": ", ctx->err);
  cli_put_safe(ctx->err, message);
  fputc('\n', ctx->err);
  cli_unlock_stream(ctx->err);
}

/* The configuration whose [store] layers a store command reads: --config,
 * else $OLC_CONFIG, else the embedded default. */
static olc_status layers_config(const cli_ctx *ctx, olc_config **out, olc_error *err) {
  const char *path = ctx->config_path;
  if (path == NULL) {
#if defined(_WIN32)
    path = getenv("OLC_CONFIG");
#else
    path = secure_getenv("OLC_CONFIG");
#endif
    if (path != NULL && path[0] == 0)
      path = NULL;
  }
  return path != NULL ? olc_config_load_file(out, path, err) : olc_config_load_default(out, 0, err);
}

olc_status cli_store_options(const cli_ctx *ctx, olc_store_options *options, olc_error *err) {
  /* The embedders' variables (OLC_PERSISTENCE; OLC_STORE is ctx's) over
   * the configuration, the command line over both. */
  olc_status st = olc_store_options_from_env(options, err);
  if (st != OLC_OK)
    return st;
  if (ctx->store_path != NULL)
    options->path = ctx->store_path;
  if (ctx->read_only) {
    options->persistence_enabled = 1;
    options->read_only = 1;
  }
  options->diag = cli_print_diag;
  options->diag_payload = (void *)(uintptr_t)ctx;
  return OLC_OK;
}

int cli_open_store(const cli_ctx *ctx, olc_store **out) {
  olc_store_options options = OLC_STORE_OPTIONS_INIT;
  olc_config *config = NULL;
  olc_error err;
  olc_status st;
  olc_error_clear(&err);
  *out = NULL;
  options.path = ctx->store_path;
  if (ctx->with_layers) {
    olc_store_options from = OLC_STORE_OPTIONS_INIT;
    st = layers_config(ctx, &config, &err);
    if (st != OLC_OK)
      return cli_fail(ctx, st, &err);
    olc_config_store_options(config, &from);
    options.layers = from.layers;
    options.layer_count = from.layer_count;
    /* The same store as the host commands: --store, else [store] path. */
    if (options.path == NULL)
      options.path = from.path;
  }
  st = cli_store_options(ctx, &options, &err);
  if (st != OLC_OK) {
    olc_config_free(config);
    return cli_fail(ctx, st, &err);
  }
  st = olc_store_open(out, &options, &err);
  olc_config_free(config); /* the layer paths are borrowed for the open only */
  if (st != OLC_OK) {
    *out = NULL;
    return cli_fail(ctx, st, &err);
  }
  return CLI_EXIT_OK;
}

static char *cli_realpath(const char *path) {
#if defined(_WIN32)
  return _fullpath(NULL, path, 0);
#else
  return realpath(path, NULL);
#endif
}

int cli_source_match(const olc_record *r, const char *filter) {
  char *real;
  int same;
  if (filter == NULL)
    return 1;
  if (strcmp(filter, "user") == 0)
    return !r->from_layer;
  if (strcmp(filter, "layers") == 0)
    return r->from_layer;
  if (r->source == NULL)
    return 0;
  if (strcmp(r->source, filter) == 0)
    return 1;
  real = cli_realpath(filter);
  same = real != NULL && strcmp(real, r->source) == 0;
  free(real);
  return same;
}

int cli_require_writable(const cli_ctx *ctx, olc_store *store) {
  olc_error err;
  olc_status st;
  if (olc_store_is_read_only(store))
    return CLI_EXIT_OK; /* asked for: results stay in memory, said once */
  olc_error_clear(&err);
  st = olc_store_writable(store, NULL, &err);
  if (st != OLC_E_READ_ONLY)
    return CLI_EXIT_OK; /* writable, or persistence off */
  return cli_failf(ctx, "%s; nothing measured (--read-only calibrates in memory)", err.message);
}
