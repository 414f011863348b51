/*
 * host/cli/report_html.h - olc calibrate/select --report FILE.html: one
 * self-contained HTML file (inline CSS and SVG, no script, nothing
 * fetched) that shows per workload the candidates' run-time distributions,
 * the winner, the plugin's first guess, the speedup of the one over the
 * other and why every other candidate or record lost.
 *
 * The file is written atomically: a temporary file in the report's
 * directory is created before measuring (a bad path fails at once, not
 * after a long calibration), filled at the end, and renamed over FILE.
 */
#ifndef OLC_CLI_REPORT_HTML_H
#define OLC_CLI_REPORT_HTML_H

#include <stddef.h>

#include "cli_host.h"

/* A report file being written: the temporary file next to its path. */
typedef struct cli_report_file {
  const char *path; /* borrowed: the report's final path */
  char *tmp_path;   /* owned; NULL when nothing is open */
  FILE *f;
} cli_report_file;

/*
 * Creates the temporary file in path's directory.  Returns CLI_EXIT_OK, or
 * prints one line naming path ("olc: CMD: report PATH: why") and returns
 * CLI_EXIT_FAILURE with nothing left behind.
 */
int cli_report_open(const cli_ctx *ctx, cli_report_file *rf, const char *path);

/*
 * Writes the report of cal into the temporary file and renames it over
 * the path (select_only: olc select, nothing measured).  Returns
 * CLI_EXIT_OK, or prints one line naming the path and returns
 * CLI_EXIT_FAILURE; the temporary file is removed either way.
 */
int cli_report_commit(const cli_ctx *ctx, cli_report_file *rf, const cli_host *h,
                      const olc_calibration *cal, int select_only);

/* Removes the temporary file, if any (a failed run writes no report).
 * Safe on a file that was never opened (zeroed). */
void cli_report_discard(cli_report_file *rf);

#endif /* OLC_CLI_REPORT_HTML_H */
