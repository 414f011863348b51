/*
 * bench_runtime - what the runtime path costs on top of the plugin.
 *
 *   bench_runtime [--quick] [--rounds N] [--plugin PATH] [--shape MxNxK]...
 *                 [--parts LIST] [--packed MxNxK|table]... [--lowprec MxNxK]...
 *                 [--peers LIST]
 *
 * One process, one host (threads = 1), the shapes calibrated on a miss
 * first.  Then, in rounds whose order alternates (A B, then B A):
 *   select  a warm olc_binding_select, olc_host_select by description, and
 *           the peer: olc_binding_explain (the scoped store lookup with the
 *           plugin's validator that a select without its cached selection
 *           would make), freeing its result
 *   execute olc_selection_matmul_f32 through the host against the same
 *           policy run through the plugin's table directly (its own
 *           instance, validate + execute), on the same buffers
 *   fixed   the cost of one call on 1x1x1 and 8x8x8 through
 *           olc_selection_matmul_f32, olc_selection_execute and
 *           olc_binding_execute beside OpenBLAS's cblas_sgemm (fixed.c)
 *   mlp     the example's MLP against bench/gemm's peers (mlp_bench.c)
 *   packed  4x4096x4096, 16x4096x4096, 64x1500x2816 (or --packed shapes,
 *           or --packed table: bench_gemm's 14 shapes) with B a constant
 *           packed once (olc_binding_execute) against the peers that
 *           prepare weights at creation, and with B given on each call
 *           (olc_selection_matmul_f32) against the others (packed_bench.c)
 *   lowprec 1x4096x4096, 4x4096x4096, 1x11008x4096 (or --lowprec shapes)
 *           with B float32, bfloat16 and float16, given on each call and
 *           a constant packed once: B's GB/s, its share of the streaming
 *           read rate, the time over float32's (lowprec_bench.c)
 * --parts picks some of select,execute,fixed,mlp,packed,lowprec (all by
 * default).
 * Times are the calling thread's CPU time (other processes on a shared
 * machine do not count); each figure is the median over rounds, ratios are
 * medians of the rounds' paired ratios.  A malloc counter (not in
 * sanitizer builds, whose allocator is their own) counts the allocations
 * of the warm selects.  The CPU and the load average are printed.
 */

#include <dlfcn.h>
#include <olc/olc.h>
#include <olc/plugin.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_runtime.h"
#include "bench_util.h"
#ifdef BR_HAVE_PEERS
#include "peers.h"
#endif

#define MAX_SHAPES 8
#define MAX_ROUNDS 101

/* ------------------------------------------------- counting allocator */

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define BR_COUNT_MALLOC 1
void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);
static atomic_long allocations;
/* Default visibility: the libraries' calls must reach these (the build
 * hides symbols by default). */
#define BR_EXPORT __attribute__((visibility("default")))
BR_EXPORT void *malloc(size_t n) {
  atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
  return __libc_malloc(n);
}
BR_EXPORT void *calloc(size_t n, size_t size) {
  atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
  return __libc_calloc(n, size);
}
BR_EXPORT void *realloc(void *p, size_t n) {
  atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
  return __libc_realloc(p, n);
}
static long allocated(void) { return atomic_load(&allocations); }
#else
static long allocated(void) { return -1; }
#endif

/* ---------------------------------------------------------------- util */

void br_die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("bench_runtime: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(1);
}

double br_cpu_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void print_machine(void) {
  char line[256], cpu[256] = "unknown", family[32] = "?", model[32] = "?";
  double load[3] = {0, 0, 0};
  FILE *f = fopen("/proc/cpuinfo", "r");
  while (f != NULL && fgets(line, sizeof line, f) != NULL && strcmp(line, "\n") != 0) {
    char *v = strchr(line, ':');
    if (v == NULL)
      continue;
    v += v[1] == ' ' ? 2 : 1;
    v[strcspn(v, "\n")] = 0;
    if (strncmp(line, "model name", 10) == 0)
      snprintf(cpu, sizeof cpu, "%s", v);
    else if (strncmp(line, "cpu family", 10) == 0)
      snprintf(family, sizeof family, "%s", v);
    else if (strncmp(line, "model\t", 6) == 0)
      snprintf(model, sizeof model, "%s", v);
  }
  if (f != NULL)
    fclose(f);
  if (getloadavg(load, 3) < 0)
    load[0] = -1;
  printf("cpu: %s (family %s model %s); %ld online; load average %.2f %.2f %.2f\n", cpu, family,
         model, sysconf(_SC_NPROCESSORS_ONLN), load[0], load[1], load[2]);
}

