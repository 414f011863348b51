/*
 * egpu_execute.c - execute: MatMul and Gemm on a caller's fp32 operands,
 * described as views (ABI 1.3, OLC_PLUGIN_FEATURE_VIEWS), with a policy's
 * program.
 *
 *   MatMul  Y = alpha * A * B + beta * Y, numpy's matmul: operands of rank
 *           >= 1, leading (batch) dimensions broadcast, a rank-1 A a row
 *           and a rank-1 B a column; one 2-D product per batch, in a loop.
 *   Gemm    Y = alpha * A' * B' + beta * C, A' and B' any view (a
 *           transposed operand has strides {1, ld}), C optional, of rank
 *           0, 1 or 2, broadcast to m x n (strides 0 allowed).
 *
 * The device cannot work on caller memory, so every product copies:
 *   host -> device  each input matrix into a compact buffer: a row-major
 *                   one (column stride 1) row by row from its leading
 *                   dimension (a rectangular write); any other view (a
 *                   transposed operand, a broadcast bias) as the span of
 *                   memory it covers into a scratch buffer, made compact by
 *                   the egpu_gather kernel; Y too when MatMul's beta != 0;
 *                   a matrix that a broadcast batch reuses is not copied
 *                   again;
 *   on the device   the policy's product into a compact m x n buffer T (as
 *                   run), then T = alpha * T + beta * C0 unless alpha == 1
 *                   and there is no bias;
 *   device -> host  T into Y's rows (a blocking read).
 * run, which calibration times, works on buffers prepared once in the
 * workload's layout and does the same gathers; README.md gives the measured
 * cost of the copies.  With alpha == 0, A and B are not read and nothing
 * goes to the device (Y = beta * C, or beta * Y, on the host).
 *
 * Y must be row-major (column stride 1): a runtime's output is a fresh
 * tensor.  Every operand is checked before anything is written.  The calls
 * of one instance take its lock (egpu.h) from the program lookup to the
 * blocking read, and every enqueued command has finished before return: no
 * pointer to caller memory outlives the call.
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "egpu.h"

/* One checked operand: a batch of rows x cols matrices, element strides. */
typedef struct exec_view {
  uint32_t rows, cols;
  int64_t rs, cs; /* row and column strides (0: broadcast) */
  egpu_batch batch;
  int64_t bst[EGPU_MAX_BATCH_RANK]; /* strides of the batch dims */
  float *data;
  uint64_t span;  /* elements one matrix covers: (rows-1) rs + (cols-1) cs + 1 */
  uint64_t bytes; /* bytes the whole tensor covers (for the overlap check) */
  int rowmajor;   /* copied row by row (cs 1, rs >= cols) */
} exec_view;

typedef struct exec_plan {
  egpu_shape shape;
  int gemm;
  exec_view a, b, y;
  exec_view c;       /* what the epilogue adds: Gemm's C, or MatMul's Y */
  int has_c;         /* beta != 0 and something to add */
  egpu_batch batch;  /* Y's batch dims */
  uint32_t count;    /* products */
  uint64_t scratch;  /* elements of the largest span gathered */
  float alpha, beta; /* beta only matters with has_c */
} exec_plan;

typedef struct exec_buffers {
  cl_mem a, b, t, c0, bt, scratch;
} exec_buffers;

#define EXEC_WHY_SIZE (EGPU_MESSAGE_SIZE - 16)

static const char *dtype_name(uint32_t dtype) {
  switch (dtype) {
  case OLC_PLUGIN_DTYPE_FLOAT32:
    return "float32";
  case OLC_PLUGIN_DTYPE_FLOAT16:
    return "float16";
  case OLC_PLUGIN_DTYPE_FLOAT64:
    return "float64";
  case OLC_PLUGIN_DTYPE_INT8:
    return "int8";
  case OLC_PLUGIN_DTYPE_BFLOAT16:
    return "bfloat16";
  default:
    return "unknown";
  }
}

