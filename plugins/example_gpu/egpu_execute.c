/*
 * egpu_execute.c - execute (ABI 1.1): C = alpha * A * B + beta * C on a
 * caller's fp32 row-major operands with leading dimensions, of any shape,
 * with a policy's program.
 *
 * The device cannot work on caller memory, so every call copies:
 *   host -> device  A (m x k) and B (k x n), row by row from their leading
 *                   dimensions into compact buffers (a rectangular write
 *                   when the leading dimension is wider than the matrix);
 *                   C (m x n) too, only when beta != 0;
 *   on the device   the policy's product into a compact m x n buffer T
 *                   (B's transpose first for the local=0, vec>1 form, as in
 *                   run), then T = alpha * T + beta * C unless alpha == 1
 *                   and beta == 0;
 *   device -> host  T into C's rows (a blocking read).
 * That is 4 (mk + kn + mn) bytes over the bus with beta == 0, 4 mn more with
 * beta != 0, and five device buffers at most made and released per call.
 * run, which calibration times, works on buffers prepared once; README.md
 * gives the measured difference (bench/gemm-opencl).  With alpha == 0, A
 * and B are not read and nothing goes to the device (C = beta * C here).
 *
 * Every operand is checked before anything is written.  The calls of one
 * instance take its lock (egpu.h) from the program lookup to the blocking
 * read, and every enqueued command has finished before return: no pointer
 * to caller memory outlives the call.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "egpu.h"

/* One checked operand: rows x cols, leading dimension ld (elements). */
typedef struct exec_matrix {
  uint32_t rows, cols;
  size_t ld;
  float *data;
} exec_matrix;

typedef struct exec_plan {
  egpu_shape shape;
  exec_matrix a, b, c;
  float alpha, beta;
} exec_plan;

typedef struct exec_buffers {
  cl_mem a, b, t, c0, bt;
} exec_buffers;

#define EXEC_WHY_SIZE (EGPU_MESSAGE_SIZE - 16)

/* The first address past a checked operand's last element. */
static uintptr_t matrix_end(const exec_matrix *m) {
  return (uintptr_t)(m->data + ((size_t)(m->rows - 1) * m->ld + m->cols));
}

static int overlaps(const exec_matrix *x, const exec_matrix *y) {
  return (uintptr_t)x->data < matrix_end(y) && (uintptr_t)y->data < matrix_end(x);
}

/* Checks one operand (a rank-2 fp32 row-major matrix) and reads it into *out. */
static int32_t exec_matrix_read(exec_matrix *out, const olc_plugin_tensor *t, const char *name,
                                char *why) {
  if (!OLC_PLUGIN_HAS_FIELD(t, olc_plugin_tensor, data) || t->data == NULL) {
    snprintf(why, EXEC_WHY_SIZE, "execute: operand %s is missing or has no data", name);
    return OLC_PLUGIN_E_INVALID;
  }
  if (t->dtype != OLC_PLUGIN_DTYPE_FLOAT32) {
    snprintf(why, EXEC_WHY_SIZE, "execute: operand %s: dtype %u is not served (only float32)", name,
             (unsigned)t->dtype);
    return OLC_PLUGIN_E_UNSUPPORTED;
  }
  if (t->rank < 1 || t->rank > OLC_PLUGIN_MAX_RANK) {
    snprintf(why, EXEC_WHY_SIZE, "execute: operand %s: rank %u", name, (unsigned)t->rank);
    return OLC_PLUGIN_E_INVALID;
  }
  if (t->rank != 2) {
    snprintf(why, EXEC_WHY_SIZE,
             "execute: operand %s has rank %u (only rank-2 matrices; batched ones are not served)",
             name, (unsigned)t->rank);
    return OLC_PLUGIN_E_UNSUPPORTED;
  }
  if (t->strides[1] != 1) {
    snprintf(why, EXEC_WHY_SIZE,
             "execute: operand %s has column stride %lld (only row-major; transposed operands are "
             "not served)",
             name, (long long)t->strides[1]);
    return OLC_PLUGIN_E_UNSUPPORTED;
  }
  if (t->dims[0] < 1 || t->dims[1] < 1 || t->strides[0] < t->dims[1]) {
    snprintf(why, EXEC_WHY_SIZE, "execute: operand %s is %lld x %lld with leading dimension %lld",
             name, (long long)t->dims[0], (long long)t->dims[1], (long long)t->strides[0]);
    return OLC_PLUGIN_E_INVALID;
  }
  if (t->dims[0] > (int64_t)EGPU_MAX_DIM || t->dims[1] > (int64_t)EGPU_MAX_DIM) {
    snprintf(why, EXEC_WHY_SIZE, "execute: operand %s is %lld x %lld (at most %u per dimension)",
             name, (long long)t->dims[0], (long long)t->dims[1], EGPU_MAX_DIM);
    return OLC_PLUGIN_E_UNSUPPORTED;
  }
  /* The extent in bytes, (rows - 1) * ld + cols elements, must be addressable. */
  if (t->strides[0] > (INT64_MAX / (int64_t)sizeof(float) - t->dims[1]) / t->dims[0] ||
      (uint64_t)t->dims[0] * (uint64_t)t->strides[0] * sizeof(float) > (uint64_t)SIZE_MAX / 2) {
    snprintf(why, EXEC_WHY_SIZE, "execute: operand %s: leading dimension %lld overflows", name,
             (long long)t->strides[0]);
    return OLC_PLUGIN_E_INVALID;
  }
  out->rows = (uint32_t)t->dims[0];
  out->cols = (uint32_t)t->dims[1];
  out->ld = (size_t)t->strides[0];
  out->data = t->data;
  return OLC_PLUGIN_OK;
}

