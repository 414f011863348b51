/* persist/persist_common.c - code shared by the POSIX and Windows writers. */
#if defined(_WIN32)
#define _CRT_RAND_S /* rand_s: RtlGenRandom without linking another library */
#endif
#include "persist/persist_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/error.h"
#include "util/text.h"
#include "util/platform.h"

#if defined(_WIN32)
#include <windows.h>
#else
#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>
#endif

#if !defined(_WIN32) && !defined(__STDC_NO_ATOMICS__)
#include <stdatomic.h>
static _Atomic uint64_t persist_calls;
#elif defined(_WIN32)
static volatile LONG64 persist_calls;
#else
static volatile uint64_t persist_calls; /* no atomics: counting is approximate */
#endif

static const char *const step_names[OLC_STEP_COUNT] = {
    "none",       "mkdir", "lock-open", "lock",  "reload", "merge",     "gc",
    "tmp-create", "write", "fsync",     "close", "rename", "dir-fsync", "unlock",
};

const char *olc_step__name(olc_step step) {
  if ((int)step < 0 || step >= OLC_STEP_COUNT)
    return NULL;
  return step_names[step];
}

olc_step olc_step__from_name(const char *name) {
  int i;
  if (name == NULL)
    return OLC_STEP_NONE;
  for (i = 1; i < (int)OLC_STEP_COUNT; i++)
    if (strcmp(step_names[i], name) == 0)
      return (olc_step)i;
  return OLC_STEP_NONE;
}

const char *olc_persist__kind_str(olc_persist_kind kind) {
  switch (kind) {
  case OLC_PERSIST_ABSENT:
    return "absent";
  case OLC_PERSIST_FILE:
    return "a regular file";
  case OLC_PERSIST_DIRECTORY:
    return "a directory";
  case OLC_PERSIST_SYMLINK:
    return "a symbolic link";
  default:
    return "a FIFO, device or socket";
  }
}

int olc_file_id__equal(const olc_file_id *a, const olc_file_id *b) {
  if (a->exists != b->exists)
    return 0;
  if (!a->exists)
    return 1;
  return a->dev == b->dev && a->ino == b->ino && a->size == b->size && a->mtime_ns == b->mtime_ns;
}

void olc_persist__options(olc_persist_options *out, const olc_persist_options *in) {
  out->lock_timeout_ms = OLC_PERSIST__DEFAULT_TIMEOUT_MS;
  out->tmp_grace_seconds = OLC_PERSIST__DEFAULT_GRACE_S;
  out->file_mode = OLC_PERSIST__DEFAULT_MODE;
  out->max_file_size = 0;
  out->probe = NULL;
  out->probe_payload = NULL;
  out->absorb = NULL;
  if (in == NULL)
    return;
  *out = *in;
  if (out->file_mode == 0)
    out->file_mode = OLC_PERSIST__DEFAULT_MODE;
  out->file_mode &= 0777u;
}

void olc_persist__count(void) {
#if !defined(_WIN32) && !defined(__STDC_NO_ATOMICS__)
  atomic_fetch_add_explicit(&persist_calls, 1, memory_order_relaxed);
#elif defined(_WIN32)
  InterlockedIncrement64(&persist_calls);
#else
  persist_calls++;
#endif
}

uint64_t olc_persist__call_count(void) {
#if !defined(_WIN32) && !defined(__STDC_NO_ATOMICS__)
  return atomic_load_explicit(&persist_calls, memory_order_relaxed);
#elif defined(_WIN32)
  return (uint64_t)InterlockedCompareExchange64(&persist_calls, 0, 0);
#else
  return persist_calls;
#endif
}

/* A weak fallback, used only when the kernel has no random source at all:
 * the name must still differ between writers, not be secret. */
static void random_fallback(unsigned char *buf, size_t n) {
  static unsigned long counter;
  uint64_t x = (uint64_t)time(NULL) ^ ((uint64_t)(uintptr_t)buf << 16) ^ (uint64_t)++counter;
  size_t i;
#if !defined(_WIN32)
  x ^= (uint64_t)getpid() << 32;
#else
  x ^= (uint64_t)GetCurrentProcessId() << 32;
#endif
  for (i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    buf[i] = (unsigned char)(x >> 24);
  }
}

void olc_persist__random(unsigned char *buf, size_t n) {
#if defined(_WIN32)
  size_t i = 0;
  while (i < n) {
    unsigned int r;
    size_t k;
    if (rand_s(&r) != 0) {
      random_fallback(buf + i, n - i);
      return;
    }
    for (k = 0; k < sizeof r && i < n; k++, i++)
      buf[i] = (unsigned char)(r >> (8 * k));
  }
#else
  size_t got = 0;
  while (got < n) {
    ssize_t r;
    olc_persist__count();
    r = getrandom(buf + got, n - got, 0);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0) {
      random_fallback(buf + got, n - got);
      return;
    }
    got += (size_t)r;
  }
#endif
}

