/*
 * host/cli/cmd_lookup.c - olc lookup: the store's lookup, explained.
 */
#include "commands.h"

#include <string.h>

enum { OPT_FORCE_PORTABLE = 1, OPT_ALL_CANDIDATES, OPT_SCOPE, OPT_JSON };

static const char lookup_help[] =
    "usage: olc lookup --backend B --operator O --implementation V\n"
    "                  [--model-digest D] [--processor P] [--threads N]\n"
    "                  [--structure NAME=VALUE]... [--force-portable]\n"
    "                  [--all-candidates] [--scope key|workload] [--json]\n\n"
    "Runs the store's lookup (without a backend validator) and prints the\n"
    "selected record (level, origin, measurements, policy) and every rejected\n"
    "candidate with its reason code and message.  The exact levels are searched\n"
    "when --model-digest, --processor and --threads are given, the portable\n"
    "levels when --structure is.  Exits 3 when nothing is selected.\n\n" CLI_KEY_HELP
    "  --force-portable       skip both exact levels\n"
    "  --all-candidates       report every record of the backend and operator\n"
    "  --scope key            the candidates are the records that match the key or\n"
    "                         differ from it in one identity field (the default)\n"
    "  --scope workload       only those of the key's workload (the model digest's\n"
    "                         part after its last '#', or after 'workload:'), and\n"
    "                         the records of its model written before records were\n"
    "                         per workload; prints how many records it did not list\n"
    "  --json                 {\"schema\": 1, \"selected\": record or null,\n"
    "                         \"rejected\": [{level, origin, reason, message,\n"
    "                         record}], \"unlisted\": the\n"
    "                         records of the backend and operator neither selected\n"
    "                         nor listed}\n";

static int parse_scope(int *scope, const cli_ctx *ctx, const char *value, int *rc) {
  if (strcmp(value, "key") == 0)
    *scope = OLC_LOOKUP_SCOPE_KEY;
  else if (strcmp(value, "workload") == 0)
    *scope = OLC_LOOKUP_SCOPE_WORKLOAD;
  else {
    *rc = cli_usage_error(ctx, "option '--scope' takes 'key' or 'workload', got '%.64s'", value);
    return -1;
  }
  return 1;
}

static void print_lookup_text(FILE *out, const olc_lookup_result *result, int scoped) {
  const olc_record *sel = olc_lookup_result_selected(result);
  size_t i, n = olc_lookup_result_rejected_count(result);
  if (sel != NULL) {
    fprintf(out, "selected: %s %s\n", olc_level_str(sel->level), olc_origin_str(sel->origin));
    cli_print_record(out, sel, "  ");
  } else {
    fputs("selected: none\n", out);
  }
  for (i = 0; i < n; i++) {
    const olc_rejection *rej = olc_lookup_result_rejected(result, i);
    if (rej == NULL)
      continue;
    fprintf(out, "rejected: %s %s: %s: %s\n", olc_level_str(rej->record->level),
            olc_origin_str(rej->record->origin), olc_reason_str(rej->reason),
            rej->message != NULL ? rej->message : "");
  }
  if (scoped) {
    size_t unlisted = olc_lookup_result_unlisted_count(result);
    fprintf(out, "unlisted: %zu %s of other workloads (--all-candidates lists them)\n", unlisted,
            unlisted == 1 ? "record" : "records");
  }
}

