/*
 * host/cli/cmd_verify.c - olc verify: the calibrated records of the
 * store's read-only layers (shipped profiles) raced again on this machine
 * (olc_host_verify); one that no longer wins beyond the noise is
 * recalibrated into the user's store, and the report says what changed.
 */
#include "cli_host.h"
#include "commands.h"

#include <string.h>

enum { OPT_SAMPLE = 1, OPT_DRY_RUN };

static const char verify_help[] =
    "usage: olc verify [--sample N] [--dry-run] [--config FILE] [--json] [--store PATH]\n\n"
    "Verifies the calibrated records of the store's read-only layers ([store] layers,\n"
    "profiles shipped from another machine of the same type) on this one: each record\n"
    "this host would select races its policy first against its plugin's candidates,\n"
    "with the [calibration] settings; a tie keeps it.  A record that a candidate beats\n"
    "beyond the noise is recalibrated into the user's store, where it takes precedence\n"
    "over the layer; with a read-only store (--read-only, [store] persistence =\n"
    "read_only, a file that cannot be written) or --dry-run nothing is saved and the\n"
    "record is reported stale.  Overrides, records of plugins not loaded here, of\n"
    "another processor or thread count, or shadowed by another record are skipped.\n"
    "Prints one line per record and a summary; exits 0 when the records could be\n"
    "verified (failed measurements are reported, not fatal).\n\n" CLI_HOST_HELP
    "  --sample N             verify at most N layer records, spread evenly over the\n"
    "                         store's order (the same N on every run)\n"
    "  --dry-run              measure and report, save nothing\n"
    "  --json                 {\"schema\": 1, \"config\", \"store\", \"dry_run\",\n"
    "                         \"records\": [{outcome, status, message, stored_median_us,\n"
    "                         winner_median_us, winner_policy, candidates, record}],\n"
    "                         \"counts\": {verified, kept, recalibrated, stale,\n"
    "                         skipped, failed}}\n";

static const char *const outcome_names[6] = {"",      "kept",    "recalibrated",
                                             "stale", "skipped", "failed"};

typedef struct verify_out {
  FILE *out;
  int json;
  cli_json j;
  size_t shown;
} verify_out;

static void json_median(cli_json *j, const char *key, double v) {
  cli_json_key(j, key);
  if (v < 0)
    cli_json_null(j);
  else
    cli_json_double(j, v);
}

static void on_verify(void *payload, const olc_verify_entry *e) {
  verify_out *v = payload;
  const olc_record *r = e->record;
  char id[512];
  v->shown++;
  if (v->json) {
    cli_json_break(&v->j);
    cli_json_begin_object(&v->j);
    cli_json_key(&v->j, "outcome");
    cli_json_string(&v->j, outcome_names[e->outcome]);
    cli_json_key(&v->j, "status");
    cli_json_string(&v->j, olc_status_name(e->status));
    cli_json_key(&v->j, "message");
    cli_json_string(&v->j, e->message);
    json_median(&v->j, "stored_median_us", e->stored_median_us);
    json_median(&v->j, "winner_median_us", e->winner_median_us);
    cli_json_key(&v->j, "winner_policy");
    if (e->winner_policy != NULL)
      cli_json_string_n(&v->j, e->winner_policy, e->winner_policy_len);
    else
      cli_json_null(&v->j);
    cli_json_key(&v->j, "candidates");
    cli_json_int(&v->j, (int64_t)e->candidates);
    cli_json_key(&v->j, "record");
    cli_json_record(&v->j, r);
    cli_json_end_object(&v->j);
    return;
  }
  if (olc_record_workload(id, sizeof id, NULL, r, NULL) != OLC_OK)
    snprintf(id, sizeof id, "%s", r->model_digest != NULL ? r->model_digest : "");
  fprintf(v->out, "%-12s %s/%s %s %s%s%s\n", outcome_names[e->outcome], r->backend,
          r->operator_name, olc_level_str(r->level), id, r->source != NULL ? " in " : "",
          r->source != NULL ? r->source : "");
  fprintf(v->out, "  %s\n", e->message);
  if (e->winner_policy != NULL) {
    fputs("  new policy ", v->out);
    cli_print_quoted(v->out, e->winner_policy, e->winner_policy_len);
    fputs(" replacing ", v->out);
    cli_print_quoted(v->out, r->policy, r->policy_len);
    fputc('\n', v->out);
  }
}

