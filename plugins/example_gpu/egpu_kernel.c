/*
 * egpu_kernel.c - the embedded SGEMM kernel, the per-policy program cache,
 * prepare / run / unprepare.
 *
 * One OpenCL C source serves every policy: the policy becomes -D options,
 * so each tiling is a separately compiled program, built on first use and
 * kept in the instance.  Edges (sizes that are not multiples of the tiles)
 * are handled in the kernel: zero-filled tile loads or clamped direct loads,
 * and guarded stores.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "egpu.h"

static const char egpu_src_common[] = "#if VEC == 1\n"
                                      "typedef float vT;\n"
                                      "#define VLOAD(p) (*(p))\n"
                                      "#define VSTORE(v, p) (*(p) = (v))\n"
                                      "#elif VEC == 2\n"
                                      "typedef float2 vT;\n"
                                      "#define VLOAD(p) vload2(0, (p))\n"
                                      "#define VSTORE(v, p) vstore2((v), 0, (p))\n"
                                      "#else\n"
                                      "typedef float4 vT;\n"
                                      "#define VLOAD(p) vload4(0, (p))\n"
                                      "#define VSTORE(v, p) vstore4((v), 0, (p))\n"
                                      "#endif\n"
                                      "#define WNV (WN / VEC)\n"
                                      "\n"
                                      "static inline float velem(vT v, int i) {\n"
                                      "#if VEC == 1\n"
                                      "  return v;\n"
                                      "#else\n"
                                      "  float t[VEC];\n"
                                      "  VSTORE(v, t);\n"
                                      "  return t[i];\n"
                                      "#endif\n"
                                      "}\n"
                                      "\n";

static const char egpu_src_dot[] =
    "/* local=0 with vec > 1: dot products along k on a transposed copy of B,\n"
    " * vectors along k, so every item streams rows of A and of Bt contiguously\n"
    " * (what a CPU device's caches and prefetchers want). */\n"
    "#if !LOCAL && VEC > 1\n"
    "__kernel __attribute__((reqd_work_group_size(WGX, WGY, 1)))\n"
    "void egpu_sgemm(const int M, const int N, const int K,\n"
    "                __global const float *restrict A, __global const float *restrict B,\n"
    "                __global float *restrict C, __global const float *restrict Bt) {\n"
    "  const int tx = get_local_id(0), ty = get_local_id(1);\n"
    "  const int row0 = get_group_id(1) * TM + ty;\n"
    "  const int col0 = get_group_id(0) * TN + tx;\n"
    "  int arow[WM], brow[WN];\n"
    "  vT acc[WM][WN];\n"
    "  for (int i = 0; i < WM; ++i)\n"
    "    arow[i] = min(row0 + i * WGY, M - 1) * K;\n"
    "  for (int j = 0; j < WN; ++j)\n"
    "    brow[j] = min(col0 + j * WGX, N - 1) * K;\n"
    "  for (int i = 0; i < WM; ++i)\n"
    "    for (int j = 0; j < WN; ++j)\n"
    "      acc[i][j] = (vT)(0.0f);\n"
    "  int k = 0;\n"
    "  for (; k + VEC * TK <= K; k += VEC * TK) {\n"
    "    for (int kk = 0; kk < VEC * TK; kk += VEC) {\n"
    "      vT a[WM], b[WN];\n"
    "      for (int i = 0; i < WM; ++i)\n"
    "        a[i] = VLOAD(&A[arow[i] + k + kk]);\n"
    "      for (int j = 0; j < WN; ++j)\n"
    "        b[j] = VLOAD(&Bt[brow[j] + k + kk]);\n"
    "      for (int i = 0; i < WM; ++i)\n"
    "        for (int j = 0; j < WN; ++j)\n"
    "          acc[i][j] = mad(a[i], b[j], acc[i][j]);\n"
    "    }\n"
    "  }\n"
    "  for (; k + VEC <= K; k += VEC) {\n"
    "    vT a[WM], b[WN];\n"
    "    for (int i = 0; i < WM; ++i)\n"
    "      a[i] = VLOAD(&A[arow[i] + k]);\n"
    "    for (int j = 0; j < WN; ++j)\n"
    "      b[j] = VLOAD(&Bt[brow[j] + k]);\n"
    "    for (int i = 0; i < WM; ++i)\n"
    "      for (int j = 0; j < WN; ++j)\n"
    "        acc[i][j] = mad(a[i], b[j], acc[i][j]);\n"
    "  }\n"
    "  float sum[WM][WN];\n"
    "  for (int i = 0; i < WM; ++i)\n"
    "    for (int j = 0; j < WN; ++j) {\n"
    "      float t = 0.0f;\n"
    "      for (int v = 0; v < VEC; ++v)\n"
    "        t += velem(acc[i][j], v);\n"
    "      sum[i][j] = t;\n"
    "    }\n"
    "  for (; k < K; ++k)\n"
    "    for (int i = 0; i < WM; ++i)\n"
    "      for (int j = 0; j < WN; ++j)\n"
    "        sum[i][j] = mad(A[arow[i] + k], Bt[brow[j] + k], sum[i][j]);\n"
    "  for (int i = 0; i < WM; ++i) {\n"
    "    const int r = row0 + i * WGY;\n"
    "    if (r >= M)\n"
    "      continue;\n"
    "    for (int j = 0; j < WN; ++j) {\n"
    "      const int c = col0 + j * WGX;\n"
    "      if (c < N)\n"
    "        C[r * N + c] = sum[i][j];\n"
    "    }\n"
    "  }\n"
    "}\n"
    "#else\n";

