/*
 * egpu_kernel.c - the per-policy program cache, the product on device
 * buffers, prepare / run / unprepare.
 *
 * Each policy's program (egpu_source.c with the policy as -D options) is
 * built on first use and kept in the instance.  Building, setting kernel
 * arguments and enqueueing happen under the instance's lock (egpu.h), so run
 * and any number of execute calls may share the instance.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "egpu.h"

/* ---- program cache ----------------------------------------------------- */

static void program_free(egpu_program *p) {
  if (p->kernel != NULL)
    clReleaseKernel(p->kernel);
  if (p->transpose != NULL)
    clReleaseKernel(p->transpose);
  if (p->axpby != NULL)
    clReleaseKernel(p->axpby);
  if (p->gather != NULL)
    clReleaseKernel(p->gather);
  if (p->program != NULL)
    clReleaseProgram(p->program);
  free(p);
}

void egpu_programs_free(egpu_instance *inst) {
  egpu_program *p = inst->programs, *next;
  for (; p != NULL; p = next) {
    next = p->next;
    program_free(p);
  }
  inst->programs = NULL;
  inst->program_count = 0;
}

/* The first line of the build log, for the error message. */
static void build_log_line(egpu_instance *inst, cl_program prog, char *out, size_t size) {
  char *log;
  size_t n = 0, i, start = 0, len;
  out[0] = '\0';
  /* A too-small buffer is an error in OpenCL: ask for the size first. */
  if (clGetProgramBuildInfo(prog, inst->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) != CL_SUCCESS ||
      n == 0)
    return;
  log = malloc(n + 1);
  if (log == NULL)
    return;
  if (clGetProgramBuildInfo(prog, inst->device, CL_PROGRAM_BUILD_LOG, n, log, NULL) == CL_SUCCESS) {
    log[n] = '\0';
    while (log[start] == '\n' || log[start] == ' ')
      start++;
    for (i = start; log[i] != '\0' && log[i] != '\n'; i++)
      ;
    len = i - start < size - 1 ? i - start : size - 1;
    memcpy(out, log + start, len);
    out[len] = '\0';
  }
  free(log);
}

/* The program's kernels, and whether the device runs the policy's work-group. */
static int32_t program_kernels(egpu_instance *inst, const egpu_policy *pol, egpu_program *p) {
  cl_int err = CL_SUCCESS;
  size_t wg = 0;
  p->kernel = clCreateKernel(p->program, "egpu_sgemm", &err);
  if (p->kernel != NULL)
    p->axpby = clCreateKernel(p->program, "egpu_axpby", &err);
  if (p->axpby != NULL)
    p->gather = clCreateKernel(p->program, "egpu_gather", &err);
  if (p->gather != NULL && !pol->local && pol->vec > 1)
    p->transpose = clCreateKernel(p->program, "egpu_transpose", &err);
  if (p->gather == NULL || (!pol->local && pol->vec > 1 && p->transpose == NULL))
    return egpu_fail(inst->host, OLC_PLUGIN_E_FAILED, "clCreateKernel failed (%d)", (int)err);
  /* A kernel can allow less than the device maximum (registers, local memory). */
  if (clGetKernelWorkGroupInfo(p->kernel, inst->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg,
                               NULL) == CL_SUCCESS &&
      wg < (size_t)pol->wgx * pol->wgy)
    return egpu_fail(inst->host, OLC_PLUGIN_E_INVALID,
                     "policy needs a work-group of %u items, the compiled kernel "
                     "allows %llu on this device",
                     pol->wgx * pol->wgy, (unsigned long long)wg);
  return OLC_PLUGIN_OK;
}

