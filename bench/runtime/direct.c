/* direct.c - the plugin through its own table (see bench_runtime.h). */

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bench_runtime.h"
#include "olc_stub_host.h"

static void h_log(void *ctx, int32_t level, const char *msg) {
  (void)ctx;
  if (level <= OLC_PLUGIN_LOG_WARN)
    fprintf(stderr, "bench_runtime: plugin: %s\n", msg);
}
static void h_set_error(void *ctx, int32_t code, const char *msg) {
  (void)ctx, (void)code;
  fprintf(stderr, "bench_runtime: plugin: %s\n", msg);
}
static uint64_t h_now(void *ctx) {
  struct timespec ts;
  (void)ctx;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
static int32_t h_lookup(void *ctx, void *inst, const olc_plugin_workload *w,
                        const olc_plugin_byte_sink *out) {
  (void)ctx, (void)inst, (void)w, (void)out;
  return OLC_PLUGIN_E_NOT_FOUND;
}
static int32_t h_save(void *ctx, void *inst, const olc_plugin_workload *w, const void *p,
                      uint64_t len, const olc_plugin_measurement *m, uint32_t count) {
  (void)ctx, (void)inst, (void)w, (void)p, (void)len, (void)m, (void)count;
  return OLC_PLUGIN_E_UNSUPPORTED;
}
static const olc_plugin_host host = {sizeof(olc_plugin_host),
                                     OLC_PLUGIN_ABI_MINOR,
                                     NULL,
                                     h_log,
                                     h_set_error,
                                     h_now,
                                     h_lookup,
                                     h_save};

int br_direct_open(br_direct *d, const char *path, char *why, size_t why_size) {
  void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  olc_plugin_entry_fn entry;
  memset(d, 0, sizeof *d);
  if (dl == NULL) {
    snprintf(why, why_size, "cannot load %s: %s", path, dlerror());
    return -1;
  }
  *(void **)&entry = dlsym(dl, OLC_PLUGIN_ENTRY_SYMBOL);
  if (entry == NULL || entry(OLC_PLUGIN_ABI_MAJOR, &host, &d->pl) != OLC_PLUGIN_OK ||
      d->pl->create(&host, NULL, 0, 1, &d->inst) != OLC_PLUGIN_OK) {
    snprintf(why, why_size, "%s: no usable entry or instance", path);
    return -1;
  }
  return 0;
}

void br_direct_close(br_direct *d) {
  if (d->pl != NULL && d->inst != NULL)
    d->pl->destroy(d->inst);
  memset(d, 0, sizeof *d);
}

int br_direct_can_execute(const br_direct *d) {
  return d->pl->struct_size >= offsetof(olc_plugin, execute) + sizeof(d->pl->execute) &&
         d->pl->execute != NULL;
}

void *br_direct_policy(br_direct *d, const olc_selection *sel) {
  size_t len = 0;
  const unsigned char *bytes = olc_selection_policy(sel, &len);
  void *policy = NULL;
  if (bytes == NULL || d->pl->validate(d->inst, bytes, len, &policy) != OLC_PLUGIN_OK)
    return NULL;
  return policy;
}

void br_direct_release(br_direct *d, void *policy) { d->pl->release_policy(d->inst, policy); }

int br_direct_matmul(br_direct *d, const br_shape *s, const void *policy) {
  olc_plugin_kv kv[4];
  olc_plugin_workload w;
  olc_plugin_tensor in[2], out[1];
  olc_plugin_exec_args args;
  uint32_t i;
  for (i = 0; i < 4; i++) {
    kv[i].key = s->props[i].name;
    kv[i].value = s->props[i].value;
  }
  memset(&w, 0, sizeof w);
  w.struct_size = sizeof w;
  w.abi_minor = OLC_PLUGIN_ABI_MINOR;
  w.name = s->label;
  w.operator_name = "MatMul";
  w.properties = kv;
  w.property_count = 4;
  in[0] = olc_stub_matrix(s->a, s->m, s->k, s->k);
  in[1] = olc_stub_matrix(s->b, s->k, s->n, s->n);
  out[0] = olc_stub_matrix(s->c, s->m, s->n, s->n);
  memset(&args, 0, sizeof args);
  args.struct_size = sizeof args;
  args.abi_minor = OLC_PLUGIN_ABI_MINOR;
  args.inputs = in;
  args.outputs = out;
  args.input_count = 2;
  args.output_count = 1;
  args.alpha = 1.0;
  args.beta = 0.0;
  return d->pl->execute(d->inst, &w, policy, &args) == OLC_PLUGIN_OK ? 0 : -1;
}
