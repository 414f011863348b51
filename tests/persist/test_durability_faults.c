/*
 * tests/persist/test_durability_faults.c - strace-driven enumerations
 * (docs/durability.md K1 and family F):
 *   k1      SIGKILL at every invocation of every file-system system call of
 *           one update (strace -e inject=S:signal=SIGKILL:when=K);
 *   faults  an error at every invocation (SQLite-style "fail the N-th
 *           call"): the status returned must match the file left (old file
 *           byte-identical unless the status says committed), no temporary
 *           remains, the next writer succeeds; plus the named cases F3
 *           (one fsync, never retried), F6 (directory fsync), F7 (ENOLCK,
 *           EINTR) and F10 (EINTR on every other read, write and fcntl).
 * The enumerated calls are those from the first one that touches the
 * store's directory on (the dynamic loader's calls before are not ours).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "durability_util.h"
#include "test_support.h"

#define MAX_CALLS 256

static char *fdir;
static char *fpath;
static char *freal;

static const char traced[] = "trace=openat,open,read,write,fsync,close,rename,renameat,renameat2,"
                             "fcntl,fchmod,getdents64,unlinkat,newfstatat,fstat,mkdir,getrandom";
static const char *const lsan_off[] = {"ASAN_OPTIONS=detect_leaks=0", NULL};

typedef struct call {
  char name[24];
  int k;        /* 1-based index among the calls of this name */
  char fd[256]; /* the first "<path>" of the line (strace -y), or "" */
} call;

static call calls[MAX_CALLS];
static int ncalls;

static int fsetup(void) {
  fdir = olc_test_tmpdir("faults");
  fpath = olc_test_path(fdir, "s.txt");
  freal = fdir ? realpath(fdir, NULL) : NULL;
  return fdir == NULL || fpath == NULL || freal == NULL;
}

static int fteardown(void) {
  olc_test_rmtree(fdir);
  free(fdir);
  free(fpath);
  free(freal);
  return 0;
}

/* P = counter 5, no temporaries; P.lock exists from a first write. */
static void reset(void) {
  olc_test_rmtree(fdir);
  CU_ASSERT_EQUAL_FATAL(mkdir(fdir, 0700), 0);
  CU_ASSERT_EQUAL_FATAL(dur_store(fpath, 4), 0);
  {
    const char *argv[] = {OLC_PERSIST_WRITER, "inc", fpath, "1", "w", NULL};
    CU_ASSERT_EQUAL_FATAL(dur_run(argv, NULL), 0);
  }
  CU_ASSERT_EQUAL_FATAL(dur_store(fpath, 5), 0);
}

/* Records every traced call from the first one on the store's directory. */
static int reference_trace(void) {
  char *log = olc_test_path(fdir, "ref.log");
  const char *argv[] = {"strace",           "-y",   "-qq", "-s", "256", "-o", log, "-e", traced,
                        OLC_PERSIST_WRITER, "once", fpath, NULL};
  char line[8192];
  int counts[64] = {0};
  char names[64][24];
  int nnames = 0, in_window = 0;
  FILE *f;
  int out = -1, st;
  pid_t pid;
  reset();
  pid = dur_spawn(argv, lsan_off, &out); /* the status line is not wanted here */
  if (pid > 0) {
    char sink[256];
    while (read(out, sink, sizeof sink) > 0) {
    }
    close(out);
  }
  st = pid > 0 ? dur_wait(pid) : -1;
  if (st != 0) {
    free(log);
    return -1;
  }
  f = fopen(log, "r");
  free(log);
  if (f == NULL)
    return -1;
  ncalls = 0;
  while (fgets(line, sizeof line, f) != NULL && ncalls < MAX_CALLS) {
    char *paren = strchr(line, '(');
    size_t n = paren ? (size_t)(paren - line) : 0;
    int i;
    if (n == 0 || n >= sizeof names[0] || line[0] == '+' || line[0] == '-')
      continue;
    if (strstr(line, freal) != NULL)
      in_window = 1;
    for (i = 0; i < nnames; i++)
      if (strncmp(names[i], line, n) == 0 && names[i][n] == 0)
        break;
    if (i == nnames) {
      if (nnames == 64)
        continue;
      memcpy(names[i], line, n);
      names[i][n] = 0;
      nnames++;
    }
    counts[i]++;
    if (in_window) {
      const char *lt = strchr(line, '<'), *gt = lt ? strchr(lt, '>') : NULL;
      snprintf(calls[ncalls].name, sizeof calls[ncalls].name, "%s", names[i]);
      calls[ncalls].k = counts[i];
      calls[ncalls].fd[0] = 0;
      if (gt != NULL && (size_t)(gt - lt) < sizeof calls[ncalls].fd)
        snprintf(calls[ncalls].fd, sizeof calls[ncalls].fd, "%.*s", (int)(gt - lt - 1), lt + 1);
      ncalls++;
    }
  }
  fclose(f);
  /* The directory is not cleaned by reset() for the cases: do it now. */
  reset();
  return ncalls > 0 ? 0 : -1;
}

