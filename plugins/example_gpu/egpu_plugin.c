/*
 * egpu_plugin.c - the example_gpu plugin table: entry point, device choice,
 * processor identity, key and flops.
 *
 * The plugin reaches the device only through the OpenCL 1.2 ICD loader and
 * contains no file-system code of its own (persistence is the host's).
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "egpu.h"

int32_t egpu_fail(const olc_plugin_host *host, int32_t code, const char *fmt, ...) {
  char msg[EGPU_MESSAGE_SIZE];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (host != NULL && host->set_error != NULL)
    host->set_error(host->ctx, code, msg);
  return code;
}

void egpu_log(const olc_plugin_host *host, int32_t level, const char *fmt, ...) {
  char msg[EGPU_MESSAGE_SIZE];
  va_list ap;
  if (host == NULL || host->log == NULL)
    return;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  host->log(host->ctx, level, msg);
}

/* ---- workload ---------------------------------------------------------- */

/* Strict decimal: digits only, no sign, no leading zero, 1..EGPU_MAX_DIM. */
static int parse_dim(const char *s, uint32_t *out) {
  uint32_t v = 0;
  size_t i;
  if (s == NULL || s[0] == '\0' || (s[0] == '0') || strlen(s) > 6)
    return -1;
  for (i = 0; s[i] != '\0'; i++) {
    if (s[i] < '0' || s[i] > '9')
      return -1;
    v = v * 10u + (uint32_t)(s[i] - '0');
  }
  if (v > EGPU_MAX_DIM)
    return -1;
  *out = v;
  return 0;
}

/* "2x1x3": batch dims as written, each a strict decimal; "" is none. */
static int parse_batch(const char *s, egpu_batch *out) {
  char piece[8];
  size_t len;
  const char *x;
  out->rank = 0;
  if (s[0] == '\0')
    return 0;
  for (;;) {
    x = strchr(s, 'x');
    len = x != NULL ? (size_t)(x - s) : strlen(s);
    if (len == 0 || len >= sizeof piece || out->rank == EGPU_MAX_BATCH_RANK)
      return -1;
    memcpy(piece, s, len);
    piece[len] = '\0';
    if (parse_dim(piece, &out->dims[out->rank]) != 0)
      return -1;
    out->rank++;
    if (x == NULL)
      return 0;
    s = x + 1;
  }
}

static uint64_t batch_count(const egpu_batch *b) {
  uint64_t n = 1;
  uint32_t i;
  for (i = 0; i < b->rank; i++)
    n *= b->dims[i];
  return n;
}

int egpu_batch_broadcast(const egpu_batch *a, const egpu_batch *b, egpu_batch *out) {
  uint32_t r = a->rank > b->rank ? a->rank : b->rank, i;
  if (r > EGPU_MAX_BATCH_RANK)
    return -1;
  for (i = 0; i < r; i++) {
    /* Right-aligned: position i of the result is a's i - (r - a->rank). */
    uint32_t da = i + a->rank >= r ? a->dims[i + a->rank - r] : 1u;
    uint32_t db = i + b->rank >= r ? b->dims[i + b->rank - r] : 1u;
    if (da != db && da != 1u && db != 1u)
      return -1;
    out->dims[i] = da != 1u ? da : db;
  }
  out->rank = r;
  return 0;
}

uint64_t egpu_batch_offset(const egpu_batch *y, const egpu_batch *x, const int64_t *st,
                           uint64_t index) {
  uint64_t off = 0;
  uint32_t i = y->rank, lead = y->rank - x->rank;
  while (i-- > 0) {
    uint64_t idx = index % y->dims[i];
    index /= y->dims[i];
    if (i >= lead && x->dims[i - lead] != 1u)
      off += idx * (uint64_t)st[i - lead];
  }
  return off;
}

static const char *const egpu_bias_names[] = {"none", "scalar", "row", "col", "matrix"};

/* One recognized workload property: which field it sets. */
enum {
  P_DTYPE,
  P_DTYPE_B,
  P_M,
  P_N,
  P_K,
  P_TRANS_A,
  P_TRANS_B,
  P_BATCH_A,
  P_BATCH_B,
  P_BIAS,
  P_N_
};
static const char *const egpu_property_names[P_N_] = {
    "dtype", "dtype_b", "m", "n", "k", "trans_a", "trans_b", "batch_a", "batch_b", "bias"};

