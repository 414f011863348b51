/*
 * host/worker/worker.c - olc-worker, the process in which `olc calibrate`
 * measures candidates (host/src/calibrate/isolate.h).
 *
 *   olc-worker FD
 *
 * FD is a stream socket to the host (calibrate/wire.h).  The worker answers one
 * SETUP (load the plugin file, create an instance with the host's
 * [plugin.NAME] entries and thread count, prepare the workload) with
 * READY, then each MEASURE (validate = deserialize the policy, time it
 * with olc_calibrate__time, release it) with RESULT, and exits when the
 * host closes the socket.  It opens no store: plugins' store lookups and
 * saves fail here, and only the host writes the store.  If a plugin
 * crashes, aborts, hangs or exits, this process ends and the host says so.
 *
 * The plugin is loaded with the host's own loader (same checks, same
 * services) from the very file the host loaded, and nothing else.  The
 * worker uses the loader's and the calibrate module's headers only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if !defined(_WIN32)
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>
#endif
#if defined(__linux__)
#include <signal.h>
#include <sys/prctl.h>
#endif

#include "calibrate/check.h"
#include "calibrate/timing.h"
#include "calibrate/rotate.h"
#include "calibrate/wire.h"
#include "plugins/plugins.h"
#include "util/error.h"
#include "util/platform.h"

#define MAX_ENTRIES 4096u

typedef struct worker {
  olc_buf setup; /* the SETUP payload: the strings below point into it */
  const char *path;
  const char *name;
  olc_plugin_config cfg; /* the plugin's [plugin.NAME] section */
  olc_property *entries;
  olc_plugin_kv *props;
  olc_plugin_workload w;
  olc_plugin_set *set;
  olc_loaded_plugin *plugin;
  void **states;   /* rotate prepared instances of the workload */
  uint32_t rotate; /* 1 warm, more: cold-cache measurement (calibrate/rotate.h) */
  uint32_t next;   /* the next of them, across MEASUREs */
  int prepared;
  int fd;             /* the socket to the host */
  uint32_t threads;   /* the host's effective thread count */
  int allow_insecure; /* [host] allow_insecure_plugins of the host's config */
  olc_status setup_status;
  char setup_message[OLC_ERROR_MESSAGE_SIZE];
  olc_check_spec check_spec; /* from SETUP; its reference points into setup */
  olc_check check;           /* inputs and reference, made at the first check */
  int check_made;
} worker;

/* ------------------------------------------------------------ progress
 *
 * After each run of the plugin a finished run is reported to the host
 * (PROGRESS, at most every BEAT_NS), through the loader's after-run hook:
 * the host's timeout then limits one run, not a whole measurement.  The
 * hook runs inside the timed interval of calibrate/timing.c; it costs one clock
 * read per run, and a send on at most one run per BEAT_NS, which the
 * median does not see. */
#define BEAT_NS 100000000ull

typedef struct beat {
  olc_wire_writer frame; /* the PROGRESS frame, built once */
  int fd;
  uint64_t last;
} beat;

static beat g_beat = {{OLC_BUF_INIT, OLC_OK}, -1, 0};

static void beat_after_run(void *payload) {
  beat *b = payload;
  uint64_t now = olc_util__now_ns();
  if (now - b->last >= BEAT_NS) {
    b->last = now;
    (void)olc_wire__send(b->fd, &b->frame, 0, NULL);
  }
}

static olc_status start_beat(olc_loaded_plugin *p, int fd) {
  olc_wire__begin(&g_beat.frame, OLC_WIRE_PROGRESS);
  if (olc_wire__finish(&g_beat.frame) != OLC_OK)
    return OLC_E_NOMEM;
  g_beat.fd = fd;
  g_beat.last = olc_util__now_ns();
  olc_plugins__set_after_run(p, beat_after_run, &g_beat);
  return OLC_OK;
}

/* ---------------------------------------------------------------- setup */

/* Only the one plugin is loaded: its section, and no other. */
static const olc_plugin_config *plugin_cfg(void *payload, const char *name) {
  worker *k = payload;
  return strcmp(name, k->name) == 0 ? &k->cfg : NULL;
}

