/*
 * onnx_runner - runs an ONNX model of MatMul, Gemm, Transpose, Add and
 * Relu nodes through olc and compares its outputs with the model's test
 * data, as ONNX's backend tests lay it out (MODEL_DIR/test_data_set_N/
 * input_I.pb and output_I.pb, TensorProto files).
 *
 *   onnx_runner [options] MODEL.onnx [TEST_DATA_DIR...]
 *
 * The model is read with protobuf-c (code generated from ONNX's
 * onnx.proto).  Each MatMul and Gemm node is bound to olc as a workload of
 * the backend (cpu_gemm unless --backend says otherwise) with its
 * structure as properties (dtype, m, n, k; trans_a, trans_b, batch_a,
 * batch_b, bias where they apply) and its initializers as constants, and
 * runs with olc_binding_execute on the tensors as they lie: a Transpose is
 * a view, a transposed Gemm operand the view of A' or B', the bias C its
 * own tensor broadcast by stride 0.  Transpose, Add and Relu are computed
 * here.
 */
#include "runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SETS 1000

typedef struct args {
  const char *model, *config, *store;
  const char *const *dirs;
  size_t dir_count;
  rn_run_options run;
  rn_tolerance tol;
  int skip_absent;
} args;

static void usage(FILE *f) {
  fprintf(f, "usage: onnx_runner [options] MODEL.onnx [TEST_DATA_DIR...]\n"
             "Runs MODEL through olc on each TEST_DATA_DIR (default: every test_data_set_N\n"
             "beside MODEL) and compares its outputs with output_I.pb.\n"
             "  --backend NAME   the plugin serving MatMul and Gemm (default cpu_gemm)\n"
             "  --config FILE    olc's configuration (default: $OLC_CONFIG or the built-in one)\n"
             "  --store PATH     the calibration store (default: the configuration's)\n"
             "  --calibrate      measure a workload that nothing is stored for (select mode\n"
             "                   on_miss); by default the store or the plugin's first candidate\n"
             "  --rtol X --atol X  tolerance |y - e| <= atol + rtol * |e| (default: rtol 1e-3,\n"
             "                   atol 1e-7; rtol 2 ulps for float16 and bfloat16 outputs)\n"
             "  --skip-absent    exit 77 when MODEL does not exist\n"
             "  -v, --verbose    print each MatMul/Gemm node's workload and selection\n"
             "Exit status: 0 every output matches, 1 a mismatch, 2 bad input (arguments, model,\n"
             "test data), 3 olc failed (configuration, store, bind, select, execute), 77 skipped\n"
             "(the backend is not loaded or not usable here, or --skip-absent).\n");
}

static int parse_number(double *out, const char *text) {
  char *end;
  *out = strtod(text, &end);
  return end != text && *end == '\0' && *out >= 0 ? 0 : -1;
}

static int parse_args(args *a, int argc, char **argv) {
  int i;
  memset(a, 0, sizeof *a);
  a->run.backend = "cpu_gemm";
  a->run.select_mode = OLC_SELECT_NEVER;
  a->tol.rtol = a->tol.atol = -1;
  for (i = 1; i < argc && argv[i][0] == '-'; i++) {
    const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(o, "--calibrate") == 0)
      a->run.select_mode = OLC_SELECT_ON_MISS;
    else if (strcmp(o, "--skip-absent") == 0)
      a->skip_absent = 1;
    else if (strcmp(o, "-v") == 0 || strcmp(o, "--verbose") == 0)
      a->run.verbose = 1;
    else if (strcmp(o, "-h") == 0 || strcmp(o, "--help") == 0) {
      usage(stdout);
      exit(0);
    } else if (v == NULL) {
      fprintf(stderr, "onnx_runner: %s: unknown option or missing value\n", o);
      return -1;
    } else if (strcmp(o, "--backend") == 0)
      a->run.backend = v, i++;
    else if (strcmp(o, "--config") == 0)
      a->config = v, i++;
    else if (strcmp(o, "--store") == 0)
      a->store = v, i++;
    else if (strcmp(o, "--rtol") == 0 || strcmp(o, "--atol") == 0) {
      if (parse_number(o[2] == 'r' ? &a->tol.rtol : &a->tol.atol, v) != 0) {
        fprintf(stderr, "onnx_runner: %s: '%s' is not a number >= 0\n", o, v);
        return -1;
      }
      i++;
    } else {
      fprintf(stderr, "onnx_runner: %s: unknown option\n", o);
      return -1;
    }
  }
  if (i >= argc) {
    usage(stderr);
    return -1;
  }
  a->model = argv[i++];
  a->dirs = (const char *const *)&argv[i];
  a->dir_count = (size_t)(argc - i);
  return 0;
}

static int file_exists(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return 0;
  fclose(f);
  return 1;
}

