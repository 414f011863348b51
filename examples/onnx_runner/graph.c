/*
 * The graph of onnx_runner: a model's nodes (MatMul, Gemm, Transpose, Add,
 * Relu) checked once when it loads, then run in their order: MatMul and
 * Gemm through olc (one binding per node, its initializers marked
 * constant), the others here.
 *
 * No operand of MatMul or Gemm is copied, looped over or pre-filled here:
 * a Transpose is a view (strides permuted), Gemm's transA/transB hand the
 * operand as the view of A' or B', and the bias C goes to olc as its own
 * tensor, its broadcast axes with stride 0.
 */
#include "runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OP_MATMUL, OP_GEMM, OP_TRANSPOSE, OP_ADD, OP_RELU };
static const char *const op_names[] = {"MatMul", "Gemm", "Transpose", "Add", "Relu"};

enum { VAL_INPUT, VAL_INIT, VAL_NODE };

typedef struct rn_value {
  const char *name;
  int kind;
  uint32_t declared; /* a graph input's elem_type as an OLC_DTYPE (0: not said) */
  rn_tensor t;
} rn_value;

#define RN_MAX_PROPS 10

typedef struct rn_node {
  char label[200]; /* "graph.node[3] 'name' (Gemm)" in the runner's messages */
  char wname[200]; /* "node[3] name (Gemm)": the workload's name in olc's */
  int op;
  int in[3]; /* value indices; -1: absent */
  size_t n_in;
  int out;
  double alpha, beta; /* Gemm */
  int trans_a, trans_b;
  uint32_t perm_count; /* Transpose: 0 reverses the axes */
  int64_t perm[OLC_TENSOR_MAX_RANK];
  /* The binding of MatMul and Gemm, for the properties it was made with. */
  olc_binding *binding;
  char bound[512];
} rn_node;

struct rn_graph {
  char *path;
  unsigned char *bytes;
  size_t len;
  Onnx__ModelProto *model;
  rn_value *values;
  size_t value_count;
  rn_node *nodes;
  size_t node_count;
  size_t *inputs;
  size_t input_count;
  size_t *outputs;
  size_t output_count;
};

static int find_value(const rn_graph *g, const char *name) {
  for (size_t i = 0; i < g->value_count; i++)
    if (strcmp(g->values[i].name, name) == 0)
      return (int)i;
  return -1;
}

static int add_value(rn_graph *g, const char *name, int kind) {
  rn_value *v = &g->values[g->value_count];
  memset(v, 0, sizeof *v);
  v->name = name;
  v->kind = kind;
  return (int)g->value_count++;
}

static int supported_elem_type(int32_t t) {
  return t == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT || t == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16 ||
         t == ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16;
}

/* The initializers, then the graph inputs that are not initializers (a
 * model of IR version 3 lists its initializers among its inputs too). */
static int load_inputs(rn_graph *g, const Onnx__GraphProto *gp, rn_error *e) {
  for (size_t i = 0; i < gp->n_initializer; i++) {
    const Onnx__TensorProto *p = gp->initializer[i];
    char where[700];
    int v;
    if (p->name == NULL || p->name[0] == '\0')
      return rn_fail(e, RN_BAD_INPUT, "%s: graph.initializer[%zu]: name is empty", g->path, i);
    if (find_value(g, p->name) >= 0)
      return rn_fail(e, RN_BAD_INPUT, "%s: graph.initializer[%zu]: name '%s' is used twice",
                     g->path, i, p->name);
    snprintf(where, sizeof where, "%s: graph.initializer[%zu] '%s'", g->path, i, p->name);
    v = add_value(g, p->name, VAL_INIT);
    if (rn_tensor_decode(&g->values[v].t, p, where, e) != RN_OK)
      return e->code;
    g->values[v].t.constant = 1;
  }
  for (size_t i = 0; i < gp->n_input; i++) {
    const Onnx__ValueInfoProto *in = gp->input[i];
    int v;
    if (in->name == NULL || in->name[0] == '\0')
      return rn_fail(e, RN_BAD_INPUT, "%s: graph.input[%zu]: name is empty", g->path, i);
    v = find_value(g, in->name);
    if (v >= 0 && g->values[v].kind == VAL_INIT)
      continue;
    if (v >= 0)
      return rn_fail(e, RN_BAD_INPUT, "%s: graph.input[%zu]: name '%s' is used twice", g->path, i,
                     in->name);
    if (in->type != NULL && in->type->tensor_type != NULL && in->type->tensor_type->has_elem_type &&
        !supported_elem_type(in->type->tensor_type->elem_type))
      return rn_fail(e, RN_BAD_INPUT,
                     "%s: graph.input[%zu] '%s': elem_type %d is not supported (float 1, "
                     "float16 10, bfloat16 16)",
                     g->path, i, in->name, (int)in->type->tensor_type->elem_type);
    v = add_value(g, in->name, VAL_INPUT);
    if (in->type != NULL && in->type->tensor_type != NULL && in->type->tensor_type->has_elem_type)
      g->values[v].declared =
          in->type->tensor_type->elem_type == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT
              ? OLC_DTYPE_FLOAT32
          : in->type->tensor_type->elem_type == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16
              ? OLC_DTYPE_FLOAT16
              : OLC_DTYPE_BFLOAT16;
    g->inputs[g->input_count++] = (size_t)v;
  }
  return RN_OK;
}

