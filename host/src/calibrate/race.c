/*
 * calibrate/race.c - the 'race' strategy (OLC_STRATEGY_RACE, the default).
 *
 * Timing every candidate in full spends most of the calibration on
 * candidates that were never going to win, and a plugin's candidates
 * around its analytical guess are often within a few percent of each
 * other, so abandoning only the clear losers (abandon_factor) saves
 * little.  The race spends the time where the decision is made:
 *
 * 1. Screening.  Each candidate, in the plugin's order, gets its warm-up
 *    runs and then timed runs for at least min_seconds / SCREEN_SHARE (at
 *    least SCREEN_RUNS).  Its score is the lower median of those runs (of
 *    two, the faster: a run slowed by another process does not count
 *    against it).  One clearly slower than abandon_factor x the best
 *    score so far is abandoned early, as in 'full', but never on one
 *    run: a candidate whose single run was that slow is timed once more
 *    and the faster of the two counts.  A single run per candidate is
 *    otherwise enough to screen: a plugin's candidates often lie
 *    within a few percent of each other, and the final, not the
 *    screening, decides between those; a run that a stall made slow can
 *    only cost a close contender its place in the final.
 * 2. Final.  FINALISTS candidates run in turns: the plugin's first one
 *    (its analytical guess, unless abandoned) and the best scores (of
 *    scores within SCREEN_TIE of the best left, the earliest).  Each
 *    turn times every finalist for its share of min_seconds / TURNS (at
 *    least one run), so that a change of machine load or clock hits them
 *    alike instead of deciding the race; every other turn runs them in
 *    reverse order.  A finalist clearly slower than
 *    the leader leaves.  When every finalist has failed, the best
 *    screened candidates left take their places; when none is left, those
 *    that were only slower (screened or dropped) race again: a candidate
 *    that works is selected whenever one exists.
 *    The race ends when every finalist has min_repetitions runs and their
 *    timed runs, screening included, add up to min_seconds.  When the
 *    leader then beats the first candidate by more than TIE_MARGIN but
 *    not by TIE_Z standard errors, the turns go on, up to UNDECIDED_X
 *    times those runs and that time: with three turns the spread is
 *    itself a guess, and a busy machine would otherwise keep a guess
 *    that a few more turns show to be slower.
 * 3. The winner's median over all its runs, its MAD and run count are
 *    what is saved.  The first candidate keeps the win unless another
 *    beats it in the turns both ran: the median of the ratios of their
 *    turns' medians must lie more than TIE_MARGIN and TIE_Z standard
 *    errors below 1; the finalists are taken in the plugin's order, each
 *    replacing the one kept so far only when it beats it so, so that of
 *    two challengers within the noise of each other the earlier wins, not
 *    whichever the noise gave the lower median.  Calibration never
 *    trades the plugin's guess for a lead that is as likely noise, on a
 *    quiet machine (the margin decides) or a busy one (the spread does),
 *    and a ratio compares runs milliseconds apart: where a core's speed
 *    comes and goes in phases (a sibling hyper-thread, another virtual machine), it slows
 *    candidates unequally, and the medians of all runs could mix those
 *    phases differently for each candidate; a turn's runs share a phase.
 *
 * Budgets.  max_seconds_per_workload ends the screening (the first
 * candidate is always screened) or the final (the leader so far wins);
 * max_runs_per_candidate caps each lane's timed runs, screening included:
 * a lane at the cap is not timed again, and the final ends when every
 * finalist is done or capped.  Either sets *ctx->budget_cut when it ended
 * the race before the usual criteria (min_repetitions, min_seconds) were
 * met.
 *
 * The others are reported as abandoned with their screening figures, so
 * explain shows why each lost.  bench_gemm --quality compares the race's
 * pick and time with timing every candidate in full.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/stats.h"
#include "calibrate/strategy.h"
#include "util/platform.h"

#define SCREEN_RUNS 1u
#define SCREEN_SHARE 16.0
#define FINALISTS 3u
#define TURNS 16.0
#define TIE_MARGIN 0.01
#define SCREEN_TIE 0.02   /* screening scores this close count as equal */
#define TIE_Z 2.0         /* standard errors of the difference of two medians */
#define FINAL_MIN_RUNS 3u /* before a finalist can be dropped */
#define FINAL_MIN_TURNS 3u
#define UNDECIDED_X 4.0 /* an undecided final's runs and time, in usual finals */
#define NO_ABANDON 1e30

