/*
 * calibrate/isolate.c - the measure session (isolate.h): starting the
 * worker with the plugin and workload, one MEASURE/RESULT exchange per
 * candidate, new workers after crashes, and the in-process fallback.
 */
#include "calibrate/isolate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define OLC_HAVE_VALGRIND_H 1
#endif
#endif

#include "calibrate/rotate.h"
#include "util/error.h"
#include "util/platform.h"

/* check_state of a candidate. */
enum { CHECK_NOT_YET = 0, CHECK_PASSED = 1, CHECK_NONE = 2, CHECK_FAILED = 3 };

void olc_calibrate__session_init(olc_measure_session *s, const olc_isolate_plugin *target,
                                 const olc_plugin_workload *workload, const olc_policy_list *list,
                                 const olc_calibration_settings *settings, int in_process,
                                 double timeout_s) {
  memset(s, 0, sizeof *s);
  s->target = *target;
  s->plugin = target->plugin;
  s->workload = workload;
  s->list = list;
  s->settings = settings;
  s->in_process = in_process;
  s->timeout_s = timeout_s;
  s->rotate = 1;
}

void olc_calibrate__session_rotate(olc_measure_session *s, uint32_t count) {
  s->rotate = count > 0 ? count : 1;
}

void olc_calibrate__session_check(olc_measure_session *s, const olc_check_spec *spec) {
  s->check_spec = *spec;
}

int olc_calibrate__session_checked(const olc_measure_session *s, size_t i) {
  return s->check_state != NULL && s->check_state[i] == CHECK_PASSED;
}

/* Under valgrind (the worker traced too) code runs 20-100 x slower, and a
 * first run that compiles kernels (OpenCL) can take minutes: the
 * automatic timeouts grow by this factor there. */
static double slowdown(void) {
#if defined(OLC_HAVE_VALGRIND_H)
  if (RUNNING_ON_VALGRIND)
    return 20.0;
#endif
  return 1.0;
}

double olc_calibrate__timeout(double explicit_s, const olc_calibration_settings *settings,
                              const olc_timing_params *params) {
  double t;
  (void)settings;
  if (explicit_s > 0)
    return explicit_s;
  /* Before the first result nothing is known about the workload; after
   * it, a run 20 x slower than the best median would be abandoned anyway
   * (the median was measured as slowly as the next run will be). */
  if (!(params->best_us > 0))
    return OLC_ISOLATE_DEFAULT_TIMEOUT * slowdown();
  t = 20.0 * params->best_us * 1e-6;
  return t > OLC_ISOLATE_MIN_TIMEOUT * slowdown() ? t : OLC_ISOLATE_MIN_TIMEOUT * slowdown();
}

/* SETUP: what the worker needs to rebuild this plugin instance and
 * workload (wire.h). */
static void build_setup(olc_wire_writer *w, const olc_measure_session *s) {
  const olc_isolate_plugin *t = &s->target;
  const olc_plugin_workload *wl = s->workload;
  size_t i;
  olc_wire__begin(w, OLC_WIRE_SETUP);
  olc_wire__put_u32(w, OLC_WIRE_VERSION);
  olc_wire__put_str(w, olc_plugins__path(s->plugin));
  olc_wire__put_str(w, olc_plugins__name(s->plugin));
  olc_wire__put_u32(w, t->threads);
  /* The file passed the host's permission check under this policy. */
  olc_wire__put_u32(w, t->allow_insecure_plugins ? 1u : 0u);
  olc_wire__put_u32(w, (uint32_t)t->entry_count);
  for (i = 0; i < t->entry_count; i++) {
    olc_wire__put_str(w, t->entries[i].name);
    olc_wire__put_str(w, t->entries[i].value);
  }
  olc_wire__put_str(w, wl->name);
  olc_wire__put_str(w, wl->operator_name);
  olc_wire__put_str(w, wl->model_digest);
  olc_wire__put_u32(w, wl->property_count);
  for (i = 0; i < wl->property_count; i++) {
    olc_wire__put_str(w, wl->properties[i].key);
    olc_wire__put_str(w, wl->properties[i].value);
  }
  olc_wire__put_u32(w, s->check_spec.enabled ? 1u : 0u);
  olc_wire__put_f64(w, s->check_spec.atol);
  olc_wire__put_f64(w, s->check_spec.rtol);
  olc_wire__put_u64(w, s->check_spec.seed);
  olc_wire__put_bytes(w, s->check_spec.reference, s->check_spec.reference_len);
  olc_wire__put_u32(w, s->rotate);
  /* The plugin packs constant inputs outside the timed run: the worker's
   * workload says which they are. */
  olc_wire__put_u32(w, wl->constant_inputs);
  olc_wire__finish(w);
}