/* The values of the recognized properties (NULL when absent). */
typedef struct workload_values {
  const char *v[P_N_];
} workload_values;

static int32_t collect_properties(const egpu_instance *inst, const olc_plugin_workload *w,
                                  const char *name, workload_values *out) {
  uint32_t i;
  int p;
  memset(out, 0, sizeof *out);
  for (i = 0; w->properties != NULL && i < w->property_count; i++) {
    const char *key = w->properties[i].key, *value = w->properties[i].value;
    if (key == NULL || value == NULL)
      return egpu_fail(inst->host, OLC_PLUGIN_E_INVALID, "workload %s: property %u has no %s", name,
                       (unsigned)i, key == NULL ? "name" : "value");
    for (p = 0; p < P_N_ && strcmp(key, egpu_property_names[p]) != 0; p++)
      ;
    /* A property this plugin does not read would change nothing it does:
     * refused, so that no workload is keyed without it. */
    if (p == P_N_)
      return egpu_fail(inst->host, OLC_PLUGIN_E_UNSUPPORTED,
                       "workload %s: property %s is not served (known: dtype, m, n, k, trans_a, "
                       "trans_b, batch_a, batch_b, bias, dtype_b)",
                       name, key);
    if (out->v[p] != NULL)
      return egpu_fail(inst->host, OLC_PLUGIN_E_INVALID, "workload %s: property %s given twice",
                       name, key);
    out->v[p] = value;
  }
  return OLC_PLUGIN_OK;
}

static int32_t parse_flag(const egpu_instance *inst, const char *name, const char *prop,
                          const char *value, uint32_t *out) {
  *out = 0;
  if (value == NULL)
    return OLC_PLUGIN_OK;
  if (strcmp(value, "0") != 0 && strcmp(value, "1") != 0)
    return egpu_fail(inst->host, OLC_PLUGIN_E_INVALID, "workload %s: property %s=%s is not 0 or 1",
                     name, prop, value);
  *out = value[0] == '1';
  return OLC_PLUGIN_OK;
}

/* Operator, dtype and the layout properties; m, n, k come after. */
static int32_t parse_layout(const egpu_instance *inst, const olc_plugin_workload *w,
                            const char *name, const workload_values *pv, egpu_layout *l) {
  const char *dtype = pv->v[P_DTYPE];
  uint32_t i;
  int32_t rc;
  l->gemm = strcmp(w->operator_name, EGPU_GEMM) == 0;
  if (dtype == NULL || strcmp(dtype, EGPU_DTYPE) != 0)
    return egpu_fail(inst->host, OLC_PLUGIN_E_UNSUPPORTED,
                     "workload %s: dtype %s is not served (only float32; float16 and bfloat16 "
                     "are not implemented)",
                     name, dtype != NULL ? dtype : "(missing)");
  if (pv->v[P_DTYPE_B] != NULL && strcmp(pv->v[P_DTYPE_B], dtype) != 0)
    return egpu_fail(inst->host, OLC_PLUGIN_E_UNSUPPORTED,
                     "workload %s: dtype_b %s is not served (B of another dtype than A is not "
                     "implemented)",
                     name, pv->v[P_DTYPE_B]);
  if ((rc = parse_flag(inst, name, "trans_a", pv->v[P_TRANS_A], &l->trans_a)) != OLC_PLUGIN_OK ||
      (rc = parse_flag(inst, name, "trans_b", pv->v[P_TRANS_B], &l->trans_b)) != OLC_PLUGIN_OK)
    return rc;
  if (pv->v[P_BIAS] != NULL) {
    if (!l->gemm)
      return egpu_fail(inst->host, OLC_PLUGIN_E_INVALID,
                       "workload %s: property bias is Gemm's (MatMul has no bias)", name);
    for (i = 0; i < 5 && strcmp(pv->v[P_BIAS], egpu_bias_names[i]) != 0; i++)
      ;
    if (i == 5)
      return egpu_fail(inst->host, OLC_PLUGIN_E_INVALID,
                       "workload %s: property bias=%s is not none, scalar, row, col or matrix",
                       name, pv->v[P_BIAS]);
    l->bias = i;
  }
  for (i = 0; i < 2; i++) {
    const char *prop = i == 0 ? "batch_a" : "batch_b", *v = pv->v[i == 0 ? P_BATCH_A : P_BATCH_B];
    egpu_batch *b = i == 0 ? &l->batch_a : &l->batch_b;
    if (v == NULL)
      continue;
    if (l->gemm)
      return egpu_fail(inst->host, OLC_PLUGIN_E_INVALID,
                       "workload %s: property %s is MatMul's (Gemm's operands are matrices)", name,
                       prop);
    if (parse_batch(v, b) != 0)
      return egpu_fail(inst->host, OLC_PLUGIN_E_INVALID,
                       "workload %s: property %s=%s is not dimensions like 2x1 (at most %u, each "
                       "in 1..%u)",
                       name, prop, v, EGPU_MAX_BATCH_RANK, EGPU_MAX_DIM);
  }
  if (egpu_batch_broadcast(&l->batch_a, &l->batch_b, &l->batch_y) != 0)
    return egpu_fail(inst->host, OLC_PLUGIN_E_INVALID,
                     "workload %s: batch_a=%s and batch_b=%s do not broadcast", name,
                     pv->v[P_BATCH_A] != NULL ? pv->v[P_BATCH_A] : "",
                     pv->v[P_BATCH_B] != NULL ? pv->v[P_BATCH_B] : "");
  if (batch_count(&l->batch_a) > EGPU_MAX_BATCH || batch_count(&l->batch_b) > EGPU_MAX_BATCH ||
      batch_count(&l->batch_y) > EGPU_MAX_BATCH)
    return egpu_fail(inst->host, OLC_PLUGIN_E_UNSUPPORTED,
                     "workload %s: more than %u products in a batch", name, EGPU_MAX_BATCH);
  l->count_a = (uint32_t)batch_count(&l->batch_a);
  l->count_b = (uint32_t)batch_count(&l->batch_b);
  l->count_y = (uint32_t)batch_count(&l->batch_y);
  return OLC_PLUGIN_OK;
}