/* The directory part of path ("." when it has none). */
static void dir_of(char *out, size_t size, const char *path) {
  const char *slash = strrchr(path, '/');
#ifdef _WIN32
  const char *bs = strrchr(path, '\\');
  if (bs != NULL && (slash == NULL || bs > slash))
    slash = bs;
#endif
  if (slash == NULL)
    snprintf(out, size, ".");
  else
    snprintf(out, size, "%.*s", (int)(slash - path), path);
}

static void print_diagnostics(olc_host *host, int verbose) {
  olc_diagnostic d;
  while (host != NULL && olc_host_next_diagnostic(&d, host) == OLC_OK)
    if (verbose || d.level == OLC_DIAG_WARNING)
      fprintf(stderr, "olc: %s: %s: %s\n", d.level == OLC_DIAG_WARNING ? "warning" : "note",
              d.where, d.message);
}

typedef struct session {
  olc_config *config;
  olc_store *store;
  olc_host *host;
} session;

/* olc's configuration (the built-in one unless --config), store and host. */
static int open_session(session *s, const args *a, rn_error *e) {
  olc_store_options so = OLC_STORE_OPTIONS_INIT;
  olc_error err;
  olc_status st;
  st = a->config != NULL ? olc_config_load_file(&s->config, a->config, &err)
                         : olc_config_load_default(&s->config, 0, &err);
  if (st != OLC_OK)
    return rn_fail(e, RN_OLC_FAILED, "%s: %s", a->config != NULL ? a->config : "configuration",
                   err.message);
  olc_config_store_options(s->config, &so);
  if (a->store != NULL)
    so.path = a->store;
  if ((st = olc_store_open(&s->store, &so, &err)) != OLC_OK)
    return rn_fail(e, RN_OLC_FAILED, "store: %s", err.message);
  if ((st = olc_host_open(&s->host, s->config, s->store, NULL, &err)) != OLC_OK)
    return rn_fail(e, RN_OLC_FAILED, "host: %s", err.message);
  return RN_OK;
}

static void close_session(session *s) {
  olc_host_free(s->host);
  olc_store_free(s->store);
  olc_config_free(s->config);
}

/* The tensors of one test data set: input_I.pb or output_I.pb, I = 0, 1,
 * ... until one is missing. */
typedef struct tensor_set {
  rn_tensor t[64];
  Onnx__TensorProto *p[64];
  char path[64][2200];
  size_t count;
} tensor_set;

static void tensor_set_free(tensor_set *ts) {
  for (size_t i = 0; i < ts->count; i++) {
    rn_tensor_free(&ts->t[i]);
    onnx__tensor_proto__free_unpacked(ts->p[i], NULL);
  }
  ts->count = 0;
}

static int read_set(tensor_set *ts, const char *dir, const char *kind, rn_error *e) {
  ts->count = 0;
  for (size_t i = 0; i < 64; i++) {
    int rc;
    int n = snprintf(ts->path[i], sizeof ts->path[i], "%s/%s_%zu.pb", dir, kind, i);
    if (n < 0 || (size_t)n >= sizeof ts->path[i])
      return rn_fail(e, RN_BAD_INPUT, "%.200s...: path too long", dir);
    rc = rn_tensor_read(&ts->t[i], &ts->p[i], ts->path[i], e);
    if (rc < 0)
      return RN_OK;
    if (rc != RN_OK)
      return rc;
    ts->count++;
  }
  return RN_OK;
}

/* order[i]: the file of graph input (or output) i: by the tensors' names
 * when every file names one of them, else by position. */
static int match_names(size_t *order, const tensor_set *ts, const rn_graph *g, int outputs,
                       const char *dir, rn_error *e) {
  size_t want = outputs ? rn_graph_output_count(g) : rn_graph_input_count(g);
  const char *kind = outputs ? "output" : "input";
  int by_name = 1;
  if (ts->count != want)
    return rn_fail(e, RN_BAD_INPUT, "%s: %zu %s_*.pb files, the model has %zu graph %ss%s", dir,
                   ts->count, kind, want, kind, outputs ? "" : " (initializers apart)");
  for (size_t i = 0; i < want; i++) {
    const char *name = outputs ? rn_graph_output_name(g, i) : rn_graph_input_name(g, i);
    order[i] = i;
    for (size_t j = 0; by_name && j <= want; j++) {
      if (j == want)
        by_name = 0;
      else if (ts->p[j]->name != NULL && strcmp(ts->p[j]->name, name) == 0) {
        order[i] = j;
        break;
      }
    }
  }
  if (!by_name)
    for (size_t i = 0; i < want; i++)
      order[i] = i;
  return RN_OK;
}

/* One test data set: inputs in, outputs compared.  RN_OK, RN_MISMATCH, or
 * a failure that stops the run. */
