/*
 * host/cli/cmd_store.c - path, list, check, import, export, repair.
 */
#include "commands.h"

#include <stdlib.h>
#include <string.h>

enum { OPT_JSON = 1, OPT_PORTABLE_ONLY, OPT_FORCE, OPT_SOURCE };

/* Parses a command that takes only flags and up to max_positional
 * arguments.  Returns -1 to go on, else the exit code (help, usage). */
static int parse_simple(cli_ctx *ctx, const char *help, const cli_option *opts, size_t count,
                        int argc, char **argv, int *flags, const char **positional,
                        int max_positional, const char **source) {
  cli_parser p;
  int id, r, n = 0;
  const char *v;
  cli_parser_init(&p, ctx, opts, count, argc, argv);
  while ((r = cli_parser_next(&p, &id, &v)) > 0) {
    if (id == CLI_ID_HELP)
      return cli_help(ctx, help);
    if (id == CLI_ID_POSITIONAL) {
      if (n >= max_positional)
        return cli_usage_error(ctx, "unexpected argument '%.64s'", v);
      positional[n++] = v;
      continue;
    }
    if (id == OPT_SOURCE && source != NULL)
      *source = v;
    *flags |= 1 << id;
  }
  if (r < 0)
    return cli_parser_usage(ctx, &p);
  return -1;
}

/* Reports a write that committed without a confirmed directory sync. */
static void warn_unsynced(const cli_ctx *ctx, olc_status st, const olc_error *err) {
  if (st == OLC_COMMITTED_UNSYNCED)
    fprintf(ctx->err, "olc: %s: warning: %s\n", ctx->command,
            err->message[0] != 0 ? err->message : olc_status_str(st));
}

static const char path_help[] =
    "usage: olc path\n\n"
    "Prints the resolved path of the store file: --store, else $OLC_STORE, else\n"
    "$XDG_CACHE_HOME/onnx-light/calibration_profiles.txt (when absolute), else\n"
    "$HOME/.cache/onnx-light/calibration_profiles.txt.\n";

int cli_cmd_path(cli_ctx *ctx, int argc, char **argv) {
  int flags = 0, rc;
  olc_store *store = NULL;
  rc = parse_simple(ctx, path_help, NULL, 0, argc, argv, &flags, NULL, 0, NULL);
  if (rc >= 0)
    return rc;
  rc = cli_open_store(ctx, &store);
  if (rc == CLI_EXIT_OK)
    fprintf(ctx->out, "%s\n", olc_store_path(store));
  olc_store_free(store);
  return rc;
}

static const char list_help[] =
    "usage: olc list [--json] [--source PATH|user|layers]\n\n"
    "Prints every record of the store in file order, then those of its\n"
    "read-only layers ($OLC_STORE_LAYERS, else [store] layers of --config,\n"
    "$OLC_CONFIG or the default configuration) merged in: a layer's record\n"
    "names its file (source layer).\n\n"
    "  --source S   only the records of the store's own file (user), of any\n"
    "               layer (layers), or of the file PATH\n"
    "  --json   {\"schema\": 1, \"store\": PATH, \"records\": [...]}, each record an\n"
    "           object with level, origin, backend, operator, implementation,\n"
    "           model_digest, processor, thread_count, structure, measurements\n"
    "           ([{name, value, unit}]), policy (or policy_base64 when the\n"
    "           policy bytes are not valid UTF-8), source (its file, null in\n"
    "           memory) and layer (true for a layer's record)\n";