typedef enum lane_state {
  LANE_UNSEEN = 0, /* not reached (time budget) */
  LANE_OUT,        /* failed, abandoned or screened out: reported as such */
  LANE_SCREENED,   /* screened, a finalist candidate */
  LANE_FINAL       /* racing */
} lane_state;

/* One turn of the final a lane ran: its number and the median of the
 * lane's runs in it. */
typedef struct turn_median {
  size_t turn;
  double median_us;
} turn_median;

/* Every run time of one candidate, in order, and its turns in the final. */
typedef struct lane {
  double *v;
  size_t n, cap;
  double score;  /* lower median of v */
  double sum_us; /* the timed samples' wall time */
  lane_state state;
  turn_median *turns;
  size_t turn_count, turn_cap;
} lane;

typedef struct race {
  const olc_strategy_ctx *ctx;
  lane *lanes;
  double *scratch; /* as long as the longest lane */
  size_t scratch_cap;
  double *pairs; /* 2 x the most turns of a lane: paired ratios, scratch */
  size_t pairs_cap;
  uint64_t budget_end;
  uint32_t max_runs; /* max_runs_per_candidate; 0: no cap */
} race;

/* 1 when lane l may not be timed again (the runs budget). */
static int at_cap(const race *r, const lane *l) { return r->max_runs != 0 && l->n >= r->max_runs; }

/* The runs lane l may still take (0: no cap). */
static uint32_t runs_left(const race *r, const lane *l) {
  return r->max_runs == 0 ? 0 : (uint32_t)(r->max_runs - l->n);
}

static void cut(const race *r, int why) {
  if (r->ctx->budget_cut != NULL && *r->ctx->budget_cut == OLC_CALIBRATE_CUT_NONE)
    *r->ctx->budget_cut = why;
}

static olc_status grow_scratch(race *r, size_t n) {
  double *p;
  if (n <= r->scratch_cap)
    return OLC_OK;
  p = realloc(r->scratch, n * sizeof *p);
  if (p == NULL)
    return OLC_E_NOMEM;
  r->scratch = p;
  r->scratch_cap = n;
  return OLC_OK;
}

/* Appends m's run times to lane i and updates its score. */
static olc_status append(race *r, size_t i, const olc_timing_result *m) {
  lane *l = &r->lanes[i];
  size_t k;
  if (l->n + m->samples > l->cap) {
    size_t cap = (l->n + m->samples) * 2u;
    double *p = realloc(l->v, cap * sizeof *p);
    if (p == NULL)
      return OLC_E_NOMEM;
    l->v = p;
    l->cap = cap;
  }
  for (k = 0; k < m->samples && m->values != NULL; k++)
    l->v[l->n++] = m->values[k];
  l->sum_us += m->timed_us;
  if (grow_scratch(r, l->n) != OLC_OK)
    return OLC_E_NOMEM;
  memcpy(r->scratch, l->v, l->n * sizeof *l->v);
  l->score = olc_stats__low_median_sort(r->scratch, l->n);
  return OLC_OK;
}

/* Lane i's runs from `from` on were turn `turn` of the final: their
 * median joins the lane's turn medians. */
static olc_status record_turn(race *r, size_t i, size_t turn, size_t from) {
  lane *l = &r->lanes[i];
  if (l->n <= from)
    return OLC_OK;
  if (l->turn_count == l->turn_cap) {
    size_t cap = l->turn_cap ? l->turn_cap * 2u : 16u;
    turn_median *t = realloc(l->turns, cap * sizeof *t);
    if (t == NULL)
      return OLC_E_NOMEM;
    l->turns = t;
    l->turn_cap = cap;
  }
  if (r->pairs_cap < 2u * l->turn_cap) {
    double *p = realloc(r->pairs, 2u * l->turn_cap * sizeof *p);
    if (p == NULL)
      return OLC_E_NOMEM;
    r->pairs = p;
    r->pairs_cap = 2u * l->turn_cap;
  }
  memcpy(r->scratch, l->v + from, (l->n - from) * sizeof *l->v);
  l->turns[l->turn_count].turn = turn;
  l->turns[l->turn_count++].median_us = olc_stats__median_sort(r->scratch, l->n - from);
  return OLC_OK;
}

