/*
 * host/cli/cli_diag.c - the library's diagnostics on standard error, and
 * opening a store that prints its own.  What is safe to show is
 * cli_safe_unit's (cli_fit.c).
 */
#include "cli.h"

#include <stdint.h>
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
  olc_error err;
  olc_status st;
  olc_error_clear(&err);
  *out = NULL;
  st = cli_store_options(ctx, &options, &err);
  if (st != OLC_OK)
    return cli_fail(ctx, st, &err);
  options.diag = cli_print_diag;
  options.diag_payload = (void *)(uintptr_t)ctx;
  st = olc_store_open(out, &options, &err);
  if (st != OLC_OK) {
    *out = NULL;
    return cli_fail(ctx, st, &err);
  }
  return CLI_EXIT_OK;
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
