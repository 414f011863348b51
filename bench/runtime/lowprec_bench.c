/*
 * lowprec_bench.c - decode products with low-precision weights: float32
 * A and C, B float32, bfloat16 or float16 (cpu_gemm's dtype_b), each
 * through the two ways a runtime calls it:
 *   given  B handed on every call (olc_selection_execute)
 *   const  B a constant of the binding, packed once (olc_binding_execute)
 * Each of the six is its own binding (calibrated on a miss, in process);
 * rounds time all six in an order that alternates (forward, then
 * backward), enough calls of each for about 20 ms of thread CPU time.
 * Reported per contender: the median time, B's bytes as stored (4 or 2
 * an element) over it, that rate's share of the single-core streaming
 * read rate (bench/gemm's stream.c, measured in this process first), and
 * for the 16-bit ones the median of the rounds' paired ratios of its time
 * to the float32 one of the same way.  Every output is checked against a
 * double-precision product of the B it was given first.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_gemm.h"
#include "bench_runtime.h"
#include "bench_util.h"

#define LP_MAX_ROUNDS 101
#define LP_CONTENDERS 6 /* {float32, bfloat16, float16} x {given, const} */

typedef struct lp_one {
  long m, n, k;
  uint32_t dtype_b; /* OLC_DTYPE_* */
  int constant;
  char label[96], ms[24], ns[24], ks[24];
  olc_property props[5];
  olc_workload w;
  olc_constant cst;
  olc_binding *binding;
  const olc_selection *sel;
  olc_tensor t[3];
  olc_execute_args args;
  void *b; /* B as stored */
  float *a, *c;
  char policy[160];
} lp_one;

static const char *dtype_name(uint32_t d) {
  return d == OLC_DTYPE_BFLOAT16 ? "bfloat16" : d == OLC_DTYPE_FLOAT16 ? "float16" : "float32";
}

static size_t dtype_bytes(uint32_t d) { return d == OLC_DTYPE_FLOAT32 ? 4u : 2u; }

/* float32 to bfloat16 / float16 (round to nearest even; the values here
 * are small and finite) and back, for the reference. */
static uint16_t to_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}