/* Whether lane w clearly beats lane f in the turns both ran: the tie rule
 * on their paired ratios.  *lead: 1 - the median ratio. */
static int beats(const race *r, size_t f, size_t w, double *lead) {
  const lane *a = &r->lanes[f], *b = &r->lanes[w];
  size_t i = 0, j = 0, n = 0;
  if (lead != NULL)
    *lead = 0;
  if (r->pairs == NULL) /* no turn recorded */
    return 0;
  while (i < a->turn_count && j < b->turn_count) {
    const turn_median *x = &a->turns[i], *y = &b->turns[j];
    if (x->turn < y->turn) {
      i++;
    } else if (y->turn < x->turn) {
      j++;
    } else {
      if (x->median_us > 0)
        r->pairs[n++] = y->median_us / x->median_us;
      i++, j++;
    }
  }
  return olc_stats__paired_faster(r->pairs, n, r->pairs + n, TIE_MARGIN, TIE_Z, lead);
}

/* Times candidate i once with mp; on success its runs join its lane.  A
 * failure or an early stop takes the lane out of the race with a message,
 * except the time budget in the final (the race just ends there).  *end
 * receives how the measurement ended. */
static olc_status time_once(race *r, size_t i, const olc_timing_params *mp, olc_timing_end *end) {
  const olc_strategy_ctx *ctx = r->ctx;
  const olc_calibration_settings *s = ctx->settings;
  olc_timing_result m;
  olc_error e;
  olc_status st, rs = OLC_OK;
  olc_error_clear(&e);
  if (ctx->watch != NULL)
    olc_calibrate__watch_sample(ctx->watch);
  st = olc_calibrate__session_measure(ctx->session, i, mp, &m, &e);
  *end = st == OLC_OK ? m.end : OLC_TIMING_DONE;
  if (st == OLC_E_NOMEM) {
    olc_timing_result__free(&m);
    return st;
  }
  if (st == OLC_OK)
    rs = append(r, i, &m);
  olc_timing_result__free(&m);
  if (rs != OLC_OK)
    return rs;
  if (st != OLC_OK) {
    r->lanes[i].state = LANE_OUT;
    return olc_strategy__record(ctx, i, st, "%s", e.message[0] ? e.message : olc_status_str(st));
  }
  if (*end == OLC_TIMING_ABANDONED) {
    r->lanes[i].state = LANE_OUT;
    ctx->results[i].abandoned = 1;
    return olc_strategy__record(ctx, i, st, "abandoned: slower than %g x the best (%.3f us)",
                                s->abandon_factor, mp->best_us);
  }
  if (*end == OLC_TIMING_DEADLINE && r->lanes[i].state != LANE_FINAL) {
    r->lanes[i].state = LANE_OUT;
    ctx->results[i].abandoned = 1;
    return olc_strategy__record(ctx, i, st, "stopped at the time budget of %g s",
                                s->max_seconds_per_workload);
  }
  return olc_strategy__record(ctx, i, st, NULL);
}

/* A screened lane whose one run is clearly slower than the best so far
 * is timed once more (no warm-up: it ran just now) before it is
 * abandoned: the lower of two runs counts, so a single preemption cannot
 * cost the true winner its place in the final. */
static olc_status confirm_slow(race *r, size_t i, const olc_timing_params *mp,
                               olc_timing_end *end) {
  const olc_strategy_ctx *ctx = r->ctx;
  lane *l = &r->lanes[i];
  double limit = ctx->settings->abandon_factor * mp->best_us;
  olc_status st;
  if (l->state != LANE_SCREENED || mp->best_us < 0 || !(l->score > limit))
    return OLC_OK;
  if (l->n < 2u && !at_cap(r, l) && olc_util__now_ns() < r->budget_end) {
    olc_timing_params again = *mp;
    again.warmup = 0; /* it ran just now */
    if ((st = time_once(r, i, &again, end)) != OLC_OK || l->state != LANE_SCREENED)
      return st;
    if (!(l->score > limit))
      return OLC_OK;
  }
  l->state = LANE_OUT;
  ctx->results[i].abandoned = 1;
  return olc_strategy__record(ctx, i, OLC_OK, "abandoned: slower than %g x the best (%.3f us)",
                              ctx->settings->abandon_factor, mp->best_us);
}

