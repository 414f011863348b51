/*
 * bench_gemm_opencl - example_gpu against CLBlast SGEMM on one OpenCL device,
 * in one process, runs interleaved.
 *
 * For each shape: CLBlast (CLBlastSgemm, row-major, same buffers, same
 * queue), example_gpu with the calibrated policy, and example_gpu with its
 * simplest candidate (the last one it offers).  Medians of wall time around
 * a synchronous call (the plugin's run, or CLBlastSgemm + clFinish), GFLOP/s
 * and ratios.  And the cost of execute's copies: the calibrated policy
 * through execute on host operands (C = A x B, beta 0: A and B go to the
 * device, C comes back; and beta 1: C goes to the device too) against the
 * same policy's run on prepared device buffers, interleaved with the rest,
 * as the median of the rounds' paired ratios exec/run.
 *
 * The calibrated policy: the one the host's calibrate-and-select loop
 * selects (olc_host_calibrate through the public API, in process, in-memory
 * store, one workload per shape, the same --platform/--device as the
 * plugin's [plugin.example_gpu] entries; ../gemm/host_cal.c); --policy TEXT
 * overrides it, and --search measures the candidates here instead.
 *
 * usage: bench_gemm_opencl [--json] [--quick] [--reps N] [--shapes 256,512,1024]
 *                          [--platform SEL] [--device SEL] [--policy TEXT] [--search]
 * Exit codes: 0 done, 1 failure, 2 usage, 77 no OpenCL device.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clblast_c.h>

#include "bench_util.h"
#include "egpu.h"
#include "egpu_harness.h"
#include "host_cal.h"

#define MAX_SHAPES 8
#define MAX_REPS 101

typedef struct options {
  int json, quick, reps, search;
  unsigned shapes[MAX_SHAPES];
  int shape_count;
  const char *policy;
  olc_plugin_kv config[2];
  uint32_t config_count;
} options;

typedef struct result {
  unsigned size;
  double clblast_s, best_s, simple_s;
  char best[160], simple[160];
  double max_rel_diff;
  double exec_s, exec1_s;         /* execute with beta 0, beta 1 */
  double exec_ratio, exec1_ratio; /* medians of paired ratios exec / run */
  int tuned;                      /* candidates measured to choose best */
  double host_cal_s;              /* host's calibration of this shape (< 0: not used) */
  int host_measured;              /* candidates the host's loop measured */
  const char *source;             /* "host", "--policy", "search" */
} result;

static const olc_plugin *g_table;
static egpu_instance *g_inst;

static double now_s(void) { return (double)olc_stub_host_now_ns() * 1e-9; }

static void policy_text(const void *policy, char *buf, size_t size) {
  harness_bytes b;
  olc_plugin_byte_sink sink = {sizeof sink, OLC_PLUGIN_ABI_MINOR, &b, hb_write};
  memset(&b, 0, sizeof b);
  if (g_table->serialize(g_inst, policy, &sink) != OLC_PLUGIN_OK || b.len >= size)
    b.len = 0;
  memcpy(buf, b.data, b.len);
  buf[b.len] = '\0';
}

/* One timed run of the plugin; < 0 on failure. */
static double time_plugin(const harness_workload *hw, void *state, const void *policy) {
  double t0 = now_s();
  if (g_table->run(g_inst, &hw->w, state, policy) != OLC_PLUGIN_OK) {
    fprintf(stderr, "bench_gemm_opencl: run failed: %s\n", harness_last_error.message);
    return -1.0;
  }
  return now_s() - t0;
}

static double time_clblast(const egpu_state *s) {
  cl_command_queue q = g_inst->queue;
  double t0 = now_s();
  CLBlastStatusCode st = CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo,
                                      s->shape.m, s->shape.n, s->shape.k, 1.0f, s->a, 0, s->shape.k,
                                      s->b, 0, s->shape.n, 0.0f, s->c, 0, s->shape.n, &q, NULL);
  if (st != CLBlastSuccess || clFinish(q) != CL_SUCCESS) {
    fprintf(stderr, "bench_gemm_opencl: CLBlastSgemm failed (%d)\n", (int)st);
    return -1.0;
  }
  return now_s() - t0;
}

