/*
 * host/cli/cmd_inspect.c - olc plugins, olc explain and olc prune: what the
 * host loaded, why a workload's records were or were not chosen, and the
 * removal of calibrated records the loaded plugins reject.
 */
#include "cli_host.h"
#include "commands.h"

#include <string.h>

enum { OPT_WORKLOAD = 1, OPT_DRY_RUN, OPT_ALL, OPT_SOURCE, OPT_FOREIGN };

/* Parses the options of a host command; returns -1 to go on, else the exit
 * code (help, usage error). */
static int parse_host(cli_ctx *ctx, const char *help, const cli_option *opts, size_t count,
                      int argc, char **argv, cli_host_args *a, const char **workload,
                      int *dry_run) {
  cli_parser p;
  const char *v;
  int id, r;
  memset(a, 0, sizeof *a);
  cli_parser_init(&p, ctx, opts, count, argc, argv);
  while ((r = cli_parser_next(&p, &id, &v)) > 0) {
    if (id == CLI_ID_HELP)
      return cli_help(ctx, help);
    if (id == CLI_ID_POSITIONAL)
      return cli_usage_error(ctx, "unexpected argument '%.64s'", v);
    if (cli_host_option(a, id, v))
      continue;
    if (id == OPT_WORKLOAD)
      *workload = v;
    else if (id == OPT_SOURCE)
      a->source = v;
    else if (id == OPT_DRY_RUN || id == OPT_ALL)
      *dry_run |= 1; /* prune --dry-run, explain --all */
    else if (id == OPT_FOREIGN)
      *dry_run |= 2; /* prune --foreign */
  }
  if (r < 0)
    return cli_parser_usage(ctx, &p);
  return -1;
}

/* parse_host, then the host opened into *h: -1 to go on (close h), else
 * the exit code. */
static int parse_and_open(cli_ctx *ctx, const char *help, const cli_option *opts, size_t count,
                          int argc, char **argv, cli_host *h, cli_host_args *a, int *flags) {
  const char *unused = NULL;
  int rc = parse_host(ctx, help, opts, count, argc, argv, a, &unused, flags);
  if (rc >= 0)
    return rc;
  rc = cli_host_open(ctx, a, h);
  return rc == CLI_EXIT_OK ? -1 : rc;
}

/* ---- olc plugins ------------------------------------------------------- */

static const char plugins_help[] =
    "usage: olc plugins [--config FILE] [--json] [--store PATH]\n\n"
    "Loads the plugins of the configured directories (and $OLC_PLUGIN_PATH) and\n"
    "prints the load report: per file its path, plugin name and version, the\n"
    "stage where loading stopped (loaded, open, symbol, abi, validate,\n"
    "duplicate, create, disabled, permissions), the status and the message.\n"
    "Exits 0 when the host could be opened (skipped files are reported, not\n"
    "fatal), 1 when a plugin marked critical failed.\n\n" CLI_HOST_HELP
    "  --json                 {\"schema\": 1, \"config\", \"plugin_dirs\": [...],\n"
    "                         \"plugins\": [{path, name, version, stage, status,\n"
    "                         plugin_status, unavailable, message}]}\n";

int cli_cmd_plugins(cli_ctx *ctx, int argc, char **argv) {
  static const cli_option opts[] = {CLI_HOST_OPTIONS};
  cli_host_args a;
  cli_host h;
  int dry = 0, rc;
  rc = parse_and_open(ctx, plugins_help, opts, sizeof opts / sizeof opts[0], argc, argv, &h, &a,
                      &dry);
  if (rc >= 0)
    return rc;
  if (a.json) {
    cli_json j;
    cli_json_document(&j, ctx->out);
    cli_host_json_report(&j, &h);
    cli_json_end_object(&j);
    cli_json_newline(&j);
  } else {
    cli_host_print_report(ctx->out, &h);
  }
  cli_host_close(&h);
  return CLI_EXIT_OK;
}

/* ---- olc explain ------------------------------------------------------- */

