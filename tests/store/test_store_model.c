/*
 * tests/store/test_store_model.c - Z3: a model check of the public store
 * API.  Random sequences (seeded, printed, replayable) of save, override,
 * remove-override and reload on two long-lived handles of one store file,
 * with injected failures at named steps of the write path (persist test
 * hooks) and crashes (a forked writer killed at a step), are checked
 * against an in-memory model: after every step, a fresh handle's
 * olc_store_list and both long-lived handles' lists equal the model; after
 * an injected failure, the previous model.
 *
 *   OLC_MODEL_SEED=<n>   run only that seed (default: seeds 1, 2, 3)
 *   OLC_MODEL_STEPS=<n>  steps per seed (default 150)
 *   OLC_MODEL_SABOTAGE=lock|fsync|rename|dirsync
 *                        switch a safety step off (negative control: the
 *                        check must then fail; ctest test_store_model_nc)
 */
#include <CUnit/CUnit.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "persist/persist.h"
#include "store_model.h"
#include "test_store_setup.h"
#include "test_support.h"

enum { OP_SAVE, OP_OVERRIDE, OP_REMOVE, OP_RELOAD };
static const char *const op_names[] = {"save", "override", "remove", "reload"};

/* Steps every write reaches, so a failure there must fail the call. */
static const olc_step must_fail[] = {
    OLC_STEP_MKDIR,      OLC_STEP_LOCK_OPEN, OLC_STEP_LOCK,  OLC_STEP_RELOAD, OLC_STEP_MERGE,
    OLC_STEP_TMP_CREATE, OLC_STEP_WRITE,     OLC_STEP_FSYNC, OLC_STEP_CLOSE,  OLC_STEP_RENAME};

static char *dir;
static char *path;
static uint64_t rng_state;
static unsigned sabotage;       /* OLC_SAFETY_* switched off in every hook set */
static unsigned long counts[8]; /* ops, failures, crashes, checks, ... */

static uint32_t rnd(uint32_t n) {
  /* xorshift64*: the sequence is a function of the seed only */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (uint32_t)((rng_state * 0x2545F4914F6CDD1Dull) >> 33) % n;
}

static olc_store_options options(void) {
  olc_store_options o = OLC_STORE_OPTIONS_INIT;
  o.path = path;
  o.tmp_grace_seconds = 0; /* a crashed writer's tmp is collected by the next */
  o.lock_timeout_ms = 5000;
  return o;
}

/* One operation, fully described (so it can run in a child too). */
typedef struct op {
  int kind;
  int handle;
  const char *operator_name;
  const char *processor;
  int64_t threads;
  int structure; /* 0: none, 1: m=1, 2: m=2 */
  double value;
  char policy[16];
} op;

static const olc_property structures[3][1] = {{{"m", "0"}}, {{"m", "1"}}, {{"m", "2"}}};

static olc_key key_of(const op *o) {
  olc_key k;
  memset(&k, 0, sizeof k);
  k.backend = "b";
  k.operator_name = o->operator_name;
  k.implementation = "1";
  k.model_digest = "d";
  k.processor = o->processor;
  k.thread_count = o->threads;
  k.structure = o->structure ? structures[o->structure] : NULL;
  k.structure_count = o->structure ? 1u : 0u;
  return k;
}

/* What the op does to the model; returns how many records it removes (for
 * remove: 0 means OLC_E_NOT_FOUND is due). */
static int apply(model *m, const op *o) {
  olc_key k = key_of(o);
  olc_measurement meas = {"t", o->value, "s"};
  olc_record r;
  int removed = 0, level;
  if (o->kind == OP_RELOAD)
    return 0;
  for (level = 0; level < (k.structure_count ? 2 : 1); level++) {
    memset(&r, 0, sizeof r);
    r.level = level ? OLC_LEVEL_PORTABLE : OLC_LEVEL_EXACT;
    r.origin = o->kind == OP_SAVE ? OLC_ORIGIN_CALIBRATED : OLC_ORIGIN_OVERRIDE;
    r.backend = k.backend;
    r.operator_name = k.operator_name;
    r.implementation = k.implementation;
    if (!level) {
      r.model_digest = k.model_digest;
      r.processor = k.processor;
      r.thread_count = k.thread_count;
    } else {
      r.structure = k.structure;
      r.structure_count = k.structure_count;
    }
    r.measurements = &meas;
    r.measurement_count = 1;
    r.policy = (const unsigned char *)o->policy;
    r.policy_len = strlen(o->policy);
    if (o->kind == OP_REMOVE)
      removed += model_remove(m, &r);
    else
      model_put(m, &r);
  }
  return removed;
}

