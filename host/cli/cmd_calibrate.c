/*
 * host/cli/cmd_calibrate.c - olc calibrate and olc select: the
 * calibrate-and-select loop over the configured workloads.
 */
#include "cli_host.h"
#include "commands.h"
#include "report_html.h"

#include <stdlib.h>
#include <string.h>
#if defined(_WIN32)
#include <io.h>
#define cli_isatty _isatty
#define cli_fileno _fileno
#else
#include <unistd.h>
#define cli_isatty isatty
#define cli_fileno fileno
#endif

enum {
  OPT_WORKLOAD = 1,
  OPT_RECALIBRATE,
  OPT_FORCE_PORTABLE,
  OPT_IN_PROCESS,
  OPT_REPORT,
  OPT_RECORDED,
  OPT_REFINE,
  OPT_SHARD
};

static const char calibrate_help[] =
    "usage: olc calibrate [--config FILE] [--workload NAME]... [--recalibrate]\n"
    "                     [--recorded FILE [--shard I/N]] [--refine]\n"
    "                     [--force-portable]\n"
    "                     [--in-process] [-v | -q] [--json] [--store PATH]\n"
    "                     [--report FILE.html]\n\n"
    "For each workload of the configuration: asks its plugin for the key, looks\n"
    "the store up with the plugin's validator and selects a valid hit without\n"
    "measuring anything; otherwise times the candidates the plugin offers\n"
    "([calibration] strategy: race, the default, screens every candidate and\n"
    "races the plugin's first and the fastest in turns; full times each in\n"
    "full), saves the winner with its measurements and selects it.  Prints one\n"
    "line per workload (fitted to $COLUMNS, else 100 columns): the outcome\n"
    "(calibrated now, selected from the store, skipped, failed), the selected\n"
    "record's level, policy and median, its speedup over the plugin's first\n"
    "candidate and the time taken; then the summary.  A workload without a\n"
    "selection shows why instead.\n"
    "Workloads whose plugin is not available on this machine are skipped; in a\n"
    "configuration file (not the embedded default) a workload whose backend no\n"
    "loaded plugin provides fails.\n"
    "While measuring, a progress line is shown on stderr when it is a terminal.\n\n"
    "Exit status: 0 when every workload that could run has a selection (skipped\n"
    "ones do not count), 1 when one failed, 2 on a usage error (also an unknown\n"
    "--workload).\n\n" CLI_HOST_HELP CLI_HOST_DETAIL_HELP
    "  --workload NAME        only this [workload.NAME] (repeatable; default: all)\n"
    "  --recalibrate          measure even when the store has a valid selection\n"
    "  --recorded FILE        tune the workloads of a recorded-workloads file\n"
    "                         ([calibration] record_misses) instead of the\n"
    "                         configured ones: those recorded on this processor\n"
    "                         and thread count (the others are skipped, saying\n"
    "                         why); each one a store's file then holds is removed\n"
    "                         from the file (none with --read-only)\n"
    "  --shard I/N            only the I-th (0..N-1) of N disjoint parts of the\n"
    "                         --recorded FILE, into this --store; FILE is kept\n"
    "                         (merge: olc import --recorded FILE STORE...)\n"
    "  --refine               measure again the provisional records: a budget\n"
    "                         cut them short, or the machine was busy\n"
    "  --force-portable       skip the exact records (also [store] force_portable)\n"
    "  --in-process           measure in this process instead of a worker process\n"
    "                         (a crashing candidate then ends olc)\n"
    "  --report FILE.html     also write a self-contained HTML report: per workload\n"
    "                         the candidates' run times, the winner, the plugin's\n"
    "                         first guess, the speedup and why the others lost;\n"
    "                         FILE must be new or an earlier olc report\n"
    "  --json                 {\"schema\": 1, \"config\", \"store\", \"workloads\":\n"
    "                         [{workload, backend, operator, outcome, status,\n"
    "                         message, calibrated_now, seconds, speedup, selected,\n"
    "                         candidates: [{policy, status, median_us, spread_us,\n"
    "                         samples, abandoned, best, message}], rejected}],\n"
    "                         \"summary\": {...}}\n";