olc_status olc_persist__lock_busy(int64_t timeout_ms, int64_t start_ms, int64_t *delay_ms,
                                  const char *path, olc_error *err) {
  int64_t left = timeout_ms < 0 ? -1 : timeout_ms - (olc_util__now_ms() - start_ms);
  if (timeout_ms >= 0 && left <= 0)
    return olc_error__set(err, OLC_E_LOCK_TIMEOUT, "lock",
                          "timed out after %lld ms waiting for the lock of '%s'",
                          (long long)timeout_ms, path);
  olc_util__sleep_ms(olc_persist__backoff(delay_ms, left));
  return OLC_OK;
}

olc_status olc_persist__repair_begin(olc_persist_options *opt, char **dir, const char **base,
                                     char *moved_to, size_t moved_to_size, const char *path,
                                     const olc_persist_options *options, int has_check,
                                     olc_error *err) {
  if (moved_to != NULL && moved_to_size > 0)
    moved_to[0] = 0;
  if (path == NULL || !has_check)
    return olc_error__set(err, OLC_E_INVALID, "repair", "no path or no check");
  olc_persist__options(opt, options);
  olc_persist__hooks_init();
  return olc_persist__split(dir, base, path, err);
}

int64_t olc_persist__backoff(int64_t *delay_ms, int64_t left_ms) {
  unsigned char r[2];
  int64_t d;
  unsigned jitter;
  if (*delay_ms < 1)
    *delay_ms = 1;
  olc_persist__random(r, sizeof r);
  jitter = 750u + (((unsigned)r[0] << 8 | r[1]) % 501u); /* 750..1250 per mille */
  d = *delay_ms * (int64_t)jitter / 1000;
  if (d < 1)
    d = 1;
  *delay_ms = *delay_ms >= 500 ? 1000 : *delay_ms * 2;
  if (left_ms >= 0 && d > left_ms)
    d = left_ms;
  return d;
}

size_t olc_persist__tmp_owner_len(const char *name) {
  size_t n = strlen(name), i = n, digits = 0, hex = 0;
  if (n < 4 || strcmp(name + n - 4, OLC_PERSIST__TMP_SUFFIX) != 0)
    return 0;
  i -= 4;
  while (i > 0 && ((name[i - 1] >= '0' && name[i - 1] <= '9') ||
                   (name[i - 1] >= 'a' && name[i - 1] <= 'f'))) {
    i--;
    hex++;
  }
  if (hex != 16 || i == 0 || name[--i] != '.')
    return 0;
  while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9') {
    i--;
    digits++;
  }
  if (digits == 0 || digits > 10 || i < 2 || name[--i] != '.')
    return 0;
  return i;
}

int olc_persist__is_tmp_name(const char *name, const char *base) {
  size_t bl = strlen(base);
  return olc_persist__tmp_owner_len(name) == bl && strncmp(name, base, bl) == 0;
}

int olc_persist__tmp_name(char *buf, size_t size, const char *base, const char *tag) {
  size_t t = strlen(tag);
  unsigned char r[8];
  int i, n;
  olc_persist__random(r, sizeof r);
  if (t > 16)
    t = 16;
  n = snprintf(buf, size, "%s.%lld.%.*s", base, (long long)olc_persist__pid(), (int)t, tag);
  if (n < 0 || (size_t)n - t + 21 > size)
    return -1;
  for (i = 0; (size_t)(2 * i) + t < 16; i++)
    snprintf(buf + n + 2 * i, 3, "%02x", r[i]);
  memcpy(buf + (size_t)n - t + 16, OLC_PERSIST__TMP_SUFFIX, 5);
  return 0;
}

size_t olc_persist__lock_owner_len(const char *name) {
  size_t n = strlen(name);
  if (n <= 5 || strcmp(name + n - 5, OLC_PERSIST__LOCK_SUFFIX) != 0)
    return 0;
  return n - 5;
}

int olc_persist__maybe_orphan(const char *name, const char *base, const char *own) {
  size_t bl = strlen(base);
  if (olc_persist__is_tmp_name(name, base))
    return own == NULL || strcmp(name, own) != 0;
  return strncmp(name, base, bl) == 0 && strncmp(name + bl, ".displaced-", 11) == 0;
}

olc_status olc_persist__split(char **dir, const char **base, const char *path, olc_error *err) {
  size_t n = strlen(path);
  size_t cut = n;
  *dir = NULL;
  *base = NULL;
  while (cut > 0 && !olc_util__is_sep(path[cut - 1]))
    cut--;
  if (cut == n)
    return olc_error__set(err, OLC_E_INVALID, "path", "store path '%s' has no file name", path);
  *base = path + cut;
  if (cut == 0) {
    *dir = malloc(2);
    if (*dir != NULL)
      memcpy(*dir, ".", 2);
  } else {
    size_t dl = cut;
    /* Keep a root separator ("/x" -> "/"), drop the one before the name. */
    while (dl > 1 && olc_util__is_sep(path[dl - 1]))
      dl--;
    *dir = malloc(dl + 1);
    if (*dir != NULL) {
      memcpy(*dir, path, dl);
      (*dir)[dl] = 0;
    }
  }
  if (*dir == NULL)
    return olc_error__set(err, OLC_E_NOMEM, "path", "out of memory splitting '%s'", path);
  return OLC_OK;
}

olc_status olc_persist__errno_status(int sys_errno, olc_status fallback) {
  if (sys_errno == ENOMEM)
    return OLC_E_NOMEM;
  return olc_error__from_errno(sys_errno, fallback);
}