static int32_t build_program(egpu_instance *inst, const egpu_policy *pol, egpu_program **out) {
  const char *src[EGPU_SOURCE_PARTS];
  cl_uint i;
  char options[256], line[160];
  egpu_program *p;
  cl_int err = CL_SUCCESS;
  int32_t rc;
  p = calloc(1, sizeof *p);
  if (p == NULL)
    return egpu_fail(inst->host, OLC_PLUGIN_E_NOMEM, "out of memory");
  p->policy = *pol;
  snprintf(options, sizeof options,
           "-cl-std=CL1.2 -cl-mad-enable -DTM=%u -DTN=%u -DTK=%u -DWM=%u -DWN=%u -DVEC=%u "
           "-DLOCAL=%u -DWGX=%u -DWGY=%u",
           pol->tm, pol->tn, pol->tk, pol->wm, pol->wn, pol->vec, pol->local, pol->wgx, pol->wgy);
  for (i = 0; i < EGPU_SOURCE_PARTS; i++)
    src[i] = egpu_kernel_source[i];
  p->program = clCreateProgramWithSource(inst->context, EGPU_SOURCE_PARTS, src, NULL, &err);
  if (p->program == NULL) {
    rc = egpu_fail(inst->host, OLC_PLUGIN_E_FAILED, "clCreateProgramWithSource failed (%d)",
                   (int)err);
  } else if ((err = clBuildProgram(p->program, 1, &inst->device, options, NULL, NULL)) !=
             CL_SUCCESS) {
    build_log_line(inst, p->program, line, sizeof line);
    rc = egpu_fail(inst->host, OLC_PLUGIN_E_FAILED, "kernel build failed (%d): %s", (int)err, line);
  } else {
    rc = program_kernels(inst, pol, p);
  }
  if (rc != OLC_PLUGIN_OK) {
    program_free(p);
    return rc;
  }
  *out = p;
  return OLC_PLUGIN_OK;
}

int32_t egpu_find_program(egpu_instance *inst, const egpu_policy *pol, egpu_program **out) {
  egpu_program *p;
  int32_t rc;
  for (p = inst->programs; p != NULL; p = p->next) {
    if (memcmp(&p->policy, pol, sizeof *pol) == 0) {
      *out = p;
      return OLC_PLUGIN_OK;
    }
  }
  rc = build_program(inst, pol, &p);
  if (rc != OLC_PLUGIN_OK)
    return rc;
  p->next = inst->programs;
  inst->programs = p;
  inst->program_count++;
  *out = p;
  return OLC_PLUGIN_OK;
}

/* ---- prepare / run ----------------------------------------------------- */

/* A fixed-seed generator: inputs are reproducible from run to run. */
static void fill_random(float *x, size_t n, uint32_t seed) {
  size_t i;
  for (i = 0; i < n; i++) {
    seed = seed * 1664525u + 1013904223u;
    x[i] = (float)(seed >> 8) / 8388608.0f - 1.0f;
  }
}

static void release_all(cl_mem *mems, uint32_t count) {
  uint32_t i;
  for (i = 0; mems != NULL && i < count; i++)
    if (mems[i] != NULL)
      clReleaseMemObject(mems[i]);
  free(mems);
}

void egpu_unprepare(void *instance, void *state) {
  egpu_state *s = state;
  cl_mem *one[5];
  size_t i;
  (void)instance;
  if (s == NULL)
    return;
  /* a, b and c are as[0], bs[0] and ys[0]. */
  release_all(s->as, s->layout.count_a);
  release_all(s->bs, s->layout.count_b);
  release_all(s->ys, s->layout.count_y);
  one[0] = &s->bt, one[1] = &s->ga, one[2] = &s->gb, one[3] = &s->bias, one[4] = &s->c0;
  for (i = 0; i < 5; i++)
    if (*one[i] != NULL)
      clReleaseMemObject(*one[i]);
  free(s->host_a);
  free(s->host_b);
  free(s);
}

/* A device buffer of n floats, filled from values when not NULL. */
static cl_mem prepare_buffer(const egpu_instance *inst, size_t n, const float *values,
                             cl_int *err) {
  cl_mem_flags flags =
      values != NULL ? CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR : CL_MEM_READ_WRITE;
  return clCreateBuffer(inst->context, flags, n * sizeof(float), (void *)(uintptr_t)values, err);
}

/*
 * count matrices rows x cols of random values, each stored transposed
 * (cols x rows) when trans; the first one's values row-major into *first.
 */