static void print_lookup_json(FILE *out, const olc_lookup_result *result) {
  const olc_record *sel = olc_lookup_result_selected(result);
  size_t i, n = olc_lookup_result_rejected_count(result);
  cli_json j;
  cli_json_document(&j, out);
  cli_json_key(&j, "selected");
  cli_json_record(&j, sel);
  cli_json_key(&j, "rejected");
  cli_json_begin_array(&j);
  for (i = 0; i < n; i++) {
    const olc_rejection *rej = olc_lookup_result_rejected(result, i);
    if (rej == NULL)
      continue;
    cli_json_begin_object(&j);
    cli_json_key(&j, "level");
    cli_json_string(&j, olc_level_str(rej->record->level));
    cli_json_key(&j, "origin");
    cli_json_string(&j, olc_origin_str(rej->record->origin));
    cli_json_key(&j, "reason");
    cli_json_string(&j, olc_reason_str(rej->reason));
    cli_json_key(&j, "message");
    cli_json_string(&j, rej->message != NULL ? rej->message : "");
    cli_json_key(&j, "record");
    cli_json_record(&j, rej->record);
    cli_json_end_object(&j);
  }
  cli_json_end_array(&j);
  cli_json_key(&j, "unlisted");
  cli_json_int(&j, (int64_t)olc_lookup_result_unlisted_count(result));
  cli_json_end_object(&j);
  cli_json_newline(&j);
}

/* Looks up, prints the result, and gives the exit code. */
static int run_lookup(cli_ctx *ctx, olc_store *store, const olc_lookup_options *lookup, int json) {
  olc_lookup_result *result = NULL;
  olc_error err;
  olc_status st;
  int rc = CLI_EXIT_OK;
  olc_error_clear(&err);
  st = olc_store_lookup(&result, store, lookup, &err);
  if (st != OLC_OK && st != OLC_E_NOT_FOUND)
    return cli_fail(ctx, st, &err);
  if (result != NULL) {
    if (json)
      print_lookup_json(ctx->out, result);
    else
      print_lookup_text(ctx->out, result,
                        lookup->scope == OLC_LOOKUP_SCOPE_WORKLOAD && !lookup->all_candidates);
  }
  if (st == OLC_E_NOT_FOUND || result == NULL || olc_lookup_result_selected(result) == NULL)
    rc = CLI_EXIT_NOT_SELECTED;
  olc_lookup_result_free(result);
  return rc;
}

int cli_cmd_lookup(cli_ctx *ctx, int argc, char **argv) {
  static const cli_option opts[] = {CLI_KEY_OPTIONS,
                                    {"force-portable", NULL, OPT_FORCE_PORTABLE, 0},
                                    {"all-candidates", NULL, OPT_ALL_CANDIDATES, 0},
                                    {"scope", "key|workload", OPT_SCOPE, 0},
                                    {"json", NULL, OPT_JSON, 0}};
  olc_lookup_options lookup = OLC_LOOKUP_OPTIONS_INIT;
  cli_key_args key;
  cli_parser p;
  olc_store *store = NULL;
  const char *v;
  int id, r, rc = CLI_EXIT_OK, json = 0;

  cli_key_init(&key);
  cli_parser_init(&p, ctx, opts, sizeof opts / sizeof opts[0], argc, argv);
  while ((r = cli_parser_next(&p, &id, &v)) > 0) {
    if (id == CLI_ID_HELP) {
      rc = cli_help(ctx, lookup_help);
      goto done;
    }
    if (id == CLI_ID_POSITIONAL) {
      rc = cli_usage_error(ctx, "unexpected argument '%.64s'", v);
      goto done;
    }
    if (id == OPT_FORCE_PORTABLE)
      lookup.force_portable = 1;
    else if (id == OPT_ALL_CANDIDATES)
      lookup.all_candidates = 1;
    else if (id == OPT_SCOPE && parse_scope(&lookup.scope, ctx, v, &rc) < 0)
      goto done;
    else if (id == OPT_JSON)
      json = 1;
    else if (cli_key_option(&key, ctx, id, v, &rc) < 0)
      goto done;
  }
  if (r < 0) {
    rc = cli_parser_usage(ctx, &p);
    goto done;
  }
  rc = cli_key_require_base(&key, ctx);
  if (rc != CLI_EXIT_OK)
    goto done;
  rc = cli_open_store(ctx, &store);
  if (rc == CLI_EXIT_OK)
    rc = cli_require_loaded(ctx, store);
  if (rc != CLI_EXIT_OK)
    goto done;
  lookup.key = &key.key;
  rc = run_lookup(ctx, store, &lookup, json);
done:
  olc_store_free(store);
  cli_key_free(&key);
  return rc;
}
