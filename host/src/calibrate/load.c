/*
 * calibrate/load.c - the load source's test hook and the watch's verdict
 * (load.h).  The platform's readings are in load_posix.c / load_win32.c.
 *
 * The limits are relative: to the CPUs the workload's threads leave free,
 * to the CPU time that passed, to the reference's own fastest turn and to
 * each candidate's median, so that a machine of any size or speed is
 * judged alike.
 */
#include "calibrate/load.h"

#include <string.h>

/* Readings busy, of those with runnable known, above which the machine
 * counts as held: a single-threaded workload needs one free CPU most of
 * the time; one that uses several loses a thread to every other task, so
 * a quarter of the readings is enough. */
#define BUSY_SHARE_ONE 0.5
#define BUSY_SHARE_MANY 0.25
/* Stolen CPU time, as a share of all. */
#define STEAL_LIMIT 0.05
/* The reference's slowest turn median over its fastest, from three turns. */
#define REFERENCE_LIMIT 1.5
#define REFERENCE_TURNS 3u
/* MAD over median of one candidate's runs, from five runs. */
#define SPREAD_LIMIT 0.25
#define SPREAD_RUNS 5u

static olc_load_source_fn source_fn;
static void *source_payload;

#ifdef OLC_TEST_HOOKS
void olc_calibrate__load_set_source(olc_load_source_fn fn, void *payload) {
  source_fn = fn;
  source_payload = payload;
}
#endif

void olc_calibrate__load_read(olc_load_figures *out) {
  memset(out, 0, sizeof *out);
  if (source_fn != NULL)
    source_fn(out, source_payload);
  else
    olc_calibrate__load_read_system(out);
}

/* The other tasks wanting a CPU beyond those the workload leaves free
 * (<= 0: none); -1e30 when unknown. */
static double beyond_free(const olc_load_figures *f, uint32_t threads) {
  double others, free_cpus;
  if (!f->have_runnable || f->cpus == 0)
    return -1e30;
  /* The workload's own threads (the reader, the worker's, a pool's) are
   * not others: counting them marked every multi-threaded winner on a
   * quiet machine contended. */
  others = f->runnable - (f->own_running > 0 ? (double)f->own_running : 1.0);
  free_cpus = f->cpus > threads ? (double)(f->cpus - threads) : 0.0;
  return others - free_cpus;
}

static double steal_share(const olc_load_figures *a, const olc_load_figures *b) {
  if (!a->have_ticks || !b->have_ticks || b->total_ticks <= a->total_ticks ||
      b->steal_ticks < a->steal_ticks)
    return 0;
  return (double)(b->steal_ticks - a->steal_ticks) / (double)(b->total_ticks - a->total_ticks);
}

void olc_calibrate__watch_sample(olc_load_watch *w) {
  double beyond;
  olc_calibrate__load_read(&w->last);
  beyond = beyond_free(&w->last, w->threads);
  if (beyond < -1e29)
    return;
  w->samples++;
  if (beyond >= 1.0) {
    w->busy++;
    w->beyond_sum += beyond;
  }
}

void olc_calibrate__watch_begin(olc_load_watch *w, uint32_t threads) {
  memset(w, 0, sizeof *w);
  w->threads = threads > 0 ? threads : 1;
  olc_calibrate__watch_sample(w);
  w->first = w->last;
}

void olc_calibrate__watch_reference(olc_load_watch *w, double median_us) {
  if (!(median_us > 0))
    return;
  if (w->ref_turns == 0 || median_us < w->ref_min)
    w->ref_min = median_us;
  if (w->ref_turns == 0 || median_us > w->ref_max)
    w->ref_max = median_us;
  w->ref_turns++;
}

void olc_calibrate__watch_spread(olc_load_watch *w, double median_us, double mad_us,
                                 uint32_t samples) {
  if (samples < SPREAD_RUNS || !(median_us > 0))
    return;
  if (mad_us / median_us > w->spread)
    w->spread = mad_us / median_us;
}

void olc_calibrate__watch_verdict(olc_contention *out, const olc_load_watch *w) {
  double share = w->threads > 1 ? BUSY_SHARE_MANY : BUSY_SHARE_ONE;
  double steal = steal_share(&w->first, &w->last);
  out->signal = NULL;
  out->figure = 0;
  if (w->samples > 0 && w->busy > 0 && (double)w->busy >= share * (double)w->samples) {
    out->signal = "runnable";
    out->figure = w->beyond_sum / (double)w->samples;
  } else if (steal > STEAL_LIMIT) {
    out->signal = "steal";
    out->figure = steal;
  } else if (w->ref_turns >= REFERENCE_TURNS && w->ref_max > REFERENCE_LIMIT * w->ref_min) {
    out->signal = "reference";
    out->figure = w->ref_max / w->ref_min;
  } else if (w->spread > SPREAD_LIMIT) {
    out->signal = "spread";
    out->figure = w->spread;
  }
}

int olc_calibrate__load_quiet(uint32_t threads, uint32_t ms) {
  olc_load_figures a, b;
  double beyond;
  if (threads == 0)
    threads = 1;
  olc_calibrate__load_read(&a);
  if (ms > 0)
    olc_calibrate__load_nap(ms);
  olc_calibrate__load_read(&b);
  beyond = beyond_free(&b, threads);
  if (beyond < -1e29 && !(a.have_ticks && b.have_ticks))
    return -1;
  return beyond < 1.0 && steal_share(&a, &b) <= STEAL_LIMIT;
}