/* The checks every tensor gets: data, dtype, rank, dims, strides, extent. */
static int32_t tensor_check(const olc_plugin_tensor *t, const char *name, uint64_t *bytes,
                            char *why) {
  uint64_t extent = 1;
  uint32_t i;
  if (!OLC_PLUGIN_HAS_FIELD(t, olc_plugin_tensor, data) || t->data == NULL) {
    snprintf(why, EXEC_WHY_SIZE, "execute: operand %s is missing or has no data", name);
    return OLC_PLUGIN_E_INVALID;
  }
  if (t->dtype != OLC_PLUGIN_DTYPE_FLOAT32) {
    snprintf(why, EXEC_WHY_SIZE,
             "execute: operand %s: dtype %u (%s) is not served (only float32; float16 and "
             "bfloat16 are not implemented)",
             name, (unsigned)t->dtype, dtype_name(t->dtype));
    return OLC_PLUGIN_E_UNSUPPORTED;
  }
  if (t->rank > OLC_PLUGIN_MAX_RANK) {
    snprintf(why, EXEC_WHY_SIZE, "execute: operand %s: rank %u", name, (unsigned)t->rank);
    return OLC_PLUGIN_E_INVALID;
  }
  for (i = 0; i < t->rank; i++) {
    if (t->dims[i] < 1 || t->strides[i] < 0) {
      snprintf(why, EXEC_WHY_SIZE, "execute: operand %s: dimension %u is %lld with stride %lld",
               name, (unsigned)i, (long long)t->dims[i], (long long)t->strides[i]);
      return OLC_PLUGIN_E_INVALID;
    }
    if (t->dims[i] > (int64_t)EGPU_MAX_DIM) {
      snprintf(why, EXEC_WHY_SIZE,
               "execute: operand %s: dimension %u is %lld (at most %u per dimension)", name,
               (unsigned)i, (long long)t->dims[i], EGPU_MAX_DIM);
      return OLC_PLUGIN_E_UNSUPPORTED;
    }
    /* (dims - 1) * stride added up must stay addressable, in bytes. */
    if (t->strides[i] > 0 && (uint64_t)(t->dims[i] - 1) >
                                 ((uint64_t)INT64_MAX / 8u - extent) / (uint64_t)t->strides[i]) {
      snprintf(why, EXEC_WHY_SIZE, "execute: operand %s: stride %lld overflows", name,
               (long long)t->strides[i]);
      return OLC_PLUGIN_E_INVALID;
    }
    extent += (uint64_t)(t->dims[i] - 1) * (uint64_t)t->strides[i];
  }
  if (extent * sizeof(float) > (uint64_t)SIZE_MAX / 2) {
    snprintf(why, EXEC_WHY_SIZE, "execute: operand %s: its extent overflows", name);
    return OLC_PLUGIN_E_INVALID;
  }
  *bytes = extent * sizeof(float);
  return OLC_PLUGIN_OK;
}

/* The matrix part of a view; a dim of 1 gets stride 0 (it is never stepped). */
static void view_matrix(exec_view *v, int64_t rows, int64_t rs, int64_t cols, int64_t cs) {
  v->rows = (uint32_t)rows;
  v->cols = (uint32_t)cols;
  v->rs = rows > 1 ? rs : 0;
  v->cs = cols > 1 ? cs : 0;
  v->span = (uint64_t)(rows - 1) * (uint64_t)v->rs + (uint64_t)(cols - 1) * (uint64_t)v->cs + 1u;
  v->rowmajor = (cols == 1 || cs == 1) && (rows == 1 || rs >= cols);
}

/* The leading dims of t (those before `matrix_rank` trailing ones) as a batch. */
static int32_t view_batch(exec_view *v, const olc_plugin_tensor *t, uint32_t matrix_rank,
                          const char *name, char *why) {
  uint32_t i, lead = t->rank > matrix_rank ? t->rank - matrix_rank : 0;
  uint64_t count = 1;
  if (lead > EGPU_MAX_BATCH_RANK) {
    snprintf(why, EXEC_WHY_SIZE, "execute: operand %s has rank %u (at most %u)", name,
             (unsigned)t->rank, EGPU_MAX_BATCH_RANK + 2u);
    return OLC_PLUGIN_E_UNSUPPORTED;
  }
  v->batch.rank = lead;
  for (i = 0; i < lead; i++) {
    v->batch.dims[i] = (uint32_t)t->dims[i];
    v->bst[i] = t->strides[i];
    count *= (uint64_t)t->dims[i];
    if (count > EGPU_MAX_BATCH) {
      snprintf(why, EXEC_WHY_SIZE, "execute: operand %s: more than %u matrices in its batch", name,
               EGPU_MAX_BATCH);
      return OLC_PLUGIN_E_UNSUPPORTED;
    }
  }
  return OLC_PLUGIN_OK;
}

