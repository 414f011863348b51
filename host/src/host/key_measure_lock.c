/*
 * host/key_measure_lock.c - the host's measurement lock (host_int.h): its path
 * (the caller's option, [calibration] measure_lock, or the persist
 * module's default beside the user's runtime directory or the store), the
 * bounded wait around the measurement of one key, and what the workload's
 * result and the diagnostics say about it.
 *
 * A lock that cannot be used never stops a measurement: the host measures
 * without it and says so once per host.  A holder that keeps it past the
 * timeout only delays: the host then measures anyway and says so each
 * time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host/host_int.h"
#include "util/error.h"

olc_status olc_host__mlock_init(olc_host *host, const char *option_path) {
  const olc_calibration_settings *cs = &host->settings; /* the config's or the defaults */
  const char *path = option_path;
  double timeout_s = cs->measure_lock_timeout_seconds;
  olc_host_mlock *m = &host->mlock;
  olc_status st;
  m->timeout_ms = (int64_t)(timeout_s * 1000.0);
  if (path == NULL)
    path = cs->measure_lock;
  olc_error_clear(&m->no_path);
  if (path != NULL) {
    m->path = malloc(strlen(path) + 1);
    if (m->path == NULL)
      return OLC_E_NOMEM;
    memcpy(m->path, path, strlen(path) + 1);
    return OLC_OK;
  }
  /* A read-only store creates nothing in its directory: no fallback
   * beside it. */
  st = olc_persist__mlock_default_path(&m->path,
                                       host->store != NULL && !olc_store_is_read_only(host->store)
                                           ? olc_store_path(host->store)
                                           : NULL,
                                       &m->no_path);
  return st == OLC_E_NOMEM ? st : OLC_OK; /* no place: said at the first measurement */
}

void olc_host__mlock_free(olc_host *host) {
  free(host->mlock.path);
  host->mlock.path = NULL;
}

/* 1 the first time it is called for a host (any thread). */
static int first_warning(olc_host_mlock *m) {
#ifndef __STDC_NO_ATOMICS__
  return atomic_exchange(&m->warned, 1) == 0;
#else
  int first = !m->warned;
  m->warned = 1;
  return first;
#endif
}

/* "2025-01-02T03:04:05Z" for a time in s since 1970. */
static void utc_text(char *buf, size_t size, int64_t s) {
  time_t t = (time_t)s;
  struct tm tm;
#if defined(_WIN32)
  int ok = gmtime_s(&tm, &t) == 0;
#else
  int ok = gmtime_r(&t, &tm) != NULL;
#endif
  if (!ok || strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
    snprintf(buf, size, "%lld s", (long long)s);
}

/* "pid 1234 (started ...), holding it since ..." into the arena. */
static const char *holder_text(olc_arena *arena, const olc_persist_mlock_holder *h) {
  char line[200], started[40], since[40];
  size_t n;
  if (!h->known)
    return NULL;
  n = (size_t)snprintf(line, sizeof line, "pid %lld", (long long)h->pid);
  if (h->started_s > 0 && n < sizeof line) {
    utc_text(started, sizeof started, h->started_s);
    n += (size_t)snprintf(line + n, sizeof line - n, " (started %s)", started);
  }
  if (h->acquired_ms > 0 && n < sizeof line) {
    utc_text(since, sizeof since, h->acquired_ms / 1000);
    snprintf(line + n, sizeof line - n, ", holding it since %s", since);
  }
  return olc_arena__strdup(arena, line);
}

/* The lock could not be used: measure without it, said once. */
static void without(olc_host *host, olc_host_measure *m, const olc_error *e) {
  m->lock_status = e->code;
  if (first_warning(&host->mlock))
    olc_diag__emit(&host->diag, OLC_DIAG_WARNING, "measure_lock",
                   "%s; measuring without the measurement lock (timings may overlap with other "
                   "processes' measurements)",
                   e->message);
}

olc_status olc_host__mlock_take(olc_persist_mlock **out, olc_host_measure *m) {
  olc_host *host = m->host;
  olc_persist_mlock_wait wait;
  olc_persist_mlock_outcome o;
  olc_error e;
  olc_status st;
  *out = NULL;
  if (host->mlock.path == NULL) {
    without(host, m, &host->mlock.no_path);
    return OLC_OK;
  }
  memset(&wait, 0, sizeof wait);
  wait.timeout_ms = host->mlock.timeout_ms;
  if (m->has_wait_limit && m->wait_limit_ms < wait.timeout_ms)
    wait.timeout_ms = m->wait_limit_ms < 0 ? 0 : m->wait_limit_ms;
  wait.cancel = m->cancel;
  wait.cancel_payload = m->cancel_payload;
  olc_error_clear(&e);
  st = olc_persist__mlock_acquire(out, &o, host->mlock.path, &wait, &e);
  m->lock_wait_seconds = (double)o.waited_ms / 1e3;
  if (o.contended && (m->lock_holder = holder_text(m->arena, &o.holder)) == NULL && o.holder.known)
    st = OLC_E_NOMEM;
  if (st == OLC_E_NOMEM) {
    olc_persist__mlock_release(*out);
    *out = NULL;
    return st;
  }
  if (st == OLC_E_LOCK_TIMEOUT && wait.timeout_ms < host->mlock.timeout_ms) {
    m->lock_status = OLC_E_TIMEOUT; /* the caller's bound: no measurement */
    return OLC_E_TIMEOUT;
  }
  if (st == OLC_E_LOCK_TIMEOUT || st == OLC_E_CANCELLED) {
    m->lock_status = st;
    if (st == OLC_E_LOCK_TIMEOUT)
      olc_diag__emit(&host->diag, OLC_DIAG_WARNING, "measure_lock",
                     "%s (held by %s); measuring workload '%s' anyway", e.message,
                     m->lock_holder != NULL ? m->lock_holder : "a process not known", m->name);
    return st == OLC_E_CANCELLED ? st : OLC_OK;
  }
  if (st != OLC_OK)
    without(host, m, &e);
  return OLC_OK;
}

void olc_host__mlock_give(olc_persist_mlock *lock) { olc_persist__mlock_release(lock); }
