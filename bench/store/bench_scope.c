/*
 * bench/store/bench_scope.c - a lookup scoped to one workload
 * (OLC_LOOKUP_SCOPE_WORKLOAD) against the same lookup in the key scope, as
 * the number of unrelated shapes in the store grows.
 *
 * Every store holds cpu_gemm MatMul records of one model: N unrelated
 * shapes (an exact record with a per-workload digest and a portable one
 * each), and one workload W with a selected exact record and six others
 * that could have served it (an older implementation, another processor,
 * another thread count, a changed model, the portable record it shadows,
 * a legacy record of the model).  The key scope lists all 2N unrelated
 * records as well (each differs from W's key in one field: the digest, or
 * the structure); the workload scope lists the six.
 *
 * For N = 100, 1000, 10000 (all stores loaded first), each round runs, per
 * store in a rotating order, a batch of scoped and a batch of key-scope
 * lookups, alternating which goes first; times are thread CPU time per
 * lookup.  Reported: medians per size, the median of the paired ratios
 * key/scoped per size, and the median of the paired ratios scoped(N) /
 * scoped(smallest N) (flat: about 1).  The rejection counts are checked
 * (exit 1 if the scoped lookup lists anything but the six).
 *
 * Usage: bench_store_scope [--quick] [--dir DIR]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "olc/store.h"

#define SIZES 3
#define SCOPED_REJECTIONS 6
#define MODEL "sha256:5e1f0c4a"

static const size_t sizes[SIZES] = {100, 1000, 10000};

static void die(const char *what, const char *msg) {
  fprintf(stderr, "bench_store_scope: %s: %s\n", what, msg);
  exit(1);
}

/* Shape i: m and n vary, k fixed; W is shape 0, the unrelated ones 1..N. */
typedef struct shape {
  char m[24], n[24], digest[192];
  olc_property props[4];
} shape;

static void shape_init(shape *s, size_t i, const char *model) {
  olc_error e;
  snprintf(s->m, sizeof s->m, "%zu", 1 + i % 997);
  snprintf(s->n, sizeof s->n, "%zu", 64 + i / 997);
  s->props[0].name = "dtype";
  s->props[0].value = "float32";
  s->props[1].name = "k";
  s->props[1].value = "512";
  s->props[2].name = "m";
  s->props[2].value = s->m;
  s->props[3].name = "n";
  s->props[3].value = s->n;
  if (olc_store_workload_digest(s->digest, sizeof s->digest, NULL, model, s->props, 4, &e) !=
      OLC_OK)
    die("digest", e.message);
}

static void put_exact(FILE *f, const char *impl, const char *digest, const char *proc,
                      int threads) {
  fprintf(f,
          "profile exact calibrated\nbackend \"cpu_gemm\"\noperator \"MatMul\"\n"
          "implementation \"%s\"\nmodel_digest \"%s\"\nprocessor \"%s\"\nthread_count %d\n"
          "measurement \"median_latency\" 12.5 \"us\"\npolicy \"v1 kernel=avx2_6x16 mc=48\"\nend\n",
          impl, digest, proc, threads);
}

static void put_portable(FILE *f, const char *impl, const shape *s) {
  int p;
  fprintf(f,
          "profile portable calibrated\nbackend \"cpu_gemm\"\noperator \"MatMul\"\n"
          "implementation \"%s\"\n",
          impl);
  for (p = 0; p < 4; p++)
    fprintf(f, "structure \"%s\" \"%s\"\n", s->props[p].name, s->props[p].value);
  fprintf(f, "measurement \"median_latency\" 12.5 \"us\"\npolicy \"v1 kernel=avx2_6x16\"\nend\n");
}

/* Writes the version-1 file directly (N saves would rewrite it N times). */
static void write_store(const char *path, size_t n) {
  FILE *f = fopen(path, "wb");
  shape s, old;
  size_t i;
  if (f == NULL)
    die("fopen", path);
  fprintf(f, "onnx_light_calibration_profiles 1\n");
  shape_init(&s, 0, MODEL);
  shape_init(&old, 0, "sha256:0ld");
  put_exact(f, "3", s.digest, "cpu-a", 8);   /* selected */
  put_exact(f, "2", s.digest, "cpu-a", 8);   /* outdated_implementation */
  put_exact(f, "3", s.digest, "cpu-b", 8);   /* different_processor */
  put_exact(f, "3", s.digest, "cpu-a", 4);   /* different_thread_count */
  put_exact(f, "3", old.digest, "cpu-a", 8); /* different_model: the model changed */
  put_exact(f, "3", MODEL, "cpu-a", 8);      /* different_model: legacy */
  put_portable(f, "3", &s);                  /* shadowed */
  for (i = 1; i <= n; i++) {
    shape_init(&s, i, MODEL);
    put_exact(f, "3", s.digest, "cpu-a", 8);
    put_portable(f, "3", &s);
  }
  if (fclose(f) != 0)
    die("fclose", path);
}