static int op_of(const char *op_type) {
  for (int i = 0; i < (int)(sizeof op_names / sizeof op_names[0]); i++)
    if (strcmp(op_type, op_names[i]) == 0)
      return i;
  return -1;
}

/* Node attributes: what each operator takes, refused otherwise. */
static int load_attributes(rn_node *n, const Onnx__NodeProto *np, const char *path, rn_error *e) {
  n->alpha = 1.0;
  n->beta = 1.0;
  for (size_t i = 0; i < np->n_attribute; i++) {
    const Onnx__AttributeProto *a = np->attribute[i];
    const char *name = a->name != NULL ? a->name : "";
    if (n->op == OP_GEMM && (strcmp(name, "alpha") == 0 || strcmp(name, "beta") == 0)) {
      if (!a->has_f)
        return rn_fail(e, RN_BAD_INPUT, "%s: %s: attribute %s: not a float", path, n->label, name);
      *(name[0] == 'a' ? &n->alpha : &n->beta) = (double)a->f;
    } else if (n->op == OP_GEMM && (strcmp(name, "transA") == 0 || strcmp(name, "transB") == 0)) {
      if (!a->has_i || a->i < 0 || a->i > 1)
        return rn_fail(e, RN_BAD_INPUT, "%s: %s: attribute %s: not 0 or 1", path, n->label, name);
      *(name[5] == 'A' ? &n->trans_a : &n->trans_b) = (int)a->i;
    } else if ((n->op == OP_GEMM || n->op == OP_ADD) && strcmp(name, "broadcast") == 0) {
      /* Opset 6 and before: broadcasting was opt-in; from opset 7 on it is
       * numpy's, which is what this runner does either way. */
    } else if (n->op == OP_TRANSPOSE && strcmp(name, "perm") == 0) {
      if (a->n_ints > OLC_TENSOR_MAX_RANK)
        return rn_fail(e, RN_BAD_INPUT, "%s: %s: attribute perm: %zu axes, at most %u", path,
                       n->label, a->n_ints, (unsigned)OLC_TENSOR_MAX_RANK);
      n->perm_count = (uint32_t)a->n_ints;
      for (size_t j = 0; j < a->n_ints; j++)
        n->perm[j] = a->ints[j];
    } else {
      return rn_fail(e, RN_BAD_INPUT, "%s: %s: attribute '%s' is not supported", path, n->label,
                     name);
    }
  }
  return RN_OK;
}

