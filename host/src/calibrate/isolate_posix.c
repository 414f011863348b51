/*
 * calibrate/isolate_posix.c - finding, starting, talking to and reaping
 * the worker process (isolate.h).
 *
 * Start: posix_spawn where it can close every other descriptor (glibc
 * 2.34+), else fork + execve; never a bare fork, because the host may run
 * thread pools (a forked copy of a multithreaded process has one thread
 * and possibly held locks; only async-signal-safe calls are made between
 * fork and exec).  Every allocation happens before.  The child gets the worker's end of a
 * socketpair as fd 3; every other descriptor above 2 is closed (the
 * store's lock and data files included: the worker never sees them), its
 * signal mask and dispositions are reset and the OLC_* variables are left
 * out of its environment.
 *
 * Reaping waits for this worker's pid only (waitpid(pid)), never for other
 * children of the application.
 */
#include "calibrate/isolate.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/error.h"
#include "util/platform.h"

extern char **environ;

/* OLC_FORCE_FORK: test the fork + execve path where spawn is available. */
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34)) &&          \
    !defined(OLC_FORCE_FORK)
#define OLC_HAVE_SPAWN_CLOSEFROM 1
#endif

/* The worker's end of the socket, in the worker. */
#define WORKER_FD 3
/* How long a worker that closed its socket may take to exit. */
#define EXIT_GRACE_NS 2000000000ull

struct olc_isolate_worker {
  pid_t pid;
  int fd;
  int dead; /* reaped (or lost) */
};

static int executable(const char *path) {
  struct stat st;
  return path[0] == '/' && stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

static int try_path(char *buf, size_t size, const char *a, const char *b, const char *c) {
  int n = snprintf(buf, size, "%s%s%s", a, b, c);
  return n > 0 && (size_t)n < size && executable(buf);
}

/* olc-worker where the library's install puts it, relative to the
 * library (a runtime that links libolc.so, with or without the olc
 * program). */
static int near_library(char *buf, size_t size) {
#ifdef OLC_LIB_TO_WORKER_DIR
  char *lib = olc_util__library_dir();
  int found;
  if (lib == NULL) /* linked into the program: the program's directory */
    lib = olc_util__exe_dir();
  found = lib != NULL && try_path(buf, size, lib, "/" OLC_LIB_TO_WORKER_DIR "/", OLC_WORKER_NAME);
  free(lib);
  return found;
#else
  (void)buf;
  (void)size;
  return 0;
#endif
}

olc_status olc_isolate__find_worker(char *buf, size_t size, int ignore_env, char *why,
                                    size_t why_size) {
  const char *env = NULL;
  char *exe;
  int found = 0;
  if (!ignore_env && getuid() == geteuid() && getgid() == getegid()) {
#if defined(__GLIBC__)
    env = secure_getenv("OLC_WORKER");
#else
    env = getenv("OLC_WORKER");
#endif
  }
  if (env != NULL && env[0] != 0) {
    if (try_path(buf, size, env, "", ""))
      return OLC_OK;
    snprintf(why, why_size, "OLC_WORKER=%s is not an executable file (absolute path)", env);
    return OLC_E_NOT_FOUND;
  }
  exe = olc_util__exe_dir();
  if (exe != NULL) {
    found = try_path(buf, size, exe, "/", OLC_WORKER_NAME);
#ifdef OLC_BIN_TO_WORKER_DIR
    if (!found)
      found = try_path(buf, size, exe, "/" OLC_BIN_TO_WORKER_DIR "/", OLC_WORKER_NAME);
#endif
    free(exe);
  }
  if (!found)
    found = near_library(buf, size);
#ifdef OLC_WORKER_INSTALL_PATH
  if (!found)
    found = try_path(buf, size, OLC_WORKER_INSTALL_PATH, "", "");
#endif
#if defined(OLC_TEST_HOOKS) && defined(OLC_WORKER_BUILD_PATH)
  if (!found)
    found = try_path(buf, size, OLC_WORKER_BUILD_PATH, "", "");
#endif
  if (found)
    return OLC_OK;
  snprintf(why, why_size,
           "worker executable %s not found (next to the program or the library, in the "
           "install tree, or $OLC_WORKER)",
           OLC_WORKER_NAME);
  return OLC_E_NOT_FOUND;
}

/* The environment without OLC_* (malloc'ed array of borrowed strings). */
static char **worker_env(void) {
  size_t n = 0, k = 0, i;
  char **env;
  while (environ != NULL && environ[n] != NULL)
    n++;
  env = malloc((n + 1) * sizeof *env);
  if (env == NULL)
    return NULL;
  for (i = 0; i < n; i++)
    if (strncmp(environ[i], "OLC_", 4) != 0)
      env[k++] = environ[i];
  env[k] = NULL;
  return env;
}

/* In the child between fork and exec: async-signal-safe calls only. */
static void child(int sock, int max_fd, const char *exe, char *const argv[], char *const envp[]) {
  sigset_t none;
  int fd, sig;
  if (sock == WORKER_FD) {
    if (fcntl(sock, F_SETFD, 0) != 0)
      _exit(127);
  } else if (dup2(sock, WORKER_FD) != WORKER_FD) {
    _exit(127);
  }
#if defined(SYS_close_range)
  if (syscall(SYS_close_range, WORKER_FD + 1, ~0u, 0) != 0)
#endif
    for (fd = WORKER_FD + 1; fd < max_fd; fd++)
      (void)close(fd);
  for (sig = 1; sig < NSIG; sig++) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    (void)sigaction(sig, &sa, NULL);
  }
  sigemptyset(&none);
  (void)sigprocmask(SIG_SETMASK, &none, NULL);
  execve(exe, argv, envp);
  _exit(127);
}

