/*
 * host/runtime.c - olc_binding_select (olc/host.h, runtime.h).
 *
 * Warm: the slot's view holds a selection made at the host's current save
 * epoch and checked against the store less than recheck_ns ago; three
 * atomic loads and the monotonic clock (vDSO) answer.  When the check is
 * due, one thread looks again while the others keep the view's answer.
 *
 * Slow: a scoped lookup; a hit becomes the view's selection (the same
 * record keeps its selection object).  A miss in never mode is the first
 * candidate; in on_miss mode the first thread claims the key and the
 * process's measurer and measures (key_measure.c), the others wait for it
 * under the process-wide lock, bounded by the call's timeout and cancel.
 */
#include <stdio.h>
#include <string.h>

#include "calibrate/calibrate.h"
#include "host/host_int.h"
#include "util/error.h"
#include "util/options.h"
#include "util/platform.h"

/* What waiting for a key's measurement ended in (NEAREST: another thread
 * measures it, and the nearest answer is served instead of waiting). */
enum { CLAIMED, LOOK_AGAIN, FAILED, NEAREST };

/* A failed measurement is tried again after RETRY_FIRST_NS, the wait
 * doubling with each failure up to RETRY_MAX_NS: a transient failure (a
 * save that timed out on a busy store lock, a worker that would not start)
 * does not cost the key its measurement for the host's life, and a
 * lasting one costs a measurement every few minutes at most.  A record
 * saved meanwhile is served before any retry: each select that finds the
 * key failed looks it up first. */
#define RETRY_FIRST_NS UINT64_C(1000000000)
#define RETRY_MAX_NS (300 * RETRY_FIRST_NS)
/* How long an on_miss select looks at the machine's load before it
 * measures a contended record again. */
#define QUIET_LOOK_MS 100u

static uint64_t retry_now(const olc_host *h) {
  return h->retry_clock != NULL ? h->retry_clock(h->retry_clock_payload) : olc_util__now_ns();
}

/* The message of a first candidate is composed by olc_binding_select, not
 * here: olc_binding_execute selects without composing it. */
static olc_status answer(const olc_selection **out, const olc_selection *s, olc_error *err) {
  (void)err;
  *out = s;
  return s->record != NULL ? OLC_OK : s->nearest != NULL ? OLC_NEAREST_RECORD : OLC_FIRST_CANDIDATE;
}

/* The view's selection when it may answer without looking again. */
/* 1 when an on_miss select must race rec first ([store] verify_layers =
 * on_first_use; verify_first_use), whoever cached it: a never-mode select
 * may have put a layer's record in the view before. */
static int unverified(const olc_host_slot *s, const olc_record *rec) {
  return rec->from_layer && rec->origin == OLC_ORIGIN_CALIBRATED &&
         s->host->rt.verify_layers == OLC_VERIFY_LAYERS_ON_FIRST_USE &&
         atomic_load_explicit(&s->verified, memory_order_relaxed) == 0;
}

static const olc_selection *warm(olc_host_slot *s, olc_host_view *v, int mode) {
  olc_selection *sel = atomic_load_explicit(&v->current, memory_order_acquire);
  uint64_t now;
  if (sel == NULL || (sel->record == NULL && mode != OLC_SELECT_NEVER))
    return NULL;
  if (mode == OLC_SELECT_ON_MISS && sel->record != NULL && unverified(s, sel->record))
    return NULL;
  now = olc_util__now_ns();
  if (atomic_load_explicit(&v->epoch, memory_order_acquire) ==
          atomic_load_explicit(&s->host->rt.epoch, memory_order_acquire) &&
      now - atomic_load_explicit(&v->checked_ns, memory_order_relaxed) < s->host->rt.recheck_ns)
    return sel;
  /* Due: one thread looks again, the others answer as before meanwhile. */
  if (atomic_exchange_explicit(&v->checking, 1, memory_order_acq_rel) != 0)
    return sel;
  return NULL;
}

