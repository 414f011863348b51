/*
 * calibrate/strategy.h - how the candidates of one workload are timed
 * (olc_calibration_strategy in olc/host.h): 'full' measures each in turn
 * with early abandon (strategy.c), 'race' screens them all briefly and
 * then races the fastest few (race.c).
 *
 * Both fill results[i] for each candidate they reached (the policy bytes
 * copied into the arena, the status, the median, MAD and sample count of
 * every run timed for it, abandoned and a message when it was stopped
 * early or failed), report progress, and respect the workload's time
 * budget: the first candidate is always measured, later ones not once the
 * budget is spent.
 */
#ifndef OLC_CALIBRATE_STRATEGY_H
#define OLC_CALIBRATE_STRATEGY_H

#include <stddef.h>

#include "calibrate/calibrate.h"
#include "calibrate/isolate.h"
#include "calibrate/load.h"
#include "olc/host.h"
#include "util/arena.h"
#include "util/error.h"

/* What a strategy needs; everything is borrowed. */
typedef struct olc_strategy_ctx {
  olc_arena *arena; /* policy copies and messages of results */
  const olc_calibration_settings *settings;
  const olc_policy_list *list;
  olc_measure_session *session;
  olc_candidate_result *results; /* list->count, zeroed */
  olc_run_times *runs;           /* list->count, zeroed; NULL: run times not kept */
  /* Called before candidate i of count is first timed, with the best
   * median so far (< 0: none), and once after the last with i = the
   * number reached. */
  void (*progress)(void *payload, size_t i, size_t count, double best_us);
  void *progress_payload;
  int *budget_cut; /* out: OLC_CALIBRATE_CUT_*, set when a budget ended the timing */
  /* Read before each timing, and given the reference's (the first
   * candidate's) turn medians; NULL: the load is not watched. */
  olc_load_watch *watch;
} olc_strategy_ctx;

/*
 * Times the candidates.  *reached = how many were timed (a prefix of the
 * list), *winner = index of the one to save, or list->count when none
 * could be measured.  OLC_OK, or OLC_E_NOMEM (this process out of
 * memory): candidate failures are in results, never returned.
 */
olc_status olc_strategy__full(const olc_strategy_ctx *ctx, size_t *reached, size_t *winner);
olc_status olc_strategy__race(const olc_strategy_ctx *ctx, size_t *reached, size_t *winner);

/* Shared by both: copies candidate i's policy into results[i] and sets its
 * status and message (fmt may be NULL: none).  OLC_OK or OLC_E_NOMEM. */
olc_status olc_strategy__record(const olc_strategy_ctx *ctx, size_t i, olc_status status,
                                const char *fmt, ...) OLC_PRINTF(4, 5);
/* Calls ctx->progress, when set, for candidate i of the list. */
void olc_strategy__progress(const olc_strategy_ctx *ctx, size_t i, double best_us);
/* Fills results[i]'s median, spread and sample count from all of its run
 * times v[0..n); scratch holds n doubles. */
void olc_strategy__stats(const olc_strategy_ctx *ctx, size_t i, const double *v, size_t n,
                         double *scratch);
/* Keeps candidate i's run times v[0..n) (a copy in the arena) when
 * ctx->runs is set; nothing otherwise.  OLC_OK or OLC_E_NOMEM. */
olc_status olc_strategy__keep_runs(const olc_strategy_ctx *ctx, size_t i, const double *v,
                                   size_t n);

#endif