#if defined(OLC_HAVE_SPAWN_CLOSEFROM)
/*
 * glibc 2.34+: posix_spawn (a vfork-style clone, cheap for a large host
 * and safe under strict overcommit) with the same effects as child():
 * the socket on fd 3 (adddup2 clears its close-on-exec flag), every
 * descriptor above closed, default signal dispositions, empty mask.
 * Returns 0 or an errno value (exec failures included).
 */
static int spawn(pid_t *pid, int sock, const char *exe, char *const argv[], char *const envp[]) {
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t at;
  sigset_t all, none;
  int rc, moved = -1;
  if (sock == WORKER_FD) { /* dup2 onto itself would keep close-on-exec */
    moved = fcntl(sock, F_DUPFD_CLOEXEC, WORKER_FD + 1);
    if (moved < 0)
      return errno;
    sock = moved;
  }
  sigfillset(&all);
  sigemptyset(&none);
  rc = posix_spawn_file_actions_init(&fa);
  if (rc == 0) {
    rc = posix_spawnattr_init(&at);
    if (rc == 0) {
      rc = posix_spawn_file_actions_adddup2(&fa, sock, WORKER_FD);
      if (rc == 0)
        rc = posix_spawn_file_actions_addclosefrom_np(&fa, WORKER_FD + 1);
      if (rc == 0)
        rc = posix_spawnattr_setsigdefault(&at, &all);
      if (rc == 0)
        rc = posix_spawnattr_setsigmask(&at, &none);
      if (rc == 0)
        rc = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
      if (rc == 0)
        rc = posix_spawn(pid, exe, &fa, &at, argv, envp);
      posix_spawnattr_destroy(&at);
    }
    posix_spawn_file_actions_destroy(&fa);
  }
  if (moved >= 0)
    close(moved);
  return rc;
}
#endif

olc_status olc_isolate__spawn(olc_isolate_worker **out, const char *exe, olc_error *err) {
  olc_isolate_worker *w;
  int sv[2];
  char fdarg[16];
  char *argv[3];
  char **envp;
  struct rlimit rl;
  int max_fd = 65536, rc;
  pid_t pid = 0;
  *out = NULL;
  w = calloc(1, sizeof *w);
  envp = worker_env();
  if (w == NULL || envp == NULL) {
    free(w);
    free(envp);
    return olc_error__set(err, OLC_E_NOMEM, "isolate", "out of memory");
  }
#if defined(SOCK_CLOEXEC)
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
#else
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0 || fcntl(sv[0], F_SETFD, FD_CLOEXEC) != 0 ||
      fcntl(sv[1], F_SETFD, FD_CLOEXEC) != 0) {
#endif
    int e = errno;
    free(w);
    free(envp);
    return olc_error__sys(err, OLC_E_IO, e, "isolate", "socketpair for the worker");
  }
#if defined(SO_NOSIGPIPE)
  {
    int one = 1;
    (void)setsockopt(sv[0], SOL_SOCKET, SO_NOSIGPIPE, &one, sizeof one);
  }
#endif
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < 65536)
    max_fd = (int)rl.rlim_cur;
  snprintf(fdarg, sizeof fdarg, "%d", WORKER_FD);
  argv[0] = (char *)(uintptr_t)exe;
  argv[1] = fdarg;
  argv[2] = NULL;
#if defined(OLC_HAVE_SPAWN_CLOSEFROM)
  rc = spawn(&pid, sv[1], exe, argv, envp);
  (void)max_fd;
  (void)child;
#else
  pid = fork();
  if (pid == 0)
    child(sv[1], max_fd, exe, argv, envp);
  rc = pid < 0 ? errno : 0;
#endif
  free(envp);
  close(sv[1]);
  if (rc != 0) {
    close(sv[0]);
    free(w);
    return olc_error__sys(err, OLC_E_IO, rc, "isolate", "starting worker %s", exe);
  }
  w->pid = pid;
  w->fd = sv[0];
  *out = w;
  return OLC_OK;
}