/* --------------------------------------------------------------- select */

/* Times n calls of one select form; ns per call. */
static double time_select(br_shape *s, int form, int n) {
  const olc_selection *sel;
  olc_lookup_result *lr;
  olc_error err;
  double t0 = br_cpu_ns();
  int i;
  for (i = 0; i < n; i++) {
    olc_status st = form == 0   ? olc_binding_select(&sel, s->binding, NULL, &err)
                    : form == 1 ? olc_host_select(&sel, s->host, &s->w, NULL, &err)
                                : olc_binding_explain(&lr, s->binding, 0, &err);
    if (st != OLC_OK)
      br_die("select form %d: %s", form, err.message);
    if (form == 2)
      olc_lookup_result_free(lr);
  }
  return (br_cpu_ns() - t0) / n;
}

static void bench_select(br_shape *s, int rounds, int calls) {
  double ns[3][MAX_ROUNDS], r_host[MAX_ROUNDS], r_peer[MAX_ROUNDS];
  long before, control;
  int r, f;
  time_select(s, 0, calls); /* warm */
  time_select(s, 1, calls);
  before = allocated();
  time_select(s, 0, calls);
  time_select(s, 1, calls);
  before = allocated() - before;
  control = allocated();
  time_select(s, 2, 1); /* the counter's control: a lookup allocates */
  control = allocated() - control;
  for (r = 0; r < rounds; r++) {
    for (f = 0; f < 3; f++) {
      int form = r % 2 ? 2 - f : f;
      ns[form][r] = time_select(s, form, form == 2 ? calls / 100 + 1 : calls);
    }
    r_host[r] = ns[1][r] / ns[0][r];
    r_peer[r] = ns[2][r] / ns[0][r];
  }
  printf("select %s: binding %.1f ns, host_select %.1f ns (%.2fx), uncached lookup %.0f ns "
         "(%.0fx); allocations in %d warm selects: %ld (one lookup: %ld)%s\n",
         s->label, bench_median(ns[0], (size_t)rounds), bench_median(ns[1], (size_t)rounds),
         bench_median(r_host, (size_t)rounds), bench_median(ns[2], (size_t)rounds),
         bench_median(r_peer, (size_t)rounds), 2 * calls, before, control,
         before < 0 ? " (not counted: sanitizer build)" : "");
}

/* -------------------------------------------------------------- execute */

/* Times n executes, through the host (form 0) or the table (1); ns each. */
static double time_execute(br_shape *s, br_direct *d, const void *policy, int form, int n) {
  olc_error err;
  double t0 = br_cpu_ns();
  int i;
  for (i = 0; i < n; i++)
    if (form == 0 ? olc_selection_matmul_f32(s->sel, s->m, s->n, s->k, 1.0f, s->a, s->k, s->b, s->n,
                                             0.0f, s->c, s->n, &err) != OLC_OK
                  : br_direct_matmul(d, s, policy) != 0)
      br_die("execute %s (%s): %s", s->label, form == 0 ? "host" : "direct",
             form == 0 ? err.message : "failed");
  return (br_cpu_ns() - t0) / n;
}

static void bench_execute(br_shape *s, br_direct *d, int rounds) {
  double ns[2][MAX_ROUNDS], ratio[MAX_ROUNDS], diff[MAX_ROUNDS], probe;
  void *policy = br_direct_policy(d, s->sel);
  int r, n;
  if (policy == NULL)
    br_die("%s: the plugin refuses the selected policy", s->label);
  probe = time_execute(s, d, policy, 0, 3);
  n = probe > 0 ? (int)(2e7 / probe) : 1000; /* about 20 ms of CPU per form and round */
  n = n < 3 ? 3 : n > 20000 ? 20000 : n;
  for (r = 0; r < rounds; r++) {
    int first = r % 2;
    ns[first][r] = time_execute(s, d, policy, first, n);
    ns[!first][r] = time_execute(s, d, policy, !first, n);
    ratio[r] = ns[0][r] / ns[1][r];
    diff[r] = ns[0][r] - ns[1][r];
  }
  printf("execute %s: host %.0f ns, plugin table %.0f ns; host/table %.3fx, host - table %.0f ns "
         "(%d calls per form and round)\n",
         s->label, bench_median(ns[0], (size_t)rounds), bench_median(ns[1], (size_t)rounds),
         bench_median(ratio, (size_t)rounds), bench_median(diff, (size_t)rounds), n);
  br_direct_release(d, policy);
}