/* A MatMul operand (rank >= 1): a rank-1 A is a row, a rank-1 B a column. */
static int32_t read_matmul_operand(exec_view *v, const olc_plugin_tensor *t, int is_b,
                                   const char *name, char *why) {
  int32_t rc = tensor_check(t, name, &v->bytes, why);
  uint32_t r = t->rank;
  if (rc != OLC_PLUGIN_OK)
    return rc;
  if (r == 0) {
    snprintf(why, EXEC_WHY_SIZE, "execute: operand %s has rank 0 (MatMul takes rank >= 1)", name);
    return OLC_PLUGIN_E_INVALID;
  }
  v->data = t->data;
  if (r == 1 && !is_b)
    view_matrix(v, 1, 0, t->dims[0], t->strides[0]);
  else if (r == 1)
    view_matrix(v, t->dims[0], t->strides[0], 1, 0);
  else
    view_matrix(v, t->dims[r - 2], t->strides[r - 2], t->dims[r - 1], t->strides[r - 1]);
  return view_batch(v, t, r >= 2 ? 2u : 1u, name, why);
}

/* MatMul's Y: batch dims, then m unless A was rank 1, then n unless B was. */
static int32_t read_matmul_output(exec_plan *p, const olc_plugin_tensor *t, uint32_t ra,
                                  uint32_t rb, char *why) {
  exec_view *v = &p->y;
  uint32_t mr = (uint32_t)(ra > 1) + (uint32_t)(rb > 1), want = p->batch.rank + mr, i;
  int32_t rc = tensor_check(t, "Y", &v->bytes, why);
  int64_t rs = 0, cs = 0;
  if (rc != OLC_PLUGIN_OK)
    return rc;
  if (t->rank != want)
    goto mismatch;
  for (i = 0; i < p->batch.rank; i++)
    if ((uint64_t)t->dims[i] != p->batch.dims[i])
      goto mismatch;
  if (ra > 1 && (uint64_t)t->dims[p->batch.rank] != p->shape.m)
    goto mismatch;
  if (rb > 1 && (uint64_t)t->dims[want - 1] != p->shape.n)
    goto mismatch;
  if (ra > 1)
    rs = t->strides[p->batch.rank];
  if (rb > 1)
    cs = t->strides[want - 1];
  v->data = t->data;
  view_matrix(v, p->shape.m, rs, p->shape.n, cs);
  rc = view_batch(v, t, mr, "Y", why);
  if (rc != OLC_PLUGIN_OK)
    return rc;
  for (i = 0; i < v->batch.rank; i++)
    if (v->bst[i] == 0 && v->batch.dims[i] > 1) {
      snprintf(why, EXEC_WHY_SIZE, "execute: output Y has stride 0 on batch dimension %u",
               (unsigned)i);
      return OLC_PLUGIN_E_INVALID;
    }
  return OLC_PLUGIN_OK;
mismatch:
  snprintf(why, EXEC_WHY_SIZE,
           "execute: A (rank %u), B (rank %u) and Y (rank %u) do not fit (%u products of %u x "
           "%u)",
           (unsigned)ra, (unsigned)rb, (unsigned)t->rank, (unsigned)p->count, p->shape.m,
           p->shape.n);
  return OLC_PLUGIN_E_INVALID;
}