static const char explain_help[] =
    "usage: olc explain --workload NAME [--all] [--source PATH|user|layers]\n"
    "                   [--config FILE] [--json] [--store PATH]\n\n"
    "Prints the records that could have served the workload, each with why it\n"
    "was or was not chosen: the plugin's key is looked up with the plugin's\n"
    "validator as calibrate and select look it up (the same workload with a\n"
    "different thread count, processor or changed model, an outdated or newer\n"
    "implementation, validation failed, shadowed by a higher level, skipped by\n"
    "force_portable); the records of other workloads are counted.  Never\n"
    "measures.  Exits 3 when nothing is selected, 1 when the workload's plugin\n"
    "is not loaded.\n\n" CLI_HOST_HELP
    "  --workload NAME        the [workload.NAME] to explain (required)\n"
    "  --all                  every record of the workload's backend and operator\n"
    "  --source S             list only the rejected records of the store's own\n"
    "                         file (user), of any layer (layers) or of the file\n"
    "                         PATH; the selection is the same (text: a selected\n"
    "                         record of another source names its file only)\n"
    "  --json                 {\"schema\": 1, \"config\", \"store\", \"workload\",\n"
    "                         \"backend\", \"operator\", \"selected\": record or null,\n"
    "                         \"rejected\": [{level, origin, reason, message,\n"
    "                         record}], \"unlisted\": the records of other workloads}\n";

/* Prints the explanation as one JSON document. */
static void explain_json(cli_ctx *ctx, const cli_host *h, const olc_workload_config *wc,
                         const olc_lookup_result *lr, const olc_record *sel, const char *source) {
  cli_json j;
  cli_json_document(&j, ctx->out);
  cli_host_json_source(&j, h);
  cli_json_key(&j, "workload");
  cli_json_string(&j, wc->name);
  cli_json_key(&j, "backend");
  cli_json_string(&j, wc->backend);
  cli_json_key(&j, "operator");
  cli_json_string(&j, wc->operator_name);
  cli_json_key(&j, "selected");
  cli_json_record(&j, sel);
  cli_json_key(&j, "rejected");
  cli_host_json_rejections_from(&j, lr, source);
  cli_json_key(&j, "unlisted");
  cli_json_int(&j, (int64_t)olc_lookup_result_unlisted_count(lr));
  cli_json_end_object(&j);
  cli_json_newline(&j);
}

/* Prints the selected record; one of another source than --source names
 * only its file. */
static void explain_print_selected(FILE *out, const olc_record *sel, const char *source) {
  if (sel != NULL && !cli_source_match(sel, source)) {
    fprintf(out, "selected: %s %s of another source, ", olc_level_str(sel->level),
            olc_origin_str(sel->origin));
    cli_print_quoted(out, (const unsigned char *)(sel->source ? sel->source : "memory"),
                     strlen(sel->source ? sel->source : "memory"));
    fputc('\n', out);
  } else if (sel != NULL) {
    fprintf(out, "selected: %s %s\n", olc_level_str(sel->level), olc_origin_str(sel->origin));
    cli_print_record(out, sel, "  ");
  } else {
    fputs("selected: none\n", out);
  }
}

/* Prints the explanation as text. */
static void explain_text(cli_ctx *ctx, const olc_workload_config *wc, const olc_lookup_result *lr,
                         const olc_record *sel, const char *source) {
  size_t n = olc_lookup_result_rejected_count(lr) + (sel != NULL);
  fputs("workload ", ctx->out);
  cli_print_quoted(ctx->out, (const unsigned char *)wc->name, strlen(wc->name));
  fputs(": backend ", ctx->out);
  cli_print_quoted(ctx->out, (const unsigned char *)wc->backend, strlen(wc->backend));
  fputs(" operator ", ctx->out);
  cli_print_quoted(ctx->out, (const unsigned char *)wc->operator_name, strlen(wc->operator_name));
  fprintf(ctx->out, ": %zu record%s\n", n, n == 1 ? "" : "s");
  explain_print_selected(ctx->out, sel, source);
  cli_host_print_rejections_from(ctx->out, lr, "", 1, source);
}