typedef struct bench_store {
  olc_store *store;
  shape w;
  olc_key key;
  size_t n;
  size_t scoped_rejected, key_rejected, scoped_unlisted;
} bench_store;

static void open_store(bench_store *b, const char *dir, size_t n) {
  olc_store_options o = OLC_STORE_OPTIONS_INIT;
  char path[4200];
  olc_error e;
  snprintf(path, sizeof path, "%s/scope-%zu.txt", dir, n);
  write_store(path, n);
  o.path = path;
  o.check_for_changes = 0;
  if (olc_store_open(&b->store, &o, &e) != OLC_OK || olc_store_load_status(b->store, &e) != OLC_OK)
    die("open", e.message);
  b->n = n;
  shape_init(&b->w, 0, MODEL);
  memset(&b->key, 0, sizeof b->key);
  b->key.backend = "cpu_gemm";
  b->key.operator_name = "MatMul";
  b->key.implementation = "3";
  b->key.model_digest = b->w.digest;
  b->key.processor = "cpu-a";
  b->key.thread_count = 8;
  b->key.structure = b->w.props;
  b->key.structure_count = 4;
}

/* Thread CPU seconds per lookup over count lookups. */
static double lookups(bench_store *b, int scope, size_t count) {
  olc_lookup_options o = OLC_LOOKUP_OPTIONS_INIT;
  double t0 = bench_cpu_s();
  size_t i;
  o.key = &b->key;
  o.scope = scope;
  for (i = 0; i < count; i++) {
    olc_lookup_result *res = NULL;
    olc_error e;
    if (olc_store_lookup(&res, b->store, &o, &e) != OLC_OK)
      die("lookup", e.message);
    if (scope == OLC_LOOKUP_SCOPE_WORKLOAD) {
      b->scoped_rejected = olc_lookup_result_rejected_count(res);
      b->scoped_unlisted = olc_lookup_result_unlisted_count(res);
    } else {
      b->key_rejected = olc_lookup_result_rejected_count(res);
    }
    olc_lookup_result_free(res);
  }
  return (bench_cpu_s() - t0) / (double)count;
}

/* The model name, with family and model (some VMs name only the vendor). */
static void cpu_name(char *out, size_t size) {
  char line[512], name[256] = "unknown CPU", family[32] = "?", model[32] = "?";
  FILE *f = fopen("/proc/cpuinfo", "r");
  while (f != NULL && fgets(line, sizeof line, f) != NULL) {
    char *colon = strchr(line, ':');
    if (line[0] == '\n')
      break; /* the first processor's block is enough */
    if (colon == NULL)
      continue;
    colon[strcspn(colon, "\n")] = 0;
    if (strncmp(line, "model name", 10) == 0)
      snprintf(name, sizeof name, "%s", colon + 2);
    else if (strncmp(line, "cpu family", 10) == 0)
      snprintf(family, sizeof family, "%s", colon + 2);
    else if (strncmp(line, "model\t", 6) == 0)
      snprintf(model, sizeof model, "%s", colon + 2);
  }
  if (f != NULL)
    fclose(f);
  snprintf(out, size, "%s (family %s, model %s), %ld CPUs online", name, family, model,
           sysconf(_SC_NPROCESSORS_ONLN));
}

static double load1(void) {
  double l[1] = {-1};
  return getloadavg(l, 1) == 1 ? l[0] : -1;
}

typedef struct series {
  double *scoped, *key, *ratio, *flat;
} series;