static int32_t read_matmul(exec_plan *p, const olc_plugin_exec_args *args, char *why) {
  const olc_plugin_tensor *ta = &args->inputs[0], *tb = &args->inputs[1];
  uint32_t i;
  int32_t rc;
  if ((rc = read_matmul_operand(&p->a, ta, 0, "A", why)) != OLC_PLUGIN_OK ||
      (rc = read_matmul_operand(&p->b, tb, 1, "B", why)) != OLC_PLUGIN_OK)
    return rc;
  if (p->a.cols != p->b.rows) {
    snprintf(why, EXEC_WHY_SIZE, "execute: A %u x %u and B %u x %u do not fit", p->a.rows,
             p->a.cols, p->b.rows, p->b.cols);
    return OLC_PLUGIN_E_INVALID;
  }
  if (egpu_batch_broadcast(&p->a.batch, &p->b.batch, &p->batch) != 0) {
    snprintf(why, EXEC_WHY_SIZE, "execute: the batch dimensions of A and B do not broadcast");
    return OLC_PLUGIN_E_INVALID;
  }
  p->shape.m = p->a.rows;
  p->shape.n = p->b.cols;
  p->shape.k = p->a.cols;
  p->count = 1;
  for (i = 0; i < p->batch.rank; i++)
    p->count *= p->batch.dims[i];
  if (p->count > EGPU_MAX_BATCH) {
    snprintf(why, EXEC_WHY_SIZE, "execute: more than %u products in the batch", EGPU_MAX_BATCH);
    return OLC_PLUGIN_E_UNSUPPORTED;
  }
  rc = read_matmul_output(p, &args->outputs[0], ta->rank, tb->rank, why);
  if (rc != OLC_PLUGIN_OK)
    return rc;
  /* Y = alpha * A * B + beta * Y: Y itself is the bias. */
  p->has_c = args->beta != 0.0;
  p->c = p->y;
  return OLC_PLUGIN_OK;
}

/* A rank-2 Gemm operand (A', B' or Y). */
static int32_t read_gemm_matrix(exec_view *v, const olc_plugin_tensor *t, const char *name,
                                char *why) {
  int32_t rc = tensor_check(t, name, &v->bytes, why);
  if (rc != OLC_PLUGIN_OK)
    return rc;
  if (t->rank != 2) {
    snprintf(why, EXEC_WHY_SIZE, "execute: Gemm's operand %s has rank %u (it takes matrices)", name,
             (unsigned)t->rank);
    return OLC_PLUGIN_E_INVALID;
  }
  v->data = t->data;
  view_matrix(v, t->dims[0], t->strides[0], t->dims[1], t->strides[1]);
  return OLC_PLUGIN_OK;
}

/* Gemm's C: rank 0, 1 (n or 1) or 2 ({m or 1} x {n or 1}), as an m x n view. */
static int32_t read_gemm_bias(exec_plan *p, const olc_plugin_tensor *t, char *why) {
  exec_view *v = &p->c;
  int64_t d0 = 1, d1 = 1, s0 = 0, s1 = 0;
  int32_t rc = tensor_check(t, "C", &v->bytes, why);
  if (rc != OLC_PLUGIN_OK)
    return rc;
  if (t->rank == 1)
    d1 = t->dims[0], s1 = t->strides[0];
  else if (t->rank == 2)
    d0 = t->dims[0], s0 = t->strides[0], d1 = t->dims[1], s1 = t->strides[1];
  if (t->rank > 2 || (d0 != 1 && d0 != (int64_t)p->shape.m) ||
      (d1 != 1 && d1 != (int64_t)p->shape.n)) {
    snprintf(why, EXEC_WHY_SIZE,
             "execute: C (rank %u, %lld x %lld) does not broadcast to Y's %u x %u",
             (unsigned)t->rank, (long long)d0, (long long)d1, p->shape.m, p->shape.n);
    return OLC_PLUGIN_E_INVALID;
  }
  v->data = t->data;
  view_matrix(v, p->shape.m, d0 == 1 ? 0 : s0, p->shape.n, d1 == 1 ? 0 : s1);
  /* Broadcast: not copied row by row, always gathered. */
  v->rowmajor = v->rowmajor && d0 == (int64_t)p->shape.m && d1 == (int64_t)p->shape.n;
  return OLC_PLUGIN_OK;
}