static int verify_run(cli_ctx *ctx, const cli_host_args *a, cli_host *h, size_t sample, int dry) {
  olc_verify_options o = OLC_VERIFY_OPTIONS_INIT;
  size_t counts[6];
  verify_out v;
  olc_error err;
  olc_status st;
  memset(&v, 0, sizeof v);
  v.out = ctx->out;
  v.json = a->json;
  o.sample = sample;
  o.dry_run = dry;
  if (v.json) {
    cli_json_document(&v.j, v.out);
    cli_host_json_source(&v.j, h);
    cli_json_key(&v.j, "dry_run");
    cli_json_bool(&v.j, dry);
    cli_json_key(&v.j, "records");
    cli_json_begin_array(&v.j);
  }
  olc_error_clear(&err);
  st = olc_host_verify(h->host, &o, on_verify, &v, counts, &err);
  if (st < 0)
    return cli_fail(ctx, st, &err);
  if (v.json) {
    size_t i;
    if (v.shown > 0)
      fputc('\n', v.out);
    cli_json_end_array(&v.j);
    cli_json_key(&v.j, "counts");
    cli_json_begin_object(&v.j);
    cli_json_key(&v.j, "verified");
    cli_json_int(&v.j, (int64_t)counts[0]);
    for (i = 1; i < 6; i++) {
      cli_json_key(&v.j, outcome_names[i]);
      cli_json_int(&v.j, (int64_t)counts[i]);
    }
    cli_json_end_object(&v.j);
    cli_json_end_object(&v.j);
    cli_json_newline(&v.j);
  } else {
    fprintf(v.out,
            "verified %zu layer record%s: %zu kept, %zu recalibrated, %zu stale, %zu skipped, "
            "%zu failed (store %s)\n",
            counts[0], counts[0] == 1 ? "" : "s", counts[1], counts[2], counts[3], counts[4],
            counts[5], olc_store_path(h->store) ? olc_store_path(h->store) : "memory");
  }
  return CLI_EXIT_OK;
}

int cli_cmd_verify(cli_ctx *ctx, int argc, char **argv) {
  static const cli_option opts[] = {
      CLI_HOST_OPTIONS, {"sample", "N", OPT_SAMPLE, 0}, {"dry-run", NULL, OPT_DRY_RUN, 0}};
  cli_host_args a;
  cli_host h;
  cli_parser p;
  const char *val;
  int64_t sample = 0;
  int id, r, dry = 0, rc;
  memset(&a, 0, sizeof a);
  cli_parser_init(&p, ctx, opts, sizeof opts / sizeof opts[0], argc, argv);
  while ((r = cli_parser_next(&p, &id, &val)) > 0) {
    char msg[128];
    if (id == CLI_ID_HELP)
      return cli_help(ctx, verify_help);
    if (id == CLI_ID_POSITIONAL)
      return cli_usage_error(ctx, "unexpected argument '%.64s'", val);
    if (cli_host_option(&a, id, val))
      continue;
    if (id == OPT_DRY_RUN)
      dry = 1;
    else if (id == OPT_SAMPLE && cli_parse_int64(&sample, val, 1, INT64_MAX, msg, sizeof msg) != 0)
      return cli_usage_error(ctx, "--sample: %s", msg);
  }
  if (r < 0)
    return cli_parser_usage(ctx, &p);
  rc = cli_host_open(ctx, &a, &h);
  if (rc != CLI_EXIT_OK)
    return rc;
  rc = verify_run(ctx, &a, &h, (size_t)sample, dry);
  cli_host_close(&h);
  return rc;
}
