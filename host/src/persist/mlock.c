/*
 * persist/mlock.c - the measurement lock (persist.h): its default path,
 * the bounded, cancellable wait and the holder line.  The file and lock
 * calls are in mlock_posix.c and mlock_win32.c.
 */
#include "persist/persist_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/platform.h"

static char *join(const char *a, const char *b) {
  size_t n = strlen(a) + strlen(b) + 1;
  char *s = malloc(n);
  if (s != NULL)
    snprintf(s, n, "%s%s", a, b);
  return s;
}

olc_status olc_persist__mlock_default_path(char **out, const char *store_path, olc_error *err) {
  char *dir;
  if (out == NULL)
    return olc_error__set(err, OLC_E_INVALID, "measure-lock", "no output pointer");
  *out = NULL;
  dir = olc_persist__runtime_dir();
  if (dir != NULL) {
    size_t n = strlen(dir);
#if defined(_WIN32)
    const char *sub = "\\onnx-light\\" OLC_PERSIST__MLOCK_NAME;
#else
    const char *sub = "/onnx-light/" OLC_PERSIST__MLOCK_NAME;
#endif
    if (n > 0 && (dir[n - 1] == '/' || dir[n - 1] == '\\'))
      sub++;
    *out = join(dir, sub);
    free(dir);
  } else if (store_path != NULL && store_path[0] != 0) {
    *out = join(store_path, "." OLC_PERSIST__MLOCK_NAME);
  } else {
    return olc_error__set(err, OLC_E_NOT_FOUND, "measure-lock",
                          "no place for the measurement lock: XDG_RUNTIME_DIR is not a private "
                          "directory of this user and no store may hold it beside its file "
                          "(persistence off or read-only)");
  }
  if (*out == NULL)
    return olc_error__set(err, OLC_E_NOMEM, "measure-lock", "out of memory");
  return OLC_OK;
}

/* Reads one "key=<decimal>" token at *p; 1 and *p moved past it when it
 * is there. */
static int take_field(int64_t *v, const char **p, const char *end, const char *key) {
  size_t kl = strlen(key);
  const char *s = *p;
  int64_t x = 0;
  int digits = 0;
  if ((size_t)(end - s) <= kl || memcmp(s, key, kl) != 0 || s[kl] != '=')
    return 0;
  for (s += kl + 1; s < end && *s >= '0' && *s <= '9' && digits < 18; s++, digits++)
    x = x * 10 + (*s - '0');
  if (digits == 0 || (s < end && *s != ' ' && *s != '\n'))
    return 0;
  *v = x;
  *p = s < end && *s == ' ' ? s + 1 : s;
  return 1;
}

void olc_persist__mlock_parse(olc_persist_mlock_holder *out, const char *text, size_t len) {
  const char *p = text, *end;
  size_t ml = strlen(OLC_PERSIST__MLOCK_MAGIC);
  memset(out, 0, sizeof *out);
  if (text == NULL || len == 0 || memchr(text, '\n', len) == NULL)
    return; /* no line, or one being written: unknown */
  end = memchr(text, '\n', len);
  if ((size_t)(end - p) <= ml || memcmp(p, OLC_PERSIST__MLOCK_MAGIC, ml) != 0 || p[ml] != ' ')
    return;
  p += ml + 1;
  if (!take_field(&out->pid, &p, end, "pid") || !take_field(&out->started_s, &p, end, "started") ||
      !take_field(&out->acquired_ms, &p, end, "acquired") || p != end || out->pid <= 0)
    return;
  out->known = 1;
}

static void put_holder(olc_persist_mlock *m) {
  char line[OLC_PERSIST__MLOCK_LINE_MAX];
  int n = snprintf(line, sizeof line, "%s pid=%lld started=%lld acquired=%lld\n",
                   OLC_PERSIST__MLOCK_MAGIC, (long long)olc_persist__pid(),
                   (long long)olc_persist__process_start_s(), (long long)olc_util__wall_ms());
  if (n > 0 && (size_t)n < sizeof line)
    olc_persist__mlock_put(m, line, (size_t)n);
}

static void get_holder(olc_persist_mlock *m, olc_persist_mlock_holder *h) {
  char text[OLC_PERSIST__MLOCK_LINE_MAX];
  size_t n = olc_persist__mlock_get(m, text, sizeof text);
  olc_persist_mlock_holder seen;
  olc_persist__mlock_parse(&seen, text, n);
  if (seen.known)
    *h = seen; /* a line half-written keeps the last one seen */
}