/* A failure the worker reported.  Its running out of memory is not this
 * process's (which would stop the whole loop): the candidate fails. */
static olc_status from_worker(int32_t status) {
  return status == OLC_E_NOMEM ? OLC_E_PLUGIN : (olc_status)status;
}

/* Starts a worker and waits for READY. */
static olc_status start(olc_measure_session *s, olc_error *err) {
  olc_wire_writer w;
  olc_wire_reader r;
  olc_buf answer = OLC_BUF_INIT;
  uint32_t type = 0;
  olc_status st;
  char why[OLC_ERROR_MESSAGE_SIZE];
  /* Loading, creating and preparing: never less than the first run gets. */
  double t = OLC_ISOLATE_DEFAULT_TIMEOUT * slowdown();
  if (s->timeout_s > t)
    t = s->timeout_s;
  if (s->worker_path[0] == 0) {
    st = olc_isolate__find_worker(s->worker_path, sizeof s->worker_path, s->target.ignore_env, why,
                                  sizeof why);
    if (st != OLC_OK) {
      s->worker_path[0] = 0;
      return olc_error__set(err, st, "isolate", "%s", why);
    }
  }
  st = olc_isolate__spawn(&s->worker, s->worker_path, err);
  if (st != OLC_OK)
    return st;
  build_setup(&w, s);
  st = olc_isolate__call(s->worker, &w, t, &type, &answer, err);
  olc_wire__writer_free(&w);
  if (st == OLC_OK) {
    int32_t ready;
    const char *msg;
    olc_wire__reader(&r, answer.data, answer.len);
    ready = (int32_t)olc_wire__get_u32(&r);
    msg = olc_wire__get_str(&r);
    if (type != OLC_WIRE_READY || !olc_wire__done(&r))
      st = olc_error__set(err, OLC_E_INTERNAL, "isolate", "worker %s answered setup wrongly",
                          s->worker_path);
    else if (ready != OLC_OK)
      st = olc_error__set(err, from_worker(ready), "isolate", "worker setup: %s",
                          msg != NULL ? msg : olc_status_str((olc_status)ready));
  } else if (st != OLC_E_NOMEM) {
    /* It died, hung or babbled while loading the plugin and preparing the
     * workload: the plugin's doing, which this process must not repeat. */
    char m[OLC_ERROR_MESSAGE_SIZE];
    snprintf(m, sizeof m, "%s", err != NULL ? err->message : "");
    s->setup_broke = 1;
    olc_error__set(err, st, "isolate",
                   "the measuring worker %s while loading the plugin and preparing the workload "
                   "(not tried in this process)",
                   m);
  }
  olc_buf__free(&answer);
  if (st != OLC_OK) {
    olc_isolate__stop(s->worker);
    s->worker = NULL;
  }
  return st;
}

/* The plugin's log lines from the worker, logged again here as the
 * plugin's, so that they reach this host's log (and its sink). */