int cli_cmd_list(cli_ctx *ctx, int argc, char **argv) {
  static const cli_option opts[] = {{"json", NULL, OPT_JSON, 0}, {"source", "S", OPT_SOURCE, 0}};
  const char *source = NULL;
  int flags = 0, rc;
  olc_store *store = NULL;
  olc_record_list *list = NULL;
  olc_error err;
  olc_status st;
  size_t i, n, shown = 0;

  rc = parse_simple(ctx, list_help, opts, 2, argc, argv, &flags, NULL, 0, &source);
  if (rc >= 0)
    return rc;
  olc_error_clear(&err);
  rc = cli_open_store(ctx, &store);
  if (rc == CLI_EXIT_OK)
    rc = cli_require_loaded(ctx, store);
  if (rc != CLI_EXIT_OK)
    goto done;
  st = olc_store_list(&list, store, &err);
  if (st < 0) {
    rc = cli_fail(ctx, st, &err);
    goto done;
  }
  n = olc_record_list_count(list);
  if (flags & (1 << OPT_JSON)) {
    cli_json j;
    cli_json_document(&j, ctx->out);
    cli_json_key(&j, "store");
    cli_json_string(&j, olc_store_path(store));
    cli_json_key(&j, "records");
    cli_json_begin_array(&j);
    for (i = 0; i < n; i++) {
      if (!cli_source_match(olc_record_list_get(list, i), source))
        continue;
      cli_json_break(&j);
      cli_json_record(&j, olc_record_list_get(list, i));
      shown++;
    }
    if (shown != 0)
      fputc('\n', ctx->out);
    cli_json_end_array(&j);
    cli_json_end_object(&j);
    cli_json_newline(&j);
  } else {
    for (i = 0; i < n; i++)
      shown += cli_source_match(olc_record_list_get(list, i), source) != 0;
    fprintf(ctx->out, "# %s: %zu record%s\n", olc_store_path(store), shown, shown == 1 ? "" : "s");
    for (i = 0; i < n; i++)
      if (cli_source_match(olc_record_list_get(list, i), source))
        cli_print_record(ctx->out, olc_record_list_get(list, i), "");
  }
done:
  olc_record_list_free(list);
  olc_store_free(store);
  return rc;
}

static const char check_help[] =
    "usage: olc check [FILE]\n\n"
    "Validates a version-1 store file (default: the store).  On error prints\n"
    "FILE:LINE:COLUMN: message and exits 1.\n";

/* The message without a leading "FILE:LINE:COLUMN: " the library may add. */
static const char *strip_position(const char *message, const olc_error *err) {
  char pos[48];
  const char *p;
  snprintf(pos, sizeof pos, ":%u:%u: ", (unsigned)err->line, (unsigned)err->column);
  p = strstr(message, pos);
  return p != NULL ? p + strlen(pos) : message;
}

int cli_cmd_check(cli_ctx *ctx, int argc, char **argv) {
  int flags = 0, rc;
  const char *file = NULL;
  olc_store *store = NULL;
  olc_error err;
  olc_status st;
  size_t records = 0;

  rc = parse_simple(ctx, check_help, NULL, 0, argc, argv, &flags, &file, 1, NULL);
  if (rc >= 0)
    return rc;
  if (file == NULL) {
    rc = cli_open_store(ctx, &store);
    if (rc != CLI_EXIT_OK)
      return rc;
    file = olc_store_path(store);
  }
  olc_error_clear(&err);
  st = olc_store_check_file(file, &records, &err);
  if (st >= 0) {
    fprintf(ctx->out, "%s: ok, %zu record%s\n", file, records, records == 1 ? "" : "s");
    rc = CLI_EXIT_OK;
  } else if (err.line != 0) {
    fprintf(ctx->err, "%s:%u:%u: %s\n", file, (unsigned)err.line, (unsigned)err.column,
            strip_position(err.message[0] != 0 ? err.message : olc_status_str(st), &err));
    rc = CLI_EXIT_FAILURE;
  } else {
    rc = cli_fail(ctx, st, &err);
  }
  olc_store_free(store);
  return rc;
}

static const char import_help[] =
    "usage: olc import [--recorded RECORDED] FILE...\n\n"
    "Merges every record of the version-1 FILEs into the store in one write\n"
    "under the store lock; records with the same identity are replaced (of one\n"
    "identity in several FILEs, the last FILE's wins).  A FILE that is missing\n"
    "or malformed changes nothing; a store's lock file or temporary is refused.\n\n"
    "  --recorded RECORDED  then remove from the recorded-workloads file\n"
    "                       RECORDED, under its lock, every workload whose exact\n"
    "                       record the store's file now holds (the merge step of\n"
    "                       olc calibrate --recorded RECORDED --shard I/N)\n";

enum { OPT_IMPORT_RECORDED = 1 };

