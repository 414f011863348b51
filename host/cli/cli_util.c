/*
 * host/cli/cli_util.c - error reporting and exit codes.
 */
#include "cli.h"

#include <stdarg.h>
#include <string.h>

int cli_usage_error(const cli_ctx *ctx, const char *fmt, ...) {
  va_list ap;
  fprintf(ctx->err, "olc: %s: ", ctx->command != NULL ? ctx->command : "usage");
  va_start(ap, fmt);
  vfprintf(ctx->err, fmt, ap);
  va_end(ap);
  fputc('\n', ctx->err);
  return CLI_EXIT_USAGE;
}

int cli_failf(const cli_ctx *ctx, const char *fmt, ...) {
  va_list ap;
  fprintf(ctx->err, "olc: %s: ", ctx->command != NULL ? ctx->command : "olc");
  va_start(ap, fmt);
  vfprintf(ctx->err, fmt, ap);
  va_end(ap);
  fputc('\n', ctx->err);
  return CLI_EXIT_FAILURE;
}

/* 1 when the message already says ":LINE:COLUMN" (the store names the
 * position itself in most parse errors), or ":LINE: " when there is no
 * column (the config loader's "FILE:LINE: what"). */
static int message_has_position(const olc_error *err) {
  char pos[48];
  if (err->column == 0)
    snprintf(pos, sizeof pos, ":%u: ", (unsigned)err->line);
  else
    snprintf(pos, sizeof pos, ":%u:%u", (unsigned)err->line, (unsigned)err->column);
  return strstr(err->message, pos) != NULL;
}

int cli_fail(const cli_ctx *ctx, olc_status status, const olc_error *err) {
  const char *where = ctx->command != NULL ? ctx->command : "olc";
  const char *message = olc_status_str(status);
  if (err != NULL && err->code != OLC_OK) {
    if (err->where[0] != 0)
      where = err->where;
    if (err->message[0] != 0)
      message = err->message;
  }
  /* A library message that already starts with its "where: " is not
   * prefixed twice ("olc: key: key: ..."). */
  {
    size_t wl = strnlen(where, OLC_ERROR_WHERE_SIZE);
    if (wl > 0 && strncmp(message, where, wl) == 0 && message[wl] == ':' && message[wl + 1] == ' ')
      message += wl + 2;
  }
  fprintf(ctx->err, "olc: %.*s: %s", OLC_ERROR_WHERE_SIZE, where, message);
  if (err != NULL && err->code != OLC_OK && err->line != 0 && !message_has_position(err)) {
    if (err->column != 0)
      fprintf(ctx->err, " (line %u, column %u)", (unsigned)err->line, (unsigned)err->column);
    else
      fprintf(ctx->err, " (line %u)", (unsigned)err->line);
  }
  fputc('\n', ctx->err);
  return CLI_EXIT_FAILURE;
}

int cli_help(const cli_ctx *ctx, const char *text) {
  fputs(text, ctx->out);
  return CLI_EXIT_OK;
}

int cli_require_loaded(const cli_ctx *ctx, olc_store *store) {
  olc_error err;
  olc_status st;
  olc_error_clear(&err);
  st = olc_store_load_status(store, &err);
  if (st == OLC_OK)
    return CLI_EXIT_OK;
  cli_fail(ctx, st, &err);
  if (st == OLC_E_MALFORMED || st == OLC_E_VERSION || st == OLC_E_LIMIT)
    fprintf(ctx->err,
            "olc: %s: the store file %s is unreadable; 'olc check' shows why and "
            "'olc repair' moves it aside\n",
            ctx->command, olc_store_path(store) != NULL ? olc_store_path(store) : "");
  return CLI_EXIT_FAILURE;
}

int cli_finish(const cli_ctx *ctx, int code) {
  if (fflush(ctx->out) != 0 || ferror(ctx->out)) {
    fprintf(ctx->err, "olc: %s: writing the output failed\n",
            ctx->command != NULL ? ctx->command : "olc");
    if (code == CLI_EXIT_OK)
      code = CLI_EXIT_FAILURE;
  }
  return code;
}