static void replay_log(const olc_measure_session *s, olc_wire_reader *r) {
  uint32_t n = olc_wire__get_u32(r), i;
  for (i = 0; i < n && !r->bad; i++) {
    int32_t level = (int32_t)olc_wire__get_u32(r);
    const char *text = olc_wire__get_str(r);
    if (text != NULL)
      olc_plugins__log(s->plugin, level, text);
  }
}

/* The RESULT's run times into out->values: 0 only when out of memory.  A
 * count the payload cannot hold leaves the reader bad (then malformed). */
static int get_values(olc_timing_result *out, olc_wire_reader *r) {
  uint32_t i, n = out->samples;
  out->values = NULL;
  if (n == 0 || (size_t)n > (r->len - r->pos) / 8u) {
    if (n != 0)
      r->bad = 1;
    out->samples = 0;
    return 1;
  }
  out->values = malloc(n * sizeof *out->values);
  if (out->values == NULL) {
    out->samples = 0;
    return 0;
  }
  for (i = 0; i < n; i++)
    out->values[i] = olc_wire__get_f64(r);
  return 1;
}

/* One candidate in the worker. */
/* The MEASURE frame for candidate i: its policy, the parameters, the time left. */
static olc_status measure_request(olc_wire_writer *w, const olc_measure_session *s, size_t i,
                                  const olc_timing_params *p, olc_error *err) {
  uint64_t left = 0;
  olc_status st;
  if (p->deadline_ns != 0) {
    uint64_t now = olc_util__now_ns();
    left = p->deadline_ns > now ? p->deadline_ns - now : 1u;
  }
  olc_wire__begin(w, OLC_WIRE_MEASURE);
  olc_wire__put_u64(w, (uint64_t)i);
  olc_wire__put_bytes(w, s->list->serialized[i].data, s->list->serialized[i].len);
  olc_wire__put_params(w, p);
  olc_wire__put_u64(w, left);
  olc_wire__finish(w);
  if (w->st == OLC_OK)
    return OLC_OK;
  st = w->st; /* out of memory, or a policy over the frame limit */
  return olc_error__set(err, st, "isolate", "%s",
                        st == OLC_E_NOMEM ? "out of memory" : "policy too large for the worker");
}

/* Reads the worker's answer to candidate i into out; *checked = the
 * worker's check verdict (1 passed). */
static olc_status measure_answer(olc_measure_session *s, size_t i, uint32_t type,
                                 const olc_buf *answer, olc_timing_result *out, int *checked,
                                 olc_error *err) {
  olc_wire_reader r;
  uint64_t index;
  int32_t rst;
  const char *msg;
  olc_wire__reader(&r, answer->data, answer->len);
  index = olc_wire__get_u64(&r);
  rst = (int32_t)olc_wire__get_u32(&r);
  msg = olc_wire__get_str(&r);
  out->median_us = olc_wire__get_f64(&r);
  out->mad_us = olc_wire__get_f64(&r);
  out->samples = olc_wire__get_u32(&r);
  out->end = (olc_timing_end)olc_wire__get_u32(&r);
  out->timed_us = olc_wire__get_f64(&r);
  if (!get_values(out, &r))
    return olc_error__set(err, OLC_E_NOMEM, "isolate", "out of memory");
  replay_log(s, &r);
  *checked = olc_wire__get_u32(&r) == 1u;
  if (type != OLC_WIRE_RESULT || !olc_wire__done(&r) || index != (uint64_t)i ||
      out->end > OLC_TIMING_DEADLINE) {
    /* Not what a worker says: treat it as one that went wrong. */
    olc_isolate__stop(s->worker);
    s->worker = NULL;
    return olc_error__set(err, OLC_E_CRASHED, "isolate", "the worker sent a malformed result");
  }
  if (rst != OLC_OK)
    return olc_error__set(err, from_worker(rst), "measure", "%s",
                          msg != NULL ? msg : olc_status_str((olc_status)rst));
  return OLC_OK;
}

