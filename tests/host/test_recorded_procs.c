/*
 * tests/host/test_recorded_procs.c - processes that record misses into
 * one recorded-workloads file at once (the store's locked
 * reload-merge-replace): PROCS processes, released together, each select
 * in never mode SHARED workloads that all of them meet and OWN workloads
 * of their own.  The file then holds every workload exactly once: nothing
 * lost (each process's own ones are there), nothing duplicated (one line
 * per key, raw, before any parse could merge them).  The negative control
 * runs the same with the file's lock and the commit's check of what it
 * replaced disabled (persist's test hooks): then records are lost.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/misses.h"
#include "persist/persist_int.h"
#include "persist/persist.h"
#include "runtime_util.h"

#define PROCS 4
#define SHARED 8
#define OWN 8

static char *tmp;

static int setup(void) {
  tmp = olc_test_tmpdir("recorded_procs");
  return tmp == NULL;
}

static int teardown(void) {
  olc_test_rmtree(tmp);
  free(tmp);
  return 0;
}

/* One process: its own directory (olc.ini, store), the shared file. */
static int child(int id, int gate, const char *rec, int unlocked) {
  char dir[1024], extra[1200];
  const olc_selection *s;
  rt_workload w;
  rt_host h;
  char c;
  int j, bad = 0;
  snprintf(dir, sizeof dir, "%s.p%d", rec, id);
  snprintf(extra, sizeof extra, "record_misses = %s\n", rec);
  if (mkdir(dir, 0700) != 0)
    return 2;
  if (unlocked) {
    olc_persist_hooks hooks;
    memset(&hooks, 0, sizeof hooks);
    /* Without the lock, the exchange would still merge a displaced file's
     * records in: both off. */
    hooks.disabled_safety = OLC_SAFETY_LOCK | OLC_PERSIST__SAFETY_EXCHANGE;
    olc_persist__set_hooks(&hooks);
  }
  rt_open(&h, dir, NULL, "store.txt", extra);
  if (read(gate, &c, 1) < 0) /* released together: EOF when the parent closes */
    bad = 1;
  for (j = 0; j < SHARED + OWN; j++) {
    long m = j < SHARED ? 1 + j : 1000 + id * OWN + (j - SHARED);
    rt_matmul(&w, NULL, m, 4, 2);
    bad |= olc_host_select(&s, h.s.host, &w.w, NULL, NULL) != OLC_FIRST_CANDIDATE;
  }
  rt_close(&h);
  return bad;
}

static size_t count_lines(const unsigned char *b, size_t len, const char *needle) {
  size_t n = 0, i = 0;
  while (i < len) {
    const unsigned char *nl = memchr(b + i, '\n', len - i);
    size_t l = nl != NULL ? (size_t)(nl - (b + i)) : len - i;
    char line[4096];
    snprintf(line, sizeof line, "%.*s", (int)l, (const char *)b + i);
    n += strstr(line, needle) != NULL;
    i += l + 1;
  }
  return n;
}

/* Runs the processes on file rec; returns the lines of its records. */
static size_t run_procs(const char *rec, int unlocked, unsigned char **bytes, size_t *len) {
  pid_t pids[PROCS];
  int gate[2], i;
  CU_ASSERT_FATAL(pipe(gate) == 0);
  for (i = 0; i < PROCS; i++) {
    fflush(NULL);
    pids[i] = fork();
    CU_ASSERT_FATAL(pids[i] >= 0);
    if (pids[i] == 0) {
      close(gate[1]);
      _exit(child(i, gate[0], rec, unlocked));
    }
  }
  close(gate[0]);
  close(gate[1]); /* go */
  for (i = 0; i < PROCS; i++) {
    int status = 0;
    CU_ASSERT_EQUAL(waitpid(pids[i], &status, 0), pids[i]);
    CU_ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  *bytes = olc_test_read_file(rec, len);
  CU_ASSERT_PTR_NOT_NULL_FATAL(*bytes);
  return count_lines(*bytes, *len, "workload ");
}

static void test_concurrent_recording(void) {
  char rec[1024], needle[64];
  unsigned char *bytes;
  size_t len = 0;
  int i, j;
  olc_misses_set set = OLC_MISSES_SET_INIT;
  olc_error err;
  snprintf(rec, sizeof rec, "%s/recorded.txt", tmp);
  CU_ASSERT_EQUAL(run_procs(rec, 0, &bytes, &len), SHARED + PROCS * OWN);
  for (j = 0; j < SHARED; j++) {
    snprintf(needle, sizeof needle, " prop.m=%d ", 1 + j);
    CU_ASSERT_EQUAL(count_lines(bytes, len, needle), 1);
  }
  for (i = 0; i < PROCS; i++)
    for (j = 0; j < OWN; j++) {
      snprintf(needle, sizeof needle, " prop.m=%d ", 1000 + i * OWN + j);
      CU_ASSERT_EQUAL(count_lines(bytes, len, needle), 1);
    }
  OLC_ASSERT_OK(olc_misses__parse(&set, bytes, len, rec, &err), &err);
  CU_ASSERT_EQUAL(set.count, SHARED + PROCS * OWN);
  olc_misses__free(&set);
  free(bytes);
}

/* Without the lock, the reload-merge-replace of two processes overlaps
 * and one's records are lost: in one of a few tries at most. */
static void test_negative_control(void) {
  char rec[1024];
  unsigned char *bytes;
  size_t len = 0, lines = SHARED + PROCS * OWN;
  int attempt;
  for (attempt = 0; attempt < 5 && lines == SHARED + PROCS * OWN; attempt++) {
    snprintf(rec, sizeof rec, "%s/unlocked%d.txt", tmp, attempt);
    lines = run_procs(rec, 1, &bytes, &len);
    free(bytes);
  }
  CU_ASSERT_TRUE(lines < SHARED + PROCS * OWN);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("recorded-procs", setup, teardown);
  if (s == NULL)
    return 1;
  CU_add_test(s, "processes recording at once: nothing lost or duplicated",
              test_concurrent_recording);
  CU_add_test(s, "negative control: without the lock records are lost", test_negative_control);
  return olc_test_run(argc, argv);
}