int32_t egpu_parse_workload(const egpu_instance *inst, const olc_plugin_workload *workload,
                            egpu_layout *layout) {
  static const char *const dims[3] = {"m", "n", "k"};
  workload_values pv;
  egpu_layout l;
  uint32_t v[3];
  const char *name;
  int32_t rc;
  int i;
  if (!OLC_PLUGIN_HAS_FIELD(workload, olc_plugin_workload, property_count))
    return egpu_fail(inst->host, OLC_PLUGIN_E_INVALID, "no workload given");
  name = workload->name != NULL ? workload->name : "(unnamed)";
  if (workload->operator_name == NULL || (strcmp(workload->operator_name, EGPU_MATMUL) != 0 &&
                                          strcmp(workload->operator_name, EGPU_GEMM) != 0))
    return egpu_fail(inst->host, OLC_PLUGIN_E_UNSUPPORTED,
                     "workload %s: operator %s is not served (only MatMul and Gemm)", name,
                     workload->operator_name != NULL ? workload->operator_name : "(none)");
  memset(&l, 0, sizeof l);
  if ((rc = collect_properties(inst, workload, name, &pv)) != OLC_PLUGIN_OK ||
      (rc = parse_layout(inst, workload, name, &pv, &l)) != OLC_PLUGIN_OK)
    return rc;
  for (i = 0; i < 3; i++) {
    const char *s = pv.v[P_M + i];
    if (parse_dim(s, &v[i]) != 0)
      return egpu_fail(inst->host, OLC_PLUGIN_E_INVALID,
                       "workload %s: property %s=%s is not an integer in 1..%u", name, dims[i],
                       s != NULL ? s : "(missing)", EGPU_MAX_DIM);
  }
  l.shape.m = v[0];
  l.shape.n = v[1];
  l.shape.k = v[2];
  /* Each matrix must fit one device allocation and keep its indices in a cl_int. */
  {
    uint64_t ma = (uint64_t)v[0] * v[2], mb = (uint64_t)v[2] * v[1], mc = (uint64_t)v[0] * v[1];
    uint64_t most = ma > mb ? (ma > mc ? ma : mc) : (mb > mc ? mb : mc);
    if (most > 0x7fffffffu || most * 4u > inst->limits.max_mem_alloc_size)
      return egpu_fail(inst->host, OLC_PLUGIN_E_UNSUPPORTED,
                       "workload %s: %ux%ux%u exceeds the device's largest "
                       "allocation (%llu bytes)",
                       name, v[0], v[1], v[2], (unsigned long long)inst->limits.max_mem_alloc_size);
  }
  *layout = l;
  return OLC_PLUGIN_OK;
}