/* The file after a case: 1 old (5), 2 new (6), 0 absent, -1 other. */
static int file_state(void) {
  counter_map m;
  int r = dur_load(&m, fpath);
  if (r != 1)
    return r == 0 ? 0 : -1;
  if (counter_get(&m, "counter") == 5)
    return 1;
  if (counter_get(&m, "counter") == 6)
    return 2;
  return -1;
}

/* I4/I5: the next writer succeeds and leaves no temporary. */
static int next_writer_ok(void) {
  const char *argv[] = {OLC_PERSIST_WRITER, "inc", fpath, "1", "z", NULL};
  int st = dur_run(argv, NULL);
  return st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 && olc_test_count_tmp(fdir) == 0;
}

static void test_k1_kill_every_syscall(void) {
  int i, violations = 0;
  double t0 = dur_now();
  CU_ASSERT_EQUAL_FATAL(reference_trace(), 0);
  for (i = 0; i < ncalls; i++) {
    char inject[96], trace[40];
    const char *argv[] = {"strace",           "-qq", "-o",  "/dev/null", "-e", trace, "-e", inject,
                          OLC_PERSIST_WRITER, "inc", fpath, "1",         "k",  NULL};
    int state, ok;
    snprintf(trace, sizeof trace, "trace=%.23s", calls[i].name);
    snprintf(inject, sizeof inject, "inject=%.23s:signal=SIGKILL:when=%d", calls[i].name,
             calls[i].k);
    dur_run(argv, lsan_off);
    state = file_state();
    ok = (state == 1 || state == 2) && olc_test_count_tmp(fdir) <= 1 && next_writer_ok();
    if (!ok) {
      violations++;
      if (!dur_negative("rename"))
        fprintf(stderr, "\n  kill at %s #%d: file state %d\n", calls[i].name, calls[i].k, state);
    }
    reset();
  }
  fprintf(stderr, "\n  %d crash points, %d invariant violations, %.1f s\n", ncalls, violations,
          dur_now() - t0);
  if (dur_negative("rename")) {
    CU_ASSERT(violations > 0); /* the in-place writer must be caught */
  } else {
    CU_ASSERT_EQUAL(violations, 0);
  }
}

/* Runs "once" under strace with up to three injections; the status line
 * goes to out ("" when the program printed nothing). */
static void run_once(char *out, size_t size, const char *trace, const char *const inj[3]) {
  char *log = olc_test_path(fdir, "once.out");
  char cmd[2048];
  size_t n;
  int k;
  FILE *f;
  n = (size_t)snprintf(cmd, sizeof cmd,
                       "ASAN_OPTIONS=detect_leaks=0 strace -qq -o /dev/null -e '%s'", trace);
  for (k = 0; k < 3; k++)
    if (inj[k] != NULL && n < sizeof cmd)
      n += (size_t)snprintf(cmd + n, sizeof cmd - n, " -e '%s'", inj[k]);
  if (n < sizeof cmd)
    snprintf(cmd + n, sizeof cmd - n, " '%s' once '%s' >'%s' 2>/dev/null", OLC_PERSIST_WRITER,
             fpath, log);
  out[0] = 0;
  if (system(cmd) != -1 && (f = fopen(log, "r")) != NULL) {
    if (fgets(out, (int)size, f) == NULL)
      out[0] = 0;
    fclose(f);
  }
  out[strcspn(out, "\n")] = 0;
  unlink(log);
  free(log);
}

static int committed(const char *status) {
  return strncmp(status, "OLC_OK ", 7) == 0 || strncmp(status, "OLC_COMMITTED_UNSYNCED ", 23) == 0;
}

static void test_fault_every_syscall(void) {
  int i, violations = 0;
  double t0 = dur_now();
  CU_ASSERT_EQUAL_FATAL(reference_trace(), 0);
  for (i = 0; i < ncalls; i++) {
    char inject[96], trace[40], status[128];
    int state, ok;
    snprintf(trace, sizeof trace, "trace=%.23s", calls[i].name);
    snprintf(inject, sizeof inject, "inject=%.23s:error=EIO:when=%d", calls[i].name, calls[i].k);
    {
      const char *inj[3] = {inject, NULL, NULL};
      run_once(status, sizeof status, trace, inj);
    }
    state = file_state();
    if (status[0] == 0)
      ok = state == 1 || state == 2; /* the status line itself was lost */
    else
      ok = committed(status) ? state == 2 : state == 1;
    /* After the commit the old P is removed from the temporary's name it
     * was exchanged to: a failure there leaves it, and the next writer's
     * garbage collection removes it (invariants I3 and I5). */
    ok = ok && olc_test_count_tmp(fdir) <= (committed(status) ? 1 : 0) && next_writer_ok();
    if (!ok) {
      violations++;
      fprintf(stderr, "\n  EIO at %s #%d: status '%s', file state %d\n", calls[i].name, calls[i].k,
              status, state);
    }
    reset();
  }
  fprintf(stderr, "\n  %d fault points, %d violations, %.1f s\n", ncalls, violations,
          dur_now() - t0);
  CU_ASSERT_EQUAL(violations, 0);
}

typedef struct named_fault {
  const char *id;
  const char *trace;
  const char *inject[3];
  const char *expected; /* status line */
  int state;            /* expected file state */
} named_fault;