/* Looks the workload up on the open host and prints why each record was or
 * was not chosen; returns the exit code. */
static int explain_run(cli_ctx *ctx, const cli_host_args *a, cli_host *h, const char *workload,
                       int all) {
  const olc_workload_config *wc;
  olc_lookup_result *lr = NULL;
  const olc_record *sel;
  olc_error err;
  olc_status st;
  int rc = CLI_EXIT_OK;

  wc = olc_config_find_workload(h->config, workload);
  if (wc == NULL)
    return cli_usage_error(ctx, "no workload '%.64s' in %s", workload,
                           olc_config_source(h->config));
  olc_error_clear(&err);
  st = all ? olc_host_explain_all(&lr, h->host, workload, &err)
           : olc_host_explain(&lr, h->host, workload, &err);
  if (st != OLC_OK && st != OLC_E_NOT_FOUND) {
    rc = cli_fail(ctx, st, &err);
    goto done;
  }
  if (lr == NULL) {
    rc = cli_fail(ctx, st, &err);
    goto done;
  }
  sel = olc_lookup_result_selected(lr);
  if (a->json)
    explain_json(ctx, h, wc, lr, sel, a->source);
  else
    explain_text(ctx, wc, lr, sel, a->source);
  if (sel == NULL)
    rc = CLI_EXIT_NOT_SELECTED;
done:
  olc_lookup_result_free(lr);
  return rc;
}

int cli_cmd_explain(cli_ctx *ctx, int argc, char **argv) {
  static const cli_option opts[] = {CLI_HOST_OPTIONS,
                                    {"workload", "NAME", OPT_WORKLOAD, 0},
                                    {"all", NULL, OPT_ALL, 0},
                                    {"source", "S", OPT_SOURCE, 0}};
  cli_host_args a;
  cli_host h;
  const char *workload = NULL;
  int all = 0, rc;

  rc = parse_host(ctx, explain_help, opts, sizeof opts / sizeof opts[0], argc, argv, &a, &workload,
                  &all);
  if (rc >= 0)
    return rc;
  if (workload == NULL)
    return cli_usage_error(ctx, "missing --workload NAME");
  rc = cli_host_open(ctx, &a, &h);
  if (rc != CLI_EXIT_OK)
    return rc;
  rc = explain_run(ctx, &a, &h, workload, all);
  cli_host_close(&h);
  return rc;
}

/* ---- olc prune --------------------------------------------------------- */

static const char prune_help[] =
    "usage: olc prune [--dry-run] [--foreign] [--config FILE] [--json] [--store PATH]\n\n"
    "Removes the calibrated records that a loaded plugin rejects: outdated (an\n"
    "older implementation than the plugin's) or invalid (its validator says\n"
    "no).  Overrides, records of plugins not loaded here and records of a newer\n"
    "implementation are kept.  Prints each record removed with the reason.\n\n" CLI_HOST_HELP
    "  --dry-run              only print what would be removed\n"
    "  --foreign              also the exact calibrated records of another machine:\n"
    "                         their plugin reports another processor or thread\n"
    "                         count here for the record's workload (\"foreign\n"
    "                         processor\", \"foreign thread count\")\n"
    "  --json                 {\"schema\": 1, \"config\", \"store\", \"dry_run\",\n"
    "                         \"foreign\", \"records\": [{reason, record}], \"removed\": N}\n";

typedef struct prune_out {
  FILE *out;
  int json;
  cli_json j;
} prune_out;

static void on_prune(void *payload, const olc_record *record, const char *why) {
  prune_out *p = payload;
  if (p->json) {
    cli_json_break(&p->j);
    cli_json_begin_object(&p->j);
    cli_json_key(&p->j, "reason");
    cli_json_string(&p->j, why);
    cli_json_key(&p->j, "record");
    cli_json_record(&p->j, record);
    cli_json_end_object(&p->j);
    return;
  }
  fputs("prune: ", p->out);
  cli_print_quoted(p->out, (const unsigned char *)why, strlen(why));
  fputc('\n', p->out);
  cli_print_record(p->out, record, "  ");
}