static int32_t read_gemm(exec_plan *p, const olc_plugin_exec_args *args, char *why) {
  int32_t rc;
  if ((rc = read_gemm_matrix(&p->a, &args->inputs[0], "A", why)) != OLC_PLUGIN_OK ||
      (rc = read_gemm_matrix(&p->b, &args->inputs[1], "B", why)) != OLC_PLUGIN_OK ||
      (rc = read_gemm_matrix(&p->y, &args->outputs[0], "Y", why)) != OLC_PLUGIN_OK)
    return rc;
  if (p->a.cols != p->b.rows || p->y.rows != p->a.rows || p->y.cols != p->b.cols) {
    snprintf(why, EXEC_WHY_SIZE, "execute: A' %u x %u, B' %u x %u and Y %u x %u do not fit",
             p->a.rows, p->a.cols, p->b.rows, p->b.cols, p->y.rows, p->y.cols);
    return OLC_PLUGIN_E_INVALID;
  }
  p->shape.m = p->a.rows;
  p->shape.n = p->b.cols;
  p->shape.k = p->a.cols;
  p->count = 1;
  if (args->input_count == 3 && (rc = read_gemm_bias(p, &args->inputs[2], why)) != OLC_PLUGIN_OK)
    return rc;
  /* No C, or beta 0: no bias (C not read). */
  p->has_c = args->input_count == 3 && args->beta != 0.0;
  return OLC_PLUGIN_OK;
}

/* A double scalar as a float: finite values beyond the float range are refused. */
static int to_float(double v, float *out) {
  if ((v > FLT_MAX || v < -FLT_MAX) && v != (double)INFINITY && v != -(double)INFINITY)
    return -1;
  *out = (float)v;
  return 0;
}

static int overlaps(const exec_view *x, const exec_view *y) {
  uintptr_t x0 = (uintptr_t)x->data, y0 = (uintptr_t)y->data;
  return x0 < y0 + y->bytes && y0 < x0 + x->bytes;
}

/* Whether every matrix fits the kernels' int indices and one device allocation. */
static int32_t exec_fits(const egpu_instance *inst, exec_plan *p, char *why) {
  const egpu_shape *s = &p->shape;
  const exec_view *in[3];
  uint64_t ma = (uint64_t)s->m * s->k, mb = (uint64_t)s->k * s->n, mc = (uint64_t)s->m * s->n;
  uint64_t most = ma > mb ? (ma > mc ? ma : mc) : (mb > mc ? mb : mc);
  int i;
  in[0] = &p->a, in[1] = &p->b, in[2] = p->has_c ? &p->c : NULL;
  p->scratch = 0;
  for (i = 0; i < 3; i++)
    if (in[i] != NULL && !in[i]->rowmajor && in[i]->span > p->scratch)
      p->scratch = in[i]->span;
  if (p->scratch > most)
    most = p->scratch;
  if (most > 0x7fffffffu || most * sizeof(float) > inst->limits.max_mem_alloc_size) {
    snprintf(why, EXEC_WHY_SIZE,
             "execute: %ux%ux%u exceeds the device's largest allocation (%llu bytes)", s->m, s->n,
             s->k, (unsigned long long)inst->limits.max_mem_alloc_size);
    return OLC_PLUGIN_E_UNSUPPORTED;
  }
  return OLC_PLUGIN_OK;
}

