/*
 * persist/hooks.c - fault, crash and negative-control hooks of the write
 * path.  Compiled to nothing in the shipped library (no OLC_TEST_HOOKS).
 */
#include "persist/persist_int.h"

#ifdef OLC_TEST_HOOKS

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#if defined(_WIN32)
#include <windows.h>
#else
#include <signal.h>
#endif

#include "util/platform.h"

static olc_persist_hooks hooks;
static int hooks_explicit;
static int hooks_loaded;

static unsigned parse_safety(const char *s) {
  unsigned bits = 0;
  while (s != NULL && *s != 0) {
    const char *end = strchr(s, ',');
    size_t n = end ? (size_t)(end - s) : strlen(s);
    if (n == 4 && strncmp(s, "lock", n) == 0)
      bits |= OLC_SAFETY_LOCK;
    else if (n == 5 && strncmp(s, "fsync", n) == 0)
      bits |= OLC_SAFETY_FSYNC;
    else if (n == 6 && strncmp(s, "rename", n) == 0)
      bits |= OLC_SAFETY_RENAME;
    else if (n == 7 && strncmp(s, "dirsync", n) == 0)
      bits |= OLC_SAFETY_DIRSYNC;
    else if (n == 3 && strncmp(s, "ofd", n) == 0)
      bits |= OLC_PERSIST__SAFETY_CLASSIC;
    else if (n == 5 && strncmp(s, "order", n) == 0)
      bits |= OLC_PERSIST__SAFETY_ORDER;
    else if (n == 6 && strncmp(s, "relock", n) == 0)
      bits |= OLC_PERSIST__SAFETY_RELOCK;
    else if (n == 5 && strncmp(s, "mlock", n) == 0)
      bits |= OLC_PERSIST__SAFETY_MLOCK;
    else if (n == 8 && strncmp(s, "gencheck", n) == 0)
      bits |= OLC_PERSIST__SAFETY_GENCHECK;
    else if (n == 8 && strncmp(s, "exchange", n) == 0)
      bits |= OLC_PERSIST__SAFETY_EXCHANGE;
    s = end ? end + 1 : NULL;
  }
  return bits;
}

static void load_env(void) {
  const char *v;
  char name[32];
  olc_persist_hooks h;
  memset(&h, 0, sizeof h);
  v = getenv("OLC_TEST_FAIL_AT");
  if (v != NULL && *v != 0) {
    const char *colon = strchr(v, ':');
    size_t n = colon ? (size_t)(colon - v) : strlen(v);
    if (n < sizeof name) {
      memcpy(name, v, n);
      name[n] = 0;
      h.fail_step = olc_step__from_name(name);
      h.fail_errno = colon ? atoi(colon + 1) : EIO;
      if (h.fail_errno <= 0)
        h.fail_errno = EIO;
    }
  }
  v = getenv("OLC_TEST_CRASH_AT");
  if (v != NULL && *v != 0) {
    if (strcmp(v, "write-half") == 0)
      h.crash_half_write = 1;
    else
      h.crash_step = olc_step__from_name(v);
  }
  h.disabled_safety = parse_safety(getenv("OLC_TEST_DISABLE"));
  v = getenv("OLC_TEST_WATCH_RECHECK_MS");
  if (v != NULL && *v != 0)
    h.watch_recheck_ms = atoll(v);
  hooks = h;
}

static olc_util_once hooks_once = OLC_UTIL_ONCE_INIT;
static void load_once(void) {
  if (!hooks_explicit)
    load_env();
  hooks_loaded = 1;
}
void olc_persist__hooks_init(void) { olc_util__once(&hooks_once, load_once); }

void olc_persist__set_hooks(const olc_persist_hooks *h) {
  hooks_explicit = 1;
  if (h != NULL)
    hooks = *h;
  else
    memset(&hooks, 0, sizeof hooks);
  (void)hooks_loaded;
}

int olc_persist__hook_fail(olc_step step) {
  if (hooks.at_step != NULL)
    hooks.at_step(step, hooks.at_step_payload);
  if (step != OLC_STEP_NONE && hooks.fail_step == step)
    return hooks.fail_errno ? hooks.fail_errno : EIO;
  return 0;
}

static void die_now(void) {
#if defined(_WIN32)
  TerminateProcess(GetCurrentProcess(), 9);
#else
  raise(SIGKILL);
#endif
}

void olc_persist__hook_crash(olc_step step) {
  if (step != OLC_STEP_NONE && hooks.crash_step == step)
    die_now();
}

void olc_persist__hook_crash_half(void) {
  if (hooks.crash_half_write)
    die_now();
}

int olc_persist__hook_disabled(unsigned safety) { return (hooks.disabled_safety & safety) != 0; }

int64_t olc_persist__hook_watch_recheck_ms(void) {
  olc_persist__hooks_init();
  return hooks.watch_recheck_ms;
}

const char *olc_persist__hook_fs_type(void) {
  const char *v = getenv("OLC_TEST_FSTYPE");
  return v != NULL && *v != 0 ? v : NULL;
}

#else
/* ISO C forbids an empty translation unit. */
typedef int olc_persist_hooks_unused;
#endif