/* A FILE that does not parse is named as check names it, "FILE:LINE:COL:
 * message", so the two commands point at the same place alike. */
static int import_fail(const cli_ctx *ctx, olc_status st, const olc_error *err,
                       const char *const *files, size_t count) {
  size_t i;
  for (i = 0; err->line != 0 && i < count; i++) {
    size_t n = strlen(files[i]);
    const char *rest = err->message + n;
    if (strncmp(err->message, files[i], n) != 0 || rest[0] != ':' || rest[1] != ' ')
      continue;
    fprintf(ctx->err, "olc: %s: %s:%u:", ctx->command, files[i], (unsigned)err->line);
    if (err->column != 0)
      fprintf(ctx->err, "%u:", (unsigned)err->column);
    fprintf(ctx->err, " %s\n", rest + 2);
    return CLI_EXIT_FAILURE;
  }
  return cli_fail(ctx, st, err);
}

int cli_cmd_import(cli_ctx *ctx, int argc, char **argv) {
  static const cli_option opts[] = {{"recorded", "RECORDED", OPT_IMPORT_RECORDED, 0}};
  const char **files;
  const char *recorded = NULL, *v;
  olc_store *store = NULL;
  cli_parser p;
  olc_error err;
  olc_status st;
  size_t n = 0, count = 0, removed = 0;
  int rc = CLI_EXIT_OK, id, r;

  files = calloc((size_t)(argc > 0 ? argc : 1), sizeof *files);
  if (files == NULL)
    return cli_failf(ctx, "out of memory");
  cli_parser_init(&p, ctx, opts, sizeof opts / sizeof opts[0], argc, argv);
  while ((r = cli_parser_next(&p, &id, &v)) > 0) {
    if (id == CLI_ID_HELP) {
      free(files);
      return cli_help(ctx, import_help);
    }
    if (id == CLI_ID_POSITIONAL)
      files[count++] = v;
    else if (id == OPT_IMPORT_RECORDED)
      recorded = v;
  }
  if (r < 0)
    rc = cli_parser_usage(ctx, &p);
  else if (count == 0)
    rc = cli_usage_error(ctx, "missing FILE argument");
  if (rc == CLI_EXIT_OK)
    rc = cli_open_store(ctx, &store);
  if (rc != CLI_EXIT_OK)
    goto done;
  olc_error_clear(&err);
  st = olc_store_import_files(store, files, count, &n, &err);
  if (st < 0) {
    rc = import_fail(ctx, st, &err, files, count);
    goto done;
  }
  warn_unsynced(ctx, st, &err);
  if (count == 1)
    fprintf(ctx->out, "imported %zu record%s from %s into %s\n", n, n == 1 ? "" : "s", files[0],
            olc_store_path(store));
  else
    fprintf(ctx->out, "imported %zu record%s from %zu files into %s\n", n, n == 1 ? "" : "s", count,
            olc_store_path(store));
  if (recorded == NULL)
    goto done;
  if (st == OLC_COMMITTED_UNSYNCED) {
    rc = cli_failf(ctx, "%s left as it is: the merge is written but not confirmed durable",
                   recorded);
    goto done;
  }
  /* Only after the merge is durable: a workload leaves the file only when
   * the store's file holds it. */
  olc_error_clear(&err);
  st = olc_recorded_remove_stored(&removed, recorded, store, &err);
  if (st != OLC_OK)
    rc = cli_fail(ctx, st, &err);
  else
    fprintf(ctx->out, "%s: %zu recorded workload%s removed\n", recorded, removed,
            removed == 1 ? "" : "s");
done:
  olc_store_free(store);
  free(files);
  return rc;
}

static const char export_help[] =
    "usage: olc export FILE [--portable-only] [--source PATH|user|layers]\n\n"
    "Writes the records of the store to FILE as a version-1 file, atomically.\n"
    "FILE must be new or a store file; the store itself, a store's lock file\n"
    "(PATH.lock) and its temporaries are refused.\n\n"
    "  --portable-only   only the portable records (they fit other machines)\n"
    "  --source S        the records of the store's own file (user, the\n"
    "                    default), of its layers (layers: of one identity the\n"
    "                    one lookups see) or of the layer file PATH\n";