/* ---------------------------------------------------------------- setup */

static olc_host *open_host(olc_config **config, olc_store **store, const char *plugin_dir,
                           const char *store_path) {
  char text[4096];
  olc_store_options so = OLC_STORE_OPTIONS_INIT;
  olc_host *host = NULL;
  olc_error err;
  int n = snprintf(text, sizeof text,
                   "[host]\nplugin_dirs = %s\nthreads = 1\n[store]\npath = %s\n"
                   "[calibration]\nselect_mode = on_miss\nmin_seconds = 0.01\n"
                   "max_seconds_per_workload = 2\n",
                   plugin_dir, store_path);
  if (n < 0 || (size_t)n >= sizeof text ||
      olc_config_load_string(config, text, (size_t)n, "bench_runtime", NULL, &err) != OLC_OK)
    br_die("config: %s", n < 0 || (size_t)n >= sizeof text ? "too long" : err.message);
  olc_config_store_options(*config, &so);
  if (olc_store_open(store, &so, &err) != OLC_OK ||
      olc_host_open(&host, *config, *store, NULL, &err) != OLC_OK)
    br_die("open: %s", err.message);
  return host;
}

void br_describe(br_shape *s) {
  snprintf(s->label, sizeof s->label, "%ldx%ldx%ld", s->m, s->n, s->k);
  snprintf(s->ms, sizeof s->ms, "%ld", s->m);
  snprintf(s->ns, sizeof s->ns, "%ld", s->n);
  snprintf(s->ks, sizeof s->ks, "%ld", s->k);
  s->props[0] = (olc_property){"dtype", "float32"};
  s->props[1] = (olc_property){"m", s->ms};
  s->props[2] = (olc_property){"n", s->ns};
  s->props[3] = (olc_property){"k", s->ks};
}

void br_workload(br_shape *s, olc_host *host, const char *model_digest) {
  olc_workload init = OLC_WORKLOAD_INIT;
  br_describe(s);
  s->w = init;
  s->w.backend = "cpu_gemm";
  s->w.operator_name = "MatMul";
  s->w.properties = s->props;
  s->w.property_count = 4;
  s->w.model_digest = model_digest;
  s->host = host;
}

/* Binds the shape and selects (calibrating it on a miss); its operands. */
void br_prepare(br_shape *s, olc_host *host) {
  olc_error err;
  size_t i;
  br_workload(s, host, "sha256:0000000000000000000000000000000000000000000000000000000000000000");
  if (olc_host_bind(&s->binding, host, &s->w, &err) != OLC_OK ||
      olc_binding_select(&s->sel, s->binding, NULL, &err) != OLC_OK)
    br_die("%s: %s", s->label, err.message);
  s->a = malloc((size_t)(s->m * s->k) * sizeof(float));
  s->b = malloc((size_t)(s->k * s->n) * sizeof(float));
  s->c = malloc((size_t)(s->m * s->n) * sizeof(float));
  if (s->a == NULL || s->b == NULL || s->c == NULL)
    br_die("out of memory");
  for (i = 0; i < (size_t)(s->m * s->k); i++)
    s->a[i] = (float)(i % 7) - 3.0f;
  for (i = 0; i < (size_t)(s->k * s->n); i++)
    s->b[i] = (float)(i % 5) - 2.0f;
}

void br_release(br_shape *s) {
  olc_binding_free(s->binding);
  free(s->a);
  free(s->b);
  free(s->c);
}

/* Removes the files of the temporary store directory, then it. */
static void remove_dir(const char *dir) {
  char cmd[1200];
  if (snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir) < (int)sizeof cmd && strchr(dir, '\'') == NULL)
    if (system(cmd) != 0)
      fprintf(stderr, "bench_runtime: could not remove %s\n", dir);
}

#define MAX_PACKED 8

/* What the command line asks for. */
typedef struct br_options {
  const char *plugin, *peers;
  br_shape *shapes;
  int nshapes, rounds, calls, quick;
  unsigned parts; /* PART_* bits */
  long packed[MAX_PACKED][3];
  int npacked, packed_table;
  long lowprec[MAX_PACKED][3];
  int nlowprec;
} br_options;

enum {
  PART_SELECT = 1,
  PART_EXECUTE = 2,
  PART_FIXED = 4,
  PART_MLP = 8,
  PART_PACKED = 16,
  PART_LOWPREC = 32
};