/* The text of batch dims ("2x1"), as the key reports it. */
static void format_batch(const egpu_batch *b, char *buf, size_t size) {
  size_t pos = 0;
  uint32_t i;
  buf[0] = '\0';
  for (i = 0; i < b->rank && pos < size; i++) {
    int n = snprintf(buf + pos, size - pos, "%s%u", i > 0 ? "x" : "", b->dims[i]);
    if (n < 0)
      return;
    pos += (size_t)n;
  }
}

/* ---- device choice ----------------------------------------------------- */

static int ci_contains(const char *hay, const char *needle) {
  size_t i, j, hn = strlen(hay), nn = strlen(needle);
  if (nn == 0)
    return 1;
  for (i = 0; i + nn <= hn; i++) {
    for (j = 0; j < nn; j++)
      if (tolower((unsigned char)hay[i + j]) != tolower((unsigned char)needle[j]))
        break;
    if (j == nn)
      return 1;
  }
  return 0;
}

/* A selector is an index (digits only) or a case-insensitive name substring. */
static int selector_index(const char *sel, cl_uint *index) {
  unsigned long v;
  char *end;
  if (sel == NULL || sel[0] < '0' || sel[0] > '9')
    return 0;
  v = strtoul(sel, &end, 10);
  if (*end != '\0' || v > 0xffffu)
    return 0;
  *index = (cl_uint)v;
  return 1;
}

static void cl_string(cl_device_id dev, cl_platform_id plat, cl_uint param, char *buf,
                      size_t size) {
  cl_int rc;
  buf[0] = '\0';
  if (dev != NULL)
    rc = clGetDeviceInfo(dev, param, size, buf, NULL);
  else
    rc = clGetPlatformInfo(plat, param, size, buf, NULL);
  if (rc != CL_SUCCESS)
    snprintf(buf, size, "?");
  buf[size - 1] = '\0';
}

#define EGPU_MAX_PLATFORMS 16
#define EGPU_MAX_DEVICES 64

typedef struct device_choice {
  cl_platform_id platforms[EGPU_MAX_DEVICES];
  cl_device_id devices[EGPU_MAX_DEVICES];
  cl_uint count;
} device_choice;

static int32_t list_devices(const olc_plugin_host *host, const char *platform_sel,
                            device_choice *dc) {
  cl_platform_id plats[EGPU_MAX_PLATFORMS];
  cl_uint nplat = 0, p, index = 0;
  int by_index;
  cl_int rc = clGetPlatformIDs(EGPU_MAX_PLATFORMS, plats, &nplat);
  if (rc != CL_SUCCESS || nplat == 0)
    return egpu_fail(host, OLC_PLUGIN_E_UNAVAILABLE,
                     "no opencl platform here (clGetPlatformIDs: %d)", (int)rc);
  if (nplat > EGPU_MAX_PLATFORMS)
    nplat = EGPU_MAX_PLATFORMS;
  by_index = selector_index(platform_sel, &index);
  dc->count = 0;
  for (p = 0; p < nplat; p++) {
    cl_uint ndev = 0, d;
    cl_device_id devs[EGPU_MAX_DEVICES];
    if (platform_sel != NULL) {
      char name[256];
      cl_string(NULL, plats[p], CL_PLATFORM_NAME, name, sizeof name);
      if (by_index ? p != index : !ci_contains(name, platform_sel))
        continue;
    }
    if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, EGPU_MAX_DEVICES, devs, &ndev) != CL_SUCCESS)
      continue;
    for (d = 0; d < ndev && d < EGPU_MAX_DEVICES && dc->count < EGPU_MAX_DEVICES; d++) {
      dc->platforms[dc->count] = plats[p];
      dc->devices[dc->count++] = devs[d];
    }
  }
  if (dc->count == 0) {
    if (platform_sel != NULL)
      return egpu_fail(host, OLC_PLUGIN_E_UNAVAILABLE,
                       "no opencl device on a platform matching \"%s\"", platform_sel);
    return egpu_fail(host, OLC_PLUGIN_E_UNAVAILABLE, "no opencl device here");
  }
  return OLC_PLUGIN_OK;
}

