/*
 * host/cli/cli_host.h - what the host commands (calibrate, select, explain,
 * plugins, prune) share: the configuration, the store it names and the
 * plugin host, opened in one call; and the printers of the load report and
 * of calibration results, as text and as JSON.
 */
#ifndef OLC_CLI_HOST_H
#define OLC_CLI_HOST_H

#include "cli.h"

/* The options every host command takes (rows for its cli_option table). */
enum { CLI_HOST_CONFIG = 2000, CLI_HOST_JSON, CLI_HOST_VERBOSE, CLI_HOST_QUIET };

#define CLI_HOST_OPTIONS                                                                           \
  {"config", "FILE", CLI_HOST_CONFIG, 0}, { "json", NULL, CLI_HOST_JSON, 0 }
/* -v/--verbose and -q/--quiet (calibrate, select). */
#define CLI_HOST_DETAIL_OPTIONS                                                                    \
  {"verbose", NULL, CLI_HOST_VERBOSE, CLI_OPT_SHORT('v')}, {                                       \
    "quiet", NULL, CLI_HOST_QUIET, CLI_OPT_SHORT('q')                                              \
  }

/* The help lines of --config and --store; each command describes its own
 * --json. */
#define CLI_HOST_HELP                                                                              \
  "  --config FILE          the ini file (default: $OLC_CONFIG, else the embedded\n"               \
  "                         default configuration); also before the command\n"                     \
  "  --store PATH           the store file (default: $OLC_STORE, else [store] path,\n"             \
  "                         else the per-user cache path); also before the command\n"
#define CLI_HOST_DETAIL_HELP                                                                       \
  "  -v, --verbose          after the table, each workload in detail: the selected\n"              \
  "                         record, the measured candidates, the rejected records\n"               \
  "                         with their reasons and the time taken\n"                               \
  "  -q, --quiet            print only the workloads that failed or have no\n"                     \
  "                         selection (warnings still go to stderr)\n"

typedef struct cli_host_args {
  const char *config_path; /* --config */
  int json;
  int verbose;        /* -v */
  int quiet;          /* -q */
  const char *source; /* explain --source (NULL: every source) */
} cli_host_args;

/* Takes one parsed option.  Returns 1 when it was one of CLI_HOST_OPTIONS,
 * 0 when not. */
int cli_host_option(cli_host_args *a, int id, const char *value);

typedef struct cli_host {
  olc_config *config;
  olc_store *store;
  olc_host *host;
} cli_host;

/* Loads the configuration (--config after or before the command, else
 * $OLC_CONFIG read with secure_getenv, else the embedded default), opens the store of its [store]
 * section (ctx->store_path, i.e. --store or $OLC_STORE, replacing the
 * path) and the plugin host, both printing their warnings with
 * cli_print_diag (a plugin file that failed to load, a missing plugin
 * directory, a plugin's warning).  Returns CLI_EXIT_OK, or prints why and
 * returns CLI_EXIT_FAILURE (everything opened is closed again). */
int cli_host_open(const cli_ctx *ctx, const cli_host_args *a, cli_host *h);
void cli_host_close(cli_host *h);

/* The load report; as JSON its members ("config", "plugin_dirs",
 * "plugins") inside an object the caller opened. */
void cli_host_print_report(FILE *out, const cli_host *h);
void cli_host_json_report(cli_json *j, const cli_host *h);

/* The "config" and "store" members of a top-level JSON object. */
void cli_host_json_source(cli_json *j, const cli_host *h);

/* How a workload result is classified for the summary and the exit code. */
typedef enum cli_outcome {
  CLI_OUTCOME_CALIBRATED = 0, /* measured now and selected */
  CLI_OUTCOME_SELECTED,       /* selected from the store, nothing measured */
  CLI_OUTCOME_SKIPPED,        /* plugin not loaded or unavailable here */
  CLI_OUTCOME_NOT_SELECTED,   /* select: no stored selection */
  CLI_OUTCOME_FAILED          /* anything else */
} cli_outcome;
#define CLI_OUTCOME_COUNT ((size_t)CLI_OUTCOME_FAILED + 1)

cli_outcome cli_host_outcome(const olc_workload_result *r);
const char *cli_outcome_str(cli_outcome o);

/* Result `index` of cal: text (candidates when any were measured, the
 * chosen one marked "(best)", timings with verbose) or one JSON object. */
void cli_host_print_result(FILE *out, const olc_calibration *cal, size_t index, int verbose);
void cli_host_json_result(cli_json *j, const olc_calibration *cal, size_t index);

/* The rejections of a lookup result, as text lines ("rejected: ...") each
 * followed by the record when with_records, or as a JSON array. */
void cli_host_print_rejections(FILE *out, const olc_lookup_result *lr, const char *indent,
                               int with_records);
void cli_host_json_rejections(cli_json *j, const olc_lookup_result *lr);
/* The same for the rejected records of one source only (cli_source_match;
 * NULL: all); the text says how many of other sources it left out. */
void cli_host_print_rejections_from(FILE *out, const olc_lookup_result *lr, const char *indent,
                                    int with_records, const char *source);
void cli_host_json_rejections_from(cli_json *j, const olc_lookup_result *lr, const char *source);

/* ---- calibrate and select (cli_summary.c) ----------------------------- */

/* The value of the measurement name in unit on r, or -1 when r (may be
 * NULL) has none. */
double cli_summary_measurement(const olc_record *r, const char *name, const char *unit);
/* The plugin's first candidate's median over r's median (both saved by
 * olc_host_calibrate, olc/host.h), or -1 when r lacks either. */
double cli_summary_speedup(const olc_record *r);
/* 1 when r's speedup over the first candidate is sure: its interval's low
 * end (OLC_MEASUREMENT_SPEEDUP_LOW) is above 1, or r has none (the first
 * candidate won, or r predates it); 0 when the intervals overlap. */
int cli_summary_speedup_sure(const olc_record *r);
/* 1 when r is provisional: a budget cut its measurement short, or the
 * machine was busy (OLC_MEASUREMENT_CONTENDED). */
int cli_summary_provisional(const olc_record *r);

/* The table: a header and one line per workload (all, or with
 * problems_only those that failed or have no selection; nothing at all
 * when none is left), fitted to width columns, then a "note:" line for
 * each selection that came with a warning. */
void cli_summary_print(FILE *out, const olc_calibration *cal, size_t width, int problems_only);

/* What calibrate and select print: with a->json one JSON document, else
 * the table (its width: cli_output_width(out)), with a->verbose each
 * workload in detail after it, and the summary counts (and for calibrate,
 * or with verbose, the time), with a->quiet the table's problems only.
 * counts[o] receives the workloads of each outcome. */
void cli_calibration_print(FILE *out, const cli_host *h, const olc_calibration *cal,
                           const cli_host_args *a, int select_only,
                           size_t counts[CLI_OUTCOME_COUNT]);

#endif /* OLC_CLI_HOST_H */