static olc_status run_op(olc_store *s, const op *o, olc_error *err) {
  olc_key k = key_of(o);
  olc_measurement meas = {"t", o->value, "s"};
  olc_save_request req = OLC_SAVE_REQUEST_INIT;
  req.key = &k;
  req.measurements = &meas;
  req.measurement_count = 1;
  req.policy = o->policy;
  req.policy_len = strlen(o->policy);
  switch (o->kind) {
  case OP_SAVE:
    return olc_store_save(s, &req, err);
  case OP_OVERRIDE:
    return olc_store_install_override(s, &req, err);
  case OP_REMOVE:
    return olc_store_remove_override(s, &k, OLC_LEVELS_DEFAULT, err);
  default:
    return olc_store_reload(s, err);
  }
}

static void random_op(op *o, unsigned step) {
  static const char *const ops[] = {"o1", "o2"};
  static const char *const procs[] = {"p1", "p2"};
  uint32_t r = rnd(10);
  o->kind = r < 4 ? OP_SAVE : r < 6 ? OP_OVERRIDE : r < 9 ? OP_REMOVE : OP_RELOAD;
  o->handle = (int)rnd(2);
  o->operator_name = ops[rnd(2)];
  o->processor = procs[rnd(2)];
  o->threads = 1 + (int64_t)rnd(2);
  o->structure = (int)rnd(3);
  o->value = step + 0.5;
  snprintf(o->policy, sizeof o->policy, "p%u", step);
}

static void describe(char *out, size_t size, const op *o, const char *inject) {
  snprintf(out, size, "%s h%d %s/%s/%lld/m=%d %s%s", op_names[o->kind], o->handle, o->operator_name,
           o->processor, (long long)o->threads, o->structure, o->policy, inject);
}

static int list_of(olc_store *s, model *m) {
  olc_record_list *l = NULL;
  olc_error e;
  if (olc_store_list(&l, s, &e) != OLC_OK) {
    fprintf(stderr, "list failed: %s\n", e.message);
    return -1;
  }
  model_from_list(m, l);
  olc_record_list_free(l);
  return 0;
}

/* Runs o in a child killed at step; returns 1 when the change must be
 * visible (the child passed the commit point or finished), 0 otherwise. */
static int crash_op(const op *o, olc_step step, int *crashed) {
  pid_t pid = fork();
  int status = 0;
  if (pid == 0) {
    olc_persist_hooks h;
    olc_store *s = NULL;
    olc_store_options opt = options();
    olc_error e;
    olc_status st;
    memset(&h, 0, sizeof h);
    h.crash_step = step;
    h.disabled_safety = sabotage;
    olc_persist__set_hooks(&h);
    if (olc_store_open(&s, &opt, &e) != OLC_OK)
      _exit(3);
    st = run_op(s, o, &e);
    _exit(st == OLC_OK || st == OLC_COMMITTED_UNSYNCED ? 0 : 1);
  }
  if (pid < 0 || waitpid(pid, &status, 0) != pid)
    return -1;
  *crashed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
  if (*crashed)
    return step >= OLC_STEP_RENAME;
  if (!WIFEXITED(status) || WEXITSTATUS(status) > 1)
    return -1;
  return WEXITSTATUS(status) == 0;
}

/* No injection: only the sabotage, if any. */
static void set_base_hooks(void) {
  olc_persist_hooks h;
  memset(&h, 0, sizeof h);
  h.disabled_safety = sabotage;
  olc_persist__set_hooks(&h);
}

static int is_must_fail(olc_step s) {
  size_t i;
  for (i = 0; i < sizeof must_fail / sizeof must_fail[0]; i++)
    if (must_fail[i] == s)
      return 1;
  return 0;
}

