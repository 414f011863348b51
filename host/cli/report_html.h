/*
 * host/cli/report_html.h - olc calibrate/select --report FILE.html: one
 * self-contained HTML file (inline CSS and SVG, no script, nothing
 * fetched) that shows per workload the candidates' run-time distributions,
 * the winner, the plugin's first guess, the speedup of the one over the
 * other and why every other candidate or record lost.
 *
 * The file is written atomically: a temporary file in the report's
 * directory, filled at the end and renamed over FILE.  Before measuring,
 * such a file is created and removed again, so that a bad path fails at
 * once, not after a long calibration, and an interrupted run leaves no
 * temporary file behind.
 */
#ifndef OLC_CLI_REPORT_HTML_H
#define OLC_CLI_REPORT_HTML_H

#include <stddef.h>

#include "cli_host.h"

/* In the first 256 bytes of every report: what tells a report from any
 * other file, the only kind of file --report replaces. */
#define CLI_REPORT_MARKER "<meta name=\"generator\" content=\"olc calibration report\">"

/* A report file: its path and, while it is written, the temporary file
 * beside it. */
typedef struct cli_report_file {
  const char *path; /* borrowed: the report's final path */
  char *tmp_path;   /* owned; NULL when no temporary file exists */
  FILE *f;          /* the temporary file, while it is written */
} cli_report_file;

/*
 * Checks that path can take the report: absent or an olc report (its
 * CLI_REPORT_MARKER); not the store of h (made or not), a lock file (of
 * that store, or PATH.lock beside an existing file) or a store's
 * temporary (the targets olc export refuses); not a directory, a link or
 * another special file; and a temporary file can be created in its
 * directory (it is removed again).  Returns CLI_EXIT_OK, or prints one
 * line naming path ("olc: CMD: report PATH: why") and returns
 * CLI_EXIT_FAILURE.  Nothing is left behind either way.
 */
int cli_report_open(const cli_ctx *ctx, cli_report_file *rf, const char *path, const cli_host *h);

/*
 * Writes the report of cal into a new temporary file beside the path,
 * syncs it and renames it over the path (select_only: olc select, nothing
 * measured), after checking the path again as cli_report_open does (a
 * store or another file may have appeared meanwhile).  Returns
 * CLI_EXIT_OK, or prints one line naming the path and returns
 * CLI_EXIT_FAILURE; the temporary file is removed either way.
 */
int cli_report_commit(const cli_ctx *ctx, cli_report_file *rf, const cli_host *h,
                      const olc_calibration *cal, int select_only);

/* Removes the temporary file, if any (a failed run writes no report).
 * Safe on a zeroed cli_report_file and after a commit. */
void cli_report_discard(cli_report_file *rf);

#endif /* OLC_CLI_REPORT_HTML_H */
