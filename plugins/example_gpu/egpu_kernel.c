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
  if (p->axpby != NULL && !pol->local && pol->vec > 1)
    p->transpose = clCreateKernel(p->program, "egpu_transpose", &err);
  if (p->axpby == NULL || (!pol->local && pol->vec > 1 && p->transpose == NULL))
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

void egpu_unprepare(void *instance, void *state) {
  egpu_state *s = state;
  (void)instance;
  if (s == NULL)
    return;
  if (s->a != NULL)
    clReleaseMemObject(s->a);
  if (s->b != NULL)
    clReleaseMemObject(s->b);
  if (s->c != NULL)
    clReleaseMemObject(s->c);
  if (s->bt != NULL)
    clReleaseMemObject(s->bt);
  free(s->host_a);
  free(s->host_b);
  free(s);
}

int32_t egpu_prepare(void *instance, const olc_plugin_workload *workload, void **state) {
  egpu_instance *inst = instance;
  egpu_state *s = NULL;
  egpu_shape shape;
  size_t na, nb, nc;
  cl_int err = CL_SUCCESS;
  int32_t rc;
  if (state == NULL)
    return egpu_fail(inst->host, OLC_PLUGIN_E_INVALID, "prepare: no state pointer");
  *state = NULL;
  rc = egpu_parse_workload(inst, workload, &shape);
  if (rc != OLC_PLUGIN_OK)
    return rc;
  na = (size_t)shape.m * shape.k;
  nb = (size_t)shape.k * shape.n;
  nc = (size_t)shape.m * shape.n;
  s = calloc(1, sizeof *s);
  if (s == NULL)
    return egpu_fail(inst->host, OLC_PLUGIN_E_NOMEM, "out of memory");
  s->shape = shape;
  s->host_a = malloc(na * sizeof(float));
  s->host_b = malloc(nb * sizeof(float));
  if (s->host_a == NULL || s->host_b == NULL) {
    rc = egpu_fail(inst->host, OLC_PLUGIN_E_NOMEM, "out of memory");
    goto done;
  }
  fill_random(s->host_a, na, 12345u);
  fill_random(s->host_b, nb, 67890u);
  s->a = clCreateBuffer(inst->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, na * sizeof(float),
                        s->host_a, &err);
  if (s->a != NULL)
    s->b = clCreateBuffer(inst->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                          nb * sizeof(float), s->host_b, &err);
  if (s->b != NULL)
    s->c = clCreateBuffer(inst->context, CL_MEM_READ_WRITE, nc * sizeof(float), NULL, &err);
  if (s->c == NULL)
    rc = egpu_fail(inst->host, OLC_PLUGIN_E_NOMEM,
                   "cannot allocate device buffers for %ux%ux%u (%d)", shape.m, shape.n, shape.k,
                   (int)err);
done:
  if (rc != OLC_PLUGIN_OK) {
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

/* Under the lock: the program, B's transpose scratch (made on first use),
 * the product, and the wait for it. */
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
    rc = egpu_enqueue_product(inst, prog, &s->shape, s->a, s->b, s->c, s->bt);
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
  egpu_shape shape;
  char msg[EGPU_MESSAGE_SIZE - 16];
  int32_t rc;
  if (pol == NULL)
    return egpu_fail(inst->host, OLC_PLUGIN_E_INVALID, "run: no policy");
  /* Policies come from candidates or validate, but a host may hand in any. */
  if (egpu_policy_check(pol, &inst->limits, msg, sizeof msg) != 0)
    return egpu_fail(inst->host, OLC_PLUGIN_E_INVALID, "%s", msg);
  rc = egpu_parse_workload(inst, workload, &shape);
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
  if (memcmp(&s->shape, &shape, sizeof shape) != 0)
    return egpu_fail(inst->host, OLC_PLUGIN_E_INVALID,
                     "run: state was prepared for %ux%ux%u, workload is %ux%ux%u", s->shape.m,
                     s->shape.n, s->shape.k, shape.m, shape.n, shape.k);
  return run_prepared(inst, s, pol);
}