/* Phase 1; *deadline = 1 when the budget stopped it. */
static olc_status screen(race *r, size_t *reached, int *deadline) {
  const olc_strategy_ctx *ctx = r->ctx;
  const olc_calibration_settings *s = ctx->settings;
  double best = -1.0;
  size_t i;
  *deadline = 0;
  for (i = 0; i < ctx->list->count; i++) {
    olc_timing_params mp;
    olc_timing_end end;
    olc_status st;
    if (i > 0 && olc_util__now_ns() >= r->budget_end) {
      *deadline = 1;
      break;
    }
    olc_strategy__progress(r->ctx, i, best);
    mp.warmup = s->warmup;
    mp.min_repetitions = s->min_repetitions < SCREEN_RUNS ? s->min_repetitions : SCREEN_RUNS;
    mp.min_seconds = s->min_seconds / SCREEN_SHARE;
    mp.abandon_factor = s->abandon_factor;
    mp.best_us = best;
    mp.deadline_ns = i > 0 ? r->budget_end : 0;
    mp.max_runs = r->max_runs;
    r->lanes[i].state = LANE_SCREENED;
    st = time_once(r, i, &mp, &end);
    if (st == OLC_OK && end == OLC_TIMING_DONE)
      st = confirm_slow(r, i, &mp, &end);
    if (st != OLC_OK)
      return st;
    *reached = i + 1;
    if (r->lanes[i].state == LANE_SCREENED && (best < 0 || r->lanes[i].score < best))
      best = r->lanes[i].score;
    if (end == OLC_TIMING_DEADLINE) {
      *deadline = 1;
      break;
    }
  }
  if (*deadline)
    cut(r, OLC_CALIBRATE_CUT_TIME);
  return OLC_OK;
}

/* The lane in state `state` with the lowest score, or count. */
static size_t lowest(const race *r, lane_state state) {
  size_t i, b = r->ctx->list->count;
  for (i = 0; i < r->ctx->list->count; i++)
    if (r->lanes[i].state == state &&
        (b == r->ctx->list->count || r->lanes[i].score < r->lanes[b].score))
      b = i;
  return b;
}

/* The finalist the tie rule keeps (count when none): in the plugin's
 * order, each finalist replaces the one kept so far only when it clearly
 * beats it in their paired turns.  So the first candidate keeps a tie,
 * and when it is beaten (or gone), of challengers within the noise of
 * each other the one the plugin offers first wins, rather than whichever
 * the noise gave the lower median: repeated calibrations of one shape
 * then select the same policy, not either of two near-equal ones. */
static size_t kept(const race *r) {
  const size_t count = r->ctx->list->count;
  size_t i, k = count;
  for (i = 0; i < count; i++)
    if (r->lanes[i].state == LANE_FINAL && (k == count || beats(r, k, i, NULL)))
      k = i;
  return k;
}

/* After a turn: a finalist whose runs (at least FINAL_MIN_RUNS) are
 * clearly slower than the leader's leaves the final. */
static olc_status drop_losers(race *r) {
  const olc_strategy_ctx *ctx = r->ctx;
  size_t i, lead = lowest(r, LANE_FINAL);
  double limit;
  if (lead == ctx->list->count)
    return OLC_OK;
  limit = ctx->settings->abandon_factor * r->lanes[lead].score;
  for (i = 0; i < ctx->list->count; i++) {
    lane *l = &r->lanes[i];
    if (l->state != LANE_FINAL || i == lead || l->n < FINAL_MIN_RUNS || !(l->score > limit))
      continue;
    l->state = LANE_OUT;
    ctx->results[i].abandoned = 1;
    if (olc_strategy__record(ctx, i, OLC_OK,
                             "abandoned in the final: %.3f us, slower than %g x the leader's "
                             "%.3f us",
                             l->score, ctx->settings->abandon_factor,
                             r->lanes[lead].score) != OLC_OK)
      return OLC_E_NOMEM;
  }
  return OLC_OK;
}

