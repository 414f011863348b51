/*
 * host/cli/report_plot.c - one workload's candidates as an inline SVG strip
 * and box plot (report_int.h).  Geometry is in SVG user units; the CSS of
 * the document (report_html.c) gives the classes their colours.
 */
#include "report_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PLOT_W 760.0
#define PLOT_LEFT 176.0 /* the candidates' labels */
#define PLOT_RIGHT 24.0
#define PLOT_TOP 8.0
#define ROW_H 28.0
#define AXIS_H 36.0
/* More dots than this per row only blacken it: a longer sample is shown
 * by this many evenly spaced quantiles. */
#define MAX_DOTS 240u
#define LOG_SPAN 20.0 /* max / min beyond which the axis is logarithmic */

typedef struct axis {
  double lo, hi; /* the domain, us */
  int log;
} axis;

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double axis_x(const axis *a, double v) {
  double t;
  if (a->log)
    t = (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo));
  else
    t = (v - a->lo) / (a->hi - a->lo);
  if (t < 0)
    t = 0;
  if (t > 1)
    t = 1;
  return PLOT_LEFT + t * (PLOT_W - PLOT_LEFT - PLOT_RIGHT);
}

/* The range of every value shown: kept runs, or median +- MAD. */
static int data_range(const olc_calibration *cal, size_t wi, double *lo, double *hi) {
  const olc_workload_result *r = olc_calibration_get(cal, wi);
  size_t i, k;
  int any = 0;
  for (i = 0; i < r->candidate_count; i++) {
    const olc_candidate_result *c = &r->candidates[i];
    const double *v;
    size_t n = olc_calibration_samples(&v, cal, wi, i);
    double a = c->median_us - c->spread_us, b = c->median_us + c->spread_us;
    if (c->status != OLC_OK || c->samples == 0)
      continue;
    for (k = 0; k < n; k++) {
      a = v[k] < a ? v[k] : a;
      b = v[k] > b ? v[k] : b;
    }
    if (!(a > 0))
      a = c->median_us > 0 ? c->median_us : 1e-3;
    *lo = any && *lo < a ? *lo : a;
    *hi = any && *hi > b ? *hi : b;
    any = 1;
  }
  return any;
}

static void make_axis(axis *a, double lo, double hi) {
  double pad;
  a->log = hi / lo > LOG_SPAN;
  if (a->log) {
    a->lo = lo / 1.2;
    a->hi = hi * 1.2;
    return;
  }
  pad = (hi - lo) * 0.08;
  if (pad <= 0)
    pad = hi * 0.05 + 1e-3;
  a->lo = lo - pad > 0 ? lo - pad : 0;
  a->hi = hi + pad;
}

static void tick(FILE *f, const axis *a, double v, double y0, double y1) {
  double x = axis_x(a, v);
  fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x, y0, x,
          y1);
  fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n", x,
          y1 + 14, v);
}

static void draw_axis(FILE *f, const axis *a, double y0, double y1) {
  if (a->log) {
    static const double steps[] = {1, 2, 5};
    double d;
    for (d = pow(10, floor(log10(a->lo))); d <= a->hi; d *= 10) {
      size_t s;
      for (s = 0; s < 3; s++)
        if (d * steps[s] >= a->lo && d * steps[s] <= a->hi)
          tick(f, a, d * steps[s], y0, y1);
    }
  } else {
    double raw = (a->hi - a->lo) / 6, mag = pow(10, floor(log10(raw))), step, v;
    step = raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag : raw / mag < 7.5 ? 5 * mag : 10 * mag;
    for (v = ceil(a->lo / step) * step; v <= a->hi; v += step)
      tick(f, a, fabs(v) < step * 1e-9 ? 0 : v, y0, y1);
  }
  fprintf(f,
          "<text class=\"axis-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">run time "
          "(us%s)</text>\n",
          (PLOT_LEFT + PLOT_W - PLOT_RIGHT) / 2, y1 + 30, a->log ? ", log scale" : "");
}