/* The plugin half of the setup: which library, its options, its config. */
static olc_status parse_setup_plugin(worker *k, olc_wire_reader *r, olc_error *err) {
  uint32_t version, n, i;
  version = olc_wire__get_u32(r);
  if (version != OLC_WIRE_VERSION)
    return olc_error__set(err, OLC_E_VERSION, "worker", "protocol version %u, expected %u",
                          (unsigned)version, OLC_WIRE_VERSION);
  k->path = olc_wire__get_str(r);
  k->name = olc_wire__get_str(r);
  k->threads = olc_wire__get_u32(r);
  k->allow_insecure = olc_wire__get_u32(r) != 0;
  n = olc_wire__get_u32(r);
  if (r->bad || k->path == NULL || k->name == NULL || n > MAX_ENTRIES)
    return olc_error__set(err, OLC_E_MALFORMED, "worker", "malformed setup");
  k->entries = calloc(n ? n : 1, sizeof *k->entries);
  if (k->entries == NULL)
    return olc_error__set(err, OLC_E_NOMEM, "worker", "out of memory");
  for (i = 0; i < n; i++) {
    k->entries[i].name = olc_wire__get_str(r);
    k->entries[i].value = olc_wire__get_str(r);
  }
  k->cfg.name = k->name;
  k->cfg.enabled = 1;
  k->cfg.entries = k->entries;
  k->cfg.entry_count = n;
  return OLC_OK;
}

/* The workload half: what to measure, how to check it, how many instances. */
static olc_status parse_setup_workload(worker *k, olc_wire_reader *r, olc_error *err) {
  uint32_t n, i;
  k->w.struct_size = (uint32_t)sizeof k->w;
  k->w.abi_minor = OLC_PLUGIN_ABI_MINOR;
  k->w.name = olc_wire__get_str(r);
  k->w.operator_name = olc_wire__get_str(r);
  k->w.model_digest = olc_wire__get_str(r);
  n = olc_wire__get_u32(r);
  if (r->bad || n > MAX_ENTRIES)
    return olc_error__set(err, OLC_E_MALFORMED, "worker", "malformed setup workload");
  k->props = calloc(n ? n : 1, sizeof *k->props);
  if (k->props == NULL)
    return olc_error__set(err, OLC_E_NOMEM, "worker", "out of memory");
  for (i = 0; i < n; i++) {
    k->props[i].key = olc_wire__get_str(r);
    k->props[i].value = olc_wire__get_str(r);
  }
  k->w.properties = n > 0 ? k->props : NULL;
  k->w.property_count = n;
  k->check_spec.enabled = olc_wire__get_u32(r) != 0;
  k->check_spec.atol = olc_wire__get_f64(r);
  k->check_spec.rtol = olc_wire__get_f64(r);
  k->check_spec.seed = olc_wire__get_u64(r);
  k->check_spec.reference = olc_wire__get_bytes(r, &k->check_spec.reference_len);
  k->rotate = olc_wire__get_u32(r);
  k->w.constant_inputs = olc_wire__get_u32(r);
  if (k->rotate == 0 || k->rotate > OLC_ROTATE_MAX_INSTANCES)
    return olc_error__set(err, OLC_E_MALFORMED, "worker", "malformed setup: %u instances",
                          (unsigned)k->rotate);
  return OLC_OK;
}

static olc_status parse_setup(worker *k, olc_error *err) {
  olc_wire_reader r;
  olc_status st;
  size_t i;
  olc_wire__reader(&r, k->setup.data, k->setup.len);
  if ((st = parse_setup_plugin(k, &r, err)) != OLC_OK ||
      (st = parse_setup_workload(k, &r, err)) != OLC_OK)
    return st;
  if (!olc_wire__done(&r))
    return olc_error__set(err, OLC_E_MALFORMED, "worker", "malformed setup");
  for (i = 0; i < k->cfg.entry_count; i++)
    if (k->entries[i].name == NULL || k->entries[i].value == NULL)
      return olc_error__set(err, OLC_E_MALFORMED, "worker", "null config entry");
  for (i = 0; i < k->w.property_count; i++)
    if (k->props[i].key == NULL || k->props[i].value == NULL)
      return olc_error__set(err, OLC_E_MALFORMED, "worker", "null workload property");
  return OLC_OK;
}

/* Why the plugin did not load: its report entry. */
static olc_status not_loaded(worker *k, olc_error *err) {
  size_t i;
  for (i = 0; i < olc_plugins__report_count(k->set); i++) {
    const olc_load_entry *e = olc_plugins__report(k->set, i);
    if (e->path != NULL && strcmp(e->path, k->path) == 0 && e->status != OLC_OK)
      return olc_error__set(err, e->status, "worker", "plugin %s: %s: %s", k->name,
                            olc_load_stage_str(e->stage), e->message ? e->message : "");
  }
  return olc_error__set(err, OLC_E_NOT_FOUND, "worker", "plugin %s not loaded from %s", k->name,
                        k->path);
}