static int parse_parts(unsigned *parts, const char *list) {
  static const char *const names[] = {"select", "execute", "fixed", "mlp", "packed", "lowprec"};
  const char *s = list;
  *parts = 0;
  while (*s != 0) {
    size_t len = strcspn(s, ","), i;
    for (i = 0; i < 6; i++)
      if (strlen(names[i]) == len && strncmp(s, names[i], len) == 0)
        break;
    if (i == 6)
      return -1;
    *parts |= 1u << i;
    s += len + (s[len] == ',');
  }
  return *parts != 0 ? 0 : -1;
}

static int parse_shape(long *m, long *n, long *k, const char *text, long max) {
  return sscanf(text, "%ldx%ldx%ld", m, n, k) == 3 && *m >= 1 && *n >= 1 && *k >= 1 && *m <= max &&
                 *n <= max && *k <= max
             ? 0
             : -1;
}

static int parse(int argc, char **argv, br_options *o) {
  int i;
  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0) {
      o->rounds = 5;
      o->calls = 2000;
      o->quick = 1;
    } else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
      o->rounds = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--plugin") == 0 && i + 1 < argc) {
      o->plugin = argv[++i];
    } else if (strcmp(argv[i], "--peers") == 0 && i + 1 < argc) {
      o->peers = argv[++i];
    } else if (strcmp(argv[i], "--parts") == 0 && i + 1 < argc) {
      if (parse_parts(&o->parts, argv[++i]) != 0)
        return -1;
    } else if (strcmp(argv[i], "--packed") == 0 && i + 1 < argc &&
               strcmp(argv[i + 1], "table") == 0) {
      o->packed_table = 1;
      i++;
    } else if (strcmp(argv[i], "--packed") == 0 && i + 1 < argc && o->npacked < MAX_PACKED) {
      long *p = o->packed[o->npacked++];
      if (parse_shape(&p[0], &p[1], &p[2], argv[++i], 65536) != 0)
        return -1;
    } else if (strcmp(argv[i], "--lowprec") == 0 && i + 1 < argc && o->nlowprec < MAX_PACKED) {
      long *p = o->lowprec[o->nlowprec++];
      if (parse_shape(&p[0], &p[1], &p[2], argv[++i], 65536) != 0)
        return -1;
    } else if (strcmp(argv[i], "--shape") == 0 && i + 1 < argc && o->nshapes < MAX_SHAPES) {
      br_shape *s = &o->shapes[o->nshapes++];
      if (parse_shape(&s->m, &s->n, &s->k, argv[++i], 4096) != 0)
        return -1;
    } else {
      return -1;
    }
  }
  return o->rounds >= 1 && o->rounds <= MAX_ROUNDS ? 0 : -1;
}

