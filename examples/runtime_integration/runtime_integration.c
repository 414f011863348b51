/*
 * runtime_integration - what an inference runtime does with olc.
 *
 *   runtime_integration --model PATH --store PATH --plugin-dir DIR
 *                       [--batch N] [--budget SECONDS]
 *
 * It loads a model file (a small multilayer perceptron, written with
 * deterministic weights when PATH does not exist), describes each layer to
 * olc as a MatMul workload of the cpu_gemm plugin when the model loads
 * (backend, operator, shape; the model's bytes give the identity), selects
 * a policy for each (calibrating it on a miss), runs inference through
 * olc_selection_matmul_f32, checks the output against a plain reference,
 * and prints per layer what was selected and how long selecting and
 * executing took.  The last line says how many layers were measured: a
 * second start with the same store measures none.
 *
 * Exit status: 0 done, 1 a failure, 77 cpu_gemm is not usable here (not
 * found, unavailable, or built without execute).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <olc/olc.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mlp.h"

#define SKIP 77

typedef struct args {
  const char *model, *store, *plugin_dir;
  long batch;
  double budget;
} args;

typedef struct layer {
  char name[24], m[24], n[24], k[24];
  olc_property props[4];
  olc_binding *binding;
  const olc_selection *selection;
  double select_ms, execute_ms;
} layer;

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int parse_args(args *a, int argc, char **argv) {
  int i;
  memset(a, 0, sizeof *a);
  a->batch = 8;
  a->budget = 2.0;
  for (i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--model") == 0)
      a->model = argv[i + 1];
    else if (strcmp(argv[i], "--store") == 0)
      a->store = argv[i + 1];
    else if (strcmp(argv[i], "--plugin-dir") == 0)
      a->plugin_dir = argv[i + 1];
    else if (strcmp(argv[i], "--batch") == 0)
      a->batch = strtol(argv[i + 1], NULL, 10);
    else if (strcmp(argv[i], "--budget") == 0)
      a->budget = strtod(argv[i + 1], NULL);
    else
      break;
  }
  if (i != argc || a->model == NULL || a->store == NULL || a->plugin_dir == NULL || a->batch < 1 ||
      a->batch > 4096 || !(a->budget > 0)) {
    fprintf(stderr,
            "usage: %s --model PATH --store PATH --plugin-dir DIR [--batch N] "
            "[--budget SECONDS]\n",
            argv[0]);
    return -1;
  }
  return 0;
}

/* The runtime's configuration, in code (no ini text): where its plugins
 * and its store are, and that a miss is calibrated (within a small
 * budget) rather than served by the plugin's first guess. */
static olc_status open_host(olc_config **config, olc_store **store, olc_host **host, const args *a,
                            olc_error *err) {
  const char *dirs[1];
  olc_store_options so = OLC_STORE_OPTIONS_INIT;
  olc_host_options ho = OLC_HOST_OPTIONS_INIT;
  olc_calibration_settings cal;
  olc_status st = olc_calibration_defaults(&cal);
  *config = NULL; /* none: the built-in defaults and the fields below */
  if (st != OLC_OK)
    return st;
  cal.min_seconds = 0.01;
  cal.max_seconds_per_workload = a->budget;
  so.path = a->store;
  st = olc_store_open(store, &so, err);
  if (st != OLC_OK)
    return st;
  dirs[0] = a->plugin_dir;
  ho.plugin_dirs = dirs;
  ho.plugin_dir_count = 1;
  ho.select_mode = OLC_SELECT_ON_MISS;
  ho.calibration = &cal; /* copied by the open */
  return olc_host_open(host, NULL, *store, &ho, err);
}