static float from_bf16(uint16_t h) {
  const uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* |f| in [2^-14, 65504] or 0: the normal range, which the fill keeps to. */
static uint16_t to_f16(float f) {
  const double a = fabs((double)f);
  const uint16_t sign = f < 0 ? 0x8000u : 0u;
  int e;
  double m;
  long q;
  if (a < 0x1p-14)
    return sign;
  m = frexp(a, &e);                    /* a = m 2^e, m in [0.5, 1) */
  q = lrint((m * 2.0 - 1.0) * 1024.0); /* the mantissa, rounded */
  if (q == 1024)
    q = 0, e++;
  return (uint16_t)(sign | (uint16_t)((e - 1 + 15) << 10) | (uint16_t)q);
}

static float from_f16(uint16_t h) {
  const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  const float v = e == 0 ? ldexpf((float)m, -24) : ldexpf(1.0f + (float)m / 1024.0f, e - 15);
  return (h & 0x8000u) ? -v : v;
}

static float b_at(const lp_one *o, size_t i) {
  if (o->dtype_b == OLC_DTYPE_FLOAT32)
    return ((const float *)o->b)[i];
  if (o->dtype_b == OLC_DTYPE_BFLOAT16)
    return from_bf16(((const uint16_t *)o->b)[i]);
  return from_f16(((const uint16_t *)o->b)[i]);
}

static void make(lp_one *o, olc_host *host, long m, long n, long k, uint32_t dtype_b,
                 int constant) {
  olc_workload init = OLC_WORKLOAD_INIT;
  olc_execute_args args_init = OLC_EXECUTE_ARGS_INIT;
  const size_t bn = (size_t)k * (size_t)n;
  olc_error err;
  olc_status st;
  size_t i;
  memset(o, 0, sizeof *o);
  o->m = m, o->n = n, o->k = k, o->dtype_b = dtype_b, o->constant = constant;
  snprintf(o->label, sizeof o->label, "%ldx%ldx%ld B %s %s", m, n, k, dtype_name(dtype_b),
           constant ? "const" : "given");
  snprintf(o->ms, sizeof o->ms, "%ld", m);
  snprintf(o->ns, sizeof o->ns, "%ld", n);
  snprintf(o->ks, sizeof o->ks, "%ld", k);
  o->props[0] = (olc_property){"dtype", "float32"};
  o->props[1] = (olc_property){"m", o->ms};
  o->props[2] = (olc_property){"n", o->ns};
  o->props[3] = (olc_property){"k", o->ks};
  o->props[4] = (olc_property){"dtype_b", dtype_name(dtype_b)};
  o->a = malloc((size_t)(m * k) * sizeof(float));
  o->c = malloc((size_t)(m * n) * sizeof(float));
  o->b = malloc(bn * dtype_bytes(dtype_b));
  if (o->a == NULL || o->c == NULL || o->b == NULL)
    br_die("out of memory");
  for (i = 0; i < (size_t)(m * k); i++)
    o->a[i] = (float)((i * 2654435761u + 1u) % 2001u) / 1000.0f - 1.0f;
  for (i = 0; i < bn; i++) {
    const float v = (float)((i * 2654435761u + 7u) % 2001u) / 1000.0f - 1.0f;
    if (dtype_b == OLC_DTYPE_FLOAT32)
      ((float *)o->b)[i] = v;
    else
      ((uint16_t *)o->b)[i] = dtype_b == OLC_DTYPE_BFLOAT16 ? to_bf16(v) : to_f16(v);
  }
  o->t[0] = (olc_tensor){OLC_DTYPE_FLOAT32, 2, {m, k}, {k, 1}, o->a};
  o->t[1] = (olc_tensor){dtype_b, 2, {k, n}, {n, 1}, o->b};
  o->t[2] = (olc_tensor){OLC_DTYPE_FLOAT32, 2, {m, n}, {n, 1}, o->c};
  o->w = init;
  o->w.backend = "cpu_gemm";
  o->w.operator_name = "MatMul";
  o->w.properties = o->props;
  o->w.property_count = dtype_b == OLC_DTYPE_FLOAT32 ? 4 : 5;
  o->w.model_digest = "sha256:0000000000000000000000000000000000000000000000000000000000000002";
  if (constant) {
    o->cst.input = 1;
    o->cst.tensor = o->t[1];
    o->w.constants = &o->cst;
    o->w.constant_count = 1;
  }
  if (olc_host_bind(&o->binding, host, &o->w, &err) != OLC_OK)
    br_die("lowprec %s: bind: %s", o->label, err.message);
  st = olc_binding_select(&o->sel, o->binding, NULL, &err);
  if (st < 0)
    br_die("lowprec %s: select: %s", o->label, err.message);
  if (st == OLC_FIRST_CANDIDATE || st == OLC_NEAREST_RECORD)
    printf("lowprec %s: not tuned for it (%s)\n", o->label, olc_selection_message(o->sel));
  {
    size_t len = 0, i2;
    const unsigned char *pt = olc_selection_policy(o->sel, &len);
    for (i2 = 0; pt != NULL && i2 < len && i2 + 1 < sizeof o->policy; i2++)
      o->policy[i2] = pt[i2] >= 32 && pt[i2] < 127 ? (char)pt[i2] : '.';
    o->policy[i2] = 0;
  }
  o->args = args_init;
  o->args.inputs = o->t;
  o->args.input_count = 2;
  o->args.outputs = &o->t[2];
  o->args.output_count = 1;
}

static void call(lp_one *o) {
  olc_error err;
  olc_status st = o->constant ? olc_binding_execute(o->binding, o->sel, &o->args, &err)
                              : olc_selection_execute(o->sel, &o->args, &err);
  if (st != OLC_OK)
    br_die("lowprec %s: execute: %s", o->label, err.message);
}

/* The output against a double product of the B given, within the
 * float32 bound (k ulps of the sum of magnitudes). */
static void check(lp_one *o) {
  long r, j, p;
  memset(o->c, 0xff, (size_t)(o->m * o->n) * sizeof(float));
  call(o);
  for (r = 0; r < o->m; r++)
    for (j = 0; j < o->n; j += 7) {
      double ref = 0, mag = 0;
      for (p = 0; p < o->k; p++) {
        const double x = (double)o->a[r * o->k + p] * (double)b_at(o, (size_t)(p * o->n + j));
        ref += x, mag += fabs(x);
      }
      if (!(fabs((double)o->c[r * o->n + j] - ref) <= (double)o->k * 0x1p-23 * mag + 1e-30))
        br_die("lowprec %s: C[%ld][%ld] = %g, the product %g", o->label, r, j,
               (double)o->c[r * o->n + j], ref);
    }
}

static void release(lp_one *o) {
  olc_binding_free(o->binding);
  free(o->a);
  free(o->b);
  free(o->c);
}

static double time_calls(lp_one *o, int reps) {
  const double t0 = br_cpu_ns();
  for (int i = 0; i < reps; i++)
    call(o);
  return (br_cpu_ns() - t0) / reps;
}

static void run_shape(olc_host *host, long m, long n, long k, int rounds, double stream_gbs) {
  static const uint32_t dts[3] = {OLC_DTYPE_FLOAT32, OLC_DTYPE_BFLOAT16, OLC_DTYPE_FLOAT16};
  static double t[LP_CONTENDERS][LP_MAX_ROUNDS], ratio[LP_MAX_ROUNDS];
  lp_one *o = calloc(LP_CONTENDERS, sizeof *o);
  int reps[LP_CONTENDERS];
  if (o == NULL)
    br_die("out of memory");
  for (int x = 0; x < LP_CONTENDERS; x++) {
    make(&o[x], host, m, n, k, dts[x % 3], x / 3);
    if (!olc_selection_can_execute(o[x].sel)) {
      printf("lowprec: skipped: the plugin has no execute\n");
      for (int y = 0; y <= x; y++)
        release(&o[y]);
      free(o);
      return;
    }
    check(&o[x]);
  }
  for (int x = 0; x < LP_CONTENDERS; x++) {
    const double one = time_calls(&o[x], 1);
    reps[x] = one > 0 ? (int)(2e7 / one) + 1 : 1;
    reps[x] = reps[x] > 1000 ? 1000 : reps[x];
  }
  for (int i = 0; i < rounds; i++)
    for (int y = 0; y < LP_CONTENDERS; y++) {
      const int x = i % 2 ? LP_CONTENDERS - 1 - y : y;
      t[x][i] = time_calls(&o[x], reps[x]);
    }
  for (int x = 0; x < LP_CONTENDERS; x++) {
    const double med = bench_median(t[x], (size_t)rounds);
    const double gbs = (double)k * (double)n * (double)dtype_bytes(o[x].dtype_b) / med;
    printf("lowprec %-34s %8.3f ms  B %6.1f GB/s", o[x].label, med / 1e6, gbs);
    if (stream_gbs > 0)
      printf(" (%3.0f%% of stream)", 100.0 * gbs / stream_gbs);
    if (x % 3 != 0) {
      const int base = x - x % 3;
      for (int i = 0; i < rounds; i++)
        ratio[i] = t[x][i] / t[base][i];
      printf("  /float32 %.3fx", bench_median(ratio, (size_t)rounds));
    } else {
      printf("             ");
    }
    printf("  [%s]\n", o[x].policy);
  }
  for (int x = 0; x < LP_CONTENDERS; x++)
    release(&o[x]);
  free(o);
}

void br_lowprec_bench(olc_host *host, int rounds, const long (*shapes)[3], int count, int stream) {
  bench_stream_info bw;
  if (rounds > LP_MAX_ROUNDS)
    rounds = LP_MAX_ROUNDS;
  memset(&bw, 0, sizeof bw);
  if (stream && bench_stream(&bw) != 0)
    memset(&bw, 0, sizeof bw);
  printf("lowprec: float32 A with B float32 / bfloat16 / float16, given on each call "
         "(olc_selection_execute) or a constant packed once (olc_binding_execute), one thread; "
         "streaming read %.1f GB/s (%d streams; 0: not measured)\n",
         bw.stream_gbs, bw.streams);
  for (int i = 0; i < count; i++)
    run_shape(host, shapes[i][0], shapes[i][1], shapes[i][2], rounds, bw.stream_gbs);
}