/* A double scalar as a float: finite values beyond the float range are refused. */
static int to_float(double v, float *out) {
  if ((v > FLT_MAX || v < -FLT_MAX) && v != (double)INFINITY && v != -(double)INFINITY)
    return -1;
  *out = (float)v;
  return 0;
}

/* Whether the shape fits the kernels' int indices and one device allocation each. */
static int32_t exec_fits(const egpu_instance *inst, const egpu_shape *s, char *why) {
  uint64_t ma = (uint64_t)s->m * s->k, mb = (uint64_t)s->k * s->n, mc = (uint64_t)s->m * s->n;
  uint64_t most = ma > mb ? (ma > mc ? ma : mc) : (mb > mc ? mb : mc);
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
  int32_t rc;
  if (!OLC_PLUGIN_HAS_FIELD(args, olc_plugin_exec_args, beta) || args->inputs == NULL ||
      args->outputs == NULL || args->input_count != 2 || args->output_count != 1) {
    snprintf(why, EXEC_WHY_SIZE, "execute: MatMul takes two inputs (A, B) and one output (C)");
    return OLC_PLUGIN_E_INVALID;
  }
  if ((rc = exec_matrix_read(&p->a, &args->inputs[0], "A", why)) != OLC_PLUGIN_OK ||
      (rc = exec_matrix_read(&p->b, &args->inputs[1], "B", why)) != OLC_PLUGIN_OK ||
      (rc = exec_matrix_read(&p->c, &args->outputs[0], "C", why)) != OLC_PLUGIN_OK)
    return rc;
  if (p->a.cols != p->b.rows || p->c.rows != p->a.rows || p->c.cols != p->b.cols) {
    snprintf(why, EXEC_WHY_SIZE, "execute: A %u x %u, B %u x %u and C %u x %u do not fit",
             p->a.rows, p->a.cols, p->b.rows, p->b.cols, p->c.rows, p->c.cols);
    return OLC_PLUGIN_E_INVALID;
  }
  p->shape.m = p->a.rows;
  p->shape.n = p->b.cols;
  p->shape.k = p->a.cols;
  if ((rc = exec_fits(inst, &p->shape, why)) != OLC_PLUGIN_OK)
    return rc;
  if (to_float(args->alpha, &p->alpha) != 0 || to_float(args->beta, &p->beta) != 0) {
    snprintf(why, EXEC_WHY_SIZE, "execute: alpha %g or beta %g is beyond the float range",
             args->alpha, args->beta);
    return OLC_PLUGIN_E_INVALID;
  }
  if (overlaps(&p->a, &p->c) || overlaps(&p->b, &p->c)) {
    snprintf(why, EXEC_WHY_SIZE, "execute: an input overlaps C (in-place products are not served)");
    return OLC_PLUGIN_E_UNSUPPORTED;
  }
  return OLC_PLUGIN_OK;
}

