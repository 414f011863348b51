/*
 * calibrate/load.h - whether the machine was quiet while a workload was
 * measured.
 *
 * A measurement taken while other tasks held the cores picks the policy
 * that suffers least from them, not the one that is fastest here, and
 * says nothing about it.  A watch collects what says the machine was not
 * quiet: the tasks waiting for a CPU and the time a hypervisor stole
 * (the load source: /proc/loadavg and /proc/stat on Linux, nothing
 * elsewhere), the reference candidate (the plugin's first, which the race
 * times in every turn of its final) drifting between turns, and each
 * finalist's own spread.  Its verdict names the first signal that fired;
 * calibrate.c waits and measures again, within the budget, or reports the
 * winner as contended so that it is saved as provisional.
 */
#ifndef OLC_CALIBRATE_LOAD_H
#define OLC_CALIBRATE_LOAD_H

#include <stddef.h>
#include <stdint.h>

/* One reading of the load source. */
typedef struct olc_load_figures {
  int have_runnable; /* runnable is known */
  double runnable;   /* tasks running or waiting for a CPU now, the reader included */
  int have_ticks;    /* steal_ticks and total_ticks are known */
  uint64_t steal_ticks, total_ticks; /* all CPUs' time since boot, in ticks */
  uint32_t cpus;                     /* CPUs online; 0: unknown */
  /* This process's threads and its children's (the measuring worker, a
   * plugin's pool) running at the reading, the reader included: not
   * other tasks.  0: unknown (the reader alone is taken as ours). */
  uint32_t own_running;
} olc_load_figures;

/* Reads the load source (the platform's, or a test's). */
void olc_calibrate__load_read(olc_load_figures *out);
/* The platform's source; fields it cannot tell are left unknown. */
void olc_calibrate__load_read_system(olc_load_figures *out);
/* Sleeps about ms milliseconds. */
void olc_calibrate__load_nap(uint32_t ms);

/* A load source: fills the fields it knows of *out (zeroed). */
typedef void (*olc_load_source_fn)(olc_load_figures *out, void *payload);

#ifdef OLC_TEST_HOOKS
/* Replaces the load source (NULL: the platform's again); for unit tests. */
void olc_calibrate__load_set_source(olc_load_source_fn fn, void *payload);
#endif

/* What the watch concluded: signal NULL when the machine was quiet, else
 * the signal that fired first and its figure (the unit of the saved
 * OLC_MEASUREMENT_CONTENDED and its value):
 *   "runnable"  the mean of other tasks wanting a CPU beyond the ones the
 *               workload's threads leave free
 *   "steal"     the share of CPU time a hypervisor stole
 *   "reference" the slowest over the fastest turn median of the
 *               reference candidate
 *   "spread"    the largest MAD over median of a finalist */
typedef struct olc_contention {
  const char *signal;
  double figure;
} olc_contention;

/* The readings of one measurement. */
typedef struct olc_load_watch {
  uint32_t threads; /* the workload's threads (0 is taken as 1) */
  olc_load_figures first, last;
  size_t samples, busy; /* readings with runnable known; of them, busy */
  double beyond_sum;    /* other tasks beyond the free CPUs, summed over busy readings */
  double ref_min, ref_max;
  size_t ref_turns;
  double spread; /* the largest relative MAD offered */
} olc_load_watch;

/* Starts a watch for a workload of `threads` threads and takes a reading. */
void olc_calibrate__watch_begin(olc_load_watch *w, uint32_t threads);
/* Takes a reading (between two timed runs of the measurement). */
void olc_calibrate__watch_sample(olc_load_watch *w);
/* The reference candidate's median in one turn of the race's final. */
void olc_calibrate__watch_reference(olc_load_watch *w, double median_us);
/* A candidate's spread over all of its runs (finalists, winner). */
void olc_calibrate__watch_spread(olc_load_watch *w, double median_us, double mad_us,
                                 uint32_t samples);
/* The verdict over the readings so far. */
void olc_calibrate__watch_verdict(olc_contention *out, const olc_load_watch *w);

/*
 * One look now (two readings `ms` apart): 1 when the source says the
 * machine is quiet for a workload of `threads` threads, 0 when busy, -1
 * when the source tells nothing (no /proc).
 */
int olc_calibrate__load_quiet(uint32_t threads, uint32_t ms);

#endif