static const char select_help[] =
    "usage: olc select [--config FILE] [--workload NAME]... [--force-portable]\n"
    "                  [-v | -q] [--json] [--store PATH] [--report FILE.html]\n\n"
    "Like olc calibrate, but only looks the store up: it never measures.  Prints\n"
    "the same table (the speedup when the record holds its first candidate's\n"
    "median) and the summary.\n\n"
    "Exit status: 0 when every workload that could run has a selection, 3 when\n"
    "one has none, 1 on other failures, 2 on a usage error.\n\n" CLI_HOST_HELP CLI_HOST_DETAIL_HELP
    "  --workload NAME        only this [workload.NAME] (repeatable; default: all)\n"
    "  --force-portable       skip the exact records (also [store] force_portable)\n"
    "  --report FILE.html     also write a self-contained HTML report of the selections\n"
    "                         (FILE must be new or an earlier olc report)\n"
    "  --json                 the same JSON as olc calibrate (candidates empty)\n";

/* The progress line on a terminal: rewritten in place, cleared at the end. */
typedef struct progress_line {
  FILE *err;
  int width; /* characters of the line on screen */
} progress_line;

static void on_progress(void *payload, const char *workload, size_t wi, size_t wn, size_t ci,
                        size_t cn, double best_us) {
  progress_line *p = payload;
  char line[160], best[40];
  int n;
  if (best_us >= 0)
    snprintf(best, sizeof best, "%.1f us", best_us);
  else
    snprintf(best, sizeof best, "-");
  /* candidate_index is 0-based before a candidate; the last call reports
   * how many were measured.  The name is cut so that the line stays under
   * 80 columns: a wrapped line could not be rewritten with \r. */
  n = snprintf(line, sizeof line, "workload %zu/%zu %.24s: candidate %zu/%zu, best %s", wi + 1, wn,
               workload, ci < cn ? ci + 1 : ci, cn, best);
  if (n < 0)
    return;
  if (n >= (int)sizeof line)
    n = (int)sizeof line - 1;
  fprintf(p->err, "\r%s%*s", line, p->width > n ? p->width - n : 0, "");
  fflush(p->err);
  p->width = n;
}

static void progress_clear(progress_line *p) {
  if (p->width > 0) {
    fprintf(p->err, "\r%*s\r", p->width, "");
    fflush(p->err);
  }
}

/* --shard I/N: two decimal numbers, 0 <= I < N (0-based, as Slurm's array
 * task ids from --array=0-(N-1) and an Indexed Job's completion index). */
static int parse_shard(cli_ctx *ctx, olc_calibrate_options *opt, const char *v) {
  unsigned long n[2] = {0, 0};
  const char *p = v;
  int k;
  for (k = 0; k < 2; k++) {
    const char *start = p;
    for (; *p >= '0' && *p <= '9'; p++) {
      n[k] = n[k] * 10 + (unsigned long)(*p - '0');
      if (n[k] > 1000000)
        return cli_usage_error(ctx, "--shard '%.32s': at most 1000000 shards", v);
    }
    if (p == start || *p != (k == 0 ? '/' : '\0'))
      return cli_usage_error(ctx, "--shard '%.32s': expected I/N, two whole numbers", v);
    p++;
  }
  if (n[1] == 0)
    return cli_usage_error(ctx, "--shard '%.32s': N must be at least 1", v);
  if (n[0] >= n[1])
    return cli_usage_error(ctx, "--shard '%.32s': I must be below N (I counts from 0: 0..%lu)", v,
                           n[1] - 1);
  opt->shard_index = (uint32_t)n[0];
  opt->shard_count = (uint32_t)n[1];
  return CLI_EXIT_OK;
}

/* What calibrate and select take from their command line. */
typedef struct loop_args {
  cli_host_args host;
  olc_calibrate_options opt;
  const char **names; /* argc entries: the --workload names */
  size_t count;
  const char *report;      /* --report FILE.html, else NULL */
  cli_report_file written; /* the report's file */
  int stop;                /* --help was answered: rc is the exit status */
} loop_args;