/* The screened lane to promote next (count when none): the earliest in
 * the plugin's order whose score is within SCREEN_TIE of the best one
 * left.  A score is one short timing, so of candidates that close the
 * noise would otherwise choose which reach the final, and repeated
 * calibrations of one shape would race, and select, different ones. */
static size_t next_finalist(const race *r) {
  const size_t count = r->ctx->list->count;
  size_t i, b = lowest(r, LANE_SCREENED);
  if (b == count)
    return count;
  for (i = 0; i < b; i++)
    if (r->lanes[i].state == LANE_SCREENED &&
        r->lanes[i].score <= r->lanes[b].score * (1.0 + SCREEN_TIE))
      return i;
  return b;
}

/* Fills the final up to `most` lanes from the best screened scores;
 * returns how many race now. */
static size_t promote(race *r, size_t most) {
  size_t i, k = 0;
  for (i = 0; i < r->ctx->list->count; i++)
    k += r->lanes[i].state == LANE_FINAL;
  while (k < most && (i = next_finalist(r)) < r->ctx->list->count) {
    r->lanes[i].state = LANE_FINAL;
    k++;
  }
  return k;
}

/* The plugin's first candidate, its own best guess, always races (when
 * it was not abandoned): calibration replaces it only with one that beats
 * it in the same turns. */
static void first_races(race *r, size_t most, int budgeted) {
  if (budgeted && most > 0 && r->ctx->list->count > 0 && r->lanes[0].state == LANE_SCREENED)
    r->lanes[0].state = LANE_FINAL;
}

/* Every finalist failed and no screened lane is left to take their
 * places: the lanes taken out only as slower (in the screening or the
 * final) race again, the leader they lost to being gone, so that a
 * candidate that works is still selected.  A failed lane never returns,
 * so this ends.  Returns how many race now (0: none was left). */
static size_t readmit(race *r, size_t most, int budgeted) {
  const olc_strategy_ctx *ctx = r->ctx;
  size_t i, n = 0;
  for (i = 0; i < ctx->list->count; i++) {
    lane *l = &r->lanes[i];
    olc_candidate_result *c = &ctx->results[i];
    if (l->state != LANE_OUT || l->n == 0 || c->status != OLC_OK || !c->abandoned)
      continue;
    l->state = LANE_SCREENED;
    c->abandoned = 0;
    c->message = NULL; /* the final says again why it lost, if it does */
    n++;
  }
  if (n == 0)
    return 0;
  first_races(r, most, budgeted);
  return promote(r, most);
}

/* How many finalists race, or SIZE_MAX when every one has x times its
 * runs (min_repetitions, their runs adding up to min_seconds) and
 * FINAL_MIN_TURNS turns or is
 * capped (OLC_TIMING_MAX_SAMPLES, max_runs_per_candidate).  *runs_cut
 * (unless NULL): 1 when the runs budget capped a lane short of x times
 * the usual runs. */
static size_t final_count(const race *r, double x, int *runs_cut) {
  const olc_calibration_settings *s = r->ctx->settings;
  const double runs = x * (double)s->min_repetitions, min_us = x * s->min_seconds * 1e6;
  size_t i, live = 0, short_runs = 0, capped = 0, runs_capped = 0, runs_short = 0;
  double timed_us = 0;
  for (i = 0; i < r->ctx->list->count; i++) {
    const lane *l = &r->lanes[i];
    if (l->state != LANE_FINAL)
      continue;
    live++;
    timed_us += l->sum_us;
    /* Three turns at least: fewer paired ratios never decide a tie. */
    short_runs += ((double)l->n < runs || l->turn_count < FINAL_MIN_TURNS) && !at_cap(r, l);
    runs_capped += (size_t)at_cap(r, l);
    runs_short += at_cap(r, l) && (double)l->n < runs;
    capped += l->n >= OLC_TIMING_MAX_SAMPLES || at_cap(r, l);
  }
  if (runs_cut != NULL)
    *runs_cut = runs_capped > 0 && (runs_short > 0 || timed_us < min_us);
  if (live == 0 || short_runs > 0 || (timed_us < min_us && capped < live))
    return live;
  return SIZE_MAX;
}