/* One timed execute of policy on the prepared operands' host copies into c. */
static double time_execute(const egpu_state *s, const void *policy, float *c, double beta) {
  olc_plugin_tensor t[3];
  olc_plugin_exec_args args;
  double t0;
  t[0] = olc_stub_matrix(s->host_a, s->shape.m, s->shape.k, s->shape.k);
  t[1] = olc_stub_matrix(s->host_b, s->shape.k, s->shape.n, s->shape.n);
  t[2] = olc_stub_matrix(c, s->shape.m, s->shape.n, s->shape.n);
  memset(&args, 0, sizeof args);
  args.struct_size = sizeof args;
  args.abi_minor = OLC_PLUGIN_ABI_MINOR;
  args.inputs = t;
  args.outputs = &t[2];
  args.input_count = 2;
  args.output_count = 1;
  args.alpha = 1.0;
  args.beta = beta;
  t0 = now_s();
  if (g_table->execute(g_inst, NULL, policy, &args) != OLC_PLUGIN_OK) {
    fprintf(stderr, "bench_gemm_opencl: execute failed: %s\n", harness_last_error.message);
    return -1.0;
  }
  return now_s() - t0;
}

static void max_diff(const float *got, const float *ref, size_t n, double *worst) {
  size_t i;
  for (i = 0; i < n; i++) {
    double d = fabs((double)got[i] - ref[i]) / (fabs((double)ref[i]) + 1.0);
    if (!(d <= *worst))
      *worst = isnan(d) ? INFINITY : d;
  }
}

static int read_c(const egpu_state *s, float *out) {
  return clEnqueueReadBuffer(g_inst->queue, s->c, CL_TRUE, 0,
                             (size_t)s->shape.m * s->shape.n * sizeof(float), out, 0, NULL,
                             NULL) == CL_SUCCESS
             ? 0
             : -1;
}

/*
 * The calibrated policy for one shape.  Today: every candidate, one warm-up
 * and `reps` timed runs each, the lowest median wins (the host's calibrate
 * loop, in small).  Later the store's selection comes in through --policy.
 */
static void *choose_policy(const options *o, const char *given, const harness_workload *hw,
                           void *state, harness_policies *cands, int *tuned) {
  void *best = NULL;
  double best_t = 0.0, t[MAX_REPS];
  int i, r, reps = o->quick ? 2 : 3;
  if (given != NULL) {
    if (g_table->validate(g_inst, given, strlen(given), &best) != OLC_PLUGIN_OK) {
      fprintf(stderr, "bench_gemm_opencl: --policy: %s\n", harness_last_error.message);
      return NULL;
    }
    *tuned = 0;
    return best;
  }
  for (i = 0; i < cands->count; i++) {
    char text[160];
    int done = 0;
    if (time_plugin(hw, state, cands->items[i]) < 0) /* warm-up: builds the program */
      continue;
    for (r = 0; r < reps; r++) {
      t[r] = time_plugin(hw, state, cands->items[i]);
      done++;
      /* Early abandon of a clear loser, as the host's loop does. */
      if (t[r] < 0 || (best != NULL && t[r] > 3.0 * best_t))
        break;
    }
    policy_text(cands->items[i], text, sizeof text);
    if (t[done - 1] < 0)
      continue;
    t[0] = bench_median(t, (size_t)done);
    if (!o->json)
      fprintf(stderr, "  tune %-56s %9.3f ms%s\n", text, t[0] * 1e3,
              done < reps ? " (abandoned)" : "");
    if (done == reps && (best == NULL || t[0] < best_t)) {
      best = cands->items[i];
      best_t = t[0];
    }
  }
  *tuned = cands->count;
  /* Hand back a copy, like validate does, so the caller releases one kind. */
  if (best != NULL) {
    char text[160];
    void *copy = NULL;
    policy_text(best, text, sizeof text);
    if (g_table->validate(g_inst, text, strlen(text), &copy) != OLC_PLUGIN_OK)
      return NULL;
    return copy;
  }
  return NULL;
}