/* Describes layer l to olc and selects its policy (measuring on a miss). */
static olc_status prepare_layer(layer *ly, olc_host *host, const mlp *m, uint32_t l, long batch,
                                olc_error *err) {
  olc_workload w = OLC_WORKLOAD_INIT;
  olc_status st;
  double t0;
  snprintf(ly->name, sizeof ly->name, "layer %u", (unsigned)l);
  snprintf(ly->m, sizeof ly->m, "%ld", batch);
  snprintf(ly->k, sizeof ly->k, "%u", (unsigned)m->width[l]);
  snprintf(ly->n, sizeof ly->n, "%u", (unsigned)m->width[l + 1]);
  ly->props[0] = (olc_property){"dtype", "float32"};
  ly->props[1] = (olc_property){"m", ly->m};
  ly->props[2] = (olc_property){"n", ly->n};
  ly->props[3] = (olc_property){"k", ly->k};
  w.backend = "cpu_gemm";
  w.operator_name = "MatMul";
  w.properties = ly->props;
  w.property_count = 4;
  w.model_bytes = m->bytes; /* the identity: this model's content, this shape */
  w.model_len = m->size;
  w.name = ly->name; /* in olc's messages */
  st = olc_host_bind(&ly->binding, host, &w, err);
  if (st != OLC_OK)
    return st;
  t0 = now_ms();
  st = olc_binding_select(&ly->selection, ly->binding, NULL, err);
  ly->select_ms = now_ms() - t0;
  return st == OLC_FIRST_CANDIDATE || st == OLC_NEAREST_RECORD ? OLC_OK : st;
}

/* One forward pass through the selected policies: x (batch rows) in, the
 * last layer's output in out; ReLU between layers. */
static olc_status infer(layer *ly, const mlp *m, long batch, const float *x, float *buf[2],
                        float *out, olc_error *err) {
  const float *in = x;
  uint32_t l;
  for (l = 0; l < m->layers; l++) {
    int64_t k = m->width[l], n = m->width[l + 1];
    float *c = l + 1 == m->layers ? out : buf[l % 2];
    double t0 = now_ms();
    olc_status st = olc_selection_matmul_f32(ly[l].selection, batch, n, k, 1.0f, in, k,
                                             m->weights[l], n, 0.0f, c, n, err);
    ly[l].execute_ms = now_ms() - t0;
    if (st != OLC_OK)
      return st;
    if (l + 1 < m->layers)
      for (int64_t i = 0; i < batch * n; i++)
        c[i] = c[i] < 0 ? 0 : c[i];
    in = c;
  }
  return OLC_OK;
}

static void print_layer(const layer *ly, uint32_t l) {
  const olc_record *r = olc_selection_record(ly->selection);
  size_t len = 0;
  const unsigned char *policy = olc_selection_policy(ly->selection, &len);
  printf("layer %u: MatMul m=%s k=%s n=%s: %s %s%s, select %.3f ms, execute %.3f ms, "
         "policy \"%.*s\"\n",
         (unsigned)l, ly->m, ly->k, ly->n, r != NULL ? olc_level_str(r->level) : "first",
         r != NULL ? olc_origin_str(r->origin) : "candidate",
         olc_selection_calibrated_now(ly->selection) ? " (measured now)" : "", ly->select_ms,
         ly->execute_ms, (int)len, policy != NULL ? (const char *)policy : "");
  if (r == NULL)
    printf("  %s\n", olc_selection_message(ly->selection));
}

/* What olc had to say while the model loaded (e.g. that it measured
 * without its worker process): a runtime would log it. */
static void print_diagnostics(olc_host *host) {
  olc_diagnostic d;
  while (host != NULL && olc_host_next_diagnostic(&d, host) == OLC_OK)
    fprintf(stderr, "olc: %s: %s: %s\n", d.level == OLC_DIAG_WARNING ? "warning" : "note", d.where,
            d.message);
}

/* Loads the model (writing it first when the file does not exist yet). */
static int load_model(mlp *m, const char *path) {
  char why[512];
  FILE *f = fopen(path, "rb");
  if (f != NULL)
    fclose(f);
  else if (mlp_write(path, why, sizeof why) != 0) {
    fprintf(stderr, "runtime_integration: %s\n", why);
    return -1;
  }
  if (mlp_read(m, path, why, sizeof why) != 0) {
    fprintf(stderr, "runtime_integration: %s\n", why);
    return -1;
  }
  return 0;
}