static void publish(olc_host_view *v, olc_selection *sel, uint64_t epoch, uint64_t now) {
  atomic_store_explicit(&v->current, sel, memory_order_release);
  atomic_store_explicit(&v->epoch, epoch, memory_order_release);
  atomic_store_explicit(&v->checked_ns, now, memory_order_relaxed);
}

/* The view's selection for record: the current one when it is the same
 * record (then calibrated_now stays what it was: whether this host measured
 * it), else a new one (kept by the slot). */
static olc_status selection_for(olc_selection **out, olc_host_slot *s, olc_host_view *v,
                                const olc_record *rec, int calibrated_now, olc_error *err) {
  olc_selection *cur = atomic_load_explicit(&v->current, memory_order_acquire);
  olc_status st;
  if (cur != NULL && cur->record != NULL && olc_host__same_record(cur->record, rec)) {
    *out = cur;
    return OLC_OK;
  }
  st = olc_host__stored_selection(out, s, rec, calibrated_now, err);
  if (st == OLC_OK)
    olc_host__keep_selection(*out);
  return st;
}

/* The never-mode answer of a miss: the nearest measured workload's
 * policy, else the first candidate. */
static olc_status miss_answer(olc_selection **out, olc_host_slot *s, int fp, olc_error *err) {
  olc_status st = olc_host__nearest_selection(out, s, fp, OLC_E_NOT_FOUND,
                                              "nothing stored (select mode never)", err);
  if (st != OLC_E_NOT_FOUND)
    return st;
  return olc_host__first_selection(out, s, OLC_HOST_FIRST_NEVER, OLC_E_NOT_FOUND, NULL, err);
}

/* Looks the key up and republishes the view: *sel is the record's
 * selection, or NULL on a miss (the view then holds the never-mode answer,
 * *shown). */
static olc_status refresh(olc_selection **sel, olc_selection **shown_out, olc_host_slot *s, int fp,
                          olc_error *err) {
  olc_host *h = s->host;
  olc_host_view *v = &s->view[fp];
  uint64_t epoch = atomic_load_explicit(&h->rt.epoch, memory_order_acquire);
  uint64_t now = olc_util__now_ns();
  olc_lookup_result *lr = NULL;
  olc_selection *shown = NULL;
  olc_status st = olc_host__lookup(&lr, h, s->plugin, &s->key.key, fp, 0, err);
  *sel = NULL;
  olc_host__warn_rejected_overrides(s, lr);
  if (st == OLC_OK)
    st = selection_for(sel, s, v, olc_lookup_result_selected(lr), 0, err);
  olc_lookup_result_free(lr);
  if (st == OLC_OK)
    shown = *sel;
  else if (st == OLC_E_NOT_FOUND && (st = miss_answer(&shown, s, fp, err)) != OLC_OK)
    shown = NULL;
  if (shown != NULL)
    publish(v, shown, epoch, now);
  atomic_store_explicit(&v->checking, 0, memory_order_release);
  *shown_out = shown;
  return st;
}

/* Waits until the key may be measured by this thread (CLAIMED: it and the
 * process's measurer are ours), was measured by another (LOOK_AGAIN), or
 * its measurement failed before (FAILED); or the wait ran out.  The key is
 * claimed before the measurer, so the other threads of this key wait for
 * it, not for the measurer. */
static olc_status wait_turn(int *turn, olc_host_slot *s, const olc_select_options *o,
                            uint64_t start, int has_nearest) {
  olc_status st = OLC_OK;
  int waited = 0;
  olc_host__global_lock();
  /* A failed key whose wait is over is open to the next measurement. */
  if (s->failed != OLC_OK && !s->measuring && retry_now(s->host) >= s->retry_at_ns)
    s->failed = OLC_OK;
  if (s->failed == OLC_OK && s->measuring && has_nearest && !o->wait) {
    /* Another thread measures the key: a measured answer now beats the
     * first candidate after a wait. */
    olc_host__global_unlock();
    *turn = NEAREST;
    return OLC_OK;
  }
  while (s->failed == OLC_OK && s->measuring && st == OLC_OK) {
    st = olc_host__wait(o->timeout_ms, start, o->cancel, o->cancel_payload);
    waited = 1;
  }
  if (st == OLC_OK && s->failed != OLC_OK) {
    *turn = FAILED;
  } else if (st == OLC_OK && waited) {
    *turn = LOOK_AGAIN;
  } else if (st == OLC_OK) {
    s->measuring = 1;
    st = olc_host__claim_measurer(o->timeout_ms, start, o->cancel, o->cancel_payload);
    if (st == OLC_OK) {
      *turn = CLAIMED;
    } else {
      s->measuring = 0;
      olc_host__global_broadcast();
    }
  }
  olc_host__global_unlock();
  return st;
}