static int run_seed(unsigned long seed, unsigned steps) {
  olc_store *h[2] = {NULL, NULL};
  olc_store_options opt = options();
  olc_error e;
  model m, before, seen;
  char log[64][120];
  unsigned step;
  int ok = 1, i;

  printf("model check: seed %lu, %u steps (replay: OLC_MODEL_SEED=%lu)\n", seed, steps, seed);
  rng_state = seed * 0x9E3779B97F4A7C15ull + 1;
  unlink(path);
  memset(&m, 0, sizeof m);
  for (i = 0; i < 2; i++)
    if (olc_store_open(&h[i], &opt, &e) != OLC_OK) {
      fprintf(stderr, "open: %s\n", e.message);
      return 0;
    }
  for (step = 0; step < steps && ok; step++) {
    op o;
    uint32_t inject = rnd(20);
    olc_step at = (olc_step)(1 + rnd(OLC_STEP_COUNT - 1));
    olc_status st = OLC_OK, want_st;
    int removed, visible, crashed = 0;
    char tag[48] = "";
    random_op(&o, step);
    before = m;
    removed = apply(&m, &o);
    if (o.kind != OP_RELOAD && inject < 3) {
      /* crash injection: a forked writer killed right after step `at` */
      visible = crash_op(&o, at, &crashed);
      snprintf(tag, sizeof tag, " crash@%s%s", olc_step__name(at), crashed ? "" : "(unreached)");
      counts[2] += (unsigned)crashed;
      if (visible < 0) {
        fprintf(stderr, "crash child failed\n");
        ok = 0;
      } else if (!visible) {
        m = before;
      }
    } else {
      olc_persist_hooks hk;
      if (o.kind != OP_RELOAD && inject < 8) {
        memset(&hk, 0, sizeof hk);
        hk.fail_step = at;
        hk.disabled_safety = sabotage;
        olc_persist__set_hooks(&hk);
        snprintf(tag, sizeof tag, " fail@%s", olc_step__name(at));
        counts[1]++;
      }
      olc_error_clear(&e);
      st = run_op(h[o.handle], &o, &e);
      set_base_hooks();
      want_st = o.kind == OP_REMOVE && removed == 0 ? OLC_E_NOT_FOUND : OLC_OK;
      if (st != OLC_OK && st != OLC_COMMITTED_UNSYNCED)
        m = before; /* on failure nothing changed */
      if (tag[0] == 0 && st != want_st) {
        fprintf(stderr, "step %u: status %s, expected %s (%s)\n", step, olc_status_name(st),
                olc_status_name(want_st), e.message);
        ok = 0;
      }
      /* (With a safety step switched off the step may not exist: only the
       * model comparison judges then.) */
      if (tag[0] != 0 && !sabotage && want_st == OLC_OK && is_must_fail(at) && st >= 0) {
        fprintf(stderr, "step %u: a failing %s step returned %s\n", step, olc_step__name(at),
                olc_status_name(st));
        ok = 0;
      }
      if (tag[0] != 0 && !sabotage && want_st == OLC_OK && at == OLC_STEP_DIR_FSYNC &&
          st != OLC_COMMITTED_UNSYNCED) {
        fprintf(stderr, "step %u: a failing dirsync returned %s\n", step, olc_status_name(st));
        ok = 0;
      }
    }
    counts[0]++;
    describe(log[step % 64], sizeof log[0], &o, tag);
    {
      /* A fresh handle, then both long-lived ones, see exactly the model. */
      olc_store *fresh = NULL;
      if (olc_store_open(&fresh, &opt, &e) != OLC_OK || list_of(fresh, &seen) != 0) {
        fprintf(stderr, "step %u: fresh open/list failed: %s\n", step, e.message);
        ok = 0;
      } else if (!model_equal(&seen, &m)) {
        fprintf(stderr, "step %u: model mismatch\n", step);
        model_print("fresh handle", &seen);
        ok = 0;
      }
      olc_store_free(fresh);
      for (i = 0; i < 2 && ok; i++) {
        if (list_of(h[i], &seen) != 0 || !model_equal(&seen, &m)) {
          fprintf(stderr, "step %u: model mismatch on handle h%d\n", step, i);
          model_print("handle", &seen);
          ok = 0;
        }
      }
      counts[3] += 3;
    }
    if (!ok) {
      unsigned first = step >= 63 ? step - 63 : 0, j;
      fprintf(stderr, "seed %lu: mismatch after step %u; last steps:\n", seed, step);
      for (j = first; j <= step; j++)
        fprintf(stderr, "  %u: %s\n", j, log[j % 64]);
      model_print("model", &m);
    }
  }
  for (i = 0; i < 2; i++)
    olc_store_free(h[i]);
  return ok;
}

static void test_model(void) {
  const char *s = getenv("OLC_MODEL_SEED"), *n = getenv("OLC_MODEL_STEPS");
  const char *sab = getenv("OLC_MODEL_SABOTAGE");
  unsigned steps = n ? (unsigned)strtoul(n, NULL, 10) : 150;
  if (sab != NULL) {
    sabotage = strcmp(sab, "lock") == 0      ? OLC_SAFETY_LOCK
               : strcmp(sab, "fsync") == 0   ? OLC_SAFETY_FSYNC
               : strcmp(sab, "rename") == 0  ? OLC_SAFETY_RENAME
               : strcmp(sab, "dirsync") == 0 ? OLC_SAFETY_DIRSYNC
                                             : 0;
    printf("negative control: safety step \"%s\" switched off\n", sab);
  }
  set_base_hooks();
  if (s != NULL) {
    CU_ASSERT_TRUE(run_seed(strtoul(s, NULL, 10), steps));
  } else {
    unsigned long seed;
    for (seed = 1; seed <= 3; seed++)
      CU_ASSERT_TRUE(run_seed(seed, steps));
  }
  printf("%lu operations, %lu injected failures, %lu crashes, %lu list checks\n", counts[0],
         counts[1], counts[2], counts[3]);
  /* the sequences must reach the interesting paths */
  CU_ASSERT_TRUE(counts[1] > 0 && counts[2] > 0);
}

static int setup(void) { return olc_test_store_dir("model", "profiles.txt", &dir, &path); }

static int teardown(void) {
  olc_persist__set_hooks(NULL);
  olc_test_store_dir_free(&dir, &path);
  return 0;
}

int main(int argc, char **argv) {
  CU_pSuite suite;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  suite = CU_add_suite("store_model", setup, teardown);
  CU_add_test(suite, "random_sequences_against_model", test_model);
  return olc_test_run(argc, argv);
}
