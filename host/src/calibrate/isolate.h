/*
 * calibrate/isolate.h - measuring candidates in a worker process.
 *
 * A measure session is how the calibrate loop times the candidates of one
 * workload.  By default (POSIX) it starts the worker executable olc-worker
 * (host/worker/) at the first candidate: a fresh process (posix_spawn or
 * fork + execve, never a bare fork of this multithreaded host, whose
 * thread pools and locks would not survive it) that loads the same plugin
 * file, creates an instance with the same [plugin.NAME] entries and thread
 * count, prepares the workload once and then measures each candidate it is
 * sent (validate = deserialize, then olc_calibrate__time with the
 * loop's parameters), answering with the median, spread, sample count and
 * end reason (wire.h).  The worker has no store: only this process writes
 * it.
 *
 * Each run has a timeout: the worker reports every finished run (at most
 * every 100 ms, wire.h), and one that stays silent longer than the
 * timeout is killed with SIGKILL.  A worker that dies while measuring (a
 * signal, abort, exit() inside run) or is killed makes that candidate fail
 * with OLC_E_CRASHED or OLC_E_TIMEOUT and a message naming what happened;
 * the next candidate gets a new worker.
 *
 * The workload is prepared in the worker only: this process prepares it
 * (once, undone by olc_calibrate__session_end) only when isolation is off
 * (in_process) or unavailable (Windows), or the first worker cannot be
 * found or started, or refuses its setup.  Candidates are then measured
 * here, and olc_calibrate__session_note says why (a warning for the
 * workload's result; none on Windows).  A first worker that crashes or
 * hangs in its setup fails the session instead, and a later worker that
 * cannot be started fails its candidate (never in-process after a
 * crash).  The plugin's log lines in the worker are logged again through
 * its services here.
 *
 * The worker is found, in order: $OLC_WORKER (secure_getenv; when set,
 * nothing else is tried), olc-worker next to the running executable, the
 * install location relative to it (bin/../libexec/olc), the install
 * location relative to the library's own file (dladdr: lib/../libexec/olc,
 * for a runtime that links libolc from wherever it was installed), the
 * absolute install location, and (test builds only) the build tree.
 */
#ifndef OLC_CALIBRATE_ISOLATE_H
#define OLC_CALIBRATE_ISOLATE_H

#include <stddef.h>
#include <stdint.h>

#include "calibrate/check.h"
#include "calibrate/timing.h"
#include "calibrate/wire.h"
#include "olc/host.h"
#include "olc/store.h"
#include "plugins/plugins.h"

#define OLC_WORKER_NAME "olc-worker"
/* Run timeout (s) while no candidate has been measured yet, and the
 * least one after that. */
#define OLC_ISOLATE_DEFAULT_TIMEOUT 60.0
#define OLC_ISOLATE_MIN_TIMEOUT 10.0
/* Restarts that may fail in a row before the session gives up. */
#define OLC_ISOLATE_MAX_START_FAILURES 3u

typedef struct olc_isolate_worker olc_isolate_worker;

/* The plugin to measure and what a worker needs to load and create it
 * again (all borrowed). */
typedef struct olc_isolate_plugin {
  olc_loaded_plugin *plugin;
  uint32_t threads;            /* the thread count its instance was created with */
  int allow_insecure_plugins;  /* the permission policy its file was loaded under */
  int ignore_env;              /* the host's ignore_env: OLC_WORKER is not read */
  const olc_property *entries; /* its [plugin.NAME] entries, handed to create */
  size_t entry_count;
} olc_isolate_plugin;

typedef struct olc_measure_session {
  olc_isolate_plugin target;
  olc_loaded_plugin *plugin; /* target.plugin */
  const olc_plugin_workload *workload;
  void **states;       /* the workload prepared here (rotate instances), in-process */
  int prepared;        /* states are prepared (unprepared by olc_calibrate__session_end) */
  uint32_t rotate;     /* instances measured in turn: 1 warm, more cold (rotate.h) */
  uint32_t next_state; /* the next of them, across measurements */
  const olc_policy_list *list;
  const olc_calibration_settings *settings;
  double timeout_s; /* per run; <= 0: automatic (olc_calibrate__timeout) */
  int in_process;   /* requested, or fallen back to */
  int started;      /* a worker answered READY at least once */
  int setup_broke;  /* a worker died or hung before answering its setup */
  unsigned start_failures;
  char start_error[OLC_ERROR_MESSAGE_SIZE]; /* why the last start failed */
  olc_isolate_worker *worker;
  unsigned char *warmed;             /* list->count flags: candidate ran in this worker */
  char note[OLC_ERROR_MESSAGE_SIZE]; /* why in-process after all; "" */
  olc_check_spec check_spec;         /* the numerical check (enabled 0: none) */
  olc_check check;                   /* in-process: inputs and reference made here */
  int check_made;                    /* check is initialized */
  unsigned char *check_state;        /* list->count: CHECK_* of isolate.c */
  char worker_path[4096];
} olc_measure_session;

