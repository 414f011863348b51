/*
 * host/cli/cli_summary.c - the results of olc calibrate and olc select as
 * a table, one line per workload (workload, outcome, level, policy,
 * median, speedup over the plugin's first candidate, time), fitted to the
 * output's width.  The workload name and the policy are the columns that
 * give way (a middle ellipsis); a workload without a selection shows why
 * instead, whole.  Text only: --json carries every string in full.
 */
#include "cli_host.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { COL_WORKLOAD, COL_OUTCOME, COL_LEVEL, COL_POLICY, COL_MEDIAN, COL_SPEEDUP, COL_TIME, COLS };

/* Narrowest the shortened columns become before lines overflow. */
#define MIN_WORKLOAD 8u
#define MIN_POLICY 10u
#define GAP 2u /* spaces between columns */

static const char *const headers[COLS] = {"workload", "outcome", "level", "policy",
                                          "median",   "speedup", "time"};

/* One line of the table: cells as shown (safe text), or why. */
typedef struct row {
  cli_outcome outcome;
  char *cell[COLS]; /* malloc'ed; NULL: "-" */
  char *why;        /* no selection: the message instead of level..time */
} row;

double cli_summary_measurement(const olc_record *r, const char *name, const char *unit) {
  size_t i;
  for (i = 0; r != NULL && i < r->measurement_count; i++)
    if (strcmp(r->measurements[i].name, name) == 0 && strcmp(r->measurements[i].unit, unit) == 0)
      return r->measurements[i].value;
  return -1;
}

double cli_summary_speedup(const olc_record *r) {
  double first = cli_summary_measurement(r, OLC_MEASUREMENT_FIRST_MEDIAN, "us");
  double median = cli_summary_measurement(r, OLC_MEASUREMENT_MEDIAN, "us");
  return first > 0 && median > 0 ? first / median : -1;
}

int cli_summary_speedup_sure(const olc_record *r) {
  double low = cli_summary_measurement(r, OLC_MEASUREMENT_SPEEDUP_LOW, "x");
  return !(low >= 0) || low > 1.0;
}

int cli_summary_provisional(const olc_record *r) {
  size_t i;
  for (i = 0; r != NULL && i < r->measurement_count; i++)
    if (strcmp(r->measurements[i].name, OLC_MEASUREMENT_BUDGET) == 0 ||
        strcmp(r->measurements[i].name, OLC_MEASUREMENT_CONTENDED) == 0)
      return 1;
  return 0;
}

/* v with decimals digits after the point, then suffix (" us", "x"). */
static char *format(double v, int decimals, const char *suffix) {
  char buf[48];
  snprintf(buf, sizeof buf, "%.*f%s", decimals, v, suffix);
  return cli_safe_text(buf);
}

/* A latency in us with a unit that keeps it short. */
static char *format_us(double us) {
  if (us < 0)
    return NULL;
  if (us < 1e3)
    return format(us, 1, " us");
  if (us < 1e6)
    return format(us / 1e3, 2, " ms");
  return format(us / 1e6, 2, " s");
}

static const char *outcome_text(cli_outcome o) {
  return o == CLI_OUTCOME_NOT_SELECTED ? "not selected" : cli_outcome_str(o);
}

static void row_fill(row *w, const olc_workload_result *r) {
  const olc_record *sel = r->selected;
  double speedup = cli_summary_speedup(sel);
  char level[40];
  memset(w, 0, sizeof *w);
  w->outcome = cli_host_outcome(r);
  w->cell[COL_WORKLOAD] = cli_safe_text(r->workload);
  w->cell[COL_OUTCOME] = cli_safe_text(outcome_text(w->outcome));
  w->cell[COL_TIME] = format(r->seconds, 2, " s");
  if (sel == NULL) {
    w->why = cli_safe_text(r->message != NULL ? r->message : olc_status_name(r->status));
    return;
  }
  snprintf(level, sizeof level, "%s%s%s", olc_level_str(sel->level),
           sel->origin == OLC_ORIGIN_OVERRIDE ? " override" : "",
           cli_summary_provisional(sel) ? " provisional" : "");
  w->cell[COL_LEVEL] = cli_safe_text(level);
  w->cell[COL_POLICY] = cli_safe_bytes(sel->policy, sel->policy_len);
  w->cell[COL_MEDIAN] = format_us(cli_summary_measurement(sel, OLC_MEASUREMENT_MEDIAN, "us"));
  /* A lead within the noise is not headlined: "?" says the intervals
   * overlap (a note under the table says so in words). */
  w->cell[COL_SPEEDUP] = speedup <= 0                    ? NULL
                         : cli_summary_speedup_sure(sel) ? format(speedup, 2, "x")
                                                         : format(speedup, 2, "x?");
}

