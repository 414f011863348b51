/*
 * util/platform_win32.c - util/platform.h on Windows: slim reader/writer
 * locks (a mutex is one taken exclusively), condition variables on them,
 * one-time initialization, QueryPerformanceCounter, and the module file
 * names.  All of it is there from Windows 7 on.
 */
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef _WIN32_WINNT
#define _WIN32_WINNT 0x0601 /* Windows 7: SRW locks, condition variables, InitOnce */
#endif
#include "util/platform.h"

#include <stdlib.h>
#include <string.h>
#include <windows.h>

/* platform.h's objects are one pointer wide and zero is their initial
 * state, as the system's are. */
_Static_assert(sizeof(SRWLOCK) == sizeof(olc_util_mutex), "SRWLOCK is one pointer");
_Static_assert(sizeof(SRWLOCK) == sizeof(olc_util_rwlock), "SRWLOCK is one pointer");
_Static_assert(sizeof(CONDITION_VARIABLE) == sizeof(olc_util_cond),
               "CONDITION_VARIABLE is one pointer");
_Static_assert(sizeof(INIT_ONCE) == sizeof(olc_util_once), "INIT_ONCE is one pointer");

#define SRW(x) ((PSRWLOCK)(void *)&(x)->opaque)
#define CV(x) ((PCONDITION_VARIABLE)(void *)&(x)->opaque)

/* ---- mutex ---- */

void olc_util__mutex_init(olc_util_mutex *m) { InitializeSRWLock(SRW(m)); }
void olc_util__mutex_destroy(olc_util_mutex *m) { (void)m; }
void olc_util__mutex_lock(olc_util_mutex *m) { AcquireSRWLockExclusive(SRW(m)); }
int olc_util__mutex_trylock(olc_util_mutex *m) { return TryAcquireSRWLockExclusive(SRW(m)) != 0; }
void olc_util__mutex_unlock(olc_util_mutex *m) { ReleaseSRWLockExclusive(SRW(m)); }

/* ---- reader/writer lock ---- */

void olc_util__rwlock_init(olc_util_rwlock *l) { InitializeSRWLock(SRW(l)); }
void olc_util__rwlock_destroy(olc_util_rwlock *l) { (void)l; }
void olc_util__rwlock_rdlock(olc_util_rwlock *l) { AcquireSRWLockShared(SRW(l)); }
void olc_util__rwlock_rdunlock(olc_util_rwlock *l) { ReleaseSRWLockShared(SRW(l)); }
void olc_util__rwlock_wrlock(olc_util_rwlock *l) { AcquireSRWLockExclusive(SRW(l)); }
void olc_util__rwlock_wrunlock(olc_util_rwlock *l) { ReleaseSRWLockExclusive(SRW(l)); }

/* ---- condition variable ---- */

void olc_util__cond_init(olc_util_cond *c) { InitializeConditionVariable(CV(c)); }
void olc_util__cond_destroy(olc_util_cond *c) { (void)c; }

int olc_util__cond_wait_ms(olc_util_cond *c, olc_util_mutex *m, int64_t ms) {
  /* INFINITE is 0xffffffff: a longer finite wait is capped below it. */
  DWORD wait = ms < 0 ? INFINITE : ms > 0x7ffffffe ? 0x7ffffffe : (DWORD)ms;
  if (SleepConditionVariableSRW(CV(c), SRW(m), wait, 0))
    return 0;
  return GetLastError() == ERROR_TIMEOUT;
}

void olc_util__cond_signal(olc_util_cond *c) { WakeConditionVariable(CV(c)); }
void olc_util__cond_broadcast(olc_util_cond *c) { WakeAllConditionVariable(CV(c)); }

/* ---- once and fork ---- */

/* The function travels in a struct: C has no conversion between function
 * and object pointers. */
typedef struct once_call {
  void (*fn)(void);
} once_call;

static BOOL CALLBACK run_once(PINIT_ONCE once, PVOID param, PVOID *ctx) {
  (void)once;
  (void)ctx;
  ((once_call *)param)->fn();
  return TRUE;
}