/*
 * Sets up a session (starts nothing).  Everything is borrowed and must
 * outlive the session (target is copied, what it points to borrowed).
 * timeout_s <= 0 means automatic.
 */
void olc_calibrate__session_init(olc_measure_session *s, const olc_isolate_plugin *target,
                                 const olc_plugin_workload *workload, const olc_policy_list *list,
                                 const olc_calibration_settings *settings, int in_process,
                                 double timeout_s);
/*
 * Starts the first worker, or (in-process, or after the fallback) prepares
 * the workload here.  A failure means nothing can be measured: the plugin
 * failed to prepare here (its error), or the worker crashed, exited or hung
 * while the plugin was loaded and the workload prepared (OLC_E_CRASHED /
 * OLC_E_TIMEOUT; the setup is then not repeated in this process, which
 * the same crash would take down).  olc_calibrate__session_measure begins
 * by itself when this was not called.
 */
olc_status olc_calibrate__session_begin(olc_measure_session *s, olc_error *err);
/*
 * Measures candidate i of the list with params, like olc_calibrate__time
 * (OLC_OK with *out, or the plugin's failure in err), and also
 * OLC_E_CRASHED / OLC_E_TIMEOUT when the worker died or was killed.  A
 * candidate's first measurement in a worker process gets at least the
 * settings' warm-up runs (a new worker after a crash has run nothing).
 * OLC_E_NOMEM only when this process is out of memory.
 */
olc_status olc_calibrate__session_measure(olc_measure_session *s, size_t i,
                                          const olc_timing_params *params, olc_timing_result *out,
                                          olc_error *err);
/* Checks each candidate numerically before its first timing (check.h),
 * where it is measured; spec copied, its reference borrowed.  Call before
 * the session begins. */
void olc_calibrate__session_check(olc_measure_session *s, const olc_check_spec *spec);
/* 1 when candidate i passed the numerical check, 0 when it was not checked
 * (or failed it: its measurement failed with OLC_E_MISMATCH). */
int olc_calibrate__session_checked(const olc_measure_session *s, size_t i);
/* Measures on count prepared instances in turn (cold cache, rotate.h);
 * the default is 1.  Call before the session begins. */
void olc_calibrate__session_rotate(olc_measure_session *s, uint32_t count);
/* The warning when measuring fell back to in-process, else NULL. */
const char *olc_calibrate__session_note(const olc_measure_session *s);
/* Stops the worker (it unprepares and exits; killed when it does not). */
void olc_calibrate__session_end(olc_measure_session *s);

/* The run timeout in seconds for params (explicit > 0 wins): 60 s before
 * any candidate was measured, then max(10 s, 20 x the best median). */
double olc_calibrate__timeout(double explicit_s, const olc_calibration_settings *settings,
                              const olc_timing_params *params);

/* ------------------------------------------ platform (isolate_posix.c) */

/* Finds the worker executable: path into buf and OLC_OK, or
 * OLC_E_NOT_FOUND / OLC_E_UNSUPPORTED with why. */
olc_status olc_isolate__find_worker(char *buf, size_t size, int ignore_env, char *why,
                                    size_t why_size);
/* Starts exe with a fresh socket on its fd 3, other descriptors closed and
 * no OLC_* variables in its environment. */
olc_status olc_isolate__spawn(olc_isolate_worker **out, const char *exe, olc_error *err);
/*
 * Sends a request and waits for the answer, at most timeout_s since the
 * request or the last PROGRESS frame (which are skipped).  When the
 * worker dies or times out it is reaped, the call returns OLC_E_CRASHED or
 * OLC_E_TIMEOUT with err->message saying how ("crashed (SIGSEGV)",
 * "aborted (SIGABRT)", "exited with status 3", "gave no answer within 1 s (killed)"),
 * and olc_isolate__alive answers 0 from then on.
 */
olc_status olc_isolate__call(olc_isolate_worker *w, const olc_wire_writer *request,
                             double timeout_s, uint32_t *type, olc_buf *answer, olc_error *err);
int olc_isolate__alive(const olc_isolate_worker *w);
/* The worker's process id (tests), 0 when gone. */
long olc_isolate__pid(const olc_isolate_worker *w);
/* Closes the socket, waits briefly for a clean exit, else kills; frees. */
void olc_isolate__stop(olc_isolate_worker *w);

#endif
