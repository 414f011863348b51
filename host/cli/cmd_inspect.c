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
    "usage: olc explain [--workload NAME | --backend B --operator O\n"
    "                   [--property NAME=VALUE]... [--model-digest D]] [--all]\n"
    "                   [--source PATH|user|layers] [--config FILE] [--json]\n"
    "                   [--store PATH]\n\n"
    "Prints the records that could have served a workload, each with why it\n"
    "was or was not chosen: the plugin's key is looked up with the plugin's\n"
    "validator as calibrate and select look it up (the same workload with a\n"
    "different thread count, processor or changed model, an outdated or newer\n"
    "implementation, validation failed, shadowed by a higher level, skipped by\n"
    "force_portable); the records of other workloads are counted.  Without a\n"
    "workload, explains every configured workload in turn (one whose plugin is\n"
    "not loaded is listed as skipped).  Never measures.  Exits 3 when nothing\n"
    "is selected (for some workload), 1 when the named workload's plugin is not\n"
    "loaded.\n\n" CLI_HOST_HELP
    "  --workload NAME        the configured [workload.NAME] to explain\n"
    "  --backend B --operator O [--property NAME=VALUE]... [--model-digest D]\n"
    "                         a workload as a runtime binds it (D: the model's\n"
    "                         digest), its key composed by its plugin\n"
    "  --all                  every record of the workload's backend and operator\n"
    "  --source S             list only the rejected records of the store's own\n"
    "                         file (user), of any layer (layers) or of the file\n"
    "                         PATH; the selection is the same (text: a selected\n"
    "                         record of another source names its file only)\n"
    "  --json                 {\"schema\": 1, \"config\", \"store\", \"workload\",\n"
    "                         \"backend\", \"operator\", \"selected\": record or null,\n"
    "                         \"rejected\": [{level, origin, reason, message,\n"
    "                         record}], \"unlisted\": the records of other workloads};\n"
    "                         without a workload {\"schema\": 1, \"config\", \"store\",\n"
    "                         \"workloads\": [those members, or workload, backend,\n"
    "                         operator and \"skipped\": why]}\n";

/* The workload explained: its name (or backend/operator), backend and
 * operator. */
typedef struct explained {
  const char *name, *backend, *operator_name;
} explained;

