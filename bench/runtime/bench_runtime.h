/* bench_runtime.h - what bench_runtime's files share. */
#ifndef BENCH_RUNTIME_H
#define BENCH_RUNTIME_H

#include <olc/olc.h>
#include <olc/plugin.h>

/* One MatMul shape: its workload, binding, selection and operands. */
typedef struct br_shape {
  long m, n, k;
  char label[72], ms[24], ns[24], ks[24];
  olc_property props[4];
  olc_workload w;
  olc_host *host;
  olc_binding *binding;
  const olc_selection *sel;
  float *a, *b, *c;
} br_shape;

/* The plugin driven through its table, as without olc. */
typedef struct br_direct {
  const olc_plugin *pl;
  void *inst;
} br_direct;

void br_die(const char *fmt, ...);
/* Binds s (its m, n, k set) as a cpu_gemm MatMul and selects (calibrating
 * on a miss); makes its operands.  br_release frees them and the binding. */
void br_prepare(br_shape *s, olc_host *host);
/* Fills s's label and its dtype/m/n/k properties from its m, n, k. */
void br_describe(br_shape *s);
/* br_describe, then s->w as a cpu_gemm float32 MatMul of that model
 * digest on host (no constants). */
void br_workload(br_shape *s, olc_host *host, const char *model_digest);
void br_release(br_shape *s);
double br_cpu_ns(void);

/* Loads the plugin at path (the host's copy: dlopen gives the same
 * library) and makes an instance with one thread.  0, or -1 with why. */
int br_direct_open(br_direct *d, const char *path, char *why, size_t why_size);
void br_direct_close(br_direct *d);
/* 1 when the plugin's table has execute (ABI 1.1). */
int br_direct_can_execute(const br_direct *d);
/* The selection's policy validated by the direct instance; NULL: refused. */
void *br_direct_policy(br_direct *d, const olc_selection *sel);
void br_direct_release(br_direct *d, void *policy);
/* C = A * B through the table's execute; 0 or -1. */
int br_direct_matmul(br_direct *d, const br_shape *s, const void *policy);

/* The example's MLP through olc against bench/gemm's peers (mlp_bench.c,
 * built when bench/gemm's peers are: BR_HAVE_PEERS), those of the --peers
 * list peers ("all", or names as bench_gemm takes them); the model is
 * written in dir. */
void br_mlp_bench(olc_host *host, const char *dir, int rounds, const char *peers);

/* The fixed cost of a call on 1x1x1 and 8x8x8 through the runtime path
 * beside cblas_sgemm (fixed.c; without bench/gemm's peers, olc alone). */
void br_fixed_bench(olc_host *host, int rounds, int calls);

/* Products shapes[i] = {m, n, k} through the runtime path, B a constant
 * of the binding (olc_binding_execute) and B given on each call
 * (olc_selection_matmul_f32), against the peers of peer_list ("all", or
 * names as bench_gemm takes them): those that prepare weights at creation
 * against the first form, the others against the second (packed_bench.c,
 * built with bench/gemm's peers). */
void br_packed_bench(olc_host *host, int rounds, const long (*shapes)[3], int count,
                     const char *peer_list);

/* Decode products with float32 A and B float32, bfloat16 or float16,
 * given on each call and a constant packed once, against the single-core
 * streaming rate (lowprec_bench.c, built with bench/gemm's stream.c;
 * stream 0: not measured, the shares not printed). */
void br_lowprec_bench(olc_host *host, int rounds, const long (*shapes)[3], int count, int stream);

#endif
