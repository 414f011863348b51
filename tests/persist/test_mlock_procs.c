/*
 * tests/persist/test_mlock_procs.c - issue 11 item 6's test: four processes
 * (mlock_driver) calibrate the same three workloads on one store at once,
 * started together.  With the measurement lock each key is measured by one
 * process only, the measuring of different processes never overlaps (the
 * intervals between the first and the last candidate each process logged
 * for a key are disjoint: an ordering of events on one monotonic clock,
 * no duration is compared with a limit), and all four end with the same
 * selection.  The negative control (OLC_TEST_DISABLE=mlock: the lock
 * granted without locking) measures some key in more than one process.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_support.h"

#ifndef OLC_MOCK_PLUGIN_ROOT
#error "OLC_MOCK_PLUGIN_ROOT must be defined"
#endif
#ifndef OLC_MLOCK_DRIVER
#error "OLC_MLOCK_DRIVER must be defined"
#endif

#define PROCS 4
#define WORKLOADS 3
#define MAX_EVENTS 4096

static const char *const names[WORKLOADS] = {"w0", "w1", "w2"};

static char *tmp;

static int setup(void) {
  tmp = olc_test_tmpdir("mlock-procs");
  return tmp == NULL;
}

static int teardown(void) {
  olc_test_rmtree(tmp);
  free(tmp);
  return 0;
}

typedef struct event {
  long pid;
  int w;
  long long t;
} event;

/* One process's measuring of one key: its first and last event. */
typedef struct span {
  long pid;
  int w;
  long long first, last;
} span;

typedef struct run {
  pid_t pids[PROCS];
  event ev[MAX_EVENTS];
  size_t nev;
  span spans[PROCS * WORKLOADS];
  size_t nspans;
  char policy[PROCS][WORKLOADS][32];
  int measured[PROCS][WORKLOADS];
  int elsewhere[PROCS][WORKLOADS];
} run;

static void write_ini(const char *d) {
  char text[2048], *path = olc_test_path(d, "olc.ini");
  int n = snprintf(text, sizeof text,
                   "[host]\nplugin_dirs = %s/good\nthreads = 1\n"
                   "[store]\npath = %s/profiles.txt\n"
                   "[calibration]\nwarmup = 1\nmin_repetitions = 3\nmin_seconds = 0.001\n"
                   "isolation = false\nstrategy = full\nmeasure_lock = %s/run/measure.lock\n"
                   /* spin_us=500 wins by 10 x: no busy machine flips it */
                   "[plugin.mock_det]\ncandidates = 5000,500,10000\n"
                   "[workload.w0]\nbackend = mock_det\noperator = MatMul\nm = 8\nn = 4\nk = 2\n"
                   "[workload.w1]\nbackend = mock_det\noperator = MatMul\nm = 16\nn = 4\nk = 2\n"
                   "[workload.w2]\nbackend = mock_det\noperator = MatMul\nm = 32\nn = 4\nk = 2\n",
                   OLC_MOCK_PLUGIN_ROOT, d, d);
  CU_ASSERT_FATAL(n > 0 && (size_t)n < sizeof text);
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(path, text, (size_t)n), 0);
  free(path);
}

/* Starts the drivers blocked on their stdin; closing start lets them go. */
static int spawn(run *r, const char *d, int disabled) {
  char *ini = olc_test_path(d, "olc.ini"), *log_ = olc_test_path(d, "events.log");
  int start[2], i;
  if (pipe(start) != 0)
    return -1;
  for (i = 0; i < PROCS; i++) {
    char out[64];
    snprintf(out, sizeof out, "out.%d", i);
    r->pids[i] = fork();
    if (r->pids[i] == 0) {
      char *o = olc_test_path(d, out);
      int fd = open(o, O_WRONLY | O_CREAT | O_TRUNC, 0600);
      if (fd < 0 || dup2(start[0], 0) < 0 || dup2(fd, 1) < 0)
        _exit(120);
      close(start[1]);
      if (disabled)
        setenv("OLC_TEST_DISABLE", "mlock", 1);
      else
        unsetenv("OLC_TEST_DISABLE");
      execl(OLC_MLOCK_DRIVER, OLC_MLOCK_DRIVER, ini, log_, (char *)NULL);
      _exit(121);
    }
  }
  close(start[0]);
  close(start[1]); /* go */
  free(ini);
  free(log_);
  return 0;
}

static int workload_index(const char *name) {
  int w;
  for (w = 0; w < WORKLOADS; w++)
    if (strcmp(name, names[w]) == 0)
      return w;
  return -1;
}

static void read_events(run *r, const char *d) {
  char *path = olc_test_path(d, "events.log");
  FILE *fp = fopen(path, "r");
  char name[64];
  long pid;
  long long t;
  CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
  while (r->nev < MAX_EVENTS && fscanf(fp, "%ld %63s %lld", &pid, name, &t) == 3) {
    r->ev[r->nev].pid = pid;
    r->ev[r->nev].w = workload_index(name);
    r->ev[r->nev].t = t;
    CU_ASSERT(r->ev[r->nev].w >= 0);
    r->nev++;
  }
  fclose(fp);
  free(path);
}

