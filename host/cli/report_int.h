/*
 * host/cli/report_int.h - what the report's files share: HTML-escaped
 * text (report_escape.c), the document (report_html.c) and the plot of one
 * workload's candidates (report_plot.c).
 */
#ifndef OLC_CLI_REPORT_INT_H
#define OLC_CLI_REPORT_INT_H

#include <stddef.h>
#include <stdio.h>

#include "cli_host.h"

/*
 * Writes s[0..len) as HTML text that is also safe inside a quoted
 * attribute: & < > " ' as character references, well-formed UTF-8 as it
 * is, control bytes, DEL and malformed UTF-8 as the visible text \xHH, C1
 * controls, bidi controls and other invisible format characters as the
 * visible text <U+XXXX>.
 * Nothing a plugin or a configuration says can open a tag or leave an
 * attribute.
 */
void cli_html_text(FILE *f, const unsigned char *s, size_t len);
/* The same for a NUL-terminated string; NULL writes nothing. */
void cli_html_str(FILE *f, const char *s);
/* A value from a plugin, the configuration or the store in element
 * content: cli_html_text inside <bdi>, so that its direction (a right-to-
 * left name, say) cannot reorder the report's text around it.  Not for
 * attributes or SVG text. */
void cli_html_value_text(FILE *f, const unsigned char *s, size_t len);
/* The same for a NUL-terminated string; NULL writes nothing. */
void cli_html_value(FILE *f, const char *s);

/* The whole document (report_html.h's cli_report_commit writes it). */
void cli_report_write(FILE *f, const cli_host *h, const olc_calibration *cal, int select_only);

/*
 * The inline SVG of workload i's candidates: per candidate one row with
 * its run times as dots (at most a few hundred, evenly spaced quantiles of
 * a longer sample), the box of its middle half and its median, on a
 * shared time axis (logarithmic when the runs span more than a factor of
 * 20).  winner is the candidate measuring chose (or candidate_count); row
 * 0 is the plugin's first guess.  Candidates without kept run times show
 * their median and MAD only.
 */
void cli_report_plot(FILE *f, const olc_calibration *cal, size_t i, size_t winner);

#endif /* OLC_CLI_REPORT_INT_H */