/* Measures the claimed key, publishes the outcome, wakes the waiters. */
/* The select's wait for the measurement lock ran out or was cancelled:
 * nothing measured, the key stays open to the next select. */
static olc_status lock_wait_over(const olc_selection **out, olc_host_slot *s,
                                 const olc_host_measure *m, olc_error *err) {
  olc_selection *sel;
  olc_status st;
  olc_host__global_lock();
  s->measuring = 0;
  olc_host__release_measurer();
  olc_host__global_unlock();
  st = olc_host__first_selection(
      &sel, s, m->status == OLC_E_TIMEOUT ? OLC_HOST_FIRST_TIMEOUT : OLC_HOST_FIRST_CANCELLED,
      m->status, m->message, err);
  return st == OLC_OK ? answer(out, sel, err) : st;
}

static olc_status measure(const olc_selection **out, olc_host_slot *s, int fp,
                          const olc_select_options *o, uint64_t start, int refine, olc_error *err) {
  olc_host *h = s->host;
  olc_arena arena = OLC_ARENA_INIT;
  olc_host_measure m;
  olc_selection *sel = NULL;
  olc_status st;
  olc_host__measure_request(&m, s, &s->workload, s->name, &h->settings, fp, o->in_process,
                            &h->lazy_budget, &arena);
  m.look_again = !refine; /* refining: the stored record is the one to replace */
  m.cancel = o->cancel;
  m.cancel_payload = o->cancel_payload;
  m.has_wait_limit = o->timeout_ms >= 0;
  m.wait_limit_ms = o->timeout_ms - (int64_t)((olc_util__now_ns() - start) / 1000000u);
  st = olc_host__measure_key(&m);
  if (st == OLC_OK && !m.measured && (m.status == OLC_E_TIMEOUT || m.status == OLC_E_CANCELLED)) {
    st = lock_wait_over(out, s, &m, err); /* m's message is in arena */
    olc_lookup_result_free(m.lookup);
    olc_arena__free(&arena);
    return st;
  }
  if (st == OLC_OK && m.note != NULL &&
      atomic_exchange_explicit(&h->rt.isolation_note_said, 1, memory_order_acq_rel) == 0)
    /* No olc-worker (not found, or it would not start): a runtime has no
     * report to read, so it hears of the lost isolation here; once per
     * host, as the cause (a static link, an install without the worker)
     * is the same for every key. */
    olc_diag__emit(&h->diag, OLC_DIAG_WARNING, m.name, "%s", m.note);
  if (st == OLC_OK && m.status == OLC_OK)
    st =
        selection_for(&sel, s, &s->view[fp], olc_lookup_result_selected(m.lookup), m.measured, err);
  if (sel != NULL)
    publish(&s->view[fp], sel, atomic_load(&h->rt.epoch), olc_util__now_ns());
  olc_host__global_lock();
  s->measuring = 0;
  if (sel != NULL) {
    s->retry_wait_ns = 0;
  } else {
    s->retry_wait_ns = s->retry_wait_ns == 0                  ? RETRY_FIRST_NS
                       : s->retry_wait_ns >= RETRY_MAX_NS / 2 ? RETRY_MAX_NS
                                                              : 2 * s->retry_wait_ns;
    s->retry_at_ns = retry_now(h) + s->retry_wait_ns;
    s->failed = st != OLC_OK ? st : m.status;
    snprintf(s->failed_message, sizeof s->failed_message, "%s",
             st != OLC_OK        ? "the measured policy could not be selected"
             : m.message != NULL ? m.message
                                 : "measuring failed");
  }
  olc_host__release_measurer();
  olc_host__global_unlock();
  olc_lookup_result_free(m.lookup);
  olc_arena__free(&arena);
  if (sel != NULL)
    return answer(out, sel, err);
  st = olc_host__first_selection(&sel, s, OLC_HOST_FIRST_FAILED, s->failed, s->failed_message, err);
  return st == OLC_OK ? answer(out, sel, err) : st;
}