static int32_t choose_device(egpu_instance *inst, const char *platform_sel,
                             const char *device_sel) {
  device_choice dc;
  cl_uint i, index = 0, chosen = 0;
  int32_t rc = list_devices(inst->host, platform_sel, &dc);
  if (rc != OLC_PLUGIN_OK)
    return rc;
  if (device_sel != NULL && selector_index(device_sel, &index)) {
    if (index >= dc.count)
      return egpu_fail(inst->host, OLC_PLUGIN_E_UNAVAILABLE,
                       "device %u requested but only %u found", index, dc.count);
    chosen = index;
  } else if (device_sel != NULL) {
    for (i = 0; i < dc.count; i++) {
      char name[256];
      cl_string(dc.devices[i], NULL, CL_DEVICE_NAME, name, sizeof name);
      if (ci_contains(name, device_sel))
        break;
    }
    if (i == dc.count)
      return egpu_fail(inst->host, OLC_PLUGIN_E_UNAVAILABLE, "no opencl device matching \"%s\"",
                       device_sel);
    chosen = i;
  } else {
    /* Default: the first GPU, else the first device. */
    for (i = 0; i < dc.count; i++) {
      cl_device_type t = 0;
      if (clGetDeviceInfo(dc.devices[i], CL_DEVICE_TYPE, sizeof t, &t, NULL) == CL_SUCCESS &&
          (t & CL_DEVICE_TYPE_GPU) != 0)
        break;
    }
    chosen = i < dc.count ? i : 0;
  }
  inst->platform = dc.platforms[chosen];
  inst->device = dc.devices[chosen];
  return OLC_PLUGIN_OK;
}

/* ---- processor identity ------------------------------------------------ */

/* Appends name="value" with value trimmed, quotes and backslashes escaped and
 * anything outside printable ASCII replaced, so the identity is one stable line. */
static void append_field(char *buf, size_t size, size_t *pos, const char *name, const char *value) {
  size_t end = strlen(value), start = 0;
  int n;
  while (start < end && isspace((unsigned char)value[start]))
    start++;
  while (end > start && isspace((unsigned char)value[end - 1]))
    end--;
  n = snprintf(buf + *pos, size - *pos, "%s%s=\"", *pos > 0 ? ";" : "", name);
  if (n < 0 || (size_t)n >= size - *pos)
    return;
  *pos += (size_t)n;
  for (; start < end && *pos + 3 < size; start++) {
    unsigned char c = (unsigned char)value[start];
    if (c == '"' || c == '\\')
      buf[(*pos)++] = '\\';
    buf[(*pos)++] = (c < 0x20 || c > 0x7e) ? '?' : (char)c;
  }
  if (*pos + 1 < size)
    buf[(*pos)++] = '"';
  buf[*pos] = '\0';
}