static void row_free(row *w) {
  size_t c;
  for (c = 0; c < COLS; c++)
    free(w->cell[c]);
  free(w->why);
}

static const char *cell_text(const row *w, size_t c) {
  return w->cell[c] != NULL ? w->cell[c] : "-";
}

/* Column widths: the widest cell, then the workload and policy columns
 * narrowed until a line fits in width. */
static void layout(size_t widths[COLS], const row *rows, size_t n, size_t width) {
  size_t c, i, total = GAP * (COLS - 1);
  for (c = 0; c < COLS; c++) {
    widths[c] = strlen(headers[c]);
    for (i = 0; i < n; i++) {
      size_t w = rows[i].why != NULL && c >= COL_LEVEL ? 0 : cli_text_width(cell_text(&rows[i], c));
      if (w > widths[c])
        widths[c] = w;
    }
    total += widths[c];
  }
  /* One column at a time from the wider of the two, so that both keep
   * as much of their start and end as the width allows. */
  while (total > width) {
    int policy_can = widths[COL_POLICY] > MIN_POLICY,
        workload_can = widths[COL_WORKLOAD] > MIN_WORKLOAD;
    if (policy_can && (!workload_can || widths[COL_POLICY] >= widths[COL_WORKLOAD]))
      widths[COL_POLICY]--;
    else if (workload_can)
      widths[COL_WORKLOAD]--;
    else
      break;
    total--;
  }
}

/* Numbers are right-aligned, text left-aligned; no trailing blanks. */
static void put_cell(FILE *out, const char *text, size_t width, size_t c, int last) {
  size_t w = cli_text_width(text);
  if (c >= COL_MEDIAN)
    for (; w < width; w++)
      fputc(' ', out);
  cli_put_fitted(out, text, width, !last && c < COL_MEDIAN);
  if (!last)
    fprintf(out, "%*s", (int)GAP, "");
}

static void put_row(FILE *out, const row *w, const size_t widths[COLS]) {
  size_t c;
  for (c = 0; c < COLS; c++) {
    if (w->why != NULL && c == COL_LEVEL) {
      fputs(w->why, out); /* whole: it is the reason */
      break;
    }
    put_cell(out, cell_text(w, c), widths[c], c, c + 1 == COLS);
  }
  fputc('\n', out);
}

static void put_header(FILE *out, const size_t widths[COLS]) {
  size_t c;
  for (c = 0; c < COLS; c++)
    put_cell(out, headers[c], widths[c], c, c + 1 == COLS);
  fputc('\n', out);
}

static int is_problem(cli_outcome o) {
  return o == CLI_OUTCOME_FAILED || o == CLI_OUTCOME_NOT_SELECTED;
}

void cli_summary_print(FILE *out, const olc_calibration *cal, size_t width, int problems_only) {
  size_t i, shown = 0, n = olc_calibration_count(cal), widths[COLS];
  row *rows = calloc(n > 0 ? n : 1, sizeof *rows);
  if (rows == NULL)
    return;
  for (i = 0; i < n; i++) {
    row_fill(&rows[i], olc_calibration_get(cal, i));
    if (!problems_only || is_problem(rows[i].outcome))
      rows[shown++] = rows[i];
    else
      row_free(&rows[i]);
  }
  layout(widths, rows, shown, width);
  if (shown > 0)
    put_header(out, widths);
  for (i = 0; i < shown; i++) {
    put_row(out, &rows[i], widths);
    row_free(&rows[i]);
  }
  /* A selection that came with a warning (measured in-process, a busy
   * machine), or whose speedup is not sure. */
  for (i = 0; i < n; i++) {
    const olc_workload_result *r = olc_calibration_get(cal, i);
    if (r->status == OLC_OK && r->message != NULL && r->message[0] != 0) {
      fputs("note: ", out);
      cli_put_safe(out, r->workload);
      fputs(": ", out);
      cli_put_safe(out, r->message);
      fputc('\n', out);
    }
    if (r->selected != NULL && cli_summary_speedup(r->selected) > 0 &&
        !cli_summary_speedup_sure(r->selected)) {
      fputs("note: ", out);
      cli_put_safe(out, r->workload);
      fprintf(out,
              ": not sure of the pick: its lead over the plugin's first guess (%.2fx) is within "
              "the noise (the intervals overlap; at least %.2fx)\n",
              cli_summary_speedup(r->selected),
              cli_summary_measurement(r->selected, OLC_MEASUREMENT_SPEEDUP_LOW, "x"));
    }
  }
  free(rows);
}