static int run_set(rn_graph *g, session *s, const args *a, const char *dir, rn_error *e) {
  tensor_set *in = calloc(1, sizeof *in), *out = calloc(1, sizeof *out);
  rn_tensor inputs[64];
  size_t order[64];
  int rc = RN_OK, worst = RN_OK;
  if (in == NULL || out == NULL) {
    free(in);
    free(out);
    return rn_fail(e, RN_BAD_INPUT, "%s: out of memory", dir);
  }
  if ((rc = read_set(in, dir, "input", e)) != RN_OK || (rc = read_set(out, dir, "output", e)) ||
      (rc = match_names(order, in, g, 0, dir, e)) != RN_OK)
    goto done;
  for (size_t i = 0; i < in->count; i++)
    inputs[i] = in->t[order[i]];
  rc = rn_graph_run(g, s->host, &a->run, inputs, e);
  print_diagnostics(s->host, a->run.verbose);
  if (rc != RN_OK || (rc = match_names(order, out, g, 1, dir, e)) != RN_OK)
    goto done;
  for (size_t i = 0; i < out->count; i++) {
    const rn_tensor *y = rn_graph_output(g, i), *x = &out->t[order[i]];
    rn_compare c;
    rn_error why = {0, ""};
    char dims[128];
    int cmp = rn_tensor_compare(&c, y, x, &a->tol, &why);
    rn_dims_text(dims, sizeof dims, x->rank, x->dims);
    if (cmp == RN_OK)
      printf("%s: output '%s' (%s %s): ok, max abs error %.3g, max rel error %.3g (rtol %g, "
             "atol %g)\n",
             out->path[order[i]], rn_graph_output_name(g, i), dims, rn_dtype_name(x->dtype),
             c.max_abs, c.max_rel, c.rtol, c.atol);
    else if (why.code != RN_OK)
      printf("%s: output '%s': MISMATCH: %s\n", out->path[order[i]], rn_graph_output_name(g, i),
             why.message);
    else
      printf("%s: output '%s' (%s %s): MISMATCH: %lld of %lld elements outside rtol %g, atol "
             "%g; max abs error %.3g; worst element %lld: %.9g, expected %.9g\n",
             out->path[order[i]], rn_graph_output_name(g, i), dims, rn_dtype_name(x->dtype),
             (long long)c.bad, (long long)c.count, c.rtol, c.atol, c.max_abs, (long long)c.worst,
             c.actual, c.expected);
    if (cmp != RN_OK)
      worst = RN_MISMATCH;
  }
  rc = worst;
done:
  tensor_set_free(in);
  tensor_set_free(out);
  free(in);
  free(out);
  return rc;
}

int main(int argc, char **argv) {
  args a;
  rn_graph *g = NULL;
  session s = {NULL, NULL, NULL};
  rn_error e = {0, ""};
  char model_dir[2048], dir[2100];
  size_t sets = 0, mismatched = 0;
  int rc;
  if (parse_args(&a, argc, argv) != 0)
    return RN_BAD_INPUT;
  if (a.skip_absent && !file_exists(a.model)) {
    printf("onnx_runner: skipped: %s does not exist\n", a.model);
    return RN_SKIP;
  }
  if ((rc = rn_graph_load(&g, a.model, &e)) != RN_OK || (rc = open_session(&s, &a, &e)) != RN_OK)
    goto done;
  print_diagnostics(s.host, a.run.verbose);
  dir_of(model_dir, sizeof model_dir, a.model);
  for (size_t i = 0; rc == RN_OK || rc == RN_MISMATCH; i++) {
    char probe[sizeof dir + 16];
    int n;
    if (a.dir_count > 0 && i == a.dir_count)
      break;
    if (a.dir_count > 0)
      n = snprintf(dir, sizeof dir, "%s", a.dirs[i]);
    else
      n = snprintf(dir, sizeof dir, "%s/test_data_set_%zu", model_dir, i);
    if (n < 0 || (size_t)n >= sizeof dir) {
      rc = rn_fail(&e, RN_BAD_INPUT, "%.200s...: path too long",
                   a.dir_count > 0 ? a.dirs[i] : a.model);
      break;
    }
    n = snprintf(probe, sizeof probe, "%s/output_0.pb", dir);
    if (a.dir_count == 0 && (n < 0 || i == MAX_SETS || !file_exists(probe)))
      break;
    rc = run_set(g, &s, &a, dir, &e);
    sets++;
    mismatched += rc == RN_MISMATCH;
  }
  if (rc != RN_OK && rc != RN_MISMATCH)
    goto done;
  if (sets == 0) {
    rc = rn_fail(&e, RN_BAD_INPUT, "%s: no test_data_set_0/output_0.pb beside it", a.model);
    goto done;
  }
  rc = mismatched > 0 ? RN_MISMATCH : RN_OK;
  printf("%s: %zu test data set%s, %s\n", a.model, sets, sets == 1 ? "" : "s",
         mismatched > 0 ? "outputs DIFFER" : "every output matches");
done:
  if (rc != RN_OK && rc != RN_MISMATCH) {
    if (rc == RN_SKIP)
      printf("onnx_runner: skipped: %s\n", e.message);
    else
      fprintf(stderr, "onnx_runner: %s\n", e.message);
  }
  rn_graph_free(g);
  close_session(&s);
  return rc;
}
