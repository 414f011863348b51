/*
 * calibrate/calibrate.h - the calibrate module as the host module sees it:
 * measuring the candidates of one workload.
 *
 * The module measures: it asks the plugin for its candidates, times them by
 * the configured strategy (strategy.h: 'race' by default, or 'full') in a
 * worker process unless in-process (isolate.h), and names the winner.  It
 * knows nothing of the host, the store or the configuration: what it needs
 * comes in the request.  Choosing what to measure, saving the winner and
 * selecting are the host module's (host/host.h).
 */
#ifndef OLC_CALIBRATE_CALIBRATE_H
#define OLC_CALIBRATE_CALIBRATE_H

#include <stddef.h>

#include "calibrate/isolate.h"
#include "calibrate/load.h"
#include "olc/host.h"
#include "olc/plugin.h"
#include "util/arena.h"

/* The run times of one candidate, us, in the order they were timed. */
typedef struct olc_run_times {
  const double *v; /* n values in the request's arena; NULL when n is 0 */
  size_t n;
} olc_run_times;

/* What measuring one workload needs; everything is borrowed. */
typedef struct olc_calibrate_request {
  olc_isolate_plugin target;           /* the plugin, and how a worker rebuilds it */
  const olc_plugin_workload *workload; /* what the plugin measures */
  const olc_calibration_settings *settings;
  int in_process;             /* measure here, not in a worker */
  double run_timeout_seconds; /* one run's limit in the worker; <= 0: automatic */
  olc_arena *arena;           /* candidates, policy copies and messages live here */
  /* Called before candidate i of count is first timed, with the best
   * median so far (< 0: none), and once after the last with i = the
   * number reached; may be NULL. */
  void (*progress)(void *payload, size_t i, size_t count, double best_us);
  void *progress_payload;
  int keep_samples; /* fill olc_calibrate_outcome.runs */
  /* A stored policy to verify (NULL: none): it races as candidate 0, in
   * the first candidate's place (a tie keeps it), the plugin's candidates
   * after it, less any with the same bytes. */
  const void *incumbent;
  size_t incumbent_len;
} olc_calibrate_request;

/* What measuring one workload gave (pointers into the request's arena). */
typedef struct olc_calibrate_outcome {
  /* OLC_OK: candidates[winner] is the one to save.  Else why nothing can
   * be saved (the plugin's candidates or prepare failed, no candidate
   * could be measured), with message. */
  olc_status status;
  const char *message;
  int measured; /* measuring began (candidates were timed or tried) */
  /* The warning when measuring fell back to in-process, else NULL. */
  const char *note;
  olc_candidate_result *candidates; /* every candidate, reached ones filled */
  size_t reached;                   /* candidates[0 .. reached) were timed */
  size_t winner;
  /* With keep_samples: each candidate's run times (as many entries as
   * candidates, zeroed for those not timed), else NULL. */
  olc_run_times *runs;
  /* The median of the plugin's first candidate (its own first guess, what
   * a workload gets without calibration), us; < 0 when it could not be
   * measured.  The winner's speedup is first_median_us / its median. */
  double first_median_us;
  /* How it was measured ([calibration] rotating_buffer_mb, rotate.h):
   * rotate_count instances of rotate_bytes each, in turn; 1 and 0: warm. */
  uint32_t rotate_count;
  uint64_t rotate_bytes;
  /* Which budget cut the measurement short (OLC_CALIBRATE_CUT_*): the
   * winner is the leader when it ended. */
  int budget_cut;
  /* Whether the machine was quiet during the measurement that gave the
   * winner (settings->contention; load.h): contended.signal NULL when it
   * was or when it was not watched.  measures: how many times the
   * candidates were measured (more than one after a busy machine), and
   * waited_seconds the time spent waiting for a quiet one in between. */
  olc_contention contended;
  uint32_t measures;
  double waited_seconds;
  /* When a winner other than the first candidate was measured against
   * it: the low end of the speedup's interval (OLC_MEASUREMENT_SPEEDUP_LOW;
   * the first's median less two standard errors over the winner's plus
   * two); < 0: none. */
  double speedup_low;
} olc_calibrate_outcome;

/* olc_calibrate_outcome.budget_cut. */
enum {
  OLC_CALIBRATE_CUT_NONE = 0,
  OLC_CALIBRATE_CUT_TIME = 1, /* settings->max_seconds_per_workload ran out */
  OLC_CALIBRATE_CUT_RUNS = 2  /* a candidate reached settings->max_runs_per_candidate first */
};

/*
 * Candidates -> prepare -> measure -> unprepare.  Returns OLC_OK with *out
 * filled (out->status says whether there is a winner), or OLC_E_NOMEM when
 * this process ran out of memory.  The winner's serialized policy is
 * out->candidates[out->winner].policy (policy_len bytes, NULL when 0).
 */
olc_status olc_calibrate__workload(olc_calibrate_outcome *out, const olc_calibrate_request *req);

#endif