static void print_counts(FILE *out, const size_t *c, int select_only) {
  if (select_only)
    fprintf(out, "summary: %zu selected, %zu not selected, %zu skipped, %zu failed\n",
            c[CLI_OUTCOME_SELECTED], c[CLI_OUTCOME_NOT_SELECTED], c[CLI_OUTCOME_SKIPPED],
            c[CLI_OUTCOME_FAILED]);
  else
    fprintf(out,
            "summary: %zu calibrated now, %zu selected from the store, %zu skipped, "
            "%zu failed\n",
            c[CLI_OUTCOME_CALIBRATED], c[CLI_OUTCOME_SELECTED], c[CLI_OUTCOME_SKIPPED],
            c[CLI_OUTCOME_FAILED] + c[CLI_OUTCOME_NOT_SELECTED]);
}

static void print_text(FILE *out, const olc_calibration *cal, const cli_host_args *a,
                       int select_only, const size_t *counts, double seconds) {
  size_t i, n = olc_calibration_count(cal);
  int width = cli_output_width(out);
  cli_summary_print(out, cal, width > 0 ? (size_t)width : SIZE_MAX, a->quiet);
  if (a->quiet)
    return;
  if (a->verbose) {
    /* The detail after the summary: candidates, records, rejections. */
    for (i = 0; i < n; i++) {
      fputc('\n', out);
      cli_host_print_result(out, cal, i, 1);
    }
    fputc('\n', out);
  }
  print_counts(out, counts, select_only);
  if (!select_only || a->verbose)
    fprintf(out, "time: %.3f s\n", seconds);
}

static void print_json(FILE *out, const cli_host *h, const olc_calibration *cal,
                       const size_t *counts, double seconds) {
  size_t i, n = olc_calibration_count(cal);
  cli_json j;
  cli_json_document(&j, out);
  cli_host_json_source(&j, h);
  cli_json_key(&j, "workloads");
  cli_json_begin_array(&j);
  for (i = 0; i < n; i++) {
    cli_json_break(&j);
    cli_host_json_result(&j, cal, i);
  }
  cli_json_end_array(&j);
  cli_json_key(&j, "summary");
  cli_json_begin_object(&j);
  for (i = 0; i <= CLI_OUTCOME_FAILED; i++) {
    cli_json_key(&j, cli_outcome_str((cli_outcome)i));
    cli_json_int(&j, (int64_t)counts[i]);
  }
  cli_json_key(&j, "seconds");
  cli_json_double(&j, seconds);
  cli_json_end_object(&j);
  cli_json_end_object(&j);
  cli_json_newline(&j);
}

void cli_calibration_print(FILE *out, const cli_host *h, const olc_calibration *cal,
                           const cli_host_args *a, int select_only,
                           size_t counts[CLI_OUTCOME_COUNT]) {
  size_t i, n = olc_calibration_count(cal);
  double seconds = 0;
  memset(counts, 0, CLI_OUTCOME_COUNT * sizeof *counts);
  for (i = 0; i < n; i++) {
    const olc_workload_result *r = olc_calibration_get(cal, i);
    counts[cli_host_outcome(r)]++;
    seconds += r->seconds;
  }
  if (a->json)
    print_json(out, h, cal, counts, seconds);
  else
    print_text(out, cal, a, select_only, counts, seconds);
}