static int load_node(rn_graph *g, size_t index, const Onnx__NodeProto *np, rn_error *e) {
  rn_node *n = &g->nodes[index];
  const char *op_type = np->op_type != NULL ? np->op_type : "";
  size_t min_in, max_in;
  memset(n, 0, sizeof *n);
  if (np->name != NULL && np->name[0] != '\0')
    snprintf(n->label, sizeof n->label, "graph.node[%zu] '%s' (%s)", index, np->name, op_type);
  else
    snprintf(n->label, sizeof n->label, "graph.node[%zu] (%s)", index, op_type);
  snprintf(n->wname, sizeof n->wname, "node[%zu]%s%.100s (%.60s)", index,
           np->name != NULL && np->name[0] != '\0' ? " " : "", np->name != NULL ? np->name : "",
           op_type);
  n->op = op_of(op_type);
  if (n->op < 0 ||
      (np->domain != NULL && np->domain[0] != '\0' && strcmp(np->domain, "ai.onnx") != 0))
    return rn_fail(e, RN_BAD_INPUT,
                   "%s: %s: operator %s%s%s is not supported (MatMul, Gemm, Transpose, Add, Relu)",
                   g->path, n->label, np->domain != NULL && np->domain[0] != '\0' ? np->domain : "",
                   np->domain != NULL && np->domain[0] != '\0' ? "." : "", op_type);
  min_in = n->op == OP_TRANSPOSE || n->op == OP_RELU ? 1 : 2;
  max_in = n->op == OP_GEMM ? 3 : min_in;
  if (np->n_input < min_in || np->n_input > max_in)
    return rn_fail(e, RN_BAD_INPUT, "%s: %s: %zu inputs, %s takes %zu%s", g->path, n->label,
                   np->n_input, op_type, min_in, max_in > min_in ? " or 3" : "");
  if (np->n_output != 1 || np->output[0] == NULL || np->output[0][0] == '\0')
    return rn_fail(e, RN_BAD_INPUT, "%s: %s: one named output expected, %zu given", g->path,
                   n->label, np->n_output);
  n->in[0] = n->in[1] = n->in[2] = -1;
  for (size_t i = 0; i < np->n_input; i++) {
    if (np->input[i][0] == '\0' && i == 2)
      continue; /* Gemm's optional C, absent */
    n->in[i] = find_value(g, np->input[i]);
    if (n->in[i] < 0)
      return rn_fail(e, RN_BAD_INPUT,
                     "%s: %s: input '%s' is no graph input, initializer or earlier node's output",
                     g->path, n->label, np->input[i]);
  }
  n->n_in = np->n_input;
  if (find_value(g, np->output[0]) >= 0)
    return rn_fail(e, RN_BAD_INPUT, "%s: %s: output '%s' is defined twice", g->path, n->label,
                   np->output[0]);
  n->out = add_value(g, np->output[0], VAL_NODE);
  return load_attributes(n, np, g->path, e);
}

int rn_graph_load(rn_graph **out, const char *path, rn_error *e) {
  rn_graph *g = calloc(1, sizeof *g);
  const Onnx__GraphProto *gp;
  int missing;
  size_t cap;
  *out = NULL;
  if (g == NULL || (g->path = malloc(strlen(path) + 1)) == NULL) {
    free(g);
    return rn_fail(e, RN_BAD_INPUT, "%s: out of memory", path);
  }
  strcpy(g->path, path);
  *out = g;
  g->bytes = rn_read_file(&g->len, path, &missing, e);
  if (g->bytes == NULL)
    return missing ? rn_fail(e, RN_BAD_INPUT, "%s: cannot open it", path) : e->code;
  g->model = onnx__model_proto__unpack(NULL, g->len, g->bytes);
  if (g->model == NULL)
    return rn_fail(e, RN_BAD_INPUT, "%s: not an ONNX model (protobuf does not parse)", path);
  gp = g->model->graph;
  if (gp == NULL)
    return rn_fail(e, RN_BAD_INPUT, "%s: graph: missing", path);
  cap = gp->n_initializer + gp->n_input + gp->n_node;
  g->values = calloc(cap + 1, sizeof *g->values);
  g->nodes = calloc(gp->n_node + 1, sizeof *g->nodes);
  g->inputs = calloc(gp->n_input + 1, sizeof *g->inputs);
  g->outputs = calloc(gp->n_output + 1, sizeof *g->outputs);
  if (g->values == NULL || g->nodes == NULL || g->inputs == NULL || g->outputs == NULL)
    return rn_fail(e, RN_BAD_INPUT, "%s: out of memory", path);
  if (load_inputs(g, gp, e) != RN_OK)
    return e->code;
  for (size_t i = 0; i < gp->n_node; i++) {
    if (load_node(g, i, gp->node[i], e) != RN_OK)
      return e->code;
    g->node_count++;
  }
  if (gp->n_output == 0)
    return rn_fail(e, RN_BAD_INPUT, "%s: graph.output: none", path);
  for (size_t i = 0; i < gp->n_output; i++) {
    const char *name = gp->output[i]->name != NULL ? gp->output[i]->name : "";
    int v = find_value(g, name);
    if (v < 0)
      return rn_fail(e, RN_BAD_INPUT, "%s: graph.output[%zu]: '%s' is computed by no node", path, i,
                     name);
    g->outputs[g->output_count++] = (size_t)v;
  }
  return RN_OK;
}