static int32_t read_device(egpu_instance *inst) {
  egpu_limits *l = &inst->limits;
  char s[256];
  char *p = inst->processor;
  size_t size = sizeof inst->processor, pos = 0;
  cl_ulong cache = 0;
  cl_uint line = 0;
  int n;
  cl_int rc = clGetDeviceInfo(inst->device, CL_DEVICE_MAX_WORK_GROUP_SIZE,
                              sizeof l->max_work_group_size, &l->max_work_group_size, NULL);
  rc |= clGetDeviceInfo(inst->device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof l->max_work_item_sizes,
                        l->max_work_item_sizes, NULL);
  rc |= clGetDeviceInfo(inst->device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof l->local_mem_size,
                        &l->local_mem_size, NULL);
  rc |= clGetDeviceInfo(inst->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof l->max_mem_alloc_size,
                        &l->max_mem_alloc_size, NULL);
  rc |= clGetDeviceInfo(inst->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof l->compute_units,
                        &l->compute_units, NULL);
  rc |= clGetDeviceInfo(inst->device, CL_DEVICE_TYPE, sizeof l->type, &l->type, NULL);
  rc |= clGetDeviceInfo(inst->device, CL_DEVICE_LOCAL_MEM_TYPE, sizeof l->local_mem_type,
                        &l->local_mem_type, NULL);
  rc |= clGetDeviceInfo(inst->device, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, sizeof cache, &cache, NULL);
  rc |=
      clGetDeviceInfo(inst->device, CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE, sizeof line, &line, NULL);
  if (rc != CL_SUCCESS)
    return egpu_fail(inst->host, OLC_PLUGIN_E_UNAVAILABLE, "cannot query the opencl device");
  cl_string(NULL, inst->platform, CL_PLATFORM_NAME, s, sizeof s);
  append_field(p, size, &pos, "platform", s);
  cl_string(NULL, inst->platform, CL_PLATFORM_VERSION, s, sizeof s);
  append_field(p, size, &pos, "platform_version", s);
  cl_string(inst->device, NULL, CL_DEVICE_NAME, s, sizeof s);
  append_field(p, size, &pos, "device", s);
  memcpy(inst->device_name, s, sizeof inst->device_name - 1);
  inst->device_name[sizeof inst->device_name - 1] = '\0';
  cl_string(inst->device, NULL, CL_DEVICE_VENDOR, s, sizeof s);
  append_field(p, size, &pos, "vendor", s);
  cl_string(inst->device, NULL, CL_DRIVER_VERSION, s, sizeof s);
  append_field(p, size, &pos, "driver", s);
  n = snprintf(p + pos, size - pos,
               ";compute_units=%u;max_work_group_size=%llu;local_mem=%llu;global_cache=%llu;"
               "global_cacheline=%u",
               (unsigned)l->compute_units, (unsigned long long)l->max_work_group_size,
               (unsigned long long)l->local_mem_size, (unsigned long long)cache, (unsigned)line);
  if (n < 0 || (size_t)n >= size - pos)
    return egpu_fail(inst->host, OLC_PLUGIN_E_FAILED, "the processor identity is too long");
  return OLC_PLUGIN_OK;
}

/* ---- table functions --------------------------------------------------- */

static void egpu_destroy(void *instance) {
  egpu_instance *inst = instance;
  if (inst == NULL)
    return;
  egpu_programs_free(inst);
  if (inst->queue != NULL)
    clReleaseCommandQueue(inst->queue);
  if (inst->context != NULL)
    clReleaseContext(inst->context);
  if (inst->lock_ready)
    pthread_mutex_destroy(&inst->lock);
  free(inst);
}

static int32_t egpu_create(const olc_plugin_host *host, const olc_plugin_kv *config,
                           uint32_t config_count, uint32_t thread_count, void **instance) {
  const char *platform_sel = NULL, *device_sel = NULL;
  egpu_instance *inst;
  cl_int err = CL_SUCCESS;
  int32_t rc;
  uint32_t i;
  (void)thread_count; /* the device decides its own parallelism */
  if (instance == NULL)
    return egpu_fail(host, OLC_PLUGIN_E_INVALID, "create: no instance pointer");
  *instance = NULL;
  for (i = 0; config != NULL && i < config_count; i++) {
    if (config[i].key == NULL || config[i].value == NULL)
      continue;
    if (strcmp(config[i].key, "platform") == 0)
      platform_sel = config[i].value;
    else if (strcmp(config[i].key, "device") == 0)
      device_sel = config[i].value;
    else
      egpu_log(host, OLC_PLUGIN_LOG_DEBUG, "ignoring config key %s", config[i].key);
  }
  inst = calloc(1, sizeof *inst);
  if (inst == NULL)
    return egpu_fail(host, OLC_PLUGIN_E_NOMEM, "out of memory");
  inst->host = host;
  if (pthread_mutex_init(&inst->lock, NULL) != 0) {
    free(inst);
    return egpu_fail(host, OLC_PLUGIN_E_FAILED, "cannot initialize the instance's lock");
  }
  inst->lock_ready = 1;
  rc = choose_device(inst, platform_sel, device_sel);
  if (rc == OLC_PLUGIN_OK)
    rc = read_device(inst);
  if (rc == OLC_PLUGIN_OK) {
    inst->context = clCreateContext(NULL, 1, &inst->device, NULL, NULL, &err);
    if (inst->context != NULL)
      inst->queue = clCreateCommandQueue(inst->context, inst->device, 0, &err);
    if (inst->queue == NULL)
      rc = egpu_fail(host, OLC_PLUGIN_E_UNAVAILABLE, "cannot open opencl device %s (error %d)",
                     inst->device_name, (int)err);
  }
  if (rc != OLC_PLUGIN_OK) {
    egpu_destroy(inst);
    return rc;
  }
  egpu_log(host, OLC_PLUGIN_LOG_INFO, "using opencl device %s", inst->device_name);
  *instance = inst;
  return OLC_PLUGIN_OK;
}