/* 1 when the final's leader leads the finalist the tie rule keeps by
 * more than TIE_MARGIN in their paired turns but not clearly: more turns
 * can tell whether the lead is real. */
static int undecided(const race *r) {
  size_t lead = lowest(r, LANE_FINAL), k = kept(r);
  double gain;
  if (lead == k || lead == r->ctx->list->count || k == r->ctx->list->count)
    return 0;
  return !beats(r, k, lead, &gain) && gain > TIE_MARGIN;
}

/* Whether the final is over: SIZE_MAX when every finalist has its runs
 * (or is capped: then the runs budget may have cut it short) and the
 * result is decided or the undecided final has had UNDECIDED_X times
 * the runs, else how many race (0: none is left).  `budgeted` finals
 * only go on when undecided; *extra is set then. */
static size_t final_done(const race *r, int budgeted, int *extra) {
  int runs_cut;
  size_t live = final_count(r, 1.0, &runs_cut);
  *extra = 0;
  if (live != SIZE_MAX)
    return live;
  if (budgeted && undecided(r) && (live = final_count(r, UNDECIDED_X, NULL)) != SIZE_MAX) {
    *extra = 1;
    return live;
  }
  if (runs_cut)
    cut(r, OLC_CALIBRATE_CUT_RUNS);
  return SIZE_MAX;
}

/* Phase 2: the `most` best screened lanes race in turns.  Unbudgeted
 * (after the budget ended the screening) it only completes the leader's
 * measurement, as 'full' always measures its first candidate in full. */
static olc_status final(race *r, size_t most, int budgeted) {
  const olc_strategy_ctx *ctx = r->ctx;
  const olc_calibration_settings *s = ctx->settings;
  const size_t count = ctx->list->count;
  size_t k, i;
  double turn_s;
  olc_status st;
  first_races(r, most, budgeted);
  k = promote(r, most);
  turn_s = s->min_seconds / TURNS / (double)(k > 0 ? k : 1);
  for (size_t turn = 0;; turn++) {
    int extra;
    size_t live = final_done(r, budgeted, &extra);
    /* Every finalist failed (crashed, say): the next best take their
     * places, so that a working candidate is still selected; when none is
     * left, those that were only slower race again. */
    if (live == 0 && ((live = promote(r, most)) > 0 || (live = readmit(r, most, budgeted)) > 0))
      continue;
    if (live == 0 || live == SIZE_MAX)
      break;
    /* Every other turn in reverse, so that no finalist always runs right
     * after the same other one (whose caches and clocks it inherits). */
    for (size_t t = 0; t < count; t++) {
      olc_timing_params mp;
      olc_timing_end end;
      size_t from, lead = lowest(r, LANE_FINAL);
      i = turn % 2 == 0 ? t : count - 1 - t;
      if (r->lanes[i].state != LANE_FINAL || at_cap(r, &r->lanes[i]))
        continue;
      if (budgeted && olc_util__now_ns() >= r->budget_end) {
        if (!extra) /* extra turns are past the usual criteria */
          cut(r, OLC_CALIBRATE_CUT_TIME);
        return OLC_OK;
      }
      mp.warmup = 0;
      mp.min_repetitions = 1;
      mp.min_seconds = turn_s;
      /* Not within a turn, where one preempted run could decide: after
       * it, over all of the lane's runs (below). */
      mp.abandon_factor = NO_ABANDON;
      mp.best_us = lead != i ? r->lanes[lead].score : -1.0; /* the run timeout */
      mp.deadline_ns = budgeted ? r->budget_end : 0;
      mp.max_runs = runs_left(r, &r->lanes[i]);
      from = r->lanes[i].n;
      st = time_once(r, i, &mp, &end);
      if (st == OLC_OK)
        st = record_turn(r, i, turn, from);
      if (st != OLC_OK)
        return st;
      /* The first candidate, timed in every turn between the others, is
       * the reference: its turns drift apart when the machine's load
       * changes under the race. */
      if (i == 0 && ctx->watch != NULL && r->lanes[0].turn_count > 0 &&
          r->lanes[0].turns[r->lanes[0].turn_count - 1].turn == turn)
        olc_calibrate__watch_reference(ctx->watch,
                                       r->lanes[0].turns[r->lanes[0].turn_count - 1].median_us);
      if (end == OLC_TIMING_DEADLINE) {
        if (!extra)
          cut(r, OLC_CALIBRATE_CUT_TIME);
        return OLC_OK; /* the time budget: the leader so far wins */
      }
    }
    if ((st = drop_losers(r)) != OLC_OK)
      return st;
  }
  return OLC_OK;
}