/* A --source PATH as the records name it: an absolute one as given, a
 * relative one resolved (when it exists); "user" and "layers" as they are. */
static const char *export_source(const char *source) {
  static char resolved[4096];
  char *real;
  if (source == NULL || strcmp(source, "user") == 0 || strcmp(source, "layers") == 0 ||
      source[0] == '/')
    return source;
#if defined(_WIN32)
  real = _fullpath(NULL, source, 0);
#else
  real = realpath(source, NULL);
#endif
  if (real == NULL || strlen(real) >= sizeof resolved) {
    free(real);
    return source;
  }
  strcpy(resolved, real);
  free(real);
  return resolved;
}

int cli_cmd_export(cli_ctx *ctx, int argc, char **argv) {
  static const cli_option opts[] = {{"portable-only", NULL, OPT_PORTABLE_ONLY, 0},
                                    {"source", "S", OPT_SOURCE, 0}};
  const char *file = NULL, *source = NULL;
  int flags = 0, rc;
  olc_store *store = NULL;
  olc_error err;
  olc_status st;

  rc = parse_simple(ctx, export_help, opts, 2, argc, argv, &flags, &file, 1, &source);
  if (rc >= 0)
    return rc;
  if (file == NULL)
    return cli_usage_error(ctx, "missing FILE argument");
  rc = cli_open_store(ctx, &store);
  if (rc == CLI_EXIT_OK)
    rc = cli_require_loaded(ctx, store);
  if (rc == CLI_EXIT_OK) {
    olc_error_clear(&err);
    st = olc_store_export_source(store, file, (flags & (1 << OPT_PORTABLE_ONLY)) != 0,
                                 export_source(source), &err);
    if (st < 0) {
      rc = cli_fail(ctx, st, &err);
    } else {
      warn_unsynced(ctx, st, &err);
      fprintf(ctx->out, "exported %s to %s\n",
              source != NULL && strcmp(source, "user") != 0 ? source : olc_store_path(store), file);
    }
  }
  olc_store_free(store);
  return rc;
}

static const char repair_help[] =
    "usage: olc repair [--force]\n\n"
    "Moves an unreadable store file aside to PATH.corrupt-<UTC time>.<random>\n"
    "under the store lock, so that the next write starts an empty store.  A\n"
    "valid or missing store is left alone.  Only a regular file that is\n"
    "plausibly a damaged store is moved: an empty file, a file cut short in\n"
    "its header, or one that begins with the store header and fails to parse.\n"
    "A file that does not begin with the header and a valid file of a newer\n"
    "version are refused with their own message (exit 1).\n\n"
    "  --force   move the file at the store path even so (a regular file\n"
    "            only: a directory, FIFO or device is never moved)\n";

int cli_cmd_repair(cli_ctx *ctx, int argc, char **argv) {
  static const cli_option opts[] = {{"force", NULL, OPT_FORCE, 0}};
  int flags = 0, rc;
  olc_store *store = NULL;
  olc_error err;
  olc_status st;
  char moved[4096];

  rc = parse_simple(ctx, repair_help, opts, 1, argc, argv, &flags, NULL, 0, NULL);
  if (rc >= 0)
    return rc;
  rc = cli_open_store(ctx, &store);
  if (rc != CLI_EXIT_OK)
    return rc;
  olc_error_clear(&err);
  moved[0] = 0;
  st = olc_store_repair(store, (flags & (1 << OPT_FORCE)) != 0 ? OLC_REPAIR_FORCE : 0u, moved,
                        sizeof moved, &err);
  if (st == OLC_E_NOT_FOUND) {
    fprintf(ctx->out, "%s does not exist: nothing to repair\n", olc_store_path(store));
  } else if (st == OLC_E_BUSY) {
    fprintf(ctx->out, "%s is valid: nothing to repair\n", olc_store_path(store));
  } else if (st < 0) {
    rc = cli_fail(ctx, st, &err);
  } else {
    warn_unsynced(ctx, st, &err);
    fprintf(ctx->out, "moved %s to %s; the store starts empty\n", olc_store_path(store), moved);
  }
  olc_store_free(store);
  return rc;
}