/* The row's dots, box and median from the sorted run times s[0..n). */
static void draw_runs(FILE *f, const axis *a, const double *s, size_t n, double ymid) {
  size_t k, shown = n > MAX_DOTS ? MAX_DOTS : n;
  double q1 = s[(n - 1) / 4], q3 = s[(3 * (n - 1)) / 4];
  double x1 = axis_x(a, q1), x3 = axis_x(a, q3);
  fprintf(f,
          "<rect class=\"box\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
          "rx=\"2\"/>\n",
          x1, ymid - ROW_H * 0.3, x3 - x1 > 1 ? x3 - x1 : 1, ROW_H * 0.6);
  for (k = 0; k < shown; k++) {
    size_t at = shown > 1 ? k * (n - 1) / (shown - 1) : 0;
    /* A fixed jitter spreads equal values over the row's height. */
    double dy = ((double)((k * 7u) % 11u) - 5.0) / 5.0 * ROW_H * 0.26;
    fprintf(f, "<circle class=\"dot\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.2\"/>", axis_x(a, s[at]),
            ymid + dy);
    if (k % 8 == 7)
      fputc('\n', f);
  }
  fputc('\n', f);
}

static void draw_label(FILE *f, size_t i, size_t winner, double ymid) {
  fprintf(f, "<text class=\"label\" x=\"8\" y=\"%.1f\">#%zu", ymid + 4, i + 1);
  if (i == 0)
    fputs(" first guess", f);
  if (i == winner)
    fputs(" \xe2\x98\x85 winner", f); /* U+2605 black star */
  fputs("</text>\n", f);
}

static void draw_row(FILE *f, const olc_calibration *cal, size_t wi, size_t i, size_t winner,
                     const axis *a) {
  const olc_candidate_result *c = &olc_calibration_get(cal, wi)->candidates[i];
  double y = PLOT_TOP + ROW_H * (double)i, ymid = y + ROW_H / 2;
  const char *cls = i == winner ? "row winner" : i == 0 ? "row first" : "row lost";
  const double *v;
  size_t n = olc_calibration_samples(&v, cal, wi, i);
  fprintf(f, "<g class=\"%s\"><title>#%zu: ", cls, i + 1);
  if (c->status != OLC_OK)
    fprintf(f, "failed (%s)", olc_status_name(c->status));
  else
    fprintf(f, "median %.3f us, MAD %.3f us, %u runs", c->median_us, c->spread_us,
            (unsigned)c->samples);
  fputs("</title>\n", f);
  if (i == winner)
    fprintf(f, "<rect class=\"band\" x=\"0\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n", y,
            PLOT_W, ROW_H);
  draw_label(f, i, winner, ymid);
  if (c->status != OLC_OK || c->samples == 0) {
    fprintf(f, "<text class=\"failed\" x=\"%.1f\" y=\"%.1f\">failed: %s</text>\n", PLOT_LEFT,
            ymid + 4, olc_status_name(c->status));
  } else {
    double *s = n > 0 ? malloc(n * sizeof *s) : NULL;
    if (s != NULL) {
      memcpy(s, v, n * sizeof *s);
      qsort(s, n, sizeof *s, cmp_double);
      draw_runs(f, a, s, n, ymid);
      free(s);
    } else { /* run times not kept: the median and its MAD */
      double x1 = axis_x(a, c->median_us - c->spread_us),
             x3 = axis_x(a, c->median_us + c->spread_us);
      fprintf(f, "<rect class=\"box\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n", x1,
              ymid - ROW_H * 0.3, x3 - x1 > 1 ? x3 - x1 : 1, ROW_H * 0.6);
    }
    fprintf(f, "<line class=\"median\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
            axis_x(a, c->median_us), ymid - ROW_H * 0.42, axis_x(a, c->median_us),
            ymid + ROW_H * 0.42);
  }
  fputs("</g>\n", f);
}

void cli_report_plot(FILE *f, const olc_calibration *cal, size_t wi, size_t winner) {
  const olc_workload_result *r = olc_calibration_get(cal, wi);
  double lo = 0, hi = 0, rows_h, height;
  axis a;
  size_t i;
  if (r == NULL || r->candidate_count == 0 || !data_range(cal, wi, &lo, &hi))
    return;
  make_axis(&a, lo, hi);
  rows_h = ROW_H * (double)r->candidate_count;
  height = PLOT_TOP + rows_h + AXIS_H + 8;
  fprintf(f,
          "<svg class=\"plot\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %.0f\" "
          "width=\"%.0f\" height=\"%.0f\" role=\"img\" aria-label=\"run times of %zu "
          "candidate%s\">\n",
          PLOT_W, height, PLOT_W, height, r->candidate_count, r->candidate_count == 1 ? "" : "s");
  draw_axis(f, &a, PLOT_TOP, PLOT_TOP + rows_h);
  for (i = 0; i < r->candidate_count; i++)
    draw_row(f, cal, wi, i, winner, &a);
  fputs("</svg>\n", f);
}