static const char egpu_src_head[] =
    "__kernel __attribute__((reqd_work_group_size(WGX, WGY, 1)))\n"
    "void egpu_sgemm(const int M, const int N, const int K,\n"
    "                __global const float *restrict A, __global const float *restrict B,\n"
    "                __global float *restrict C, __global const float *restrict Bt) {\n"
    "  const int tx = get_local_id(0), ty = get_local_id(1);\n"
    "  const int row0 = get_group_id(1) * TM + ty;\n"
    "  const int col0 = get_group_id(0) * TN + tx * VEC;\n"
    "  vT acc[WM][WNV];\n"
    "  for (int i = 0; i < WM; ++i)\n"
    "    for (int g = 0; g < WNV; ++g)\n"
    "      acc[i][g] = (vT)(0.0f);\n";

static const char egpu_src_classic[] =
    "#if LOCAL\n"
    "  __local float As[TK][TM + 1];\n"
    "  __local float Bs[TK][TN];\n"
    "  const int tid = ty * WGX + tx;\n"
    "  const int trow = get_group_id(1) * TM, tcol = get_group_id(0) * TN;\n"
    "  for (int k0 = 0; k0 < K; k0 += TK) {\n"
    "    for (int i = tid; i < TM * TK; i += WGX * WGY) {\n"
    "      const int r = i / TK, c = i - r * TK;\n"
    "      const int gr = trow + r, gc = k0 + c;\n"
    "      As[c][r] = (gr < M && gc < K) ? A[gr * K + gc] : 0.0f;\n"
    "    }\n"
    "    for (int i = tid; i < TK * TN; i += WGX * WGY) {\n"
    "      const int r = i / TN, c = i - r * TN;\n"
    "      const int gr = k0 + r, gc = tcol + c;\n"
    "      Bs[r][c] = (gr < K && gc < N) ? B[gr * N + gc] : 0.0f;\n"
    "    }\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    for (int k = 0; k < TK; ++k) {\n"
    "      float a[WM];\n"
    "      vT b[WNV];\n"
    "      for (int i = 0; i < WM; ++i)\n"
    "        a[i] = As[k][ty + i * WGY];\n"
    "      for (int g = 0; g < WNV; ++g)\n"
    "        b[g] = VLOAD(&Bs[k][(tx + g * WGX) * VEC]);\n"
    "      for (int i = 0; i < WM; ++i)\n"
    "        for (int g = 0; g < WNV; ++g)\n"
    "          acc[i][g] += a[i] * b[g];\n"
    "    }\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "#else\n"
    "  /* Direct loads (this form has VEC == 1); rows and columns past the edge\n"
    "   * are clamped (their results are never stored), so the inner loop has no\n"
    "   * branch. */\n"
    "  int arow[WM], bcol[WN];\n"
    "  for (int i = 0; i < WM; ++i)\n"
    "    arow[i] = min(row0 + i * WGY, M - 1) * K;\n"
    "  for (int g = 0; g < WN; ++g)\n"
    "    bcol[g] = min(col0 + g * WGX, N - 1);\n"
    "  int k = 0;\n"
    "  for (; k + TK <= K; k += TK) {\n"
    "    for (int kk = 0; kk < TK; ++kk) {\n"
    "      float b[WN];\n"
    "      for (int g = 0; g < WN; ++g)\n"
    "        b[g] = B[(k + kk) * N + bcol[g]];\n"
    "      for (int i = 0; i < WM; ++i) {\n"
    "        const float a = A[arow[i] + k + kk];\n"
    "        for (int g = 0; g < WN; ++g)\n"
    "          acc[i][g] = mad(a, b[g], acc[i][g]);\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "  for (; k < K; ++k) {\n"
    "    float b[WN];\n"
    "    for (int g = 0; g < WN; ++g)\n"
    "      b[g] = B[k * N + bcol[g]];\n"
    "    for (int i = 0; i < WM; ++i) {\n"
    "      const float a = A[arow[i] + k];\n"
    "      for (int g = 0; g < WN; ++g)\n"
    "        acc[i][g] = mad(a, b[g], acc[i][g]);\n"
    "    }\n"
    "  }\n"
    "#endif\n"
    "  for (int i = 0; i < WM; ++i) {\n"
    "    const int r = row0 + i * WGY;\n"
    "    if (r >= M)\n"
    "      continue;\n"
    "    for (int g = 0; g < WNV; ++g) {\n"
    "      const int c = col0 + g * WGX * VEC;\n"
    "      if (c + VEC <= N) {\n"
    "        VSTORE(acc[i][g], &C[r * N + c]);\n"
    "      } else {\n"
    "        for (int v = 0; v < VEC; ++v)\n"
    "          if (c + v < N)\n"
    "            C[r * N + c + v] = velem(acc[i][g], v);\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "}\n";