static int loop_parse(cli_ctx *ctx, loop_args *la, int argc, char **argv, int select_only) {
  static const cli_option calibrate_opts[] = {CLI_HOST_OPTIONS,
                                              CLI_HOST_DETAIL_OPTIONS,
                                              {"workload", "NAME", OPT_WORKLOAD, CLI_OPT_REPEAT},
                                              {"recalibrate", NULL, OPT_RECALIBRATE, 0},
                                              {"recorded", "FILE", OPT_RECORDED, 0},
                                              {"refine", NULL, OPT_REFINE, 0},
                                              {"shard", "I/N", OPT_SHARD, 0},
                                              {"force-portable", NULL, OPT_FORCE_PORTABLE, 0},
                                              {"in-process", NULL, OPT_IN_PROCESS, 0},
                                              {"report", "FILE", OPT_REPORT, 0}};
  static const cli_option select_opts[] = {CLI_HOST_OPTIONS,
                                           CLI_HOST_DETAIL_OPTIONS,
                                           {"workload", "NAME", OPT_WORKLOAD, CLI_OPT_REPEAT},
                                           {"force-portable", NULL, OPT_FORCE_PORTABLE, 0},
                                           {"report", "FILE", OPT_REPORT, 0}};
  cli_parser p;
  const char *v;
  int id, r;

  if (select_only)
    cli_parser_init(&p, ctx, select_opts, sizeof select_opts / sizeof select_opts[0], argc, argv);
  else
    cli_parser_init(&p, ctx, calibrate_opts, sizeof calibrate_opts / sizeof calibrate_opts[0], argc,
                    argv);
  while ((r = cli_parser_next(&p, &id, &v)) > 0) {
    if (id == CLI_ID_HELP) {
      la->stop = 1;
      return cli_help(ctx, select_only ? select_help : calibrate_help);
    }
    if (id == CLI_ID_POSITIONAL)
      return cli_usage_error(ctx, "unexpected argument '%.64s'", v);
    if (cli_host_option(&la->host, id, v))
      continue;
    if (id == OPT_WORKLOAD)
      la->names[la->count++] = v;
    else if (id == OPT_RECALIBRATE)
      la->opt.recalibrate = 1;
    else if (id == OPT_FORCE_PORTABLE)
      la->opt.force_portable = 1;
    else if (id == OPT_IN_PROCESS)
      la->opt.in_process = 1;
    else if (id == OPT_REPORT)
      la->report = v;
    else if (id == OPT_RECORDED)
      la->opt.recorded = v;
    else if (id == OPT_REFINE)
      la->opt.refine = 1;
    else if (id == OPT_SHARD && parse_shard(ctx, &la->opt, v) != CLI_EXIT_OK)
      return CLI_EXIT_USAGE;
  }
  if (r < 0)
    return cli_parser_usage(ctx, &p);
  if (la->host.verbose && la->host.quiet)
    return cli_usage_error(ctx, "--verbose and --quiet exclude each other");
  if (la->opt.recorded != NULL && la->count > 0)
    return cli_usage_error(ctx, "--recorded and --workload exclude each other");
  if (la->opt.shard_count > 0 && la->opt.recorded == NULL)
    return cli_usage_error(ctx, "--shard needs --recorded");
  return CLI_EXIT_OK;
}

/* Prints the results; the exit status says whether every workload got a selection. */
static int loop_report(cli_ctx *ctx, cli_host *h, const olc_calibration *cal, loop_args *la,
                       int select_only) {
  size_t c[CLI_OUTCOME_COUNT];
  cli_calibration_print(ctx->out, h, cal, &la->host, select_only, c);
  if (c[CLI_OUTCOME_FAILED] > 0 || (!select_only && c[CLI_OUTCOME_NOT_SELECTED] > 0)) {
    size_t failed = c[CLI_OUTCOME_FAILED] + (select_only ? 0 : c[CLI_OUTCOME_NOT_SELECTED]);
    /* Exit 1 always comes with one line on stderr; the details are above. */
    return cli_failf(ctx, "%zu workload%s failed", failed, failed == 1 ? "" : "s");
  }
  return c[CLI_OUTCOME_NOT_SELECTED] > 0 ? CLI_EXIT_NOT_SELECTED : CLI_EXIT_OK;
}