void rn_graph_free(rn_graph *g) {
  if (g == NULL)
    return;
  for (size_t i = 0; i < g->node_count; i++)
    olc_binding_free(g->nodes[i].binding);
  for (size_t i = 0; g->values != NULL && i < g->value_count; i++)
    rn_tensor_free(&g->values[i].t);
  free(g->values);
  free(g->nodes);
  free(g->inputs);
  free(g->outputs);
  if (g->model != NULL)
    onnx__model_proto__free_unpacked(g->model, NULL);
  free(g->bytes);
  free(g->path);
  free(g);
}

size_t rn_graph_input_count(const rn_graph *g) { return g->input_count; }
const char *rn_graph_input_name(const rn_graph *g, size_t i) {
  return g->values[g->inputs[i]].name;
}
size_t rn_graph_output_count(const rn_graph *g) { return g->output_count; }
const char *rn_graph_output_name(const rn_graph *g, size_t i) {
  return g->values[g->outputs[i]].name;
}
const rn_tensor *rn_graph_output(const rn_graph *g, size_t i) {
  return &g->values[g->outputs[i]].t;
}

/* ------------------------------------------------------------- running */

/* A view's last two axes stored column by column (a transposed matrix). */
static int is_transposed(const rn_tensor *t) {
  return t->rank >= 2 && t->strides[t->rank - 1] != 1 && t->strides[t->rank - 2] == 1;
}

/* The transposed view of a matrix (no copy). */
static rn_tensor transposed(const rn_tensor *t) {
  rn_tensor v = *t;
  v.owned = NULL;
  v.dims[0] = t->dims[1], v.dims[1] = t->dims[0];
  v.strides[0] = t->strides[1], v.strides[1] = t->strides[0];
  return v;
}

/* Properties of one binding: names and values kept together. */
typedef struct prop_list {
  olc_property props[RN_MAX_PROPS];
  char values[RN_MAX_PROPS][96];
  size_t count;
} prop_list;

static void prop_add(prop_list *l, const char *name, long long v) {
  l->props[l->count].name = name;
  snprintf(l->values[l->count], sizeof l->values[0], "%lld", v);
  l->props[l->count].value = l->values[l->count];
  l->count++;
}

static void prop_add_text(prop_list *l, const char *name, const char *text) {
  l->props[l->count].name = name;
  snprintf(l->values[l->count], sizeof l->values[0], "%s", text);
  l->props[l->count].value = l->values[l->count];
  l->count++;
}

/* Binds n (again, when its properties changed since the last run) and
 * selects; *sel for olc_binding_execute. */