/*
 * The winner among the finalists (count when none finished): the one the
 * tie rule keeps (kept).  Computes the
 * statistics of every lane that has samples on the way.
 */
static olc_status race_winner(race *r, size_t *winner) {
  const olc_strategy_ctx *ctx = r->ctx;
  const size_t count = ctx->list->count;
  size_t i;
  olc_status st;
  for (i = 0; i < count; i++) {
    lane *l = &r->lanes[i];
    if (l->n == 0)
      continue;
    if ((st = grow_scratch(r, l->n)) != OLC_OK)
      return st;
    olc_strategy__stats(ctx, i, l->v, l->n, r->scratch);
    if ((st = olc_strategy__keep_runs(ctx, i, l->v, l->n)) != OLC_OK)
      return st;
  }
  /* A challenger must beat the finalist kept so far (the first candidate
   * first) in the turns both ran, by a median ratio more than TIE_MARGIN
   * and TIE_Z standard errors below 1: a smaller lead is as likely the
   * machine's noise as a better policy. */
  *winner = kept(r);
  return OLC_OK;
}

/* Every screened lane that did not reach the final says why it lost. */
static olc_status race_record_losers(race *r, size_t w, int deadline) {
  const olc_strategy_ctx *ctx = r->ctx;
  const size_t count = ctx->list->count;
  size_t i;
  olc_status st = OLC_OK;
  for (i = 0; i < count && w < count && st == OLC_OK; i++) {
    if (i == w || r->lanes[i].state != LANE_SCREENED)
      continue;
    ctx->results[i].abandoned = 1;
    if (deadline)
      st = olc_strategy__record(ctx, i, OLC_OK,
                                "screened only (%.3f us): the time budget of %g s ended the race",
                                r->lanes[i].score, ctx->settings->max_seconds_per_workload);
    else
      st = olc_strategy__record(ctx, i, OLC_OK, "screened out: %.3f us, not among the %u fastest",
                                r->lanes[i].score, FINALISTS);
  }
  return st;
}

olc_status olc_strategy__race(const olc_strategy_ctx *ctx, size_t *reached, size_t *winner) {
  const size_t count = ctx->list->count;
  race r;
  size_t i;
  int deadline = 0;
  olc_status st;
  memset(&r, 0, sizeof r);
  r.ctx = ctx;
  r.budget_end = olc_util__now_ns() + (uint64_t)(ctx->settings->max_seconds_per_workload * 1e9);
  r.max_runs = ctx->settings->max_runs_per_candidate;
  *reached = 0;
  *winner = count;
  r.lanes = calloc(count, sizeof *r.lanes);
  if (r.lanes == NULL)
    return OLC_E_NOMEM;
  st = screen(&r, reached, &deadline);
  if (st == OLC_OK)
    st = deadline ? final(&r, 1, 0) : final(&r, FINALISTS, 1);
  if (st == OLC_OK)
    st = race_winner(&r, winner);
  if (st == OLC_OK)
    st = race_record_losers(&r, *winner, deadline);
  if (st == OLC_OK)
    olc_strategy__progress(ctx, *reached, *winner < count ? ctx->results[*winner].median_us : -1.0);
  for (i = 0; i < count; i++) {
    free(r.lanes[i].v);
    free(r.lanes[i].turns);
  }
  free(r.lanes);
  free(r.scratch);
  free(r.pairs);
  return st;
}