/* Checks the --workload names against the configuration and completes the
 * options from the command line; opens the report file. */
static int loop_prepare(cli_ctx *ctx, loop_args *la, const cli_host *h, int select_only) {
  size_t i;
  for (i = 0; i < la->count; i++) {
    if (olc_config_find_workload(h->config, la->names[i]) == NULL)
      return cli_usage_error(ctx, "no workload '%.64s' in %s", la->names[i],
                             olc_config_source(h->config));
  }
  if (la->count > 0) {
    la->opt.workloads = la->names;
    la->opt.workload_count = la->count;
  }
  la->opt.select_only = select_only;
  /* A bad report path fails now, not after measuring. */
  if (la->report != NULL)
    return cli_report_open(ctx, &la->written, la->report, h);
  return CLI_EXIT_OK;
}

static int run_loop(cli_ctx *ctx, int argc, char **argv, int select_only) {
  loop_args la;
  cli_host h;
  olc_calibration *cal = NULL;
  progress_line progress;
  olc_error err;
  olc_status st;
  int rc;

  memset(&la, 0, sizeof la);
  memset(&h, 0, sizeof h);
  la.opt = (olc_calibrate_options)OLC_CALIBRATE_OPTIONS_INIT;
  la.names = calloc((size_t)(argc > 0 ? argc : 1), sizeof *la.names);
  if (la.names == NULL)
    return cli_failf(ctx, "out of memory");
  rc = loop_parse(ctx, &la, argc, argv, select_only);
  if (rc != CLI_EXIT_OK || la.stop)
    goto done;
  rc = cli_host_open(ctx, &la.host, &h);
  if (rc == CLI_EXIT_OK && !select_only)
    rc = cli_require_writable(ctx, h.store);
  if (rc != CLI_EXIT_OK)
    goto done;
  rc = loop_prepare(ctx, &la, &h, select_only);
  if (rc != CLI_EXIT_OK)
    goto done;
  la.opt.keep_samples = la.report != NULL;
  memset(&progress, 0, sizeof progress);
  progress.err = ctx->err;
  if (!select_only && cli_isatty(cli_fileno(ctx->err))) {
    la.opt.progress = on_progress;
    la.opt.progress_payload = &progress;
  }
  olc_error_clear(&err);
  st = olc_host_calibrate(&cal, h.host, &la.opt, &err);
  progress_clear(&progress);
  rc = st != OLC_OK ? cli_fail(ctx, st, &err) : loop_report(ctx, &h, cal, &la, select_only);
  if (st == OLC_OK && la.opt.recorded != NULL && !la.host.json && !la.host.quiet) {
    if (la.opt.shard_count > 0)
      fprintf(ctx->out, "%s: shard %u/%u, %zu workload%s; the file is left as it is\n",
              la.opt.recorded, (unsigned)la.opt.shard_index, (unsigned)la.opt.shard_count,
              olc_calibration_count(cal), olc_calibration_count(cal) == 1 ? "" : "s");
    else
      fprintf(ctx->out, "%s: %zu tuned workload%s removed\n", la.opt.recorded,
              olc_calibration_recorded_removed(cal),
              olc_calibration_recorded_removed(cal) == 1 ? "" : "s");
  }
  if (st == OLC_OK && la.report != NULL &&
      cli_report_commit(ctx, &la.written, &h, cal, select_only) != CLI_EXIT_OK)
    rc = CLI_EXIT_FAILURE;
done:
  cli_report_discard(&la.written);
  olc_calibration_free(cal);
  cli_host_close(&h);
  free(la.names);
  return rc;
}

int cli_cmd_calibrate(cli_ctx *ctx, int argc, char **argv) { return run_loop(ctx, argc, argv, 0); }

int cli_cmd_select(cli_ctx *ctx, int argc, char **argv) { return run_loop(ctx, argc, argv, 1); }