static int bind_and_select(const olc_selection **sel, rn_graph *g, rn_node *n, olc_host *host,
                           const rn_run_options *opt, const prop_list *pl,
                           const rn_tensor *const *operands, size_t operand_count, rn_error *e) {
  char key[sizeof n->bound] = "";
  olc_constant constants[3];
  olc_workload w = OLC_WORKLOAD_INIT;
  olc_select_options so = OLC_SELECT_OPTIONS_INIT;
  olc_error err;
  olc_status st;
  size_t used = 0;
  memset(constants, 0, sizeof constants);
  for (size_t i = 0; i < pl->count; i++) {
    int k =
        snprintf(key + used, sizeof key - used, " %s=%s", pl->props[i].name, pl->props[i].value);
    if (k > 0 && (size_t)k < sizeof key - used)
      used += (size_t)k;
  }
  if (opt->verbose) {
    printf("%s: %s %s%s", n->label, opt->backend, op_names[n->op], key);
    for (size_t i = 0; i < operand_count; i++)
      if (operands[i] != NULL && operands[i]->constant)
        printf(" (input %zu constant)", i);
    printf("\n");
  }
  w.constant_count = 0;
  for (size_t i = 0; i < operand_count; i++)
    if (operands[i] != NULL && operands[i]->constant) {
      constants[w.constant_count].input = (uint32_t)i;
      constants[w.constant_count].tensor = rn_tensor_olc(operands[i]);
      w.constant_count++;
      /* The constant's memory is part of the key: a rerun on other data rebinds. */
      snprintf(key + used, sizeof key - used, " constant%zu=%p", i, operands[i]->data);
      used = strlen(key);
    }
  if (n->binding == NULL || strcmp(key, n->bound) != 0) {
    olc_binding_free(n->binding);
    n->binding = NULL;
    w.backend = opt->backend;
    w.operator_name = op_names[n->op];
    w.properties = pl->props;
    w.property_count = pl->count;
    w.model_bytes = g->bytes; /* the model's content is the identity of its records */
    w.model_len = g->len;
    w.name = n->wname;
    w.constants = w.constant_count > 0 ? constants : NULL;
    st = olc_host_bind(&n->binding, host, &w, &err);
    if (st != OLC_OK)
      return rn_fail(e, st == OLC_E_NOT_FOUND || st == OLC_E_UNAVAILABLE ? RN_SKIP : RN_OLC_FAILED,
                     "%s: %s: bind (%s): %s", g->path, n->label, olc_status_str(st), err.message);
    snprintf(n->bound, sizeof n->bound, "%s", key);
  }
  so.mode = opt->select_mode;
  st = olc_binding_select(sel, n->binding, &so, &err);
  if (st < 0) /* OLC_OK, OLC_NEAREST_RECORD, OLC_FIRST_CANDIDATE: a policy to run */
    return rn_fail(e, RN_OLC_FAILED, "%s: %s: select (%s): %s", g->path, n->label,
                   olc_status_str(st), err.message);
  if (opt->verbose) {
    size_t len = 0;
    const unsigned char *policy = olc_selection_policy(*sel, &len);
    printf("%s: %s; policy \"%.*s\"\n", n->label, olc_selection_message(*sel), (int)len,
           policy != NULL ? (const char *)policy : "");
  }
  return RN_OK;
}

static int execute(rn_graph *g, rn_node *n, const olc_selection *sel, const rn_tensor *const *in,
                   size_t in_count, rn_tensor *out, double alpha, double beta, int verbose,
                   rn_error *e) {
  olc_tensor ins[3], outs[1];
  olc_execute_args args = OLC_EXECUTE_ARGS_INIT;
  olc_error err;
  olc_status st;
  for (size_t i = 0; i < in_count; i++)
    ins[i] = rn_tensor_olc(in[i]);
  outs[0] = rn_tensor_olc(out);
  args.inputs = ins;
  args.input_count = in_count;
  args.outputs = outs;
  args.output_count = 1;
  args.alpha = alpha;
  args.beta = beta;
  st = olc_binding_execute(n->binding, sel, &args, &err);
  if (st != OLC_OK)
    return rn_fail(e, RN_OLC_FAILED, "%s: %s: execute (%s): %s", g->path, n->label,
                   olc_status_str(st), err.message);
  if (verbose)
    printf("%s: executed; constants packed: %llu bytes\n", n->label,
           (unsigned long long)olc_binding_packed_bytes(n->binding));
  return RN_OK;
}

static void batch_text(char *out, size_t size, const rn_tensor *t) {
  rn_dims_text(out, size, t->rank - 2, t->dims);
}