static int bench_shape(const options *o, const char *given, unsigned size, result *res) {
  harness_workload hw;
  harness_policies cands;
  olc_plugin_policy_sink sink = {sizeof sink, OLC_PLUGIN_ABI_MINOR, &cands, hp_emit};
  void *state = NULL, *best = NULL;
  double tc[MAX_REPS], tb[MAX_REPS], ts[MAX_REPS], te[MAX_REPS], te1[MAX_REPS];
  double re[MAX_REPS], re1[MAX_REPS];
  float *c_ref = NULL, *c_got = NULL, *c_exec = NULL;
  size_t nc = (size_t)size * size;
  int r, rc = 1;
  memset(&cands, 0, sizeof cands);
  res->size = size;
  harness_matmul(&hw, "float32", size, size, size);
  if (g_table->candidates(g_inst, &hw.w, &sink) != OLC_PLUGIN_OK || cands.count == 0 ||
      g_table->prepare(g_inst, &hw.w, &state) != OLC_PLUGIN_OK) {
    fprintf(stderr, "bench_gemm_opencl: %u: %s\n", size, harness_last_error.message);
    goto done;
  }
  best = choose_policy(o, given, &hw, state, &cands, &res->tuned);
  if (best == NULL)
    goto done;
  policy_text(best, res->best, sizeof res->best);
  policy_text(cands.items[cands.count - 1], res->simple, sizeof res->simple);

  /* Warm-up (CLBlast compiles its kernels on first use) and a cross-check. */
  c_ref = malloc(nc * sizeof(float));
  c_got = malloc(nc * sizeof(float));
  c_exec = malloc(nc * sizeof(float));
  if (c_ref == NULL || c_got == NULL || c_exec == NULL || time_clblast(state) < 0 ||
      read_c(state, c_ref) != 0 || time_plugin(&hw, state, best) < 0 || read_c(state, c_got) != 0 ||
      time_plugin(&hw, state, cands.items[cands.count - 1]) < 0 ||
      time_execute(state, best, c_exec, 0.0) < 0)
    goto done;
  max_diff(c_got, c_ref, nc, &res->max_rel_diff);
  max_diff(c_exec, c_ref, nc, &res->max_rel_diff);
  /* And CLBlast's first row against the host (both could agree on garbage). */
  {
    const egpu_state *s = state;
    size_t j, p;
    for (j = 0; j < size; j++) {
      double ref = 0.0, d;
      for (p = 0; p < size; p++)
        ref += (double)s->host_a[p] * s->host_b[p * size + j];
      d = fabs(ref - c_ref[j]) / (fabs(ref) + 1.0);
      if (!(d <= res->max_rel_diff))
        res->max_rel_diff = isnan(d) ? INFINITY : d;
    }
  }

  /* Interleaved, with the order rotated so no contender always goes first;
   * execute's C keeps its last result (beta 1 accumulates: the time is what counts). */
  for (r = 0; r < o->reps; r++) {
    int j;
    for (j = 0; j < 5; j++) {
      int which = (j + r) % 5;
      double *slot[5] = {tc, tb, ts, te, te1}, t;
      switch (which) {
      case 0:
        t = time_clblast(state);
        break;
      case 1:
        t = time_plugin(&hw, state, best);
        break;
      case 2:
        t = time_plugin(&hw, state, cands.items[cands.count - 1]);
        break;
      case 3:
        t = time_execute(state, best, c_exec, 0.0);
        break;
      default:
        t = time_execute(state, best, c_exec, 1.0);
        break;
      }
      if (t < 0)
        goto done;
      slot[which][r] = t;
    }
    re[r] = te[r] / tb[r];
    re1[r] = te1[r] / tb[r];
  }
  res->exec_ratio = bench_median(re, (size_t)o->reps);
  res->exec1_ratio = bench_median(re1, (size_t)o->reps);
  res->clblast_s = bench_median(tc, (size_t)o->reps);
  res->best_s = bench_median(tb, (size_t)o->reps);
  res->simple_s = bench_median(ts, (size_t)o->reps);
  res->exec_s = bench_median(te, (size_t)o->reps);
  res->exec1_s = bench_median(te1, (size_t)o->reps);
  rc = 0;
done:
  free(c_ref);
  free(c_got);
  free(c_exec);
  if (state != NULL)
    g_table->unprepare(g_inst, state);
  g_table->release_policy(g_inst, best);
  for (r = 0; r < cands.count; r++)
    g_table->release_policy(g_inst, cands.items[r]);
  return rc;
}

static double gflops(unsigned n, double s) { return 2.0 * n * (double)n * n / s * 1e-9; }