static const char egpu_src_transpose[] =
    "#endif\n"
    "\n"
    "/* Bt = B transposed (n x k); items along k write contiguously. */\n"
    "__kernel void egpu_transpose(const int N, const int K, __global const float *restrict B,\n"
    "                             __global float *restrict Bt) {\n"
    "  const int k = get_global_id(0), c = get_global_id(1);\n"
    "  if (k < K && c < N)\n"
    "    Bt[c * K + k] = B[k * N + c];\n"
    "}\n";

/* Split into pieces: ISO C compilers need not take longer string literals. */
#define EGPU_SOURCE_PARTS 5u
static const char *const egpu_kernel_source[EGPU_SOURCE_PARTS] = {
    egpu_src_common, egpu_src_dot, egpu_src_head, egpu_src_classic, egpu_src_transpose};

/* ---- program cache ----------------------------------------------------- */

void egpu_programs_free(egpu_instance *inst) {
  egpu_program *p = inst->programs, *next;
  for (; p != NULL; p = next) {
    next = p->next;
    if (p->kernel != NULL)
      clReleaseKernel(p->kernel);
    if (p->transpose != NULL)
      clReleaseKernel(p->transpose);
    if (p->program != NULL)
      clReleaseProgram(p->program);
    free(p);
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

static int32_t build_program(egpu_instance *inst, const egpu_policy *pol, egpu_program **out) {
  const char *src[EGPU_SOURCE_PARTS];
  cl_uint i;
  char options[256], line[160];
  egpu_program *p;
  cl_int err = CL_SUCCESS;
  size_t wg = 0;
  int32_t rc = OLC_PLUGIN_OK;
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
    goto done;
  }
  err = clBuildProgram(p->program, 1, &inst->device, options, NULL, NULL);
  if (err != CL_SUCCESS) {
    build_log_line(inst, p->program, line, sizeof line);
    rc = egpu_fail(inst->host, OLC_PLUGIN_E_FAILED, "kernel build failed (%d): %s", (int)err, line);
    goto done;
  }
  p->kernel = clCreateKernel(p->program, "egpu_sgemm", &err);
  if (p->kernel != NULL && !pol->local && pol->vec > 1)
    p->transpose = clCreateKernel(p->program, "egpu_transpose", &err);
  if (p->kernel == NULL || (!pol->local && pol->vec > 1 && p->transpose == NULL)) {
    rc = egpu_fail(inst->host, OLC_PLUGIN_E_FAILED, "clCreateKernel failed (%d)", (int)err);
    goto done;
  }
  /* A kernel can allow less than the device maximum (registers, local memory). */
  if (clGetKernelWorkGroupInfo(p->kernel, inst->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg,
                               NULL) == CL_SUCCESS &&
      wg < (size_t)pol->wgx * pol->wgy) {
    rc = egpu_fail(inst->host, OLC_PLUGIN_E_INVALID,
                   "policy needs a work-group of %u items, the compiled kernel "
                   "allows %llu on this device",
                   pol->wgx * pol->wgy, (unsigned long long)wg);
    goto done;
  }
done:
  if (rc != OLC_PLUGIN_OK) {
    if (p->kernel != NULL)
      clReleaseKernel(p->kernel);
    if (p->transpose != NULL)
      clReleaseKernel(p->transpose);
    if (p->program != NULL)
      clReleaseProgram(p->program);
    free(p);
    return rc;
  }
  *out = p;
  return OLC_PLUGIN_OK;
}

static int32_t find_program(egpu_instance *inst, const egpu_policy *pol, egpu_program **out) {
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

/* Bt = transpose(B), into a scratch buffer made on first use. */
static cl_int enqueue_transpose(egpu_instance *inst, egpu_state *s, const egpu_program *prog) {
  cl_int n = (cl_int)s->shape.n, k = (cl_int)s->shape.k, err = CL_SUCCESS;
  size_t global[2];
  if (s->bt == NULL) {
    s->bt = clCreateBuffer(inst->context, CL_MEM_READ_WRITE,
                           (size_t)s->shape.k * s->shape.n * sizeof(float), NULL, &err);
    if (s->bt == NULL)
      return err;
  }
  global[0] = s->shape.k;
  global[1] = s->shape.n;
  err = clSetKernelArg(prog->transpose, 0, sizeof n, &n);
  err |= clSetKernelArg(prog->transpose, 1, sizeof k, &k);
  err |= clSetKernelArg(prog->transpose, 2, sizeof(cl_mem), &s->b);
  err |= clSetKernelArg(prog->transpose, 3, sizeof(cl_mem), &s->bt);
  if (err != CL_SUCCESS)
    return err;
  return clEnqueueNDRangeKernel(inst->queue, prog->transpose, 2, NULL, global, NULL, 0, NULL, NULL);
}

static int32_t run_prepared(egpu_instance *inst, egpu_state *s, const egpu_policy *pol) {
  egpu_program *prog;
  cl_int m = (cl_int)s->shape.m, n = (cl_int)s->shape.n, k = (cl_int)s->shape.k, err;
  size_t local[2], global[2];
  int32_t rc = find_program(inst, pol, &prog);
  if (rc != OLC_PLUGIN_OK)
    return rc;
  /* The transpose is part of the timed run, as a peer's packing would be. */
  if (prog->transpose != NULL) {
    err = enqueue_transpose(inst, s, prog);
    if (err != CL_SUCCESS)
      return egpu_fail(inst->host, OLC_PLUGIN_E_FAILED, "transpose failed (%d)", (int)err);
  }
  local[0] = pol->wgx;
  local[1] = pol->wgy;
  global[0] = (size_t)((s->shape.n + pol->tn - 1) / pol->tn) * pol->wgx;
  global[1] = (size_t)((s->shape.m + pol->tm - 1) / pol->tm) * pol->wgy;
  err = clSetKernelArg(prog->kernel, 0, sizeof m, &m);
  err |= clSetKernelArg(prog->kernel, 1, sizeof n, &n);
  err |= clSetKernelArg(prog->kernel, 2, sizeof k, &k);
  err |= clSetKernelArg(prog->kernel, 3, sizeof(cl_mem), &s->a);
  err |= clSetKernelArg(prog->kernel, 4, sizeof(cl_mem), &s->b);
  err |= clSetKernelArg(prog->kernel, 5, sizeof(cl_mem), &s->c);
  err |= clSetKernelArg(prog->kernel, 6, sizeof(cl_mem), prog->transpose != NULL ? &s->bt : &s->b);
  if (err != CL_SUCCESS)
    return egpu_fail(inst->host, OLC_PLUGIN_E_FAILED, "clSetKernelArg failed");
  err = clEnqueueNDRangeKernel(inst->queue, prog->kernel, 2, NULL, global, local, 0, NULL, NULL);
  if (err == CL_SUCCESS)
    err = clFinish(inst->queue);
  if (err != CL_SUCCESS)
    return egpu_fail(inst->host, OLC_PLUGIN_E_FAILED, "kernel launch failed (%d)", (int)err);
  return OLC_PLUGIN_OK;
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