/* MatMul as ONNX (numpy) defines it: rank >= 1, batch axes broadcast. */
static int run_matmul(rn_graph *g, rn_node *n, olc_host *host, const rn_run_options *opt,
                      rn_error *e) {
  const rn_tensor *a = &g->values[n->in[0]].t, *b = &g->values[n->in[1]].t;
  const rn_tensor *operands[2] = {a, b};
  rn_tensor *y = &g->values[n->out].t;
  int64_t m, k, kb, nn, dims[OLC_TENSOR_MAX_RANK];
  uint32_t ba = a->rank > 2 ? a->rank - 2 : 0, bb = b->rank > 2 ? b->rank - 2 : 0;
  uint32_t br = ba > bb ? ba : bb, rank = 0;
  const olc_selection *sel;
  prop_list pl;
  char text[96];
  int rc;
  if (a->rank < 1 || b->rank < 1)
    return rn_fail(e, RN_BAD_INPUT, "%s: %s: a scalar operand (MatMul takes rank >= 1)", g->path,
                   n->label);
  if (b->dtype != a->dtype)
    return rn_fail(e, RN_BAD_INPUT, "%s: %s: inputs of different dtypes", g->path, n->label);
  m = a->rank >= 2 ? a->dims[a->rank - 2] : 1;
  k = a->dims[a->rank - 1];
  kb = b->rank >= 2 ? b->dims[b->rank - 2] : b->dims[0];
  nn = b->rank >= 2 ? b->dims[b->rank - 1] : 1;
  if (k != kb)
    return rn_fail(e, RN_BAD_INPUT, "%s: %s: A's last axis is %lld, B's %s %lld", g->path, n->label,
                   (long long)k, b->rank >= 2 ? "second to last" : "only", (long long)kb);
  for (uint32_t i = 0; i < br; i++) { /* right-aligned broadcast of the batch axes */
    int64_t da = i < br - ba ? 1 : a->dims[i - (br - ba)];
    int64_t db = i < br - bb ? 1 : b->dims[i - (br - bb)];
    if (da != db && da != 1 && db != 1)
      return rn_fail(e, RN_BAD_INPUT, "%s: %s: batch axes do not broadcast (%lld against %lld)",
                     g->path, n->label, (long long)da, (long long)db);
    dims[rank++] = da > db ? da : db;
  }
  if (a->rank >= 2)
    dims[rank++] = m;
  if (b->rank >= 2)
    dims[rank++] = nn;
  if (rn_tensor_alloc(y, a->dtype, rank, dims, e) != RN_OK)
    return rn_prefix(e, "%s: %s: output: ", g->path, n->label);
  pl.count = 0;
  prop_add_text(&pl, "dtype", rn_dtype_name(a->dtype));
  prop_add(&pl, "m", m);
  prop_add(&pl, "n", nn);
  prop_add(&pl, "k", k);
  if (ba > 0) {
    batch_text(text, sizeof text, a);
    prop_add_text(&pl, "batch_a", text);
  }
  if (bb > 0) {
    batch_text(text, sizeof text, b);
    prop_add_text(&pl, "batch_b", text);
  }
  if (is_transposed(a))
    prop_add_text(&pl, "trans_a", "1");
  if (is_transposed(b))
    prop_add_text(&pl, "trans_b", "1");
  if ((rc = bind_and_select(&sel, g, n, host, opt, &pl, operands, 2, e)) != RN_OK)
    return rc;
  return execute(g, n, sel, operands, 2, y, 1.0, 0.0, opt->verbose, e);
}

/* Gemm: Y = alpha * A' * B' + beta * C, A' and B' views, C broadcast by
 * stride 0 along the axes where it has one element. */
