/*
 * plugins/dl_lock.c - the loader's two process-wide locks and the fork
 * count (plugins_int.h, plugins.h), on util/platform.h.
 *
 * dlerror() state is per thread on glibc but global on some libcs, and
 * loader-internal state (constructors, TLS setup) is not reentrant
 * everywhere: every dl* call and the library registry share one lock.
 * The lifecycle lock serializes the plugins' lifecycle calls and is taken
 * before the registry lock (create may log).
 */
#include "plugins/plugins_int.h"

#include "util/platform.h"

static olc_util_mutex plugins_lock = OLC_UTIL_MUTEX_INIT;
static olc_util_mutex plugins_lifecycle = OLC_UTIL_MUTEX_INIT;
/* Which of the two this thread holds (a fork from inside does not wait for
 * itself), and which the fork handlers took. */
static _Thread_local int holds_lock, holds_lifecycle;
static int fork_took_lock, fork_took_lifecycle;
static unsigned fork_count; /* atomic */
static olc_util_once fork_once = OLC_UTIL_ONCE_INIT;

static void fork_prepare(void) {
  fork_took_lifecycle = !holds_lifecycle;
  if (fork_took_lifecycle)
    olc_util__mutex_lock(&plugins_lifecycle);
  fork_took_lock = !holds_lock;
  if (fork_took_lock)
    olc_util__mutex_lock(&plugins_lock);
}

static void fork_parent(void) {
  if (fork_took_lock)
    olc_util__mutex_unlock(&plugins_lock);
  if (fork_took_lifecycle)
    olc_util__mutex_unlock(&plugins_lifecycle);
}

static void fork_child(void) {
  __atomic_add_fetch(&fork_count, 1u, __ATOMIC_RELEASE);
  fork_parent();
}

/* Windows has no fork(): nothing is installed and the count stays 0. */
static void install_fork_handlers(void) {
  (void)olc_util__atfork(fork_prepare, fork_parent, fork_child);
}

unsigned olc_plugins__forks(void) {
  olc_util__once(&fork_once, install_fork_handlers);
  return __atomic_load_n(&fork_count, __ATOMIC_ACQUIRE);
}

unsigned olc_plugins__forks_seen(void) { return __atomic_load_n(&fork_count, __ATOMIC_ACQUIRE); }

void olc_plugins__lock(void) {
  olc_util__mutex_lock(&plugins_lock);
  holds_lock = 1;
}

void olc_plugins__unlock(void) {
  holds_lock = 0;
  olc_util__mutex_unlock(&plugins_lock);
}

void olc_plugins__lifecycle_lock(void) {
  olc_util__mutex_lock(&plugins_lifecycle);
  holds_lifecycle = 1;
}

void olc_plugins__lifecycle_unlock(void) {
  holds_lifecycle = 0;
  olc_util__mutex_unlock(&plugins_lifecycle);
}