/* The members of one explanation, inside an object the caller opened. */
static void explain_json_members(cli_json *j, const explained *x, const olc_lookup_result *lr,
                                 const olc_record *sel, const char *source) {
  cli_json_key(j, "workload");
  cli_json_string(j, x->name);
  cli_json_key(j, "backend");
  cli_json_string(j, x->backend);
  cli_json_key(j, "operator");
  cli_json_string(j, x->operator_name);
  cli_json_key(j, "selected");
  cli_json_record(j, sel);
  cli_json_key(j, "rejected");
  cli_host_json_rejections_from(j, lr, source);
  cli_json_key(j, "unlisted");
  cli_json_int(j, (int64_t)olc_lookup_result_unlisted_count(lr));
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

/* "workload 'NAME': backend 'B' operator 'O'" */
static void explain_print_head(FILE *out, const explained *x) {
  fputs("workload ", out);
  cli_print_quoted(out, (const unsigned char *)x->name, strlen(x->name));
  fputs(": backend ", out);
  cli_print_quoted(out, (const unsigned char *)x->backend, strlen(x->backend));
  fputs(" operator ", out);
  cli_print_quoted(out, (const unsigned char *)x->operator_name, strlen(x->operator_name));
}

/* Prints the explanation as text. */
static void explain_text(FILE *out, const explained *x, const olc_lookup_result *lr,
                         const olc_record *sel, const char *source) {
  size_t n = olc_lookup_result_rejected_count(lr) + (sel != NULL);
  explain_print_head(out, x);
  fprintf(out, ": %zu record%s\n", n, n == 1 ? "" : "s");
  explain_print_selected(out, sel, source);
  cli_host_print_rejections_from(out, lr, "", 1, source);
}

/* Explains the bound workload (lookup with its plugin's validator). */
static olc_status explain_lookup(olc_lookup_result **lr, cli_host *h, const char *name,
                                 const cli_workload_args *w, const cli_key_args *k, int all,
                                 olc_error *err) {
  olc_binding *b = NULL;
  olc_status st;
  unsigned flags = all ? OLC_EXPLAIN_ALL : 0u;
  if (name != NULL)
    return olc_host_explain(lr, h->host, name, flags, err);
  st = cli_workload_bind(&b, h->host, w, k, err);
  if (st == OLC_OK)
    st = olc_binding_explain(lr, b, flags, err);
  olc_binding_free(b);
  return st;
}

/* Explains one workload (by name or as described) on the open host;
 * returns the exit code. */
static int explain_one(cli_ctx *ctx, const cli_host_args *a, cli_host *h,
                       const cli_workload_args *w, const cli_key_args *k, int all) {
  char label[160];
  explained x;
  olc_lookup_result *lr = NULL;
  const olc_record *sel;
  olc_error err;
  olc_status st;
  int rc = CLI_EXIT_OK;

  if (w->name != NULL) {
    const olc_workload_config *wc = olc_config_find_workload(h->config, w->name);
    if (wc == NULL)
      return cli_usage_error(ctx, "no workload '%.64s' in %s", w->name,
                             olc_config_source(h->config));
    x.name = wc->name;
    x.backend = wc->backend;
    x.operator_name = wc->operator_name;
  } else {
    snprintf(label, sizeof label, "%.70s/%.70s", k->key.backend, k->key.operator_name);
    x.name = label;
    x.backend = k->key.backend;
    x.operator_name = k->key.operator_name;
  }
  olc_error_clear(&err);
  st = explain_lookup(&lr, h, w->name, w, k, all, &err);
  if ((st != OLC_OK && st != OLC_E_NOT_FOUND) || lr == NULL) {
    rc = cli_fail(ctx, st, &err);
    goto done;
  }
  sel = olc_lookup_result_selected(lr);
  if (a->json) {
    cli_json j;
    cli_json_document(&j, ctx->out);
    cli_host_json_source(&j, h);
    explain_json_members(&j, &x, lr, sel, a->source);
    cli_json_end_object(&j);
    cli_json_newline(&j);
  } else {
    explain_text(ctx->out, &x, lr, sel, a->source);
  }
  if (sel == NULL)
    rc = CLI_EXIT_NOT_SELECTED;
done:
  olc_lookup_result_free(lr);
  return rc;
}

/* Explains every configured workload; one whose plugin is not loaded (or
 * not usable here) is listed as skipped.  Returns the exit code: 1 when
 * one failed otherwise, else 3 when one selected nothing. */
static int explain_every(cli_ctx *ctx, const cli_host_args *a, cli_host *h, int all) {
  size_t i, count = olc_config_workload_count(h->config);
  int rc = CLI_EXIT_OK;
  cli_json j;
  if (a->json) {
    cli_json_document(&j, ctx->out);
    cli_host_json_source(&j, h);
    cli_json_key(&j, "workloads");
    cli_json_begin_array(&j);
  } else if (count == 0) {
    fprintf(ctx->out, "no workloads configured in %s\n", olc_config_source(h->config));
  }
  for (i = 0; i < count; i++) {
    const olc_workload_config *wc = olc_config_workload(h->config, i);
    explained x = {wc->name, wc->backend, wc->operator_name};
    olc_lookup_result *lr = NULL;
    const olc_record *sel;
    olc_error err;
    olc_status st;
    olc_error_clear(&err);
    st = olc_host_explain(&lr, h->host, wc->name, all ? OLC_EXPLAIN_ALL : 0u, &err);
    sel = lr != NULL ? olc_lookup_result_selected(lr) : NULL;
    if (lr == NULL && st != OLC_E_UNAVAILABLE) {
      cli_fail(ctx, st, &err);
      rc = CLI_EXIT_FAILURE;
    } else if (a->json) {
      cli_json_begin_object(&j);
      if (lr != NULL) {
        explain_json_members(&j, &x, lr, sel, a->source);
      } else {
        cli_json_text_member(&j, "workload", x.name);
        cli_json_text_member(&j, "backend", x.backend);
        cli_json_text_member(&j, "operator", x.operator_name);
        cli_json_text_member(&j, "skipped", err.message);
      }
      cli_json_end_object(&j);
    } else {
      if (i > 0)
        fputc('\n', ctx->out);
      if (lr != NULL) {
        explain_text(ctx->out, &x, lr, sel, a->source);
      } else {
        explain_print_head(ctx->out, &x);
        fputs(": skipped: ", ctx->out);
        cli_put_safe(ctx->out, err.message);
        fputc('\n', ctx->out);
      }
    }
    if (lr != NULL && sel == NULL && rc == CLI_EXIT_OK)
      rc = CLI_EXIT_NOT_SELECTED;
    olc_lookup_result_free(lr);
  }
  if (a->json) {
    cli_json_end_array(&j);
    cli_json_end_object(&j);
    cli_json_newline(&j);
  }
  return rc;
}

int cli_cmd_explain(cli_ctx *ctx, int argc, char **argv) {
  static const cli_option opts[] = {CLI_HOST_OPTIONS,
                                    CLI_WORKLOAD_OPTIONS,
                                    {"backend", "B", CLI_KEY_BACKEND, 0},
                                    {"operator", "O", CLI_KEY_OPERATOR, 0},
                                    {"model-digest", "D", CLI_KEY_MODEL_DIGEST, 0},
                                    {"all", NULL, OPT_ALL, 0},
                                    {"source", "S", OPT_SOURCE, 0}};
  cli_workload_args w;
  cli_key_args k;
  cli_host_args a;
  cli_host h;
  cli_parser p;
  const char *v;
  int all = 0, described, id, r, rc = CLI_EXIT_OK;

  memset(&a, 0, sizeof a);
  memset(&w, 0, sizeof w);
  cli_key_init(&k);
  cli_parser_init(&p, ctx, opts, sizeof opts / sizeof opts[0], argc, argv);
  while (rc == CLI_EXIT_OK && (r = cli_parser_next(&p, &id, &v)) > 0) {
    if (id == CLI_ID_HELP) {
      rc = cli_help(ctx, explain_help);
      goto done;
    }
    if (id == CLI_ID_POSITIONAL)
      rc = cli_usage_error(ctx, "unexpected argument '%.64s'", v);
    else if (id == OPT_ALL)
      all = 1;
    else if (id == OPT_SOURCE)
      a.source = v;
    else if (!cli_host_option(&a, id, v) && cli_key_option(&k, ctx, id, v, &rc) == 0)
      (void)cli_workload_option(&w, ctx, id, v, &rc);
  }
  if (rc != CLI_EXIT_OK)
    goto done;
  if (r < 0) {
    rc = cli_parser_usage(ctx, &p);
    goto done;
  }
  described = cli_workload_given(&w) || k.key.backend != NULL || k.key.operator_name != NULL ||
              k.key.model_digest != NULL;
  if (described && (rc = cli_workload_check(&w, &k, ctx)) != CLI_EXIT_OK)
    goto done;
  rc = cli_host_open(ctx, &a, &h);
  if (rc != CLI_EXIT_OK)
    goto done;
  rc = described ? explain_one(ctx, &a, &h, &w, &k, all) : explain_every(ctx, &a, &h, all);
  cli_host_close(&h);
done:
  cli_key_free(&k);
  cli_key_free(&w.props);
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
  st = olc_host_prune(h->host,
                      ((dry & 1) ? OLC_PRUNE_DRY_RUN : 0u) | ((dry & 2) ? OLC_PRUNE_FOREIGN : 0u),
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