static int run_gemm(rn_graph *g, rn_node *n, olc_host *host, const rn_run_options *opt,
                    rn_error *e) {
  const rn_tensor *a = &g->values[n->in[0]].t, *b = &g->values[n->in[1]].t;
  const rn_tensor *c = n->in[2] >= 0 ? &g->values[n->in[2]].t : NULL;
  rn_tensor ap, bp, cv;
  const rn_tensor *operands[3] = {&ap, &bp, &cv};
  rn_tensor *y = &g->values[n->out].t;
  int64_t m, k, nn, dims[2];
  const olc_selection *sel;
  prop_list pl;
  int rc;
  if (a->rank != 2 || b->rank != 2)
    return rn_fail(e, RN_BAD_INPUT, "%s: %s: A has rank %u, B rank %u (Gemm takes matrices)",
                   g->path, n->label, (unsigned)a->rank, (unsigned)b->rank);
  if (b->dtype != a->dtype || (c != NULL && c->dtype != a->dtype))
    return rn_fail(e, RN_BAD_INPUT, "%s: %s: inputs of different dtypes", g->path, n->label);
  ap = n->trans_a ? transposed(a) : *a;
  bp = n->trans_b ? transposed(b) : *b;
  ap.owned = bp.owned = NULL;
  m = ap.dims[0], k = ap.dims[1], nn = bp.dims[1];
  if (bp.dims[0] != k)
    return rn_fail(e, RN_BAD_INPUT, "%s: %s: A' is %lldx%lld, B' %lldx%lld: k differs", g->path,
                   n->label, (long long)m, (long long)k, (long long)bp.dims[0], (long long)nn);
  dims[0] = m, dims[1] = nn;
  pl.count = 0;
  prop_add_text(&pl, "dtype", rn_dtype_name(a->dtype));
  prop_add(&pl, "m", m);
  prop_add(&pl, "n", nn);
  prop_add(&pl, "k", k);
  if (n->trans_a)
    prop_add_text(&pl, "trans_a", "1");
  if (n->trans_b)
    prop_add_text(&pl, "trans_b", "1");
  if (c != NULL) {
    int rows = 0, cols = 0;
    if (c->rank > 2)
      return rn_fail(e, RN_BAD_INPUT, "%s: %s: C has rank %u (at most 2)", g->path, n->label,
                     (unsigned)c->rank);
    cv = *c;
    cv.owned = NULL;
    for (uint32_t i = 0; i < c->rank; i++) { /* right-aligned against m x n */
      int64_t want = dims[2 - c->rank + i];
      if (c->dims[i] != want && c->dims[i] != 1)
        return rn_fail(e, RN_BAD_INPUT, "%s: %s: C's axis %u is %lld, not 1 or %lld", g->path,
                       n->label, (unsigned)i, (long long)c->dims[i], (long long)want);
      if (c->dims[i] == 1 && want > 1)
        cv.dims[i] = want, cv.strides[i] = 0;
      else if (want > 1)
        *(2 - c->rank + i == 0 ? &rows : &cols) = 1;
    }
    prop_add_text(&pl, "bias", rows && cols ? "matrix" : rows ? "col" : cols ? "row" : "scalar");
  }
  if (rn_tensor_alloc(y, a->dtype, 2, dims, e) != RN_OK)
    return rn_prefix(e, "%s: %s: output: ", g->path, n->label);
  if ((rc = bind_and_select(&sel, g, n, host, opt, &pl, operands, c != NULL ? 3 : 2, e)) != RN_OK)
    return rc;
  return execute(g, n, sel, operands, c != NULL ? 3 : 2, y, n->alpha, c != NULL ? n->beta : 0.0,
                 opt->verbose, e);
}

/* Transpose: a view with the axes permuted. */
static int run_transpose(rn_graph *g, rn_node *n, rn_error *e) {
  const rn_tensor *x = &g->values[n->in[0]].t;
  rn_tensor *y = &g->values[n->out].t;
  uint32_t seen = 0;
  if (n->perm_count != 0 && n->perm_count != x->rank)
    return rn_fail(e, RN_BAD_INPUT, "%s: %s: perm has %u axes, the input %u", g->path, n->label,
                   (unsigned)n->perm_count, (unsigned)x->rank);
  *y = *x;
  y->owned = NULL;
  for (uint32_t i = 0; i < x->rank; i++) {
    int64_t p = n->perm_count != 0 ? n->perm[i] : (int64_t)(x->rank - 1 - i);
    if (p < 0 || p >= (int64_t)x->rank || (seen & (1u << p)) != 0)
      return rn_fail(e, RN_BAD_INPUT, "%s: %s: perm is not a permutation of the %u axes", g->path,
                     n->label, (unsigned)x->rank);
    seen |= 1u << p;
    y->dims[i] = x->dims[p];
    y->strides[i] = x->strides[p];
  }
  return RN_OK;
}