static int prepare_operand(const egpu_instance *inst, uint32_t rows, uint32_t cols, uint32_t trans,
                           uint32_t count, uint32_t seed, cl_mem **out, float **first,
                           cl_int *err) {
  size_t n = (size_t)rows * cols, i, j;
  float *values = malloc(n * sizeof(float)), *stored = trans ? malloc(n * sizeof(float)) : NULL;
  uint32_t c;
  int ok = values != NULL && (!trans || stored != NULL);
  *out = ok ? calloc(count, sizeof(cl_mem)) : NULL;
  ok = *out != NULL;
  for (c = 0; ok && c < count; c++) {
    fill_random(values, n, seed + c * 7919u);
    if (trans)
      for (i = 0; i < rows; i++)
        for (j = 0; j < cols; j++)
          stored[j * rows + i] = values[i * cols + j];
    (*out)[c] = prepare_buffer(inst, n, trans ? stored : values, err);
    ok = (*out)[c] != NULL;
    if (c == 0 && ok) {
      *first = values;
      values = malloc(n * sizeof(float));
      ok = values != NULL;
    }
  }
  free(values);
  free(stored);
  return ok ? 0 : -1;
}

/* The bias as stored: a scalar, a row of n, a column of m, or m x n. */
static size_t bias_elements(const egpu_layout *l) {
  switch (l->bias) {
  case EGPU_BIAS_SCALAR:
    return 1;
  case EGPU_BIAS_ROW:
    return l->shape.n;
  case EGPU_BIAS_COL:
    return l->shape.m;
  case EGPU_BIAS_MATRIX:
    return (size_t)l->shape.m * l->shape.n;
  default:
    return 0;
  }
}

static int prepare_layout(const egpu_instance *inst, egpu_state *s, cl_int *err) {
  const egpu_layout *l = &s->layout;
  const egpu_shape *sh = &l->shape;
  size_t nc = (size_t)sh->m * sh->n, nbias = bias_elements(l);
  uint32_t c;
  if (prepare_operand(inst, sh->m, sh->k, l->trans_a, l->count_a, 12345u, &s->as, &s->host_a,
                      err) != 0 ||
      prepare_operand(inst, sh->k, sh->n, l->trans_b, l->count_b, 67890u, &s->bs, &s->host_b,
                      err) != 0)
    return -1;
  s->ys = calloc(l->count_y, sizeof(cl_mem));
  if (s->ys == NULL)
    return -1;
  for (c = 0; c < l->count_y; c++)
    if ((s->ys[c] = prepare_buffer(inst, nc, NULL, err)) == NULL)
      return -1;
  if (l->trans_a && (s->ga = prepare_buffer(inst, (size_t)sh->m * sh->k, NULL, err)) == NULL)
    return -1;
  if (l->trans_b && (s->gb = prepare_buffer(inst, (size_t)sh->k * sh->n, NULL, err)) == NULL)
    return -1;
  if (nbias > 0) {
    float *values = malloc(nbias * sizeof(float));
    if (values == NULL)
      return -1;
    fill_random(values, nbias, 424242u);
    s->bias = prepare_buffer(inst, nbias, values, err);
    free(values);
    if (s->bias == NULL || (s->c0 = prepare_buffer(inst, nc, NULL, err)) == NULL)
      return -1;
  }
  s->a = s->as[0];
  s->b = s->bs[0];
  s->c = s->ys[0];
  return 0;
}

int32_t egpu_prepare(void *instance, const olc_plugin_workload *workload, void **state) {
  egpu_instance *inst = instance;
  egpu_state *s = NULL;
  egpu_layout layout;
  cl_int err = CL_SUCCESS;
  int32_t rc;
  if (state == NULL)
    return egpu_fail(inst->host, OLC_PLUGIN_E_INVALID, "prepare: no state pointer");
  *state = NULL;
  rc = egpu_parse_workload(inst, workload, &layout);
  if (rc != OLC_PLUGIN_OK)
    return rc;
  s = calloc(1, sizeof *s);
  if (s == NULL)
    return egpu_fail(inst->host, OLC_PLUGIN_E_NOMEM, "out of memory");
  s->shape = layout.shape;
  s->layout = layout;
  if (prepare_layout(inst, s, &err) != 0) {
    rc = egpu_fail(inst->host, OLC_PLUGIN_E_NOMEM,
                   "cannot allocate operands for %ux%ux%u (%u products) (%d)", layout.shape.m,
                   layout.shape.n, layout.shape.k, layout.count_y, (int)err);
    egpu_unprepare(inst, s);
    return rc;
  }
  *state = s;
  return OLC_PLUGIN_OK;
}