/* A first candidate of kind, or the failure to make one. */
static olc_status first(const olc_selection **out, olc_host_slot *s, int kind, olc_status why,
                        const char *message, olc_error *err) {
  olc_selection *sel;
  olc_status st = olc_host__first_selection(&sel, s, kind, why, message, err);
  return st == OLC_OK ? answer(out, sel, err) : st;
}

/* [store] verify_layers = on_first_use: the first on_miss select that a
 * layer's calibrated record answers races it here first (verify.c); a
 * record that still wins is served, one beaten beyond the noise is
 * recalibrated into the user's store and the new record served.  A
 * verification that cannot measure or save serves the layer's record. */
static olc_status verify_first_use(const olc_selection **out, olc_host_slot *s, int fp,
                                   const olc_select_options *o, olc_selection *sel,
                                   olc_error *err) {
  olc_host *h = s->host;
  olc_arena arena = OLC_ARENA_INIT;
  olc_host_measure m;
  olc_selection *now = NULL;
  olc_status st = olc_host__verify_measure(&m, s, sel->record, 0, o->in_process, &arena);
  if (st == OLC_OK && m.status == OLC_OK && !m.kept && m.lookup != NULL &&
      olc_lookup_result_selected(m.lookup) != NULL &&
      selection_for(&now, s, &s->view[fp], olc_lookup_result_selected(m.lookup), 1, err) == OLC_OK)
    publish(&s->view[fp], now, atomic_load(&h->rt.epoch), olc_util__now_ns());
  else if (st == OLC_OK && m.status != OLC_OK && m.message != NULL)
    olc_diag__emit(&h->diag, OLC_DIAG_WARNING, s->name, "verify_layers: %s", m.message);
  olc_lookup_result_free(m.lookup);
  olc_arena__free(&arena);
  return answer(out, now != NULL ? now : sel, err);
}

/* 1 when rec was saved while the machine was busy (OLC_MEASUREMENT_CONTENDED). */
static int contended(const olc_record *rec) {
  size_t i;
  for (i = 0; rec != NULL && i < rec->measurement_count; i++)
    if (strcmp(rec->measurements[i].name, OLC_MEASUREMENT_CONTENDED) == 0)
      return 1;
  return 0;
}

/*
 * An on_miss select that finds a record saved while the machine was busy
 * measures it again, once per key and host, when the machine is quiet
 * now: the record is served meanwhile (the view holds it), and when the
 * new measurement fails, it still is.
 */
static olc_status refine(const olc_selection **out, olc_host_slot *s, int fp, olc_selection *sel,
                         const olc_select_options *o, uint64_t start, olc_error *err) {
  int turn = LOOK_AGAIN, go;
  olc_status st;
  olc_host__global_lock();
  go = !s->refine_tried && !s->measuring;
  s->refine_tried = 1;
  olc_host__global_unlock();
  if (!go || olc_calibrate__load_quiet(
                 s->key.key.thread_count > 0 ? (uint32_t)s->key.key.thread_count : s->host->threads,
                 QUIET_LOOK_MS) != 1)
    return answer(out, sel, err);
  st = wait_turn(&turn, s, o, start, 0);
  if (st != OLC_OK || turn != CLAIMED)
    return answer(out, sel, err);
  st = measure(out, s, fp, o, start, 1, err);
  if (st == OLC_OK)
    return st;
  /* Failed: the provisional record stays what the key serves. */
  olc_host__global_lock();
  s->failed = OLC_OK;
  olc_host__global_unlock();
  return answer(out, sel, err);
}