/* The whole description: counts, operands, fit, scalars, overlap. */
static int32_t exec_plan_read(exec_plan *p, const egpu_instance *inst,
                              const olc_plugin_exec_args *args, char *why) {
  const char *op = p->gemm ? "Gemm" : "MatMul";
  uint32_t i;
  int32_t rc;
  if (!OLC_PLUGIN_HAS_FIELD(args, olc_plugin_exec_args, beta) || args->inputs == NULL ||
      args->outputs == NULL || args->output_count != 1 ||
      (p->gemm ? args->input_count != 2 && args->input_count != 3 : args->input_count != 2)) {
    snprintf(why, EXEC_WHY_SIZE, "execute: %s takes %s and one output (Y)", op,
             p->gemm ? "two or three inputs (A, B, C)" : "two inputs (A, B)");
    return OLC_PLUGIN_E_INVALID;
  }
  if (OLC_PLUGIN_HAS_FIELD(args, olc_plugin_exec_args, packed) && args->packed != NULL)
    for (i = 0; i < args->input_count; i++)
      if (args->packed[i] != NULL) {
        snprintf(why, EXEC_WHY_SIZE,
                 "execute: packed input %u is not served (example_gpu packs nothing; constants "
                 "are read in place)",
                 (unsigned)i);
        return OLC_PLUGIN_E_UNSUPPORTED;
      }
  rc = p->gemm ? read_gemm(p, args, why) : read_matmul(p, args, why);
  if (rc != OLC_PLUGIN_OK)
    return rc;
  if (!p->y.rowmajor) {
    snprintf(why, EXEC_WHY_SIZE,
             "execute: output Y has strides %lld, %lld (only a row-major output is served)",
             (long long)p->y.rs, (long long)p->y.cs);
    return OLC_PLUGIN_E_UNSUPPORTED;
  }
  if ((rc = exec_fits(inst, p, why)) != OLC_PLUGIN_OK)
    return rc;
  if (to_float(args->alpha, &p->alpha) != 0 || to_float(args->beta, &p->beta) != 0) {
    snprintf(why, EXEC_WHY_SIZE, "execute: alpha %g or beta %g is beyond the float range",
             args->alpha, args->beta);
    return OLC_PLUGIN_E_INVALID;
  }
  if (overlaps(&p->a, &p->y) || overlaps(&p->b, &p->y) ||
      (p->gemm && args->input_count == 3 && overlaps(&p->c, &p->y))) {
    snprintf(why, EXEC_WHY_SIZE, "execute: an input overlaps Y (in-place products are not served)");
    return OLC_PLUGIN_E_UNSUPPORTED;
  }
  return OLC_PLUGIN_OK;
}

/* ---- on the device ----------------------------------------------------- */

/* Where product `index` finds its matrix of v (elements from v->data). */
static uint64_t view_offset(const exec_plan *p, const exec_view *v, uint32_t index) {
  return egpu_batch_offset(&p->batch, &v->batch, v->bst, index);
}

/* A compact rows x cols buffer <-> a row-major matrix at base, as one command. */
static cl_int copy_rows(cl_command_queue q, cl_mem buf, const exec_view *v, float *base,
                        int to_device, cl_bool blocking) {
  size_t origin[3] = {0, 0, 0}, region[3];
  size_t width = (size_t)v->cols * sizeof(float), pitch = (size_t)v->rs * sizeof(float);
  if (v->rows == 1 || pitch == width)
    return to_device
               ? clEnqueueWriteBuffer(q, buf, blocking, 0, width * v->rows, base, 0, NULL, NULL)
               : clEnqueueReadBuffer(q, buf, blocking, 0, width * v->rows, base, 0, NULL, NULL);
  region[0] = width;
  region[1] = v->rows;
  region[2] = 1;
  return to_device ? clEnqueueWriteBufferRect(q, buf, blocking, origin, origin, region, width, 0,
                                              pitch, 0, base, 0, NULL, NULL)
                   : clEnqueueReadBufferRect(q, buf, blocking, origin, origin, region, width, 0,
                                             pitch, 0, base, 0, NULL, NULL);
}

/* One input matrix into its compact buffer: rows copied, or the span gathered. */
static int32_t stage(egpu_instance *inst, const egpu_program *prog, const exec_view *v,
                     uint64_t offset, cl_mem dst, cl_mem scratch) {
  float *base = v->data + offset;
  cl_int err;
  if (v->rowmajor)
    err = copy_rows(inst->queue, dst, v, base, 1, CL_FALSE);
  else
    err = clEnqueueWriteBuffer(inst->queue, scratch, CL_FALSE, 0, v->span * sizeof(float), base, 0,
                               NULL, NULL);
  if (err != CL_SUCCESS)
    return egpu_fail(inst->host, OLC_PLUGIN_E_FAILED, "execute: copy to the device failed (%d)",
                     (int)err);
  if (v->rowmajor)
    return OLC_PLUGIN_OK;
  /* The queue is in order: the next write to scratch waits for this gather. */
  return egpu_enqueue_gather(inst, prog, v->rows, v->cols, scratch, 0, (uint64_t)v->rs,
                             (uint64_t)v->cs, dst);
}