/* Bt = transpose(B): k x n in, n x k out. */
static cl_int enqueue_transpose(egpu_instance *inst, const egpu_program *prog,
                                const egpu_shape *shape, cl_mem b, cl_mem bt) {
  cl_int n = (cl_int)shape->n, k = (cl_int)shape->k, err;
  size_t global[2];
  global[0] = shape->k;
  global[1] = shape->n;
  err = clSetKernelArg(prog->transpose, 0, sizeof n, &n);
  err |= clSetKernelArg(prog->transpose, 1, sizeof k, &k);
  err |= clSetKernelArg(prog->transpose, 2, sizeof(cl_mem), &b);
  err |= clSetKernelArg(prog->transpose, 3, sizeof(cl_mem), &bt);
  if (err != CL_SUCCESS)
    return err;
  return clEnqueueNDRangeKernel(inst->queue, prog->transpose, 2, NULL, global, NULL, 0, NULL, NULL);
}

int32_t egpu_enqueue_product(egpu_instance *inst, const egpu_program *prog, const egpu_shape *shape,
                             cl_mem a, cl_mem b, cl_mem c, cl_mem bt) {
  const egpu_policy *pol = &prog->policy;
  cl_int m = (cl_int)shape->m, n = (cl_int)shape->n, k = (cl_int)shape->k, err;
  size_t local[2], global[2];
  /* The transpose is part of the timed run, as a peer's packing would be. */
  if (prog->transpose != NULL) {
    if (bt == NULL)
      return egpu_fail(inst->host, OLC_PLUGIN_E_FAILED, "no scratch buffer for the transpose");
    err = enqueue_transpose(inst, prog, shape, b, bt);
    if (err != CL_SUCCESS)
      return egpu_fail(inst->host, OLC_PLUGIN_E_FAILED, "transpose failed (%d)", (int)err);
  }
  local[0] = pol->wgx;
  local[1] = pol->wgy;
  global[0] = (size_t)((shape->n + pol->tn - 1) / pol->tn) * pol->wgx;
  global[1] = (size_t)((shape->m + pol->tm - 1) / pol->tm) * pol->wgy;
  err = clSetKernelArg(prog->kernel, 0, sizeof m, &m);
  err |= clSetKernelArg(prog->kernel, 1, sizeof n, &n);
  err |= clSetKernelArg(prog->kernel, 2, sizeof k, &k);
  err |= clSetKernelArg(prog->kernel, 3, sizeof(cl_mem), &a);
  err |= clSetKernelArg(prog->kernel, 4, sizeof(cl_mem), &b);
  err |= clSetKernelArg(prog->kernel, 5, sizeof(cl_mem), &c);
  err |= clSetKernelArg(prog->kernel, 6, sizeof(cl_mem), prog->transpose != NULL ? &bt : &b);
  if (err != CL_SUCCESS)
    return egpu_fail(inst->host, OLC_PLUGIN_E_FAILED, "clSetKernelArg failed");
  err = clEnqueueNDRangeKernel(inst->queue, prog->kernel, 2, NULL, global, local, 0, NULL, NULL);
  if (err != CL_SUCCESS)
    return egpu_fail(inst->host, OLC_PLUGIN_E_FAILED, "kernel launch failed (%d)", (int)err);
  return OLC_PLUGIN_OK;
}