/* ---- on the device ----------------------------------------------------- */

/* A compact rows x cols buffer <-> the matrix's rows, as one command. */
static cl_int copy_matrix(cl_command_queue q, cl_mem buf, const exec_matrix *m, int to_device,
                          cl_bool blocking) {
  size_t origin[3] = {0, 0, 0}, region[3];
  size_t width = (size_t)m->cols * sizeof(float), pitch = m->ld * sizeof(float);
  if (m->ld == m->cols || m->rows == 1)
    return to_device
               ? clEnqueueWriteBuffer(q, buf, blocking, 0, width * m->rows, m->data, 0, NULL, NULL)
               : clEnqueueReadBuffer(q, buf, blocking, 0, width * m->rows, m->data, 0, NULL, NULL);
  region[0] = width;
  region[1] = m->rows;
  region[2] = 1;
  return to_device ? clEnqueueWriteBufferRect(q, buf, blocking, origin, origin, region, width, 0,
                                              pitch, 0, m->data, 0, NULL, NULL)
                   : clEnqueueReadBufferRect(q, buf, blocking, origin, origin, region, width, 0,
                                             pitch, 0, m->data, 0, NULL, NULL);
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
  b->a = make_buffer(inst, CL_MEM_READ_ONLY, (size_t)s->m * s->k, &err);
  b->b = make_buffer(inst, CL_MEM_READ_ONLY, (size_t)s->k * s->n, &err);
  b->t = make_buffer(inst, CL_MEM_READ_WRITE, (size_t)s->m * s->n, &err);
  ok = b->a != NULL && b->b != NULL && b->t != NULL;
  if (ok && prog->transpose != NULL) {
    b->bt = make_buffer(inst, CL_MEM_READ_WRITE, (size_t)s->k * s->n, &err);
    ok = b->bt != NULL;
  }
  if (ok && p->beta != 0.0f) {
    b->c0 = make_buffer(inst, CL_MEM_READ_ONLY, (size_t)s->m * s->n, &err);
    ok = b->c0 != NULL;
  }
  if (!ok)
    return egpu_fail(inst->host, OLC_PLUGIN_E_NOMEM,
                     "execute: cannot allocate device buffers for %ux%ux%u (%d)", s->m, s->n, s->k,
                     (int)err);
  return OLC_PLUGIN_OK;
}

static void exec_buffers_free(exec_buffers *b) {
  cl_mem *all[5];
  size_t i;
  all[0] = &b->a, all[1] = &b->b, all[2] = &b->t, all[3] = &b->c0, all[4] = &b->bt;
  for (i = 0; i < 5; i++)
    if (*all[i] != NULL)
      clReleaseMemObject(*all[i]);
}

/* T = alpha * T + beta * C0; C0 is not read when beta == 0. */
static int32_t enqueue_epilogue(egpu_instance *inst, const egpu_program *prog, const exec_plan *p,
                                const exec_buffers *b) {
  cl_int count = (cl_int)((size_t)p->shape.m * p->shape.n), err;
  cl_mem c0 = p->beta != 0.0f ? b->c0 : b->t;
  /* A multiple of 64 items: drivers then pick a sensible work-group size. */
  size_t global = ((size_t)count + 63u) / 64u * 64u;
  err = clSetKernelArg(prog->axpby, 0, sizeof count, &count);
  err |= clSetKernelArg(prog->axpby, 1, sizeof p->alpha, &p->alpha);
  err |= clSetKernelArg(prog->axpby, 2, sizeof p->beta, &p->beta);
  err |= clSetKernelArg(prog->axpby, 3, sizeof(cl_mem), &b->t);
  err |= clSetKernelArg(prog->axpby, 4, sizeof(cl_mem), &c0);
  if (err == CL_SUCCESS)
    err = clEnqueueNDRangeKernel(inst->queue, prog->axpby, 1, NULL, &global, NULL, 0, NULL, NULL);
  if (err != CL_SUCCESS)
    return egpu_fail(inst->host, OLC_PLUGIN_E_FAILED, "execute: epilogue failed (%d)", (int)err);
  return OLC_PLUGIN_OK;
}

