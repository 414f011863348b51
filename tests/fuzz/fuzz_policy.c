/*
 * tests/fuzz/fuzz_policy.c - a plugin's policy `validate` on arbitrary
 * bytes.  The real plugin module is loaded with dlopen (OLC_FUZZ_PLUGIN_PATH
 * at build time, $OLC_FUZZ_PLUGIN to override), created once with a minimal
 * host table, and fed every input.  A plugin whose create says
 * "unavailable" (example_gpu without an OpenCL device) is skipped (77).
 *
 * Properties (abort() marks a finding):
 *  - validate never crashes, leaks or trips UBSan, and returns OK or
 *    INVALID (NOMEM tolerated); validating with and without a policy
 *    pointer agree; *policy is set exactly on OK;
 *  - a rejection reports a reason through host->set_error;
 *  - an accepted policy serializes, the serialized bytes validate again,
 *    and serialize(validate(serialize(p))) == serialize(p): the plugin's
 *    text form is a fixed point, so a stored policy reads back unchanged;
 *  - with OLC_FUZZ_STRICT_TEXT (set for the shipped plugins, whose parsers
 *    are documented strict): an accepted input is its own canonical form.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fuzz_target.h"
#include "olc/plugin.h"
#include "olc_stub_host.h"

#ifndef OLC_FUZZ_PLUGIN_PATH
#define OLC_FUZZ_PLUGIN_PATH ""
#endif

#define FUZZ_BYTES_MAX 65536

static const olc_plugin *plugin;
static void *instance;
typedef struct bytes {
  unsigned char data[FUZZ_BYTES_MAX];
  size_t len;
} bytes;

static int32_t bytes_write(void *ctx, const void *data, uint64_t len) {
  bytes *b = ctx;
  if (len > FUZZ_BYTES_MAX - b->len)
    return OLC_PLUGIN_E_LIMIT;
  if (len > 0)
    memcpy(b->data + b->len, data, (size_t)len);
  b->len += (size_t)len;
  return OLC_PLUGIN_OK;
}

static bytes s1, s2;

int olc_fuzz_init(void) {
  const char *path = getenv("OLC_FUZZ_PLUGIN");
  void *module;
  olc_plugin_entry_fn entry;
  int32_t rc;
  if (path == NULL || path[0] == 0)
    path = OLC_FUZZ_PLUGIN_PATH;
  olc_stub_host_set_log_level(-1);
  /* RTLD_NODELETE: the module stays mapped for leak reports at exit. */
  module = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (module == NULL) {
    fprintf(stderr, "fuzz_policy: dlopen %s: %s\n", path, dlerror());
    abort();
  }
  *(void **)&entry = dlsym(module, OLC_PLUGIN_ENTRY_SYMBOL);
  if (entry == NULL || entry(OLC_PLUGIN_ABI_MAJOR, &olc_stub_host, &plugin) != OLC_PLUGIN_OK ||
      plugin == NULL || plugin->validate == NULL || plugin->serialize == NULL)
    abort();
  rc = plugin->create(&olc_stub_host, NULL, 0, 1, &instance);
  if (rc == OLC_PLUGIN_E_UNAVAILABLE) {
    fprintf(stderr, "fuzz_policy: %s unavailable here (%s): skipped\n", plugin->name,
            olc_stub_host_last_error()->message);
    return OLC_FUZZ_SKIP;
  }
  if (rc != OLC_PLUGIN_OK || instance == NULL) {
    fprintf(stderr, "fuzz_policy: create %s failed: %d %s\n", plugin->name, (int)rc,
            olc_stub_host_last_error()->message);
    abort();
  }
  return 0;
}

/* The reasons quote the offending policy bytes raw (LF, invalid UTF-8);
 * the host's set_error turns control bytes into spaces, so only a missing
 * reason is a finding here unless OLC_FUZZ_STRICT_REASONS. */
static void check_reason(void) {
  size_t n = strlen(olc_stub_host_last_error()->message);
  int multi_line = memchr(olc_stub_host_last_error()->message, '\n', n) != NULL;
#ifndef OLC_FUZZ_STRICT_REASONS
  multi_line = 0;
#endif
  if (olc_stub_host_last_error()->code == 0 || n == 0 || multi_line) {
    fprintf(stderr, "fuzz_policy: rejection without a one-line reason: \"%s\"\n",
            olc_stub_host_last_error()->message);
    abort();
  }
}

/* validate(b) must accept; returns the policy. */
static void *revalidate(const bytes *b) {
  void *p = NULL;
  int32_t rc = plugin->validate(instance, b->data, b->len, &p);
  if (rc != OLC_PLUGIN_OK || p == NULL) {
    fprintf(stderr, "fuzz_policy: serialized policy rejected: %.*s (%s)\n", (int)b->len,
            (const char *)b->data, olc_stub_host_last_error()->message);
    abort();
  }
  return p;
}

static void serialize(void *p, bytes *out) {
  olc_plugin_byte_sink sink = {sizeof(olc_plugin_byte_sink), OLC_PLUGIN_ABI_MINOR, out,
                               bytes_write};
  out->len = 0;
  if (plugin->serialize(instance, p, &sink) != OLC_PLUGIN_OK || out->len == 0)
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  void *p = (void *)&p, *p2;
  int32_t rc, rc_nopolicy;
  if (instance == NULL)
    return 0; /* libFuzzer without init: nothing to do */
  olc_stub_host_clear_error();
  rc_nopolicy = plugin->validate(instance, data, size, NULL);
  if (rc_nopolicy == OLC_PLUGIN_E_INVALID)
    check_reason();
  olc_stub_host_clear_error();
  rc = plugin->validate(instance, data, size, &p);
  if (rc != rc_nopolicy)
    abort();
  if (rc == OLC_PLUGIN_E_NOMEM)
    return 0;
  if (rc != OLC_PLUGIN_OK) {
    if (rc != OLC_PLUGIN_E_INVALID || p != NULL)
      abort();
    check_reason();
    return 0;
  }
  if (p == NULL)
    abort();
  serialize(p, &s1);
#ifdef OLC_FUZZ_STRICT_TEXT
  if (s1.len != size || memcmp(s1.data, data, size) != 0) {
    fprintf(stderr, "fuzz_policy: accepted non-canonical text, canonical is %.*s\n", (int)s1.len,
            (const char *)s1.data);
    abort();
  }
#endif
  p2 = revalidate(&s1);
  serialize(p2, &s2);
  if (s2.len != s1.len || memcmp(s1.data, s2.data, s1.len) != 0)
    abort();
  plugin->release_policy(instance, p);
  plugin->release_policy(instance, p2);
  return 0;
}