static cl_mem make_buffer(const egpu_instance *inst, cl_mem_flags flags, size_t elements,
                          cl_int *err) {
  return clCreateBuffer(inst->context, flags, elements * sizeof(float), NULL, err);
}

static int32_t exec_buffers_make(exec_buffers *b, const egpu_instance *inst,
                                 const egpu_program *prog, const exec_plan *p) {
  const egpu_shape *s = &p->shape;
  cl_int err = CL_SUCCESS;
  int ok;
  b->a = make_buffer(inst, CL_MEM_READ_WRITE, (size_t)s->m * s->k, &err);
  b->b = make_buffer(inst, CL_MEM_READ_WRITE, (size_t)s->k * s->n, &err);
  b->t = make_buffer(inst, CL_MEM_READ_WRITE, (size_t)s->m * s->n, &err);
  ok = b->a != NULL && b->b != NULL && b->t != NULL;
  if (ok && prog->transpose != NULL) {
    b->bt = make_buffer(inst, CL_MEM_READ_WRITE, (size_t)s->k * s->n, &err);
    ok = b->bt != NULL;
  }
  if (ok && p->has_c) {
    b->c0 = make_buffer(inst, CL_MEM_READ_WRITE, (size_t)s->m * s->n, &err);
    ok = b->c0 != NULL;
  }
  if (ok && p->scratch > 0) {
    b->scratch = make_buffer(inst, CL_MEM_READ_ONLY, (size_t)p->scratch, &err);
    ok = b->scratch != NULL;
  }
  if (!ok)
    return egpu_fail(inst->host, OLC_PLUGIN_E_NOMEM,
                     "execute: cannot allocate device buffers for %ux%ux%u (%d)", s->m, s->n, s->k,
                     (int)err);
  return OLC_PLUGIN_OK;
}

static void exec_buffers_free(exec_buffers *b) {
  cl_mem *all[6];
  size_t i;
  all[0] = &b->a, all[1] = &b->b, all[2] = &b->t, all[3] = &b->c0, all[4] = &b->bt;
  all[5] = &b->scratch;
  for (i = 0; i < 6; i++)
    if (*all[i] != NULL)
      clReleaseMemObject(*all[i]);
}

/* One product of the batch: its inputs (unless a broadcast reuses the last
 * ones), the product, the epilogue, and the blocking read into Y. */
static int32_t exec_product(egpu_instance *inst, const egpu_program *prog, const exec_plan *p,
                            const exec_buffers *b, uint32_t index, uint64_t last[2]) {
  uint64_t oa = view_offset(p, &p->a, index), ob = view_offset(p, &p->b, index);
  uint64_t oy = view_offset(p, &p->y, index);
  float *y = p->y.data + oy;
  cl_int err;
  int32_t rc = OLC_PLUGIN_OK;
  if (index == 0 || oa != last[0])
    rc = stage(inst, prog, &p->a, oa, b->a, b->scratch);
  if (rc == OLC_PLUGIN_OK && (index == 0 || ob != last[1]))
    rc = stage(inst, prog, &p->b, ob, b->b, b->scratch);
  last[0] = oa, last[1] = ob;
  /* MatMul's bias is this product's Y; Gemm's C is one matrix for all. */
  if (rc == OLC_PLUGIN_OK && p->has_c && (index == 0 || !p->gemm))
    rc = stage(inst, prog, &p->c, p->gemm ? 0 : oy, b->c0, b->scratch);
  if (rc == OLC_PLUGIN_OK)
    rc = egpu_enqueue_product(inst, prog, &p->shape, b->a, b->b, b->t, b->bt);
  if (rc == OLC_PLUGIN_OK && (p->alpha != 1.0f || p->has_c))
    rc = egpu_enqueue_axpby(inst, prog, (size_t)p->shape.m * p->shape.n, p->alpha,
                            p->has_c ? p->beta : 0.0f, b->t, b->c0);
  if (rc == OLC_PLUGIN_OK) {
    err = copy_rows(inst->queue, b->t, &p->y, y, 0, CL_TRUE);
    if (err != CL_SUCCESS)
      rc = egpu_fail(inst->host, OLC_PLUGIN_E_FAILED, "execute: copy from the device failed (%d)",
                     (int)err);
  }
  return rc;
}

