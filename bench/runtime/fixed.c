/*
 * fixed.c - the fixed cost of one call through the runtime path on tiny
 * products (1x1x1, 8x8x8), where the arithmetic is negligible and what is
 * timed is the call itself: olc_selection_matmul_f32, olc_selection_execute
 * and olc_binding_execute, beside OpenBLAS's cblas_sgemm on the same
 * operands (one thread; OpenBLAS with its own CPU detection, see
 * bench_peers_fair_env).  The forms run in rounds whose order rotates;
 * each figure is the median over rounds of ns per call (thread CPU time),
 * each ratio the median of the rounds' paired ratios to cblas_sgemm.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_runtime.h"
#include "bench_util.h"
#ifdef BR_HAVE_PEERS
#include <cblas.h>
void openblas_set_num_threads(int num_threads);
char *openblas_get_corename(void);
char *openblas_get_config(void);
#endif

#define FORMS 4 /* matmul_f32, selection_execute, binding_execute, cblas_sgemm */
#define MAX_ROUNDS 101

static const char *const form_names[FORMS] = {"olc_selection_matmul_f32", "olc_selection_execute",
                                              "olc_binding_execute", "cblas_sgemm"};

typedef struct fixed_shape {
  br_shape *s;
  olc_tensor t[3]; /* A, B, C */
  olc_execute_args args;
} fixed_shape;

/* ns per call of form over n calls; -1 when the form is unavailable. */
static double time_form(fixed_shape *f, int form, int n) {
  br_shape *s = f->s;
  olc_error err;
  olc_status st = OLC_OK;
  double t0 = br_cpu_ns();
  int i;
  switch (form) {
  case 0:
    for (i = 0; i < n && st == OLC_OK; i++)
      st = olc_selection_matmul_f32(s->sel, s->m, s->n, s->k, 1.0f, s->a, s->k, s->b, s->n, 0.0f,
                                    s->c, s->n, &err);
    break;
  case 1:
    for (i = 0; i < n && st == OLC_OK; i++)
      st = olc_selection_execute(s->sel, &f->args, &err);
    break;
  case 2:
    for (i = 0; i < n && st == OLC_OK; i++)
      st = olc_binding_execute(s->binding, s->sel, &f->args, &err);
    break;
  default:
#ifdef BR_HAVE_PEERS
    for (i = 0; i < n; i++)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)s->m, (int)s->n, (int)s->k, 1.0f,
                  s->a, (int)s->k, s->b, (int)s->n, 0.0f, s->c, (int)s->n);
    break;
#else
    return -1;
#endif
  }
  if (st != OLC_OK)
    br_die("%s %s: %s", form_names[form], s->label, err.message);
  return (br_cpu_ns() - t0) / n;
}

static void tensor(olc_tensor *t, float *data, long rows, long cols) {
  memset(t, 0, sizeof *t);
  t->dtype = OLC_DTYPE_FLOAT32;
  t->rank = 2;
  t->dims[0] = rows;
  t->dims[1] = cols;
  t->strides[0] = cols;
  t->strides[1] = 1;
  t->data = data;
}

static void bench_fixed(br_shape *s, int rounds, int calls) {
  double ns[FORMS][MAX_ROUNDS], ratio[FORMS][MAX_ROUNDS];
  int have[FORMS], r, f;
  fixed_shape fs;
  olc_execute_args init = OLC_EXECUTE_ARGS_INIT;
  memset(&fs, 0, sizeof fs);
  fs.s = s;
  tensor(&fs.t[0], s->a, s->m, s->k);
  tensor(&fs.t[1], s->b, s->k, s->n);
  tensor(&fs.t[2], s->c, s->m, s->n);
  fs.args = init;
  fs.args.inputs = fs.t;
  fs.args.input_count = 2;
  fs.args.outputs = &fs.t[2];
  fs.args.output_count = 1;
  for (f = 0; f < FORMS; f++) /* warm, and which forms there are */
    have[f] = time_form(&fs, f, calls / 10 + 1) >= 0;
  for (r = 0; r < rounds; r++) {
    for (f = 0; f < FORMS; f++) {
      int form = (f + r) % FORMS; /* each form first in turn */
      ns[form][r] = have[form] ? time_form(&fs, form, calls) : 0;
    }
    for (f = 0; f < FORMS; f++)
      ratio[f][r] = have[FORMS - 1] && ns[FORMS - 1][r] > 0 ? ns[f][r] / ns[FORMS - 1][r] : 0;
  }
  printf("fixed cost %s (%d calls per form and round):\n", s->label, calls);
  for (f = 0; f < FORMS; f++) {
    if (!have[f]) {
      printf("  %-26s skipped: built without OpenBLAS (bench/gemm's peers)\n", form_names[f]);
      continue;
    }
    printf("  %-26s %8.1f ns", form_names[f], bench_median(ns[f], (size_t)rounds));
    if (have[FORMS - 1] && f < FORMS - 1)
      printf("  %.2fx cblas_sgemm", bench_median(ratio[f], (size_t)rounds));
    printf("\n");
  }
}

void br_fixed_bench(olc_host *host, int rounds, int calls) {
  static const long dims[2] = {1, 8};
  static br_shape shapes[2];
  int i;
#ifdef BR_HAVE_PEERS
  openblas_set_num_threads(1);
  /* Its own detection (the bench's process runs without
   * OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE): which kernels the ratios are to. */
  printf("cblas_sgemm: OpenBLAS core %s (%s)\n", openblas_get_corename(), openblas_get_config());
#endif
  for (i = 0; i < 2; i++) {
    shapes[i].m = shapes[i].n = shapes[i].k = dims[i];
    br_prepare(&shapes[i], host);
    if (!olc_selection_can_execute(shapes[i].sel)) {
      printf("fixed cost: skipped: the plugin has no execute\n");
      br_release(&shapes[i]);
      return;
    }
    bench_fixed(&shapes[i], rounds, calls);
    br_release(&shapes[i]);
  }
}