static void print_table(const result *res, int count) {
  int i;
  printf("device: %s\n", g_inst->device_name);
  printf("%-6s %10s %10s %10s %8s %8s %8s %10s\n", "n", "CLBlast", "calibr.", "simplest", "cal/clb",
         "cal/simp", "maxdiff", "");
  printf("%-6s %10s %10s %10s %8s %8s %8s\n", "", "GFLOP/s", "GFLOP/s", "GFLOP/s", "", "", "");
  for (i = 0; i < count; i++) {
    const result *r = &res[i];
    printf("%-6u %10.2f %10.2f %10.2f %7.2fx %7.2fx %8.1e\n", r->size,
           gflops(r->size, r->clblast_s), gflops(r->size, r->best_s), gflops(r->size, r->simple_s),
           r->clblast_s / r->best_s, r->simple_s / r->best_s, r->max_rel_diff);
  }
  printf("execute (calibrated policy, host operands) against run (prepared device buffers):\n");
  printf("%-6s %10s %10s %10s %9s %9s %12s\n", "n", "run ms", "exec ms", "exec1 ms", "exec/run",
         "exec1/run", "MiB copied");
  for (i = 0; i < count; i++) {
    const result *r = &res[i];
    double mib = 3.0 * r->size * (double)r->size * sizeof(float) / (1024.0 * 1024.0);
    printf("%-6u %10.3f %10.3f %10.3f %8.2fx %8.2fx %5.1f/%5.1f\n", r->size, r->best_s * 1e3,
           r->exec_s * 1e3, r->exec1_s * 1e3, r->exec_ratio, r->exec1_ratio, mib, mib * 4.0 / 3.0);
  }
  printf("(exec: beta 0, A and B in, C out; exec1: beta 1, C in too; ratios are medians of the "
         "rounds' paired ratios)\n");
  for (i = 0; i < count; i++) {
    printf("%u: calibrated (%s) %s; simplest %s\n", res[i].size, res[i].source, res[i].best,
           res[i].simple);
    if (res[i].host_cal_s >= 0)
      printf("      host calibration: %.2f s (%d candidates measured)\n", res[i].host_cal_s,
             res[i].host_measured);
  }
}

static void print_json(const result *res, int count, int reps) {
  int i;
  printf("{\"device\": \"");
  for (i = 0; g_inst->device_name[i] != '\0'; i++)
    if (g_inst->device_name[i] != '"' && g_inst->device_name[i] != '\\')
      putchar(g_inst->device_name[i]);
  printf("\", \"reps\": %d, \"results\": [", reps);
  for (i = 0; i < count; i++) {
    const result *r = &res[i];
    printf("%s\n  {\"m\": %u, \"n\": %u, \"k\": %u, "
           "\"clblast_ms\": %.4f, \"clblast_gflops\": %.3f, "
           "\"calibrated_policy\": \"%s\", \"calibrated_tuned\": %d, \"calibrated_ms\": %.4f, "
           "\"calibrated_gflops\": %.3f, "
           "\"simplest_policy\": \"%s\", \"simplest_ms\": %.4f, \"simplest_gflops\": %.3f, "
           "\"calibrated_vs_clblast\": %.4f, \"calibrated_vs_simplest\": %.4f, "
           "\"execute_ms\": %.4f, \"execute_beta1_ms\": %.4f, \"execute_vs_run\": %.4f, "
           "\"execute_beta1_vs_run\": %.4f, "
           "\"max_rel_diff\": %.3g, \"calibrated_source\": \"%s\", "
           "\"host_calibration_s\": %.3f, \"host_measured\": %d}",
           i ? "," : "", r->size, r->size, r->size, r->clblast_s * 1e3,
           gflops(r->size, r->clblast_s), r->best, r->tuned, r->best_s * 1e3,
           gflops(r->size, r->best_s), r->simple, r->simple_s * 1e3, gflops(r->size, r->simple_s),
           r->clblast_s / r->best_s, r->simple_s / r->best_s, r->exec_s * 1e3, r->exec1_s * 1e3,
           r->exec_ratio, r->exec1_ratio, r->max_rel_diff, r->source, r->host_cal_s,
           r->host_measured);
  }
  printf("\n]}\n");
}

static int parse_args(int argc, char **argv, options *o) {
  int i;
  memset(o, 0, sizeof *o);
  o->reps = 0;
  for (i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--json") == 0) {
      o->json = 1;
    } else if (strcmp(a, "--quick") == 0) {
      o->quick = 1;
    } else if (strcmp(a, "--search") == 0) {
      o->search = 1;
    } else if (strcmp(a, "--reps") == 0 && v != NULL) {
      o->reps = atoi(v);
      i++;
    } else if (strcmp(a, "--policy") == 0 && v != NULL) {
      o->policy = v;
      i++;
    } else if ((strcmp(a, "--platform") == 0 || strcmp(a, "--device") == 0) && v != NULL) {
      o->config[o->config_count].key = a + 2;
      o->config[o->config_count++].value = v;
      i++;
    } else if (strcmp(a, "--shapes") == 0 && v != NULL) {
      char *end;
      const char *p = v;
      o->shape_count = 0;
      while (*p != '\0' && o->shape_count < MAX_SHAPES) {
        unsigned long n = strtoul(p, &end, 10);
        if (end == p || n == 0 || n > 8192 || (*end != ',' && *end != '\0'))
          return -1;
        o->shapes[o->shape_count++] = (unsigned)n;
        p = *end == ',' ? end + 1 : end;
      }
      i++;
    } else {
      return -1;
    }
  }
  if (o->shape_count == 0) {
    static const unsigned full[] = {256, 512, 1024}, quick[] = {64, 128};
    const unsigned *s = o->quick ? quick : full;
    o->shape_count = o->quick ? 2 : 3;
    memcpy(o->shapes, s, (size_t)o->shape_count * sizeof *s);
  }
  if (o->reps == 0)
    o->reps = o->quick ? 3 : 7;
  return o->reps > 0 && o->reps <= MAX_REPS && o->config_count <= 2 ? 0 : -1;
}