/* Copies what was buffered to out. */
static void copy_out(FILE *from, FILE *out) {
  char buf[4096];
  size_t n;
  rewind(from);
  while ((n = fread(buf, 1, sizeof buf, from)) > 0)
    fwrite(buf, 1, n, out);
}

/* Starts the JSON document up to the open "records" array. */
static void prune_json_begin(prune_out *p, const cli_host *h, int dry) {
  cli_json_document(&p->j, p->out);
  cli_host_json_source(&p->j, h);
  cli_json_key(&p->j, "dry_run");
  cli_json_bool(&p->j, (dry & 1) != 0);
  cli_json_key(&p->j, "foreign");
  cli_json_bool(&p->j, (dry & 2) != 0);
  cli_json_key(&p->j, "records");
  cli_json_begin_array(&p->j);
}

/* Ends the report: the JSON count, or the text summary line. */
static void prune_finish(prune_out *p, const cli_host *h, int dry, size_t removed) {
  if (p->json) {
    if (removed > 0)
      fputc('\n', p->out);
    cli_json_end_array(&p->j);
    cli_json_key(&p->j, "removed");
    cli_json_int(&p->j, (int64_t)removed);
    cli_json_end_object(&p->j);
    cli_json_newline(&p->j);
  } else {
    fprintf(p->out, "%s %zu record%s from %s\n", (dry & 1) ? "would remove" : "removed", removed,
            removed == 1 ? "" : "s",
            olc_store_path(h->store) ? olc_store_path(h->store) : "memory");
  }
}

/* Prunes the open host's store and prints the report; returns the exit code. */
static int prune_run(cli_ctx *ctx, const cli_host_args *a, cli_host *h, int dry) {
  prune_out p;
  FILE *buffer;
  size_t removed = 0;
  olc_error err;
  olc_status st;
  int rc = CLI_EXIT_OK;

  /* The report runs while the records are removed, before the write is
   * known to succeed: buffer it, print it only on success. */
  buffer = tmpfile();
  memset(&p, 0, sizeof p);
  p.out = buffer != NULL ? buffer : ctx->out;
  p.json = a->json;
  if (p.json)
    prune_json_begin(&p, h, dry);
  olc_error_clear(&err);
  st = olc_host_prune_ext(
      h->host, ((dry & 1) ? OLC_PRUNE_DRY_RUN : 0u) | ((dry & 2) ? OLC_PRUNE_FOREIGN : 0u),
      on_prune, &p, &removed, &err);
  if (st < 0) {
    rc = cli_fail(ctx, st, &err);
    goto done;
  }
  if (st == OLC_COMMITTED_UNSYNCED)
    fprintf(ctx->err, "olc: %s: warning: %s\n", ctx->command,
            err.message[0] != 0 ? err.message : olc_status_str(st));
  prune_finish(&p, h, dry, removed);
  if (buffer != NULL)
    copy_out(buffer, ctx->out);
done:
  if (buffer != NULL)
    fclose(buffer);
  return rc;
}

int cli_cmd_prune(cli_ctx *ctx, int argc, char **argv) {
  static const cli_option opts[] = {
      CLI_HOST_OPTIONS, {"dry-run", NULL, OPT_DRY_RUN, 0}, {"foreign", NULL, OPT_FOREIGN, 0}};
  cli_host_args a;
  cli_host h;
  int dry = 0, rc;
  rc =
      parse_and_open(ctx, prune_help, opts, sizeof opts / sizeof opts[0], argc, argv, &h, &a, &dry);
  if (rc >= 0)
    return rc;
  rc = prune_run(ctx, &a, &h, dry);
  cli_host_close(&h);
  return rc;
}