/* The worker died or hung during a call: it is stopped, and err says which. */
static olc_status measure_lost(olc_measure_session *s, olc_status st, double timeout,
                               olc_error *err) {
  char m[OLC_ERROR_MESSAGE_SIZE];
  snprintf(m, sizeof m, "%s", err != NULL ? err->message : olc_status_str(st));
  if (st == OLC_E_TIMEOUT)
    olc_error__set(err, st, "isolate", "timed out: a run took longer than %g s (worker killed)",
                   timeout);
  else
    olc_error__set(err, st = OLC_E_CRASHED, "isolate", "%s in the measuring worker", m);
  olc_isolate__stop(s->worker);
  s->worker = NULL;
  return st;
}

static olc_status measure_isolated(olc_measure_session *s, size_t i, const olc_timing_params *p,
                                   olc_timing_result *out, int *checked, olc_error *err) {
  olc_wire_writer w;
  olc_buf answer = OLC_BUF_INIT;
  uint32_t type = 0;
  double timeout = olc_calibrate__timeout(s->timeout_s, s->settings, p);
  olc_status st = measure_request(&w, s, i, p, err);
  if (st == OLC_OK)
    st = olc_isolate__call(s->worker, &w, timeout, &type, &answer, err);
  olc_wire__writer_free(&w);
  if (st == OLC_OK)
    st = measure_answer(s, i, type, &answer, out, checked, err);
  else if (st == OLC_E_CRASHED || st == OLC_E_TIMEOUT || !olc_isolate__alive(s->worker))
    st = measure_lost(s, st, timeout, err);
  olc_buf__free(&answer);
  if (st != OLC_OK) {
    olc_timing_result__free(out);
    out->median_us = 0;
    out->mad_us = 0;
    out->timed_us = 0;
    out->end = OLC_TIMING_DONE;
  }
  return st;
}

/* The workload prepared in this process, once, for measuring here. */
static olc_status prepare_here(olc_measure_session *s, olc_error *err) {
  olc_status st;
  if (s->prepared)
    return OLC_OK;
  st = olc_calibrate__prepare_states(&s->states, s->rotate, s->plugin, s->workload, err);
  s->prepared = st == OLC_OK;
  return st;
}

/* A worker ready for the next candidate (a new one after a crash), or
 * s->in_process set and the workload prepared here. */
static olc_status ensure_runner(olc_measure_session *s, olc_error *err) {
  olc_error e;
  olc_status st;
  if (!s->in_process && s->worker == NULL) {
    if (s->start_failures >= OLC_ISOLATE_MAX_START_FAILURES && !s->started)
      return olc_error__set(err, OLC_E_CRASHED, "isolate", "not measured: %s", s->start_error);
    if (s->start_failures >= OLC_ISOLATE_MAX_START_FAILURES)
      return olc_error__set(err, OLC_E_CRASHED, "isolate",
                            "not measured: the worker could not be restarted (%u tries): %s",
                            s->start_failures, s->start_error);
    olc_error_clear(&e);
    st = start(s, &e);
    if (st == OLC_E_NOMEM)
      return olc_error__set(err, st, "isolate", "out of memory");
    if (st != OLC_OK && !s->started && !s->setup_broke) {
      /* The worker is missing, cannot be started or refused the setup
       * (the plugin failed to load or prepare there): measure here, as
       * without isolation, and say so (not on a platform that has no
       * isolation at all: nothing to warn about). */
      s->in_process = 1;
      if (st != OLC_E_UNSUPPORTED)
        snprintf(s->note, sizeof s->note, "measured in-process (no crash isolation): %.180s",
                 e.message);
    } else if (st != OLC_OK) {
      /* A first worker that broke in its setup is not retried, nor is the
       * setup repeated here; later restarts get a few tries. */
      s->start_failures = s->started ? s->start_failures + 1 : OLC_ISOLATE_MAX_START_FAILURES;
      snprintf(s->start_error, sizeof s->start_error, "%s", e.message);
      if (s->started)
        return olc_error__set(err, OLC_E_CRASHED, "isolate",
                              "not measured: the worker could not be restarted: %s", e.message);
      return olc_error__set(err, st == OLC_E_TIMEOUT ? st : OLC_E_CRASHED, "isolate", "%s",
                            e.message);
    } else {
      s->started = 1;
      s->start_failures = 0;
      if (s->warmed != NULL)
        memset(s->warmed, 0, s->list->count);
    }
  }
  return s->in_process ? prepare_here(s, err) : OLC_OK;
}