static olc_status slow(const olc_selection **out, olc_host_slot *s, int fp, int mode,
                       const olc_select_options *o, olc_error *err) {
  uint64_t start = olc_util__now_ns();
  int attempt, turn = LOOK_AGAIN;
  for (attempt = 0; attempt < 3; attempt++) {
    olc_selection *sel, *shown = NULL;
    olc_status st = refresh(&sel, &shown, s, fp, err);
    if (st != OLC_OK)
      return st;
    if (sel != NULL && mode == OLC_SELECT_ON_MISS && unverified(s, sel->record) &&
        atomic_exchange(&s->verified, 1) == 0)
      return verify_first_use(out, s, fp, o, sel, err);
    if (sel != NULL && mode == OLC_SELECT_ON_MISS && contended(sel->record))
      return refine(out, s, fp, sel, o, start, err);
    if (sel != NULL)
      return answer(out, sel, err);
    if (mode == OLC_SELECT_NEVER) {
      olc_host__misses_append(s);
      if (shown != NULL)
        return answer(out, shown, err);
      return first(out, s, OLC_HOST_FIRST_NEVER, OLC_E_NOT_FOUND, NULL, err);
    }
    st = wait_turn(&turn, s, o, start, shown != NULL && shown->nearest != NULL);
    if (st == OLC_OK && turn == NEAREST) {
      /* Not waiting for another thread's measurement of the key: the
       * nearest answer, why OLC_E_BUSY (or, gone meanwhile, the wait). */
      st = olc_host__nearest_selection(&sel, s, fp, OLC_E_BUSY, "another thread is measuring it",
                                       err);
      if (st == OLC_OK)
        return answer(out, sel, err);
      if (st != OLC_E_NOT_FOUND)
        return st;
      st = wait_turn(&turn, s, o, start, 0);
    }
    if (st == OLC_E_TIMEOUT || st == OLC_E_CANCELLED)
      return first(out, s, st == OLC_E_TIMEOUT ? OLC_HOST_FIRST_TIMEOUT : OLC_HOST_FIRST_CANCELLED,
                   st, NULL, err);
    if (turn == CLAIMED)
      return measure(out, s, fp, o, start, 0, err);
    if (turn == FAILED)
      return first(out, s, OLC_HOST_FIRST_FAILED, s->failed, s->failed_message, err);
  }
  return first(out, s, OLC_HOST_FIRST_FAILED, OLC_E_NOT_FOUND,
               "measured by another thread, but not selected", err);
}

olc_status olc_binding_select(const olc_selection **out, olc_binding *b,
                              const olc_select_options *opt, olc_error *err) {
  olc_status st = olc_host__select_binding(out, b, opt, err);
  if (st == OLC_FIRST_CANDIDATE || st == OLC_NEAREST_RECORD)
    olc_error__set(err, st, "select", "%s", (*out)->message);
  return st;
}

olc_status olc_host__select_binding(const olc_selection **out, olc_binding *b,
                                    const olc_select_options *opt, olc_error *err) {
  olc_select_options o;
  const olc_selection *sel;
  olc_host_slot *s;
  olc_status st;
  int mode, fp;
  if (out != NULL)
    *out = NULL;
  if (out == NULL || b == NULL)
    return olc_error__set(err, OLC_E_INVALID, "select", "no output or binding");
  st = olc_options__load(&o, &olc_options__select, opt, "select", err);
  if (st != OLC_OK)
    return st;
  s = b->slot;
  /* Before the cache: a child of fork() must not use the parent's
   * selections (their handles are the parent's instances' policies). */
  st = olc_host__check_fork(s->host, "select", err);
  if (st != OLC_OK)
    return st;
  mode = o.mode != OLC_SELECT_HOST_DEFAULT ? o.mode : s->host->rt.select_mode;
  if (mode != OLC_SELECT_NEVER && mode != OLC_SELECT_ON_MISS)
    return olc_error__set(err, OLC_E_INVALID, "select", "select mode %d is not one of 0, 1, 2",
                          o.mode);
  fp = o.force_portable || s->host->force_portable;
  sel = warm(s, &s->view[fp], mode);
  if (sel != NULL)
    return answer(out, sel, err);
  return slow(out, s, fp, mode, &o, err);
}