static olc_status setup(worker *k, olc_error *err) {
  olc_plugins_params params;
  olc_status st = parse_setup(k, err);
  if (st != OLC_OK)
    return st;
  if (k->path[0] != '/')
    return olc_error__set(err, OLC_E_INVALID, "worker", "plugin path %s is not absolute", k->path);
  memset(&params, 0, sizeof params);
  params.files = &k->path;
  params.file_count = 1;
  params.threads = k->threads;
  params.plugin_config = plugin_cfg;
  params.plugin_config_payload = k;
  params.ignore_env = 1;
  params.allow_insecure_plugins = k->allow_insecure;
  st = olc_plugins__open(&k->set, &params, err);
  if (st != OLC_OK)
    return st;
  k->plugin = olc_plugins__find(k->set, k->name);
  if (k->plugin == NULL)
    return not_loaded(k, err);
  if (start_beat(k->plugin, k->fd) != OLC_OK)
    return olc_error__set(err, OLC_E_NOMEM, "worker", "out of memory");
  st = olc_calibrate__prepare_states(&k->states, k->rotate, k->plugin, &k->w, err);
  if (st == OLC_OK)
    k->prepared = 1;
  olc_check__init(&k->check, k->plugin, &k->w, &k->check_spec);
  k->check_made = 1;
  return st;
}

static int send_ready(int fd, olc_status st, const char *message) {
  olc_wire_writer w;
  olc_status s;
  olc_wire__begin(&w, OLC_WIRE_READY);
  olc_wire__put_u32(&w, (uint32_t)(int32_t)st);
  olc_wire__put_str(&w, message);
  olc_wire__finish(&w);
  s = olc_wire__send(fd, &w, 0, NULL);
  olc_wire__writer_free(&w);
  return s == OLC_OK;
}

/* Lines the plugin has logged so far (its threads may log too). */
static size_t log_total(const worker *k) {
  return k->set != NULL ? olc_plugins__log_total(k->set) : 0;
}

/* The plugin's log lines since before (at most the ring's last lines),
 * without the "NAME: " the ring adds: the host logs them again as the
 * plugin's, so they land in its log as if logged there. */
static void put_log(const worker *k, olc_wire_writer *w, size_t before) {
  size_t total = log_total(k), n, count = total - before, i, prefix;
  if (k->set == NULL || k->name == NULL) {
    olc_wire__put_u32(w, 0);
    return;
  }
  n = olc_plugins__log_count(k->set);
  prefix = strlen(k->name) + 2;
  if (count > n)
    count = n;
  olc_wire__put_u32(w, (uint32_t)count);
  for (i = n - count; i < n; i++) {
    char line[OLC_PLUGINS_LOG_LINE_SIZE];
    int32_t level = olc_plugins__log_line(k->set, i, line, sizeof line);
    const char *text = line;
    if (strncmp(line, k->name, prefix - 2) == 0 && strncmp(line + prefix - 2, ": ", 2) == 0)
      text = line + prefix;
    olc_wire__put_u32(w, (uint32_t)level);
    olc_wire__put_str(w, text);
  }
}