int32_t egpu_enqueue_gather(egpu_instance *inst, const egpu_program *prog, uint32_t rows,
                            uint32_t cols, cl_mem src, uint64_t offset, uint64_t rs, uint64_t cs,
                            cl_mem dst) {
  cl_int r = (cl_int)rows, c = (cl_int)cols, off = (cl_int)offset, irs = (cl_int)rs,
         ics = (cl_int)cs, err;
  size_t global[2];
  /* Callers keep every index of the view below 2^31 (checked extents). */
  global[0] = cols;
  global[1] = rows;
  err = clSetKernelArg(prog->gather, 0, sizeof r, &r);
  err |= clSetKernelArg(prog->gather, 1, sizeof c, &c);
  err |= clSetKernelArg(prog->gather, 2, sizeof off, &off);
  err |= clSetKernelArg(prog->gather, 3, sizeof irs, &irs);
  err |= clSetKernelArg(prog->gather, 4, sizeof ics, &ics);
  err |= clSetKernelArg(prog->gather, 5, sizeof(cl_mem), &src);
  err |= clSetKernelArg(prog->gather, 6, sizeof(cl_mem), &dst);
  if (err == CL_SUCCESS)
    err = clEnqueueNDRangeKernel(inst->queue, prog->gather, 2, NULL, global, NULL, 0, NULL, NULL);
  if (err != CL_SUCCESS)
    return egpu_fail(inst->host, OLC_PLUGIN_E_FAILED, "gather failed (%d)", (int)err);
  return OLC_PLUGIN_OK;
}

int32_t egpu_enqueue_axpby(egpu_instance *inst, const egpu_program *prog, size_t count, float alpha,
                           float beta, cl_mem t, cl_mem c0) {
  cl_int n = (cl_int)count, err;
  /* A multiple of 64 items: drivers then pick a sensible work-group size. */
  size_t global = (count + 63u) / 64u * 64u;
  err = clSetKernelArg(prog->axpby, 0, sizeof n, &n);
  err |= clSetKernelArg(prog->axpby, 1, sizeof alpha, &alpha);
  err |= clSetKernelArg(prog->axpby, 2, sizeof beta, &beta);
  err |= clSetKernelArg(prog->axpby, 3, sizeof(cl_mem), &t);
  err |= clSetKernelArg(prog->axpby, 4, sizeof(cl_mem), beta != 0.0f ? &c0 : &t);
  if (err == CL_SUCCESS)
    err = clEnqueueNDRangeKernel(inst->queue, prog->axpby, 1, NULL, &global, NULL, 0, NULL, NULL);
  if (err != CL_SUCCESS)
    return egpu_fail(inst->host, OLC_PLUGIN_E_FAILED, "epilogue failed (%d)", (int)err);
  return OLC_PLUGIN_OK;
}

/*
 * The work of one run in the workload's layout, as execute does it on the
 * device: each product gathers a transposed A or B into compact scratch
 * (only when its matrix changes), multiplies, and a Gemm with a bias
 * broadcasts it (gather) and adds it (epilogue).  The caller holds the lock.
 */
static int32_t run_layout(egpu_instance *inst, egpu_state *s, const egpu_program *prog) {
  const egpu_layout *l = &s->layout;
  const egpu_shape *sh = &l->shape;
  int64_t sta[EGPU_MAX_BATCH_RANK], stb[EGPU_MAX_BATCH_RANK];
  uint64_t last_a = UINT64_MAX, last_b = UINT64_MAX;
  uint32_t y, i;
  int32_t rc = OLC_PLUGIN_OK;
  /* Matrix strides of the stored batches: the matrices are numbered row-major. */
  for (i = l->batch_a.rank, sta[0] = 1; i-- > 0;)
    sta[i] = i + 1 < l->batch_a.rank ? sta[i + 1] * l->batch_a.dims[i + 1] : 1;
  for (i = l->batch_b.rank, stb[0] = 1; i-- > 0;)
    stb[i] = i + 1 < l->batch_b.rank ? stb[i + 1] * l->batch_b.dims[i + 1] : 1;
  for (y = 0; y < l->count_y && rc == OLC_PLUGIN_OK; y++) {
    uint64_t ia = egpu_batch_offset(&l->batch_y, &l->batch_a, sta, y);
    uint64_t ib = egpu_batch_offset(&l->batch_y, &l->batch_b, stb, y);
    if (l->trans_a && ia != last_a)
      rc = egpu_enqueue_gather(inst, prog, sh->m, sh->k, s->as[ia], 0, 1, sh->m, s->ga);
    if (rc == OLC_PLUGIN_OK && l->trans_b && ib != last_b)
      rc = egpu_enqueue_gather(inst, prog, sh->k, sh->n, s->bs[ib], 0, 1, sh->k, s->gb);
    last_a = ia, last_b = ib;
    if (rc == OLC_PLUGIN_OK)
      rc = egpu_enqueue_product(inst, prog, sh, l->trans_a ? s->ga : s->as[ia],
                                l->trans_b ? s->gb : s->bs[ib], s->ys[y], s->bt);
  }
  if (rc == OLC_PLUGIN_OK && l->bias != EGPU_BIAS_NONE) {
    /* Strides of the stored bias as broadcast to m x n. */
    uint64_t rs = l->bias == EGPU_BIAS_COL ? 1u : l->bias == EGPU_BIAS_MATRIX ? sh->n : 0u;
    uint64_t cs = l->bias == EGPU_BIAS_ROW || l->bias == EGPU_BIAS_MATRIX ? 1u : 0u;
    rc = egpu_enqueue_gather(inst, prog, sh->m, sh->n, s->bias, 0, rs, cs, s->c0);
    if (rc == OLC_PLUGIN_OK)
      rc = egpu_enqueue_axpby(inst, prog, (size_t)sh->m * sh->n, 1.0f, 1.0f, s->ys[0], s->c0);
  }
  return rc;
}

