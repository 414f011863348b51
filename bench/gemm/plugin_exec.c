/*
 * plugin_exec.c - cpu_gemm through its ABI: loading the plugin, the
 * arguments of execute, workload descriptions, policy text.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "bench_gemm.h"
#include "olc_stub_host.h"

typedef struct text_buf {
  char s[256];
  size_t len;
} text_buf;

static int32_t write_text(void *ctx, const void *bytes, uint64_t len) {
  text_buf *t = ctx;
  if (t->len + len >= sizeof(t->s))
    return OLC_PLUGIN_E_LIMIT;
  memcpy(t->s + t->len, bytes, (size_t)len);
  t->len += (size_t)len;
  t->s[t->len] = '\0';
  return OLC_PLUGIN_OK;
}

int bench_policy_text(const olc_plugin *pl, void *inst, const void *policy, char *buf,
                      size_t size) {
  text_buf t;
  olc_plugin_byte_sink sink = {sizeof(sink), OLC_PLUGIN_ABI_MINOR, &t, write_text};
  t.len = 0;
  t.s[0] = '\0';
  if (pl->serialize(inst, policy, &sink) != OLC_PLUGIN_OK)
    return -1;
  snprintf(buf, size, "%s", t.s);
  return 0;
}

void bench_exec_init(bench_exec *e, long m, long n, long k, const float *a, const float *b,
                     float *c) {
  memset(e, 0, sizeof *e);
  e->props[0] = (olc_plugin_kv){"dtype", "float32"};
  e->wl.struct_size = sizeof e->wl, e->wl.abi_minor = OLC_PLUGIN_ABI_MINOR;
  e->wl.name = "bench", e->wl.operator_name = "MatMul";
  e->wl.properties = e->props, e->wl.property_count = 1;
  e->in[0] = olc_stub_matrix(a, m, k, k), e->in[1] = olc_stub_matrix(b, k, n, n);
  e->out = olc_stub_matrix(c, m, n, n);
  e->args.struct_size = sizeof e->args, e->args.abi_minor = OLC_PLUGIN_ABI_MINOR;
  e->args.inputs = e->in, e->args.input_count = 2;
  e->args.outputs = &e->out, e->args.output_count = 1;
  e->args.alpha = 1.0, e->args.beta = 0.0;
}

int32_t bench_exec_call(const olc_plugin *pl, void *inst, const void *policy, const bench_exec *e) {
  return pl->execute(inst, &e->wl, policy, &e->args);
}

int32_t bench_execute(const olc_plugin *pl, void *inst, const void *policy, long m, long n, long k,
                      const float *a, const float *b, float *c) {
  bench_exec e;
  bench_exec_init(&e, m, n, k, a, b, c);
  return bench_exec_call(pl, inst, policy, &e);
}

void bench_workload_init(bench_workload *w, const char *name, long m, long n, long k) {
  memset(w, 0, sizeof *w);
  snprintf(w->dims[0], sizeof w->dims[0], "%ld", m);
  snprintf(w->dims[1], sizeof w->dims[1], "%ld", n);
  snprintf(w->dims[2], sizeof w->dims[2], "%ld", k);
  w->props[0] = (olc_plugin_kv){"dtype", "float32"};
  w->props[1] = (olc_plugin_kv){"m", w->dims[0]};
  w->props[2] = (olc_plugin_kv){"n", w->dims[1]};
  w->props[3] = (olc_plugin_kv){"k", w->dims[2]};
  w->wl.struct_size = sizeof w->wl;
  w->wl.abi_minor = OLC_PLUGIN_ABI_MINOR;
  w->wl.name = name;
  w->wl.operator_name = "MatMul";
  w->wl.properties = w->props;
  w->wl.property_count = 4;
}

const olc_plugin *bench_load_plugin(const char *path) {
  void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  olc_plugin_entry_fn entry;
  const olc_plugin *pl = NULL;
  if (dl == NULL)
    bench_die("cannot load %s: %s", path, dlerror());
  *(void **)&entry = dlsym(dl, OLC_PLUGIN_ENTRY_SYMBOL);
  if (entry == NULL || entry(OLC_PLUGIN_ABI_MAJOR, &olc_stub_host, &pl) != OLC_PLUGIN_OK)
    bench_die("no usable entry in %s", path);
  if (!OLC_PLUGIN_HAS_FIELD(pl, olc_plugin, execute) || pl->execute == NULL)
    bench_die("%s has no execute (plugin ABI 1.0)", path);
  return pl;
}