/* One MEASURE: validate, measure, release, answer. */
static int measure(worker *k, int fd, const olc_buf *payload) {
  olc_wire_reader r;
  olc_wire_writer w;
  olc_timing_params p;
  olc_timing_result m;
  olc_error e;
  olc_status st;
  const void *bytes;
  size_t len;
  uint64_t index, left;
  void *policy = NULL;
  uint32_t i;
  int ok, checked = 0;
  size_t log_before = log_total(k);
  memset(&m, 0, sizeof m);
  olc_error_clear(&e);
  olc_wire__reader(&r, payload->data, payload->len);
  index = olc_wire__get_u64(&r);
  bytes = olc_wire__get_bytes(&r, &len);
  olc_wire__get_params(&r, &p);
  left = olc_wire__get_u64(&r);
  p.deadline_ns = left != 0 ? olc_util__now_ns() + left : 0;
  if (!olc_wire__done(&r))
    return 0;
  if (k->setup_status != OLC_OK)
    st = olc_error__set(&e, k->setup_status, "worker", "%s", k->setup_message);
  else
    st = olc_plugins__validate(&policy, k->plugin, bytes, len, &e);
  if (st == OLC_OK) {
    /* The check first: a candidate with a wrong result is not timed. */
    if (p.check)
      st = olc_check__policy(&k->check, policy, bytes, len, &checked, &e);
    olc_timing_params__after_check(&p, checked);
    if (st == OLC_OK)
      st = olc_calibrate__time_rotating(&m, k->plugin, &k->w, k->states, k->rotate, &k->next,
                                        policy, &p, &e);
    olc_plugins__release(k->plugin, policy);
  }
  olc_wire__begin(&w, OLC_WIRE_RESULT);
  olc_wire__put_u64(&w, index);
  olc_wire__put_u32(&w, (uint32_t)(int32_t)st);
  olc_wire__put_str(&w, st != OLC_OK ? (e.message[0] ? e.message : olc_status_str(st)) : NULL);
  olc_wire__put_f64(&w, m.median_us);
  olc_wire__put_f64(&w, m.mad_us);
  olc_wire__put_u32(&w, m.samples);
  olc_wire__put_u32(&w, (uint32_t)m.end);
  olc_wire__put_f64(&w, m.timed_us);
  for (i = 0; i < m.samples; i++)
    olc_wire__put_f64(&w, m.values[i]);
  olc_timing_result__free(&m);
  put_log(k, &w, log_before);
  olc_wire__put_u32(&w, checked ? 1u : 0u);
  olc_wire__finish(&w);
  ok = olc_wire__send(fd, &w, 0, NULL) == OLC_OK;
  olc_wire__writer_free(&w);
  return ok;
}

/* What the process needs before any plugin code runs. */
static int prepare_process(int fd) {
#if !defined(_WIN32)
  struct rlimit none = {0, 0};
  /* A crashing candidate is an expected outcome here, not a core file. */
  (void)setrlimit(RLIMIT_CORE, &none);
  /* Plugins print to stdout at most; the host's stdout may carry JSON.
   * Nor do they read the user's terminal. */
  (void)dup2(2, 1);
  {
    int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null >= 0) {
      (void)dup2(null, 0);
      if (null != 0)
        (void)close(null);
    }
  }
  /* Children a plugin starts do not inherit the socket. */
  if (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0)
    return 0;
#endif
#if defined(__linux__)
  /* Gone with the host, even while a candidate hangs. */
  (void)prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() == 1)
    return 0;
#endif
  (void)fd;
  return 1;
}

int main(int argc, char **argv) {
  worker k;
  olc_buf payload = OLC_BUF_INIT;
  olc_error e;
  uint32_t type;
  char *end = NULL;
  long fd;
  int setup_done = 0, rc = 0;
  if (argc != 2 || (fd = strtol(argv[1], &end, 10), end == argv[1] || *end != 0) || fd < 0 ||
      fd > 1024) {
    fprintf(stderr, "olc-worker: usage: olc-worker FD (started by the olc host only)\n");
    return 2;
  }
  if (!prepare_process((int)fd))
    return 2;
  memset(&k, 0, sizeof k);
  k.fd = (int)fd;
  for (;;) {
    olc_error_clear(&e);
    if (olc_wire__recv((int)fd, &type, &payload, 0, &e) != OLC_OK)
      break; /* the host closed the socket (or is gone): done */
    if (type == OLC_WIRE_SETUP && !setup_done) {
      setup_done = 1;
      k.setup = payload;
      memset(&payload, 0, sizeof payload);
      k.setup_status = setup(&k, &e);
      snprintf(k.setup_message, sizeof k.setup_message, "%s",
               k.setup_status != OLC_OK ? e.message : "");
      if (!send_ready((int)fd, k.setup_status, k.setup_status != OLC_OK ? e.message : NULL))
        break;
    } else if (type == OLC_WIRE_MEASURE && setup_done) {
      if (!measure(&k, (int)fd, &payload)) {
        rc = 2;
        break;
      }
    } else {
      rc = 2; /* out of protocol */
      break;
    }
  }
  if (k.check_made)
    olc_check__free(&k.check);
  if (k.prepared)
    olc_calibrate__unprepare_states(k.states, k.rotate, k.plugin);
  olc_plugins__free(k.set);
  free(k.entries);
  free(k.props);
  olc_buf__free(&k.setup);
  olc_buf__free(&payload);
  olc_wire__writer_free(&g_beat.frame);
  return rc;
}