/* Under the lock: the program, B's transpose scratch (made on first use),
 * the products, and the wait for them. */
static int32_t run_prepared(egpu_instance *inst, egpu_state *s, const egpu_policy *pol) {
  egpu_program *prog;
  cl_int err = CL_SUCCESS;
  int32_t rc;
  pthread_mutex_lock(&inst->lock);
  rc = egpu_find_program(inst, pol, &prog);
  if (rc == OLC_PLUGIN_OK && prog->transpose != NULL && s->bt == NULL) {
    s->bt = clCreateBuffer(inst->context, CL_MEM_READ_WRITE,
                           (size_t)s->shape.k * s->shape.n * sizeof(float), NULL, &err);
    if (s->bt == NULL)
      rc = egpu_fail(inst->host, OLC_PLUGIN_E_NOMEM, "cannot allocate the transpose of B (%d)",
                     (int)err);
  }
  if (rc == OLC_PLUGIN_OK)
    rc = run_layout(inst, s, prog);
  /* Also after a failed enqueue: nothing of this run stays in flight. */
  err = clFinish(inst->queue);
  if (rc == OLC_PLUGIN_OK && err != CL_SUCCESS)
    rc = egpu_fail(inst->host, OLC_PLUGIN_E_FAILED, "kernel failed (%d)", (int)err);
  pthread_mutex_unlock(&inst->lock);
  return rc;
}

int32_t egpu_run(void *instance, const olc_plugin_workload *workload, void *state,
                 const void *policy) {
  egpu_instance *inst = instance;
  egpu_state *s = state;
  const egpu_policy *pol = policy;
  egpu_layout layout;
  char msg[EGPU_MESSAGE_SIZE - 16];
  int32_t rc;
  if (pol == NULL)
    return egpu_fail(inst->host, OLC_PLUGIN_E_INVALID, "run: no policy");
  /* Policies come from candidates or validate, but a host may hand in any. */
  if (egpu_policy_check(pol, &inst->limits, msg, sizeof msg) != 0)
    return egpu_fail(inst->host, OLC_PLUGIN_E_INVALID, "%s", msg);
  rc = egpu_parse_workload(inst, workload, &layout);
  if (rc != OLC_PLUGIN_OK)
    return rc;
  if (s == NULL) {
    /* Without prepare: allocate for this one run. */
    void *tmp = NULL;
    rc = egpu_prepare(inst, workload, &tmp);
    if (rc == OLC_PLUGIN_OK)
      rc = run_prepared(inst, tmp, pol);
    egpu_unprepare(inst, tmp);
    return rc;
  }
  if (memcmp(&s->layout, &layout, sizeof layout) != 0)
    return egpu_fail(inst->host, OLC_PLUGIN_E_INVALID,
                     "run: state was prepared for %ux%ux%u, workload is %ux%ux%u (or another "
                     "layout)",
                     s->shape.m, s->shape.n, s->shape.k, layout.shape.m, layout.shape.n,
                     layout.shape.k);
  return run_prepared(inst, s, pol);
}
