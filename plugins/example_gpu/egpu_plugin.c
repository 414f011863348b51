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
  return egpu_key_structure(inst, workload, &l, sink);
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