static const named_fault named[] = {
    {"F1 ENOSPC on the temporary's write",
     "trace=write",
     {"inject=write:error=ENOSPC:when=1", NULL, NULL},
     "OLC_E_NOSPC write",
     1},
    {"F3 EIO on fsync(tmp)",
     "trace=fsync",
     {"inject=fsync:error=EIO:when=1", NULL, NULL},
     "OLC_E_IO fsync",
     1},
    {"F6 EIO on fsync(dir)",
     "trace=fsync",
     {"inject=fsync:error=EIO:when=2", NULL, NULL},
     "OLC_COMMITTED_UNSYNCED dir-fsync",
     2},
    {"F6 EINVAL on fsync(dir) is ignored",
     "trace=fsync",
     {"inject=fsync:error=EINVAL:when=2", NULL, NULL},
     "OLC_OK -",
     2},
    {"F4 EIO on close(tmp)", "trace=close", {NULL, NULL, NULL}, "OLC_E_IO close", 1},
    {"F5 EXDEV on rename",
     "trace=renameat,renameat2",
     {"inject=renameat,renameat2:error=EXDEV", NULL, NULL},
     "OLC_E_IO rename",
     1},
    {"F7 ENOLCK on the lock",
     "trace=fcntl",
     {"inject=fcntl:error=ENOLCK:when=1", NULL, NULL},
     "OLC_E_LOCK lock",
     1},
    {"F7 EINTR on the lock is retried",
     "trace=fcntl",
     {"inject=fcntl:error=EINTR:when=1", NULL, NULL},
     "OLC_OK -",
     2},
    {"F10 EINTR on every other read/write/fcntl",
     "trace=read,write,fcntl",
     {NULL, NULL, NULL},
     "OLC_OK -",
     2},
    {"F11 EIO while reloading", "trace=read", {NULL, NULL, NULL}, "OLC_E_IO reload", 1},
};

/* Index (1-based) of the first call of name on a descriptor whose path
 * ends with suffix (sanitizer runtimes make calls of their own, so counting
 * from the window's start is not enough). */
static int first_store_call(const char *name, const char *suffix) {
  int i;
  for (i = 0; i < ncalls; i++) {
    size_t a = strlen(calls[i].fd), b = strlen(suffix);
    if (strcmp(calls[i].name, name) == 0 && a >= b && strcmp(calls[i].fd + a - b, suffix) == 0)
      return calls[i].k;
  }
  return -1;
}

static void test_named_faults(void) {
  size_t i;
  char when_close[96], when_read[96], w_read[96], w_write[96], w_fcntl[96];
  CU_ASSERT_EQUAL_FATAL(reference_trace(), 0);
  CU_ASSERT_FATAL(first_store_call("close", ".tmp") > 0);
  CU_ASSERT_FATAL(first_store_call("read", "/s.txt") > 0);
  snprintf(when_close, sizeof when_close, "inject=close:error=EIO:when=%d",
           first_store_call("close", ".tmp"));
  snprintf(when_read, sizeof when_read, "inject=read:error=EIO:when=%d",
           first_store_call("read", "/s.txt"));
  snprintf(w_read, sizeof w_read, "inject=read:error=EINTR:when=%d+2",
           first_store_call("read", "/s.txt"));
  snprintf(w_write, sizeof w_write, "inject=write:error=EINTR:when=1+2");
  snprintf(w_fcntl, sizeof w_fcntl, "inject=fcntl:error=EINTR:when=1+2");
  for (i = 0; i < sizeof named / sizeof named[0]; i++) {
    const named_fault *c = &named[i];
    const char *inj[3] = {c->inject[0], c->inject[1], c->inject[2]};
    char status[128];
    int state;
    if (strncmp(c->id, "F4", 2) == 0)
      inj[0] = when_close;
    if (strncmp(c->id, "F11", 3) == 0)
      inj[0] = when_read;
    if (strncmp(c->id, "F10", 3) == 0) {
      inj[0] = w_read;
      inj[1] = w_write;
      inj[2] = w_fcntl;
    }
    run_once(status, sizeof status, c->trace, inj);
    state = file_state();
    fprintf(stderr, "\n  %-44s %s", c->id, status);
    CU_ASSERT_STRING_EQUAL(status, c->expected);
    CU_ASSERT_EQUAL(state, c->state);
    CU_ASSERT_EQUAL(olc_test_count_tmp(fdir), 0);
    CU_ASSERT(next_writer_ok());
    reset();
  }
}

int test_durability_faults_register(void);
int test_durability_faults_register(void) {
  CU_pSuite s = CU_add_suite("k1", fsetup, fteardown);
  if (s == NULL)
    return -1;
  CU_add_test(s, "K1 SIGKILL at every file-system call", test_k1_kill_every_syscall);
  s = CU_add_suite("faults", fsetup, fteardown);
  if (s == NULL)
    return -1;
  CU_add_test(s, "F EIO at every file-system call", test_fault_every_syscall);
  CU_add_test(s, "F1 F3-F7 F10 F11 named faults", test_named_faults);
  return 0;
}