void olc_util__once(olc_util_once *once, void (*fn)(void)) {
  once_call call;
  call.fn = fn;
  (void)InitOnceExecuteOnce((PINIT_ONCE)(void *)&once->opaque, run_once, &call, NULL);
}

int olc_util__atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void)) {
  (void)prepare;
  (void)parent;
  (void)child;
  return 0; /* no fork() on Windows */
}

/* ---- clocks and sleep ---- */

uint64_t olc_util__now_ns(void) {
  static LARGE_INTEGER freq; /* fixed at boot: a racing first read writes the same value */
  LARGE_INTEGER now;
  if (freq.QuadPart == 0)
    QueryPerformanceFrequency(&freq);
  if (freq.QuadPart == 0 || !QueryPerformanceCounter(&now))
    return 0;
  /* Split to avoid overflowing 64 bits for long uptimes. */
  return (uint64_t)(now.QuadPart / freq.QuadPart) * 1000000000u +
         (uint64_t)((now.QuadPart % freq.QuadPart) * 1000000000 / freq.QuadPart);
}

int64_t olc_util__now_ms(void) { return (int64_t)(olc_util__now_ns() / 1000000u); }

/* The tick count: read from shared memory, the scheduler tick's
 * resolution. */
int64_t olc_util__coarse_ms(void) { return (int64_t)GetTickCount64(); }

int64_t olc_util__wall_ms(void) {
  FILETIME ft;
  uint64_t t;
  GetSystemTimeAsFileTime(&ft);
  /* 100 ns ticks since 1601 -> ms since 1970. */
  t = ((uint64_t)ft.dwHighDateTime << 32) | ft.dwLowDateTime;
  return ((int64_t)t - INT64_C(116444736000000000)) / 10000;
}

/* The tick count goes on while the machine is suspended. */
int64_t olc_util__since_boot_ms(void) { return (int64_t)GetTickCount64(); }

void olc_util__sleep_ms(int64_t ms) {
  if (ms < 0)
    ms = 0;
  while (ms > 0x7ffffffe) {
    Sleep(0x7ffffffe);
    ms -= 0x7ffffffe;
  }
  Sleep((DWORD)ms);
}

/* ---- the program's own files ---- */

/* A copy of path's directory (the part before its last separator, either
 * kind), or NULL. */
static char *dir_of(char *path) {
  char *slash = strrchr(path, '/'), *back = strrchr(path, '\\');
  if (back != NULL && (slash == NULL || back > slash))
    slash = back;
  if (slash == NULL)
    return NULL;
  *slash = 0;
  return _strdup(path);
}

char *olc_util__exe_dir(void) {
  char buf[MAX_PATH * 4];
  DWORD n = GetModuleFileNameA(NULL, buf, (DWORD)sizeof buf);
  if (n == 0 || n >= sizeof buf)
    return NULL;
  buf[n] = 0;
  return dir_of(buf);
}

/* Any address inside the library: the loader names the module holding it. */
static const char library_anchor = 0;

char *olc_util__library_dir(void) {
  HMODULE self = NULL, exe = GetModuleHandleW(NULL);
  wchar_t wide[MAX_PATH * 4];
  char buf[MAX_PATH * 4];
  DWORD n;
  int len;
  if (!GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS |
                              GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                          (LPCWSTR)(const void *)&library_anchor, &self) ||
      self == NULL || self == exe)
    return NULL; /* statically linked: the executable's directory applies */
  n = GetModuleFileNameW(self, wide, (DWORD)(sizeof wide / sizeof wide[0]));
  if (n == 0 || n >= sizeof wide / sizeof wide[0])
    return NULL;
  /* The ANSI code page, as olc_util__exe_dir's GetModuleFileNameA. */
  len = WideCharToMultiByte(CP_ACP, 0, wide, (int)n, buf, (int)sizeof buf - 1, NULL, NULL);
  if (len <= 0)
    return NULL;
  buf[len] = 0;
  return dir_of(buf);
}