/*
 * The structure: dtype, m, n, k as always, then each layout property that
 * is not at its default (trans_a=1, trans_b=1, batch_a, batch_b, bias), so a
 * layout never shares a record with its plain twin.  A property given at
 * its default (trans_a=0, bias=none, an empty batch, dtype_b=dtype) is left
 * out, so that it keys like its absence (records stored before layouts
 * existed keep their identity), and declared to the host as read.
 */
static int32_t key_structure(const egpu_instance *inst, const olc_plugin_workload *workload,
                             const egpu_layout *l, const olc_plugin_key_sink *sink) {
  workload_values pv;
  const char *value[P_N_];
  int p, use = OLC_PLUGIN_HAS_FIELD(sink, olc_plugin_key_sink, use_property) &&
               sink->use_property != NULL;
  int32_t rc = collect_properties(inst, workload, "(key)", &pv);
  char dims[3][16], batch[2][64];
  if (rc != OLC_PLUGIN_OK)
    return rc;
  memset(value, 0, sizeof value);
  snprintf(dims[0], sizeof dims[0], "%u", l->shape.m);
  snprintf(dims[1], sizeof dims[1], "%u", l->shape.n);
  snprintf(dims[2], sizeof dims[2], "%u", l->shape.k);
  format_batch(&l->batch_a, batch[0], sizeof batch[0]);
  format_batch(&l->batch_b, batch[1], sizeof batch[1]);
  /* The order of the structure: the plain four first, then the layout. */
  value[P_DTYPE] = EGPU_DTYPE;
  value[P_M] = dims[0];
  value[P_N] = dims[1];
  value[P_K] = dims[2];
  value[P_TRANS_A] = l->trans_a ? "1" : NULL;
  value[P_TRANS_B] = l->trans_b ? "1" : NULL;
  value[P_BATCH_A] = l->batch_a.rank > 0 ? batch[0] : NULL;
  value[P_BATCH_B] = l->batch_b.rank > 0 ? batch[1] : NULL;
  value[P_BIAS] = l->bias != EGPU_BIAS_NONE ? egpu_bias_names[l->bias] : NULL;
  {
    static const int order[P_N_] = {P_DTYPE,   P_M,       P_N,       P_K,    P_TRANS_A,
                                    P_TRANS_B, P_BATCH_A, P_BATCH_B, P_BIAS, P_DTYPE_B};
    int i;
    for (i = 0; i < P_N_ && rc == OLC_PLUGIN_OK; i++) {
      p = order[i];
      if (value[p] != NULL)
        rc = sink->add_structure(sink->ctx, egpu_property_names[p], value[p]);
      else if (pv.v[p] != NULL && use) /* given at its default: read, not keyed */
        rc = sink->use_property(sink->ctx, egpu_property_names[p]);
    }
  }
  if (rc != OLC_PLUGIN_OK)
    return egpu_fail(inst->host, rc, "key: the host refused a field (%d)", (int)rc);
  return OLC_PLUGIN_OK;
}

static int32_t egpu_key(void *instance, const olc_plugin_workload *workload,
                        const olc_plugin_key_sink *sink) {
  egpu_instance *inst = instance;
  egpu_layout l;
  int32_t rc = egpu_parse_workload(inst, workload, &l);
  if (rc != OLC_PLUGIN_OK)
    return rc;
  if (!OLC_PLUGIN_HAS_FIELD(sink, olc_plugin_key_sink, add_structure) ||
      sink->set_processor == NULL || sink->set_thread_count == NULL || sink->add_structure == NULL)
    return egpu_fail(inst->host, OLC_PLUGIN_E_INVALID, "key: incomplete sink");
  /* One host thread drives the device, whatever thread count the host uses. */
  rc = sink->set_processor(sink->ctx, inst->processor);
  if (rc == OLC_PLUGIN_OK)
    rc = sink->set_thread_count(sink->ctx, 1);
  if (rc != OLC_PLUGIN_OK)
    return egpu_fail(inst->host, rc, "key: the host refused a field (%d)", (int)rc);
  return key_structure(inst, workload, &l, sink);
}

