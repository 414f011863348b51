/*
 * host/cli/report_html.c - the report document (report_int.h): a header
 * with where the configuration and the store came from, then one section
 * per workload: its outcome, the speedup of the winner over the plugin's
 * first guess, the plot of the candidates' run times, a table saying why
 * each candidate that did not win lost, the selected record and the
 * rejected records with their reasons.
 *
 * The page carries a Content-Security-Policy that allows no script and no
 * fetch, so even markup that got past the escaping could do nothing; every
 * string from a plugin, the configuration or the store goes through
 * cli_html_value (escaped, invisible characters visible, isolated).
 */
#include "report_html.h"
#include "report_int.h"

#include <string.h>
#include <time.h>

static const char report_css[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:#1f2328;"
    "background:#fff;margin:24px auto;max-width:980px;padding:0 16px}\n"
    "h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:0 0 4px}"
    "h3{font-size:14px;margin:14px 0 4px}\n"
    ".meta{color:#57606a;margin:0}.summary{margin:6px 0 18px}\n"
    "section.workload{border:1px solid #d0d7de;border-radius:6px;padding:14px 16px;"
    "margin:0 0 18px}\n"
    ".outcome{font-size:12px;font-weight:600;border-radius:10px;padding:1px 8px;"
    "margin-left:8px;vertical-align:middle;color:#fff;background:#6e7781}\n"
    ".outcome-calibrated{background:#1a7f37}.outcome-selected{background:#0969da}"
    ".outcome-failed,.outcome-not_selected{background:#cf222e}\n"
    ".ident{color:#57606a;margin:0 0 8px}code{font:12px ui-monospace,monospace;"
    "background:#f6f8fa;padding:1px 4px;border-radius:4px;overflow-wrap:anywhere}\n"
    "td.policy{min-width:10em;max-width:22em}\n"
    ".speedup{font-size:15px;margin:8px 0}.speedup b{color:#1a7f37}\n"
    ".error{color:#cf222e}.note{color:#9a6700}\n"
    "table{border-collapse:collapse;width:100%;font-size:13px;margin:6px 0}"
    "th,td{border-bottom:1px solid #d8dee4;padding:3px 6px;text-align:left;"
    "vertical-align:top}th{background:#f6f8fa}td.num{text-align:right;"
    "font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    "tr.winner td{background:#dafbe1}tr.first td:first-child{border-left:3px solid #0969da}\n"
    "ul.rejected{margin:4px 0;padding-left:20px}.reason{font-weight:600}\n"
    "svg.plot{max-width:100%;height:auto;display:block;margin:8px 0}\n"
    "svg .grid{stroke:#d8dee4;stroke-width:1}svg .tick,svg .axis-label{font-size:11px;"
    "fill:#57606a}\n"
    "svg .label{font-size:12px;fill:#1f2328}svg .band{fill:#dafbe1}\n"
    "svg .box{fill:#6e7781;fill-opacity:.18;stroke:#6e7781;stroke-width:1}\n"
    "svg .dot{fill:#6e7781;fill-opacity:.55}svg .median{stroke:#1f2328;stroke-width:2}\n"
    "svg .winner .dot{fill:#1a7f37}svg .winner .box{fill:#1a7f37;stroke:#1a7f37}"
    "svg .winner .median{stroke:#116329}\n"
    "svg .first .dot{fill:#0969da}svg .first .box{fill:#0969da;stroke:#0969da}\n"
    "svg .failed{font-size:12px;fill:#cf222e}\n"
    "footer{color:#57606a;font-size:12px;margin-top:24px}\n";

static void head(FILE *f) {
  fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n" CLI_REPORT_MARKER
        "\n<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "style-src 'unsafe-inline'\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        "<title>olc calibration report</title>\n<style>\n",
        f);
  fputs(report_css, f);
  fputs("</style>\n</head>\n<body>\n", f);
}

static void page_header(FILE *f, const cli_host *h, const olc_calibration *cal, int select_only) {
  size_t i, n = olc_calibration_count(cal), by[CLI_OUTCOME_FAILED + 1];
  double seconds = 0;
  memset(by, 0, sizeof by);
  for (i = 0; i < n; i++) {
    by[cli_host_outcome(olc_calibration_get(cal, i))]++;
    seconds += olc_calibration_get(cal, i)->seconds;
  }
  fprintf(f, "<header>\n<h1>olc %s report</h1>\n<p class=\"meta\">config <code>",
          select_only ? "selection" : "calibration");
  cli_html_value(f, olc_config_source(h->config));
  fputs("</code> &middot; store <code>", f);
  cli_html_value(f, olc_store_path(h->store));
  fputs("</code></p>\n", f);
  fprintf(f,
          "<p class=\"summary\">%zu workload%s: %zu calibrated now, %zu selected from the "
          "store, %zu not selected, %zu skipped, %zu failed &middot; %.3f s</p>\n</header>\n",
          n, n == 1 ? "" : "s", by[CLI_OUTCOME_CALIBRATED], by[CLI_OUTCOME_SELECTED],
          by[CLI_OUTCOME_NOT_SELECTED], by[CLI_OUTCOME_SKIPPED], by[CLI_OUTCOME_FAILED], seconds);
}

static const char *outcome_text(cli_outcome o) {
  switch (o) {
  case CLI_OUTCOME_CALIBRATED:
    return "calibrated now";
  case CLI_OUTCOME_SELECTED:
    return "selected from the store";
  case CLI_OUTCOME_SKIPPED:
    return "skipped";
  case CLI_OUTCOME_NOT_SELECTED:
    return "not selected";
  case CLI_OUTCOME_FAILED:
    break;
  }
  return "failed";
}

static void workload_heading(FILE *f, const olc_workload_result *r) {
  cli_outcome o = cli_host_outcome(r);
  fputs("<h2>", f);
  cli_html_value(f, r->workload);
  fprintf(f, "<span class=\"outcome outcome-%s\">%s</span></h2>\n", cli_outcome_str(o),
          outcome_text(o));
  fputs("<p class=\"ident\">backend <code>", f);
  cli_html_value(f, r->backend);
  fputs("</code> operator <code>", f);
  cli_html_value(f, r->operator_name);
  fprintf(f, "</code> &middot; %.3f s</p>\n", r->seconds);
  if (r->message != NULL && r->message[0] != 0) {
    fputs(r->status == OLC_OK ? "<p class=\"note\">note: " : "<p class=\"error\">", f);
    if (r->status != OLC_OK)
      fprintf(f, "%s: ", olc_status_name(r->status));
    cli_html_value(f, r->message);
    fputs("</p>\n", f);
  }
}

/* The winner against the plugin's first guess, in one sentence. */
static void speedup(FILE *f, const olc_workload_result *r, size_t w) {
  const olc_candidate_result *first = &r->candidates[0];
  fputs("<p class=\"speedup\">", f);
  if (w >= r->candidate_count)
    fputs("No candidate won.", f);
  else if (w == 0)
    fprintf(f, "The plugin's first guess <b>#1</b> won (median %.3f us): <b>1.00x</b>.",
            first->median_us);
  else if (first->status != OLC_OK || !(r->candidates[w].median_us > 0) || first->samples == 0)
    fprintf(f, "Winner <b>#%zu</b> (median %.3f us); the plugin's first guess failed (%s).", w + 1,
            r->candidates[w].median_us, olc_status_name(first->status));
  else if (!cli_summary_speedup_sure(r->selected))
    /* Intervals that overlap: no headline, and how sure it is. */
    fprintf(f,
            "Winner <b>#%zu</b> is not surely faster than the plugin's first guess #1: "
            "%.2fx by the medians (%.3f us against %.3f us), within the noise (the intervals "
            "overlap; at least %.2fx).",
            w + 1, first->median_us / r->candidates[w].median_us, r->candidates[w].median_us,
            first->median_us,
            cli_summary_measurement(r->selected, OLC_MEASUREMENT_SPEEDUP_LOW, "x"));
  else
    fprintf(f,
            "Winner <b>#%zu</b> is <b>%.2fx</b> faster than the plugin's first guess #1 "
            "(median %.3f us against %.3f us).",
            w + 1, first->median_us / r->candidates[w].median_us, r->candidates[w].median_us,
            first->median_us);
  if (cli_summary_provisional(r->selected))
    fputs(" The record is provisional (a budget ended the measurement, or the machine was "
          "busy): olc calibrate --refine measures it again.",
          f);
  if (r->selected != NULL && r->selected->origin == OLC_ORIGIN_OVERRIDE)
    fputs(" An override was selected all the same (see below).", f);
  fputs("</p>\n", f);
}

/* Why candidate i, which is not the winner w, lost. */
static void why_lost(FILE *f, const olc_workload_result *r, size_t i, size_t w) {
  const olc_candidate_result *c = &r->candidates[i];
  if (c->status != OLC_OK)
    fprintf(f, "failed (%s): ", olc_status_name(c->status));
  if (c->message != NULL && c->message[0] != 0)
    cli_html_value(f, c->message);
  else if (c->status != OLC_OK || w >= r->candidate_count)
    return;
  else if (c->median_us < r->candidates[w].median_us)
    fputs("a lead within the noise: the first guess keeps a tie", f);
  else
    fprintf(f, "slower than the winner (%.2fx its median)",
            r->candidates[w].median_us > 0 ? c->median_us / r->candidates[w].median_us : 0.0);
}

static void candidate_row(FILE *f, const olc_workload_result *r, size_t i, size_t w) {
  const olc_candidate_result *c = &r->candidates[i];
  const olc_candidate_result *first = &r->candidates[0];
  fprintf(f, "<tr class=\"%s\"><td class=\"num\">#%zu</td><td class=\"policy\"><code>",
          i == w   ? "winner"
          : i == 0 ? "first"
                   : "lost",
          i + 1);
  cli_html_value_text(f, c->policy, c->policy_len);
  fputs("</code></td>", f);
  if (c->status == OLC_OK && c->samples > 0) {
    fprintf(f, "<td class=\"num\">%.3f</td><td class=\"num\">%.3f</td><td class=\"num\">%u</td>",
            c->median_us, c->spread_us, (unsigned)c->samples);
    if (first->status == OLC_OK && first->samples > 0 && c->median_us > 0)
      fprintf(f, "<td class=\"num\">%.2fx</td>", first->median_us / c->median_us);
    else
      fputs("<td></td>", f);
  } else {
    fputs("<td></td><td></td><td class=\"num\">0</td><td></td>", f);
  }
  fputs("<td>", f);
  if (i == w)
    fputs("<b>winner</b>", f);
  if (i == 0)
    fputs(i == w ? ", the plugin's first guess" : "the plugin's first guess; ", f);
  if (i != w)
    why_lost(f, r, i, w);
  fputs("</td></tr>\n", f);
}

static void candidates(FILE *f, const olc_calibration *cal, size_t wi) {
  const olc_workload_result *r = olc_calibration_get(cal, wi);
  size_t i, w = olc_calibration_winner(cal, wi);
  speedup(f, r, w);
  cli_report_plot(f, cal, wi, w);
  fputs("<table class=\"candidates\">\n<tr><th>#</th><th>policy</th><th>median us</th>"
        "<th>MAD us</th><th>runs</th><th>speedup vs #1</th><th>outcome</th></tr>\n",
        f);
  for (i = 0; i < r->candidate_count; i++)
    candidate_row(f, r, i, w);
  fputs("</table>\n", f);
}

static const olc_measurement *find_measurement(const olc_record *rec, const char *name) {
  size_t i;
  for (i = 0; i < rec->measurement_count; i++)
    if (strcmp(rec->measurements[i].name, name) == 0)
      return &rec->measurements[i];
  return NULL;
}

/* Nothing measured now: the speedup the record kept from its calibration
 * (the first candidate's median beside the winner's), when it has both. */
static void stored_speedup(FILE *f, const olc_record *rec) {
  const olc_measurement *w = find_measurement(rec, "median_latency");
  const olc_measurement *first = find_measurement(rec, "first_candidate_median_latency");
  if (w == NULL || first == NULL || !(w->value > 0) || !(first->value > 0))
    return;
  if (!cli_summary_speedup_sure(rec)) {
    fprintf(f,
            "<p class=\"speedup\">When it was calibrated, the selected policy was not surely "
            "faster than the plugin's first guess: %.2fx by the medians (%g against %g), within "
            "the noise.</p>\n",
            first->value / w->value, w->value, first->value);
    return;
  }
  fprintf(f,
          "<p class=\"speedup\">When it was calibrated, the selected policy was <b>%.2fx</b> "
          "faster than the plugin's first guess (median %g ",
          first->value / w->value, w->value);
  cli_html_value(f, w->unit);
  fprintf(f, " against %g ", first->value);
  cli_html_value(f, first->unit);
  fputs(").</p>\n", f);
}

static void record_html(FILE *f, const olc_record *rec) {
  size_t i;
  fprintf(f, "<p>%s %s &middot; implementation <code>", olc_level_str(rec->level),
          olc_origin_str(rec->origin));
  cli_html_value(f, rec->implementation);
  fputs("</code>", f);
  if (rec->level == OLC_LEVEL_EXACT) {
    fputs(" &middot; processor <code>", f);
    cli_html_value(f, rec->processor);
    fprintf(f, "</code> &middot; %lld threads", (long long)rec->thread_count);
  }
  fputs("<br>policy <code>", f);
  cli_html_value_text(f, rec->policy, rec->policy_len);
  fputs("</code>", f);
  for (i = 0; i < rec->measurement_count; i++) {
    fputs(i == 0 ? "<br>" : " &middot; ", f);
    cli_html_value(f, rec->measurements[i].name);
    fprintf(f, " %g ", rec->measurements[i].value);
    cli_html_value(f, rec->measurements[i].unit);
  }
  fputs("</p>\n", f);
}

static void rejections(FILE *f, const olc_lookup_result *lr) {
  size_t i, n = lr != NULL ? olc_lookup_result_rejected_count(lr) : 0;
  if (n == 0)
    return;
  fprintf(f, "<h3>Rejected records (%zu)</h3>\n<ul class=\"rejected\">\n", n);
  for (i = 0; i < n; i++) {
    const olc_rejection *rej = olc_lookup_result_rejected(lr, i);
    if (rej == NULL)
      continue;
    fprintf(f, "<li><span class=\"reason\">%s</span> %s %s: ", olc_reason_str(rej->reason),
            olc_level_str(rej->record->level), olc_origin_str(rej->record->origin));
    cli_html_value(f, rej->message);
    fputs(" (policy <code>", f);
    cli_html_value_text(f, rej->record->policy, rej->record->policy_len);
    fputs("</code>)</li>\n", f);
  }
  fputs("</ul>\n", f);
}

static void workload(FILE *f, const olc_calibration *cal, size_t i) {
  const olc_workload_result *r = olc_calibration_get(cal, i);
  fprintf(f, "<section class=\"workload\" id=\"workload-%zu\">\n", i + 1);
  workload_heading(f, r);
  if (r->candidate_count > 0)
    candidates(f, cal, i);
  if (r->selected != NULL) {
    if (r->candidate_count == 0)
      stored_speedup(f, r->selected);
    fputs("<h3>Selected record</h3>\n", f);
    record_html(f, r->selected);
  }
  rejections(f, r->lookup);
  fputs("</section>\n", f);
}

void cli_report_write(FILE *f, const cli_host *h, const olc_calibration *cal, int select_only) {
  size_t i, n = olc_calibration_count(cal);
  char when[40] = "";
  time_t now = time(NULL);
  const struct tm *tm = gmtime(&now);
  if (tm != NULL)
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", tm);
  head(f);
  page_header(f, h, cal, select_only);
  for (i = 0; i < n; i++)
    workload(f, cal, i);
  fprintf(f, "<footer>olc %s &middot; %s</footer>\n</body>\n</html>\n", olc_version(), when);
}