/* Under the lock: the buffers once, then every product of the batch. */
static int32_t exec_device(egpu_instance *inst, const egpu_program *prog, const exec_plan *p) {
  exec_buffers b;
  uint64_t last[2] = {0, 0};
  uint32_t i;
  cl_int err;
  int32_t rc;
  memset(&b, 0, sizeof b);
  rc = exec_buffers_make(&b, inst, prog, p);
  for (i = 0; rc == OLC_PLUGIN_OK && i < p->count; i++)
    rc = exec_product(inst, prog, p, &b, i, last);
  /* After a failure too: no command still reads or writes caller memory. */
  err = clFinish(inst->queue);
  if (rc == OLC_PLUGIN_OK && err != CL_SUCCESS)
    rc = egpu_fail(inst->host, OLC_PLUGIN_E_FAILED, "execute: the device failed (%d)", (int)err);
  exec_buffers_free(&b);
  return rc;
}

/* alpha == 0: Y = beta * C (Gemm) or beta * Y (MatMul), 0 without a bias;
 * A and B unused, C not read when beta == 0. */
static void scale_y(const exec_plan *p) {
  uint32_t index, i, j;
  for (index = 0; index < p->count; index++) {
    float *y = p->y.data + view_offset(p, &p->y, index);
    const float *c = p->c.data + (p->gemm ? 0 : view_offset(p, &p->y, index));
    for (i = 0; i < p->y.rows; i++)
      for (j = 0; j < p->y.cols; j++) {
        float *out = y + (size_t)i * (size_t)p->y.rs + j;
        *out = p->has_c ? p->beta * c[(size_t)i * (size_t)p->c.rs + (size_t)j * (size_t)p->c.cs]
                        : 0.0f;
      }
  }
}

int32_t egpu_execute(void *instance, const olc_plugin_workload *workload, const void *policy,
                     const olc_plugin_exec_args *args) {
  egpu_instance *inst = instance;
  const egpu_policy *pol = policy;
  egpu_program *prog = NULL;
  exec_plan plan;
  char why[EXEC_WHY_SIZE];
  int32_t rc;
  memset(&plan, 0, sizeof plan);
  /* Without a workload (or its operator), MatMul. */
  if (workload != NULL && workload->operator_name != NULL) {
    plan.gemm = strcmp(workload->operator_name, EGPU_GEMM) == 0;
    if (!plan.gemm && strcmp(workload->operator_name, EGPU_MATMUL) != 0)
      return egpu_fail(inst->host, OLC_PLUGIN_E_UNSUPPORTED,
                       "execute: operator %s is not served (only MatMul and Gemm)",
                       workload->operator_name);
  }
  if (pol == NULL)
    return egpu_fail(inst->host, OLC_PLUGIN_E_INVALID, "execute: no policy");
  if (egpu_policy_check(pol, &inst->limits, why, sizeof why) != 0)
    return egpu_fail(inst->host, OLC_PLUGIN_E_INVALID, "execute: %s", why);
  rc = exec_plan_read(&plan, inst, args, why);
  if (rc != OLC_PLUGIN_OK)
    return egpu_fail(inst->host, rc, "%s", why);
  if (plan.alpha == 0.0f) {
    scale_y(&plan);
    return OLC_PLUGIN_OK;
  }
  pthread_mutex_lock(&inst->lock);
  rc = egpu_find_program(inst, pol, &prog);
  if (rc == OLC_PLUGIN_OK)
    rc = exec_device(inst, prog, &plan);
  pthread_mutex_unlock(&inst->lock);
  return rc;
}