static int32_t egpu_flops(void *instance, const olc_plugin_workload *workload, double *flops) {
  egpu_layout l;
  int32_t rc = egpu_parse_workload(instance, workload, &l);
  if (rc == OLC_PLUGIN_OK)
    *flops = 2.0 * (double)l.shape.m * (double)l.shape.n * (double)l.shape.k * (double)l.count_y;
  return rc;
}

/* What prepare holds: every matrix of A and B, every output, the bias. */
static int32_t egpu_operand_bytes(void *instance, const olc_plugin_workload *workload,
                                  uint64_t *bytes) {
  egpu_layout l;
  uint64_t m, n, k, bias;
  int32_t rc = egpu_parse_workload(instance, workload, &l);
  if (rc != OLC_PLUGIN_OK)
    return rc;
  m = l.shape.m, n = l.shape.n, k = l.shape.k;
  bias = l.bias == EGPU_BIAS_SCALAR   ? 1u
         : l.bias == EGPU_BIAS_ROW    ? n
         : l.bias == EGPU_BIAS_COL    ? m
         : l.bias == EGPU_BIAS_MATRIX ? m * n
                                      : 0u;
  *bytes = sizeof(float) * (l.count_a * m * k + l.count_b * k * n + l.count_y * m * n + bias);
  return OLC_PLUGIN_OK;
}

static const char *const egpu_operators[] = {EGPU_MATMUL, EGPU_GEMM};

/* The numerical check (ABI 1.2): the tilings differ in summation order
 * only (and a device may contract to FMA): rounding differences.  Gemm's
 * epilogue (alpha, the bias) is the same kernel for every policy, so it
 * adds no difference between candidates: the same rows. */
static const olc_plugin_tolerance egpu_tolerances[] = {
    {.struct_size = sizeof(olc_plugin_tolerance),
     .abi_minor = OLC_PLUGIN_ABI_MINOR,
     .operator_name = EGPU_MATMUL,
     .dtype = OLC_PLUGIN_DTYPE_FLOAT32,
     .atol = 1e-3,
     .rtol = 1e-4},
    {.struct_size = sizeof(olc_plugin_tolerance),
     .abi_minor = OLC_PLUGIN_ABI_MINOR,
     .operator_name = EGPU_GEMM,
     .dtype = OLC_PLUGIN_DTYPE_FLOAT32,
     .atol = 1e-3,
     .rtol = 1e-4},
};

static const olc_plugin egpu_table = {
    .struct_size = sizeof(olc_plugin),
    .abi_minor = OLC_PLUGIN_ABI_MINOR,
    .abi_major = OLC_PLUGIN_ABI_MAJOR,
    .name = EGPU_NAME,
    .implementation_version = EGPU_IMPLEMENTATION,
    .description =
        "tiled OpenCL 1.2 SGEMM (MatMul with batches, Gemm with transposes and bias) whose "
        "policy is its tiling",
    .operators = egpu_operators,
    .operator_count = 2,
    .create = egpu_create,
    .destroy = egpu_destroy,
    .key = egpu_key,
    .candidates = egpu_candidates,
    .validate = egpu_validate,
    .serialize = egpu_serialize,
    .release_policy = egpu_release_policy,
    .run = egpu_run,
    .prepare = egpu_prepare,
    .unprepare = egpu_unprepare,
    .flops = egpu_flops,
    .execute = egpu_execute,
    .tolerances = egpu_tolerances,
    .tolerance_count = 2,
    .operand_bytes = egpu_operand_bytes,
    /* Views (ABI 1.3): execute reads any strides; no pack (constants are
     * read in place on every call). */
    .features = OLC_PLUGIN_FEATURE_VIEWS,
};

OLC_PLUGIN_EXPORT int32_t olc_plugin_entry(uint32_t host_abi_major, const olc_plugin_host *host,
                                           const olc_plugin **plugin);

OLC_PLUGIN_EXPORT int32_t olc_plugin_entry(uint32_t host_abi_major, const olc_plugin_host *host,
                                           const olc_plugin **plugin) {
  if (host_abi_major != OLC_PLUGIN_ABI_MAJOR)
    return OLC_PLUGIN_E_ABI;
  (void)host;
  if (plugin == NULL)
    return OLC_PLUGIN_E_INVALID;
  *plugin = &egpu_table;
  return OLC_PLUGIN_OK;
}