/* Folds the events into one span per (process, key). */
static void make_spans(run *r) {
  size_t i, j;
  for (i = 0; i < r->nev; i++) {
    const event *e = &r->ev[i];
    for (j = 0; j < r->nspans; j++)
      if (r->spans[j].pid == e->pid && r->spans[j].w == e->w)
        break;
    if (j == r->nspans) {
      CU_ASSERT_FATAL(r->nspans < PROCS * WORKLOADS);
      r->spans[j].pid = e->pid;
      r->spans[j].w = e->w;
      r->spans[j].first = r->spans[j].last = e->t;
      r->nspans++;
    }
    if (e->t < r->spans[j].first)
      r->spans[j].first = e->t;
    if (e->t > r->spans[j].last)
      r->spans[j].last = e->t;
  }
}

static void read_results(run *r, const char *d, int i) {
  char out[64], *path, line[256];
  FILE *fp;
  int seen = 0;
  snprintf(out, sizeof out, "out.%d", i);
  path = olc_test_path(d, out);
  fp = fopen(path, "r");
  CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
  while (fgets(line, sizeof line, fp) != NULL) {
    char name[64], policy[32];
    int status, measured, elsewhere, lock, w;
    if (sscanf(line, "RESULT %63s %d %31s %d %d %d", name, &status, policy, &measured, &elsewhere,
               &lock) != 6 ||
        (w = workload_index(name)) < 0)
      continue;
    CU_ASSERT_EQUAL(status, 0);
    CU_ASSERT_EQUAL(lock, 0);
    snprintf(r->policy[i][w], sizeof r->policy[i][w], "%s", policy);
    r->measured[i][w] = measured;
    r->elsewhere[i][w] = elsewhere;
    seen++;
  }
  CU_ASSERT_EQUAL(seen, WORKLOADS);
  fclose(fp);
  free(path);
}

/* Runs the four drivers in a fresh directory; all must exit 0. */
static void run_all(run *r, const char *tag, int disabled) {
  char *d = olc_test_path(tmp, tag);
  int i;
  memset(r, 0, sizeof *r);
  CU_ASSERT_EQUAL_FATAL(mkdir(d, 0700), 0);
  write_ini(d);
  CU_ASSERT_EQUAL_FATAL(spawn(r, d, disabled), 0);
  for (i = 0; i < PROCS; i++) {
    int status = -1;
    CU_ASSERT_EQUAL(waitpid(r->pids[i], &status, 0), r->pids[i]);
    CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  read_events(r, d);
  make_spans(r);
  for (i = 0; i < PROCS; i++)
    read_results(r, d, i);
  free(d);
}

/* How many processes measured key w. */
static int measurers(const run *r, int w) {
  size_t j;
  int n = 0;
  for (j = 0; j < r->nspans; j++)
    n += r->spans[j].w == w;
  return n;
}

static void test_one_measurer_at_a_time(void) {
  static run r;
  size_t a, b;
  int w, i, waited = 0;
  run_all(&r, "locked", 0);
  for (w = 0; w < WORKLOADS; w++) {
    int results_measured = 0;
    if (measurers(&r, w) != 1)
      fprintf(stderr, "\n  %s measured by %d processes\n", names[w], measurers(&r, w));
    CU_ASSERT_EQUAL(measurers(&r, w), 1);
    for (i = 0; i < PROCS; i++) {
      results_measured += r.measured[i][w];
      waited += r.elsewhere[i][w];
      /* All four end with the same selection: the winner, 500 us. */
      CU_ASSERT_STRING_EQUAL(r.policy[i][w], "spin_us=500");
    }
    CU_ASSERT_EQUAL(results_measured, 1);
  }
  /* Spans of different processes never overlap. */
  for (a = 0; a < r.nspans; a++)
    for (b = a + 1; b < r.nspans; b++) {
      const span *x = &r.spans[a], *y = &r.spans[b];
      if (x->pid == y->pid)
        continue;
      if (!(x->last < y->first || y->last < x->first))
        fprintf(stderr, "\n  %ld on %s and %ld on %s overlap\n", x->pid, names[x->w], y->pid,
                names[y->w]);
      CU_ASSERT(x->last < y->first || y->last < x->first);
    }
  CU_ASSERT_EQUAL(r.nspans, (size_t)WORKLOADS);
  printf("(%zu events; %d results selected what another process measured meanwhile) ", r.nev,
         waited);
}

static void test_negative_control(void) {
  static run r;
  int w, more = 0;
  run_all(&r, "unlocked", 1);
  for (w = 0; w < WORKLOADS; w++)
    more += measurers(&r, w) > 1;
  printf("(without the lock: %d of %d keys measured more than once) ", more, WORKLOADS);
  CU_ASSERT(more > 0);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  signal(SIGPIPE, SIG_IGN);
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("mlock-procs", setup, teardown);
  if (s == NULL)
    return 1;
  CU_add_test(s, "4 processes: each key measured once, one at a time, same selection",
              test_one_measurer_at_a_time);
  CU_add_test(s, "negative control: without the lock keys are measured twice",
              test_negative_control);
  return olc_test_run(argc, argv);
}