int main(int argc, char **argv) {
  static br_shape shapes[MAX_SHAPES];
  /* The shapes: a decoder's projections at batch 4 and 16, and a
   * 1500-token encoder layer (m x n x k, B k x n constant). */
  static const long packed_default[3][3] = {{4, 4096, 4096}, {16, 4096, 4096}, {64, 1500, 2816}};
  static const long packed_quick[1][3] = {{4, 256, 256}};
  /* bench_gemm's table (bench/gemm/shapes.c, "peers"): cubes, decode
   * projections, BERT-base, Whisper and mid-sized layers. */
  static const long packed_table[14][3] = {
      {32, 32, 32},     {64, 64, 64},     {256, 256, 256}, {1024, 1024, 1024}, {2048, 2048, 2048},
      {1, 4096, 4096},  {1, 11008, 4096}, {4, 4096, 4096}, {16, 4096, 4096},   {128, 768, 768},
      {128, 3072, 768}, {64, 1500, 2816}, {35, 700, 2048}, {196, 256, 2304}};
  char dir[] = "/tmp/bench_runtime.XXXXXX", store_path[64], plugin_dir[1024], why[1024];
  br_options o;
  int i;
  olc_config *config = NULL;
  olc_store *store = NULL;
  olc_host *host;
  br_direct d;
  memset(&o, 0, sizeof o);
  o.plugin = BR_PLUGIN;
  o.peers = "all";
  o.shapes = shapes;
  o.rounds = 21;
  o.calls = 20000;
  o.parts = PART_SELECT | PART_EXECUTE | PART_FIXED | PART_MLP | PART_PACKED | PART_LOWPREC;
  if (parse(argc, argv, &o) != 0) {
    fprintf(stderr,
            "usage: bench_runtime [--quick] [--rounds N (1-%d)] [--plugin PATH] "
            "[--shape MxNxK]... [--peers all|LIST] "
            "[--parts select,execute,fixed,mlp,packed,lowprec] [--packed MxNxK|table]... "
            "[--lowprec MxNxK]...\n",
            MAX_ROUNDS);
    return 2;
  }
  if (o.nshapes == 0) {
    static const long def[3][3] = {{8, 512, 512}, {64, 64, 64}, {256, 256, 256}};
    for (o.nshapes = 0; o.nshapes < 3; o.nshapes++)
      shapes[o.nshapes].m = def[o.nshapes][0], shapes[o.nshapes].n = def[o.nshapes][1],
      shapes[o.nshapes].k = def[o.nshapes][2];
  }
#ifdef BR_HAVE_PEERS
  bench_peers_fair_env(argv, "bench_runtime"); /* OpenBLAS with its own CPU detection */
#endif
  snprintf(plugin_dir, sizeof plugin_dir, "%s", o.plugin);
  if (strrchr(plugin_dir, '/') != NULL)
    *strrchr(plugin_dir, '/') = 0;
  if (mkdtemp(dir) == NULL)
    br_die("mkdtemp failed");
  snprintf(store_path, sizeof store_path, "%s/profiles.txt", dir);
  print_machine();
  printf("plugin: %s; %d rounds, order alternating; thread CPU time; medians\n", o.plugin,
         o.rounds);
  host = open_host(&config, &store, plugin_dir, store_path);
  if (o.parts & (PART_SELECT | PART_EXECUTE))
    for (i = 0; i < o.nshapes; i++)
      br_prepare(&shapes[i], host);
  if (o.parts & PART_SELECT)
    for (i = 0; i < o.nshapes; i++)
      bench_select(&shapes[i], o.rounds, o.calls);
  if (o.parts & PART_EXECUTE) {
    if (br_direct_open(&d, o.plugin, why, sizeof why) != 0)
      br_die("%s", why);
    if (!br_direct_can_execute(&d) || !olc_selection_can_execute(shapes[0].sel))
      printf("execute: skipped: %s has no execute (plugin ABI 1.0)\n", o.plugin);
    else
      for (i = 0; i < o.nshapes; i++)
        bench_execute(&shapes[i], &d, o.rounds);
    br_direct_close(&d);
  }
  if (o.parts & PART_FIXED)
    br_fixed_bench(host, o.rounds, o.calls);
#ifdef BR_HAVE_PEERS
  if (o.parts & PART_MLP)
    br_mlp_bench(host, dir, o.rounds, o.peers);
  if (o.parts & PART_PACKED) {
    if (o.packed_table)
      br_packed_bench(host, o.rounds, packed_table, 14, o.peers);
    else if (o.npacked > 0)
      br_packed_bench(host, o.rounds, (const long(*)[3])o.packed, o.npacked, o.peers);
    else if (o.quick)
      br_packed_bench(host, o.rounds, packed_quick, 1, o.peers);
    else
      br_packed_bench(host, o.rounds, packed_default, 3, o.peers);
  }
#else
  (void)packed_default;
  (void)packed_quick;
  (void)packed_table;
  if (o.parts & PART_MLP)
    printf("mlp: skipped: built without bench/gemm's BLAS peers (OpenBLAS)\n");
  if (o.parts & PART_PACKED)
    printf("packed: skipped: built without bench/gemm's peers (OpenBLAS)\n");
#endif
  if (o.parts & PART_LOWPREC) {
    /* Decode at batch 1 and 4 with a 4096-wide projection and an MLP's
     * 11008-wide one (quick: a small one). */
    static const long lowprec_default[3][3] = {{1, 4096, 4096}, {4, 4096, 4096}, {1, 11008, 4096}};
    static const long lowprec_quick[1][3] = {{1, 256, 256}};
    if (o.nlowprec > 0)
      br_lowprec_bench(host, o.rounds, (const long(*)[3])o.lowprec, o.nlowprec, !o.quick);
    else if (o.quick) /* no streaming rate: it reads 1 GiB many times */
      br_lowprec_bench(host, o.rounds, lowprec_quick, 1, 0);
    else
      br_lowprec_bench(host, o.rounds, lowprec_default, 3, 1);
  }
  if (o.parts & (PART_SELECT | PART_EXECUTE))
    for (i = 0; i < o.nshapes; i++)
      br_release(&shapes[i]);
  olc_host_free(host);
  olc_store_free(store);
  olc_config_free(config);
  remove_dir(dir);
  return 0;
}