olc_status olc_calibrate__session_begin(olc_measure_session *s, olc_error *err) {
  return ensure_runner(s, err);
}

/* Candidate i checked here (in-process), before its first timing. */
static olc_status check_here(olc_measure_session *s, size_t i, int *checked, olc_error *err) {
  olc_status st;
  if (!s->check_made) {
    olc_check__init(&s->check, s->plugin, s->workload, &s->check_spec);
    s->check_made = 1;
  }
  st = olc_check__policy(&s->check, s->list->policies[i], s->list->serialized[i].data,
                         s->list->serialized[i].len, checked, err);
  s->check_state[i] = st != OLC_OK ? CHECK_FAILED : *checked ? CHECK_PASSED : CHECK_NONE;
  return st;
}

olc_status olc_calibrate__session_measure(olc_measure_session *s, size_t i,
                                          const olc_timing_params *params, olc_timing_result *out,
                                          olc_error *err) {
  olc_timing_params p;
  olc_status st;
  int check, checked = 0;
  memset(out, 0, sizeof *out);
  st = ensure_runner(s, err);
  if (st != OLC_OK)
    return st;
  if (s->check_state == NULL && (s->check_state = calloc(s->list->count, 1)) == NULL)
    return olc_error__set(err, OLC_E_NOMEM, "isolate", "out of memory");
  check = s->check_spec.enabled && s->check_state[i] == CHECK_NOT_YET;
  p = *params;
  if (s->in_process) {
    if (check && (st = check_here(s, i, &checked, err)) != OLC_OK)
      return st;
    olc_timing_params__after_check(&p, checked);
    return olc_calibrate__time_rotating(out, s->plugin, s->workload, s->states, s->rotate,
                                        &s->next_state, s->list->policies[i], &p, err);
  }
  /* A fresh worker has not run candidate i yet (its first run may build
   * kernels or fault pages in): the caller's warm-up applies again, even to
   * a measurement that asked for none (the race's later turns). */
  if (s->warmed == NULL && (s->warmed = calloc(s->list->count, 1)) == NULL)
    return olc_error__set(err, OLC_E_NOMEM, "isolate", "out of memory");
  if (!s->warmed[i] && p.warmup < s->settings->warmup)
    p.warmup = s->settings->warmup;
  p.check = (uint32_t)check;
  st = measure_isolated(s, i, &p, out, &checked, err);
  if (st == OLC_OK)
    s->warmed[i] = 1;
  if (check && (st == OLC_OK || st == OLC_E_MISMATCH))
    s->check_state[i] = st != OLC_OK ? CHECK_FAILED : checked ? CHECK_PASSED : CHECK_NONE;
  return st;
}

const char *olc_calibrate__session_note(const olc_measure_session *s) {
  return s->note[0] != 0 ? s->note : NULL;
}

void olc_calibrate__session_end(olc_measure_session *s) {
  if (s->worker != NULL)
    olc_isolate__stop(s->worker);
  s->worker = NULL;
  if (s->prepared)
    olc_calibrate__unprepare_states(s->states, s->rotate, s->plugin);
  s->prepared = 0;
  s->states = NULL;
  free(s->warmed);
  s->warmed = NULL;
  if (s->check_made)
    olc_check__free(&s->check);
  s->check_made = 0;
  free(s->check_state);
  s->check_state = NULL;
}