/* Under the lock: copies in, product, epilogue, copy out (blocking). */
static int32_t exec_device(egpu_instance *inst, const egpu_program *prog, const exec_plan *p) {
  exec_buffers b;
  cl_int err = CL_SUCCESS;
  int32_t rc;
  memset(&b, 0, sizeof b);
  rc = exec_buffers_make(&b, inst, prog, p);
  if (rc == OLC_PLUGIN_OK) {
    err = copy_matrix(inst->queue, b.a, &p->a, 1, CL_FALSE);
    if (err == CL_SUCCESS)
      err = copy_matrix(inst->queue, b.b, &p->b, 1, CL_FALSE);
    if (err == CL_SUCCESS && b.c0 != NULL)
      err = copy_matrix(inst->queue, b.c0, &p->c, 1, CL_FALSE);
    if (err != CL_SUCCESS)
      rc = egpu_fail(inst->host, OLC_PLUGIN_E_FAILED, "execute: copy to the device failed (%d)",
                     (int)err);
  }
  if (rc == OLC_PLUGIN_OK)
    rc = egpu_enqueue_product(inst, prog, &p->shape, b.a, b.b, b.t, b.bt);
  if (rc == OLC_PLUGIN_OK && (p->alpha != 1.0f || p->beta != 0.0f))
    rc = enqueue_epilogue(inst, prog, p, &b);
  if (rc == OLC_PLUGIN_OK) {
    err = copy_matrix(inst->queue, b.t, &p->c, 0, CL_TRUE);
    if (err != CL_SUCCESS)
      rc = egpu_fail(inst->host, OLC_PLUGIN_E_FAILED, "execute: copy from the device failed (%d)",
                     (int)err);
  }
  /* After a failure too: no command still reads or writes caller memory. */
  err = clFinish(inst->queue);
  if (rc == OLC_PLUGIN_OK && err != CL_SUCCESS)
    rc = egpu_fail(inst->host, OLC_PLUGIN_E_FAILED, "execute: the device failed (%d)", (int)err);
  exec_buffers_free(&b);
  return rc;
}

/* alpha == 0: C = beta * C (C = 0 when beta == 0, C not read), A and B unused. */
static void scale_c(const exec_plan *p) {
  uint32_t i, j;
  for (i = 0; i < p->c.rows; i++) {
    float *row = p->c.data + (size_t)i * p->c.ld;
    for (j = 0; j < p->c.cols; j++)
      row[j] = p->beta == 0.0f ? 0.0f : p->beta * row[j];
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
  if (workload != NULL && workload->operator_name != NULL &&
      strcmp(workload->operator_name, EGPU_OPERATOR) != 0)
    return egpu_fail(inst->host, OLC_PLUGIN_E_UNSUPPORTED,
                     "execute: operator %s is not served (only MatMul)", workload->operator_name);
  if (pol == NULL)
    return egpu_fail(inst->host, OLC_PLUGIN_E_INVALID, "execute: no policy");
  if (egpu_policy_check(pol, &inst->limits, why, sizeof why) != 0)
    return egpu_fail(inst->host, OLC_PLUGIN_E_INVALID, "execute: %s", why);
  memset(&plan, 0, sizeof plan);
  rc = exec_plan_read(&plan, inst, args, why);
  if (rc != OLC_PLUGIN_OK)
    return egpu_fail(inst->host, rc, "%s", why);
  if (plan.alpha == 0.0f) {
    scale_c(&plan);
    return OLC_PLUGIN_OK;
  }
  pthread_mutex_lock(&inst->lock);
  rc = egpu_find_program(inst, pol, &prog);
  if (rc == OLC_PLUGIN_OK)
    rc = exec_device(inst, prog, &plan);
  pthread_mutex_unlock(&inst->lock);
  return rc;
}