static const char *signal_name(int sig) {
  switch (sig) {
  case SIGSEGV:
    return "SIGSEGV";
  case SIGBUS:
    return "SIGBUS";
  case SIGILL:
    return "SIGILL";
  case SIGFPE:
    return "SIGFPE";
  case SIGABRT:
    return "SIGABRT";
  case SIGKILL:
    return "SIGKILL";
  case SIGTERM:
    return "SIGTERM";
  case SIGINT:
    return "SIGINT";
  case SIGPIPE:
    return "SIGPIPE";
  case SIGTRAP:
    return "SIGTRAP";
  case SIGSYS:
    return "SIGSYS";
  default:
    return NULL;
  }
}

/* How a signal ended the worker: its own fault, or done to it. */
static const char *signal_verb(int sig) {
  if (sig == SIGABRT)
    return "aborted";
  if (sig == SIGKILL || sig == SIGTERM || sig == SIGINT)
    return "killed";
  return "crashed";
}

/*
 * Reaps the worker, waiting up to grace_ns for it to exit by itself, then
 * kills it.  Writes how it ended into why.
 */
static void reap(olc_isolate_worker *w, uint64_t grace_ns, char *why, size_t size) {
  uint64_t until = olc_util__now_ns() + grace_ns;
  int status = 0;
  long nap = 1;
  pid_t r;
  if (w->dead) {
    snprintf(why, size, "already gone");
    return;
  }
  for (;;) {
    r = waitpid(w->pid, &status, WNOHANG);
    if (r == w->pid || (r < 0 && errno != EINTR))
      break;
    if (r == 0 && olc_util__now_ns() >= until) {
      (void)kill(w->pid, SIGKILL);
      do
        r = waitpid(w->pid, &status, 0);
      while (r < 0 && errno == EINTR);
      break;
    }
    if (r == 0) {
      olc_util__sleep_ms(nap);
      nap = nap < 16 ? nap * 2 : nap;
    }
  }
  w->dead = 1;
  if (r != w->pid)
    snprintf(why, size, "died (exit status unavailable: the application reaps its children)");
  else if (WIFSIGNALED(status) && signal_name(WTERMSIG(status)) != NULL)
    snprintf(why, size, "%s (%s)", signal_verb(WTERMSIG(status)), signal_name(WTERMSIG(status)));
  else if (WIFSIGNALED(status))
    snprintf(why, size, "killed by signal %d", WTERMSIG(status));
  else if (WIFEXITED(status))
    snprintf(why, size, "exited with status %d", WEXITSTATUS(status));
  else
    snprintf(why, size, "ended with wait status %d", status);
}

olc_status olc_isolate__call(olc_isolate_worker *w, const olc_wire_writer *request,
                             double timeout_s, uint32_t *type, olc_buf *answer, olc_error *err) {
  uint64_t deadline;
  char why[160];
  olc_status st;
  if (w == NULL || w->dead)
    return olc_error__set(err, OLC_E_CRASHED, "isolate", "the worker is not running");
  if (!(timeout_s > 0) || timeout_s > 1e6)
    timeout_s = 1e6;
  deadline = olc_util__now_ns() + (uint64_t)(timeout_s * 1e9);
  st = olc_wire__send(w->fd, request, deadline, err);
  /* Each PROGRESS (a run finished) starts the timeout again. */
  while (st == OLC_OK) {
    st = olc_wire__recv(w->fd, type, answer, deadline, err);
    if (st != OLC_OK || *type != OLC_WIRE_PROGRESS)
      break;
    deadline = olc_util__now_ns() + (uint64_t)(timeout_s * 1e9);
  }
  if (st == OLC_OK || st == OLC_E_NOMEM)
    return st;
  if (st == OLC_E_TIMEOUT) {
    (void)kill(w->pid, SIGKILL);
    reap(w, EXIT_GRACE_NS, why, sizeof why);
    return olc_error__set(err, OLC_E_TIMEOUT, "isolate", "gave no answer within %g s (killed)",
                          timeout_s);
  }
  /* End of stream, a reset or a malformed frame: the worker is going or
   * gone; its wait status says how. */
  if (st == OLC_E_MALFORMED) {
    (void)kill(w->pid, SIGKILL);
    reap(w, EXIT_GRACE_NS, why, sizeof why);
    return olc_error__set(err, OLC_E_CRASHED, "isolate", "broke the protocol (killed)");
  }
  reap(w, EXIT_GRACE_NS, why, sizeof why);
  return olc_error__set(err, OLC_E_CRASHED, "isolate", "%s", why);
}

int olc_isolate__alive(const olc_isolate_worker *w) { return w != NULL && !w->dead; }

long olc_isolate__pid(const olc_isolate_worker *w) {
  return w != NULL && !w->dead ? (long)w->pid : 0;
}

void olc_isolate__stop(olc_isolate_worker *w) {
  char why[160];
  if (w == NULL)
    return;
  /* End of stream tells the worker to unprepare, destroy and exit. */
  close(w->fd);
  reap(w, EXIT_GRACE_NS, why, sizeof why);
  free(w);
}