static void run_rounds(bench_store *b, series *s, size_t rounds, size_t batch) {
  size_t r, j;
  for (r = 0; r < rounds; r++) {
    for (j = 0; j < SIZES; j++) {
      size_t k = (r + j) % SIZES;
      /* Fewer key-scope lookups where each costs the whole bucket. */
      size_t kbatch = batch * 100 / b[k].n + 2;
      if (r % 2 == 0) {
        s[k].scoped[r] = lookups(&b[k], OLC_LOOKUP_SCOPE_WORKLOAD, batch);
        s[k].key[r] = lookups(&b[k], OLC_LOOKUP_SCOPE_KEY, kbatch);
      } else {
        s[k].key[r] = lookups(&b[k], OLC_LOOKUP_SCOPE_KEY, kbatch);
        s[k].scoped[r] = lookups(&b[k], OLC_LOOKUP_SCOPE_WORKLOAD, batch);
      }
    }
    for (j = 0; j < SIZES; j++) {
      s[j].ratio[r] = s[j].key[r] / s[j].scoped[r];
      s[j].flat[r] = s[j].scoped[r] / s[0].scoped[r];
    }
  }
}

static void report(bench_store *b, series *s, size_t rounds, double load_before) {
  char cpu[256];
  size_t j;
  int bad = 0;
  cpu_name(cpu, sizeof cpu);
  printf("scoped lookup vs key scope: olc %s, %s, load %.2f before / %.2f after\n", olc_version(),
         cpu, load_before, load1());
  printf("cpu_gemm MatMul, one model; medians of %zu interleaved rounds, thread CPU time\n\n",
         rounds);
  printf("| unrelated shapes | records | scoped: listed | unlisted | scoped us | key scope: listed "
         "| key scope us | key/scoped (paired) | scoped vs %zu shapes (paired) |\n",
         sizes[0]);
  printf("|---|---|---|---|---|---|---|---|---|\n");
  for (j = 0; j < SIZES; j++) {
    printf("| %zu | %zu | %zu | %zu | %.2f | %zu | %.1f | %.0fx | %.2fx |\n", b[j].n,
           2 * b[j].n + SCOPED_REJECTIONS + 1, b[j].scoped_rejected, b[j].scoped_unlisted,
           bench_median(s[j].scoped, rounds) * 1e6, b[j].key_rejected,
           bench_median(s[j].key, rounds) * 1e6, bench_median(s[j].ratio, rounds),
           bench_median(s[j].flat, rounds));
    if (b[j].scoped_rejected != SCOPED_REJECTIONS || b[j].scoped_unlisted != 2 * b[j].n ||
        b[j].key_rejected < 2 * b[j].n)
      bad = 1;
  }
  if (bad)
    die("check", "the scoped lookup did not list exactly the workload's records");
}

int main(int argc, char **argv) {
  const char *base = getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp";
  size_t rounds = 9, batch = 20000, j;
  bench_store b[SIZES];
  series s[SIZES];
  char dir[4096], path[4200];
  double load_before = load1();
  int i;
  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0) {
      rounds = 3;
      batch = 2000;
    } else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc) {
      base = argv[++i];
    } else {
      fprintf(stderr, "usage: bench_store_scope [--quick] [--dir DIR]\n");
      return 2;
    }
  }
  snprintf(dir, sizeof dir, "%s/olc-bench-scope-XXXXXX", base);
  if (mkdtemp(dir) == NULL)
    die("mkdtemp", dir);
  for (j = 0; j < SIZES; j++) {
    open_store(&b[j], dir, sizes[j]);
    s[j].scoped = calloc(rounds, sizeof(double));
    s[j].key = calloc(rounds, sizeof(double));
    s[j].ratio = calloc(rounds, sizeof(double));
    s[j].flat = calloc(rounds, sizeof(double));
    if (!s[j].scoped || !s[j].key || !s[j].ratio || !s[j].flat)
      die("calloc", "out of memory");
    /* Warm-up: builds both candidate indexes of the snapshot, untimed. */
    lookups(&b[j], OLC_LOOKUP_SCOPE_WORKLOAD, 100);
    lookups(&b[j], OLC_LOOKUP_SCOPE_KEY, 3);
  }
  run_rounds(b, s, rounds, batch);
  report(b, s, rounds, load_before);
  for (j = 0; j < SIZES; j++) {
    olc_store_free(b[j].store);
    snprintf(path, sizeof path, "%s/scope-%zu.txt", dir, sizes[j]);
    remove(path);
    free(s[j].scoped);
    free(s[j].key);
    free(s[j].ratio);
    free(s[j].flat);
  }
  if (rmdir(dir) != 0)
    fprintf(stderr, "bench_store_scope: could not remove %s\n", dir);
  return 0;
}