int main(int argc, char **argv) {
  options o;
  result res[MAX_SHAPES];
  bench_hc_workload hw[MAX_SHAPES];
  void *handle = NULL, *inst = NULL;
  int32_t rc;
  int i;
  uint32_t u;
  if (parse_args(argc, argv, &o) != 0) {
    fprintf(stderr, "usage: bench_gemm_opencl [--json] [--quick] [--reps N] [--shapes 256,512] "
                    "[--platform SEL] [--device SEL] [--policy TEXT] [--search]\n");
    return 2;
  }
  g_table = harness_load(EGPU_PLUGIN_PATH, &handle);
  if (g_table == NULL)
    return 1;
  rc = g_table->create(&harness_host, o.config, o.config_count, 1, &inst);
  if (rc == OLC_PLUGIN_E_UNAVAILABLE) {
    fprintf(stderr, "bench_gemm_opencl: skipped: %s\n", harness_last_error.message);
    return 77;
  }
  if (rc != OLC_PLUGIN_OK) {
    fprintf(stderr, "bench_gemm_opencl: %s\n", harness_last_error.message);
    return 1;
  }
  /* The instance's own context and queue: CLBlast runs on the very same device. */
  g_inst = inst;
  memset(res, 0, sizeof res);
  memset(hw, 0, sizeof hw);
  if (o.policy == NULL && !o.search) {
    /* The host's loop, with the same device selection as this instance. */
    char extra[512], err[512];
    /* Only example_gpu: cpu_gemm's instance would hold a thread pool here. */
    size_t len = (size_t)snprintf(extra, sizeof extra,
                                  "[plugin.cpu_gemm]\nenabled = false\n\n[plugin.example_gpu]\n");
    for (u = 0; u < o.config_count; u++)
      len += (size_t)snprintf(extra + len, sizeof extra - len, "%s = %s\n", o.config[u].key,
                              o.config[u].value);
    for (i = 0; i < o.shape_count; i++)
      hw[i].m = hw[i].n = hw[i].k = o.shapes[i];
    if (!o.json)
      fprintf(stderr, "bench_gemm_opencl: host calibration ...\n");
    if (bench_hc_calibrate(BENCH_PLUGIN_DIR, "example_gpu", 1, NULL, extra, hw,
                           (size_t)o.shape_count, err, sizeof err) != 0) {
      fprintf(stderr, "bench_gemm_opencl: host calibration: %s\n", err);
      g_table->destroy(inst);
      return 1;
    }
  }
  for (i = 0; i < o.shape_count; i++) {
    const char *given = o.policy != NULL ? o.policy : o.search ? NULL : hw[i].policy;
    res[i].host_cal_s = -1.0;
    res[i].source = o.policy != NULL ? "--policy" : o.search ? "search" : "host";
    if (given == hw[i].policy) {
      if (!hw[i].ok) {
        fprintf(stderr, "bench_gemm_opencl: host calibration of %s: %s\n", hw[i].name,
                hw[i].message);
        g_table->destroy(inst);
        return 1;
      }
      res[i].host_cal_s = hw[i].seconds;
      res[i].host_measured = (int)hw[i].measured;
    }
    if (!o.json)
      fprintf(stderr, "bench_gemm_opencl: %u^3 ...\n", o.shapes[i]);
    if (bench_shape(&o, given, o.shapes[i], &res[i]) != 0) {
      g_table->destroy(inst);
      return 1;
    }
  }
  if (o.json)
    print_json(res, o.shape_count, o.reps);
  else
    print_table(res, o.shape_count);
  g_table->destroy(inst);
  for (i = 0; i < o.shape_count; i++)
    if (!(res[i].max_rel_diff < 1e-3)) {
      fprintf(stderr, "bench_gemm_opencl: %u: example_gpu and CLBlast disagree (%g)\n", res[i].size,
              res[i].max_rel_diff);
      return 1;
    }
  return 0;
}