/* Inference on the caller's buffers, checked against the reference. */
static int run_and_check(layer *ly, const mlp *m, long batch) {
  size_t widest = 0, in = (size_t)batch * m->width[0], out = (size_t)batch * m->width[m->layers];
  float *x = malloc(in * sizeof *x), *y = malloc(out * sizeof *y), *ref = malloc(out * sizeof *ref);
  float *buf[2] = {NULL, NULL};
  olc_error err;
  int rc = 1;
  double error;
  for (uint32_t l = 1; l < m->layers; l++)
    widest = m->width[l] > widest ? m->width[l] : widest;
  buf[0] = malloc(((size_t)batch * widest + 1) * sizeof(float));
  buf[1] = malloc(((size_t)batch * widest + 1) * sizeof(float));
  if (x == NULL || y == NULL || ref == NULL || buf[0] == NULL || buf[1] == NULL ||
      (mlp_input(x, in), mlp_reference(m, batch, x, ref)) != 0) {
    fprintf(stderr, "runtime_integration: out of memory\n");
    goto done;
  }
  /* Twice: the times printed are the second pass's (caches and pages warm). */
  if (infer(ly, m, batch, x, buf, y, &err) != OLC_OK ||
      infer(ly, m, batch, x, buf, y, &err) != OLC_OK) {
    fprintf(stderr, "runtime_integration: execute: %s\n", err.message);
    goto done;
  }
  error = mlp_max_error(y, ref, out);
  printf("output: %zu values, largest difference from the reference %.2g of its largest "
         "magnitude (limit 1e-4)\n",
         out, error);
  rc = error <= 1e-4 ? 0 : 1;
  if (rc != 0)
    fprintf(stderr, "runtime_integration: the output differs from the reference\n");
done:
  free(x);
  free(y);
  free(ref);
  free(buf[0]);
  free(buf[1]);
  return rc;
}

int main(int argc, char **argv) {
  args a;
  mlp m;
  layer ly[MLP_MAX_LAYERS];
  olc_config *config = NULL;
  olc_store *store = NULL;
  olc_host *host = NULL;
  olc_error err;
  olc_status st;
  int rc = 1, measured = 0;
  uint32_t l;
  double t0 = now_ms(), load_ms;

  memset(ly, 0, sizeof ly);
  if (parse_args(&a, argc, argv) != 0 || load_model(&m, a.model) != 0)
    return 1;
  st = open_host(&config, &store, &host, &a, &err);
  for (l = 0; st == OLC_OK && l < m.layers; l++)
    st = prepare_layer(&ly[l], host, &m, l, a.batch, &err);
  load_ms = now_ms() - t0;
  print_diagnostics(host);
  if (st != OLC_OK) {
    fprintf(stderr, "runtime_integration: %s\n", err.message);
    rc = st == OLC_E_NOT_FOUND || st == OLC_E_UNAVAILABLE ? SKIP : 1;
    goto done;
  }
  if (olc_selection_can_execute(ly[0].selection))
    rc = run_and_check(ly, &m, a.batch);
  else
    rc = SKIP; /* selected (and calibrated) all the same: the store is right */
  for (l = 0; l < m.layers; l++) {
    print_layer(&ly[l], l);
    measured += olc_selection_calibrated_now(ly[l].selection);
  }
  printf("measured %d of %u layers; model load with selection %.1f ms\n", measured,
         (unsigned)m.layers, load_ms);
  if (rc == SKIP)
    fprintf(stderr, "runtime_integration: this cpu_gemm cannot execute (plugin ABI 1.0)\n");
done:
  for (l = 0; l < MLP_MAX_LAYERS; l++)
    olc_binding_free(ly[l].binding);
  olc_host_free(host);
  olc_store_free(store);
  olc_config_free(config);
  mlp_free(&m);
  return rc;
}