/* This process as a holder (another of its threads holds the lock). */
static void self_holder(olc_persist_mlock_holder *h) {
  h->known = 1;
  h->pid = olc_persist__pid();
  h->started_s = olc_persist__process_start_s();
  h->acquired_ms = 0; /* not known here */
}

/*
 * One try: first the process-wide flag, then (holding it) the file, opened
 * once, and its lock.  Only the thread that holds the flag opens the file:
 * closing any descriptor of a file drops a classic fcntl lock that another
 * thread of the process holds on it.
 */
static olc_status try_once(olc_persist_mlock *m, olc_persist_mlock_holder *h, const char *path,
                           olc_error *err) {
  olc_status st;
  if (!m->local) {
    if (!olc_persist__mlock_local_take()) {
      self_holder(h);
      return OLC_E_BUSY;
    }
    m->local = 1;
    st = olc_persist__mlock_open(m, path, err);
    if (st != OLC_OK)
      return st;
  }
  st = olc_persist__mlock_try(m, path, err);
  if (st == OLC_E_BUSY)
    get_holder(m, h);
  return st;
}

static olc_status wait_for(olc_persist_mlock *m, olc_persist_mlock_outcome *o, const char *path,
                           const olc_persist_mlock_wait *wait, olc_error *err) {
  int64_t timeout = wait != NULL ? wait->timeout_ms : 0;
  int64_t start = olc_util__now_ms(), delay = 1;
  for (;;) {
    int64_t left;
    olc_status st = try_once(m, &o->holder, path, err);
    if (o->contended)
      o->waited_ms = olc_util__now_ms() - start;
    if (st != OLC_E_BUSY)
      return st;
    o->contended = 1;
    if (wait != NULL && wait->cancel != NULL && wait->cancel(wait->cancel_payload))
      return olc_error__set(err, OLC_E_CANCELLED, "measure-lock",
                            "cancelled while waiting for the measurement lock '%s'", path);
    left = timeout < 0 ? -1 : timeout - (olc_util__now_ms() - start);
    if (timeout >= 0 && left <= 0)
      return olc_error__set(err, OLC_E_LOCK_TIMEOUT, "measure-lock",
                            "timed out after %lld ms waiting for the measurement lock '%s'",
                            (long long)timeout, path);
    if (left < 0 || left > OLC_PERSIST_MLOCK_POLL_MS)
      left = OLC_PERSIST_MLOCK_POLL_MS;
    olc_util__sleep_ms(olc_persist__backoff(&delay, left));
  }
}

/* Closes the file, then gives the flag back (in that order: see try_once). */
static void drop(olc_persist_mlock *m) {
  olc_persist__mlock_close(m);
  if (m->local)
    olc_persist__mlock_local_give();
  free(m);
}

olc_status olc_persist__mlock_acquire(olc_persist_mlock **out, olc_persist_mlock_outcome *outcome,
                                      const char *path, const olc_persist_mlock_wait *wait,
                                      olc_error *err) {
  olc_persist_mlock_outcome local;
  olc_persist_mlock *m;
  olc_status st;
  olc_persist_mlock_outcome *o = outcome != NULL ? outcome : &local;
  memset(o, 0, sizeof *o);
  if (out == NULL || path == NULL || path[0] == 0)
    return olc_error__set(err, OLC_E_INVALID, "measure-lock", "no output pointer or path");
  *out = NULL;
  olc_persist__hooks_init();
  m = calloc(1, sizeof *m);
  if (m == NULL)
    return olc_error__set(err, OLC_E_NOMEM, "measure-lock", "out of memory");
  m->fd = -1;
  if (olc_persist__hook_disabled(OLC_PERSIST__SAFETY_MLOCK)) {
    *out = m; /* negative control: granted, nothing locked */
    return OLC_OK;
  }
  st = wait_for(m, o, path, wait, err);
  if (st != OLC_OK) {
    drop(m);
    return st;
  }
  put_holder(m);
  *out = m;
  return OLC_OK;
}

void olc_persist__mlock_release(olc_persist_mlock *lock) {
  if (lock == NULL)
    return;
  /* The holder line stays: a waiter reads it only while the lock is held,
   * by whoever wrote it last. */
  drop(lock);
}