/* Offset of element i (row-major over out's dims) in x, broadcast
 * right-aligned against out. */
static int64_t broadcast_offset(const rn_tensor *x, const rn_tensor *out, int64_t i) {
  int64_t off = 0;
  for (uint32_t d = out->rank; d-- > 0;) {
    int64_t idx = i % out->dims[d];
    uint32_t xd = d + x->rank - out->rank;
    i /= out->dims[d];
    if (d + x->rank >= out->rank && x->dims[xd] != 1)
      off += idx * x->strides[xd];
  }
  return off;
}

/* Add (numpy broadcasting) and Relu, computed here in float64 and rounded
 * once to the dtype. */
static int run_elementwise(rn_graph *g, rn_node *n, rn_error *e) {
  const rn_tensor *a = &g->values[n->in[0]].t;
  const rn_tensor *b = n->op == OP_ADD ? &g->values[n->in[1]].t : NULL;
  rn_tensor *y = &g->values[n->out].t;
  int64_t dims[OLC_TENSOR_MAX_RANK], count;
  uint32_t rank = a->rank;
  if (b != NULL) {
    rank = a->rank > b->rank ? a->rank : b->rank;
    if (b->dtype != a->dtype)
      return rn_fail(e, RN_BAD_INPUT, "%s: %s: inputs of different dtypes", g->path, n->label);
    for (uint32_t i = 0; i < rank; i++) {
      int64_t da = i + a->rank < rank ? 1 : a->dims[i + a->rank - rank];
      int64_t db = i + b->rank < rank ? 1 : b->dims[i + b->rank - rank];
      if (da != db && da != 1 && db != 1)
        return rn_fail(e, RN_BAD_INPUT, "%s: %s: shapes do not broadcast (%lld against %lld)",
                       g->path, n->label, (long long)da, (long long)db);
      dims[i] = da > db ? da : db;
    }
  } else {
    memcpy(dims, a->dims, sizeof dims);
  }
  if (rn_tensor_alloc(y, a->dtype, rank, dims, e) != RN_OK)
    return rn_prefix(e, "%s: %s: output: ", g->path, n->label);
  count = rn_tensor_count(y);
  for (int64_t i = 0; i < count; i++) {
    double v = rn_load(a->dtype, a->data, broadcast_offset(a, y, i));
    if (b != NULL)
      v += rn_load(b->dtype, b->data, broadcast_offset(b, y, i));
    else if (v < 0)
      v = 0;
    rn_store(y->dtype, y->data, i, v);
  }
  return RN_OK;
}

int rn_graph_run(rn_graph *g, olc_host *host, const rn_run_options *opt, const rn_tensor *inputs,
                 rn_error *e) {
  for (size_t i = 0; i < g->value_count; i++) {
    rn_value *v = &g->values[i];
    if (v->kind == VAL_NODE)
      rn_tensor_free(&v->t);
  }
  for (size_t i = 0; i < g->input_count; i++) {
    rn_value *v = &g->values[g->inputs[i]];
    if (v->declared != 0 && inputs[i].dtype != v->declared)
      return rn_fail(e, RN_BAD_INPUT, "%s: graph input '%s' is %s, the test data %s", g->path,
                     v->name, rn_dtype_name(v->declared), rn_dtype_name(inputs[i].dtype));
    v->t = inputs[i];
    v->t.owned = NULL; /* the caller's */
    v->t.constant = 0;
  }
  for (size_t i = 0; i < g->node_count; i++) {
    rn_node *n = &g->nodes[i];
    int rc;
    switch (n->op) {
    case OP_MATMUL:
      rc = run_matmul(g, n, host, opt, e);
      break;
    case OP_GEMM:
      rc = run_gemm(g, n, host, opt, e);
      break;
    case OP_TRANSPOSE:
      rc = run_transpose(g, n, e);
      break;
    default:
      rc = run_elementwise(g, n, e);
      break;
    }
    if (rc != RN_OK)
      return rc;
  }
  return RN_OK;
}
