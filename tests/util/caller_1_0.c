/*
 * tests/util/caller_1_0.c - a caller built against the public headers
 * of release 1.0 (the frozen olc_1_0.h), linked with the current library
 * (caller_1_0.h says what each function does).
 */
#include "caller_1_0.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "olc_1_0.h"

size_t v1_error_size(void) { return sizeof(olc_error); }

size_t v1_error_offset(int field) {
  switch (field) {
  case 0:
    return offsetof(olc_error, code);
  case 1:
    return offsetof(olc_error, offset);
  case 2:
    return offsetof(olc_error, where);
  default:
    return offsetof(olc_error, message);
  }
}

/* Where a struct of the caller lies (caller_1_0.h: the placements). */
typedef struct placed {
  unsigned char *base;
  size_t size;
  int mapped;
} placed;

static void *place(placed *p, const void *src, size_t size, int placement) {
  unsigned char *at;
  memset(p, 0, sizeof *p);
  if (placement == V1_GUARDED) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    void *m = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
      return NULL;
    p->base = m;
    p->size = 2 * page;
    p->mapped = 1;
    if (mprotect(p->base + page, page, PROT_NONE) != 0)
      return NULL;
    at = p->base + page - size;
  } else {
    p->size = size + 64;
    p->base = malloc(p->size);
    if (p->base == NULL)
      return NULL;
    memset(p->base, 0xFF, p->size);
    at = p->base;
  }
  memcpy(at, src, size);
  return at;
}

static void unplace(placed *p) {
  if (p->mapped)
    munmap(p->base, p->size);
  else
    free(p->base);
}

/* err NULL: the struct could not be placed. */
static int done(olc_status st, const olc_error *err, placed *p, char *msg, size_t msg_size) {
  unplace(p);
  if (err == NULL)
    snprintf(msg, msg_size, "cannot place the caller's struct");
  else
    snprintf(msg, msg_size, "%s", st != OLC_OK ? err->message : "");
  return (int)st;
}

int v1_store_open(struct olc_store **out, const char *path, uint32_t version, int placement,
                  char *msg, size_t msg_size) {
  olc_store_options o = OLC_STORE_OPTIONS_INIT;
  olc_error err;
  placed p;
  const olc_store_options *at;
  o.path = path;
  o.version = version;
  at = place(&p, &o, sizeof o, placement);
  if (at == NULL)
    return done(OLC_E_NOMEM, NULL, &p, msg, msg_size);
  return done(olc_store_open(out, at, &err), &err, &p, msg, msg_size);
}

static const olc_property compat_structure[] = {{"dtype", "float32"}, {"m", "8"}};
static const olc_key compat_key = {"compat", "MatMul", "1", "model", "cpu", 4, compat_structure, 2};

int v1_store_save(struct olc_store *store, const char *policy, int placement, char *msg,
                  size_t msg_size) {
  static const olc_measurement m[] = {{"median_latency", 2.5, "us"}};
  olc_save_request r = OLC_SAVE_REQUEST_INIT;
  olc_error err;
  placed p;
  const olc_save_request *at;
  r.key = &compat_key;
  r.measurements = m;
  r.measurement_count = 1;
  r.policy = policy;
  r.policy_len = strlen(policy);
  at = place(&p, &r, sizeof r, placement);
  if (at == NULL)
    return done(OLC_E_NOMEM, NULL, &p, msg, msg_size);
  return done(olc_store_save(store, at, &err), &err, &p, msg, msg_size);
}

int v1_store_lookup(struct olc_lookup_result **out, struct olc_store *store, int placement,
                    char *msg, size_t msg_size) {
  olc_lookup_options o = OLC_LOOKUP_OPTIONS_INIT;
  olc_error err;
  placed p;
  const olc_lookup_options *at;
  o.key = &compat_key;
  at = place(&p, &o, sizeof o, placement);
  if (at == NULL)
    return done(OLC_E_NOMEM, NULL, &p, msg, msg_size);
  return done(olc_store_lookup(out, store, at, &err), &err, &p, msg, msg_size);
}

int v1_host_open(struct olc_host **out, const struct olc_config *config, struct olc_store *store,
                 int placement, char *msg, size_t msg_size) {
  olc_host_options o = OLC_HOST_OPTIONS_INIT;
  olc_error err;
  placed p;
  const olc_host_options *at;
  o.ignore_env = 0; /* reads OLC_WORKER, which the test points nowhere */
  at = place(&p, &o, sizeof o, placement);
  if (at == NULL)
    return done(OLC_E_NOMEM, NULL, &p, msg, msg_size);
  return done(olc_host_open(out, config, store, at, &err), &err, &p, msg, msg_size);
}

static void count_progress(void *payload, const char *workload, size_t workload_index,
                           size_t workload_count, size_t candidate_index, size_t candidate_count,
                           double best_us) {
  (void)workload;
  (void)workload_index;
  (void)workload_count;
  (void)candidate_index;
  (void)candidate_count;
  (void)best_us;
  ++*(size_t *)payload;
}

int v1_host_calibrate(struct olc_calibration **out, struct olc_host *host, int placement,
                      size_t *progress_calls, char *msg, size_t msg_size) {
  olc_calibrate_options o = OLC_CALIBRATE_OPTIONS_INIT;
  olc_error err;
  placed p;
  const olc_calibrate_options *at;
  o.recalibrate = 1;
  o.progress = count_progress;
  o.progress_payload = progress_calls;
  at = place(&p, &o, sizeof o, placement);
  if (at == NULL)
    return done(OLC_E_NOMEM, NULL, &p, msg, msg_size);
  return done(olc_host_calibrate(out, host, at, &err), &err, &p, msg, msg_size);
}

int v1_host_bind(struct olc_binding **out, struct olc_host *host, int placement, char *msg,
                 size_t msg_size) {
  static const olc_property props[] = {{"dtype", "float32"}, {"m", "8"}, {"n", "4"}, {"k", "2"}};
  olc_workload w = OLC_WORKLOAD_INIT;
  olc_error err;
  placed p;
  const olc_workload *at;
  w.backend = "mock_det";
  w.operator_name = "MatMul";
  w.properties = props;
  w.property_count = 4;
  w.model_bytes = "compat";
  w.model_len = 6;
  at = place(&p, &w, sizeof w, placement);
  if (at == NULL)
    return done(OLC_E_NOMEM, NULL, &p, msg, msg_size);
  return done(olc_host_bind(out, host, at, &err), &err, &p, msg, msg_size);
}

int v1_binding_select(const struct olc_selection **out, struct olc_binding *b, int placement,
                      char *msg, size_t msg_size) {
  olc_select_options o = OLC_SELECT_OPTIONS_INIT;
  olc_error err;
  placed p;
  const olc_select_options *at;
  o.mode = OLC_SELECT_NEVER;
  at = place(&p, &o, sizeof o, placement);
  if (at == NULL)
    return done(OLC_E_NOMEM, NULL, &p, msg, msg_size);
  return done(olc_binding_select(out, b, at, &err), &err, &p, msg, msg_size);
}

int v1_host_verify(struct olc_host *host, int placement, size_t *considered, char *msg,
                   size_t msg_size) {
  olc_verify_options o = OLC_VERIFY_OPTIONS_INIT;
  size_t counts[6] = {0};
  olc_error err;
  placed p;
  const olc_verify_options *at;
  olc_status st;
  o.dry_run = 1;
  o.in_process = 1;
  at = place(&p, &o, sizeof o, placement);
  if (at == NULL)
    return done(OLC_E_NOMEM, NULL, &p, msg, msg_size);
  st = olc_host_verify(host, at, NULL, NULL, counts, &err);
  *considered = counts[0];
  return done(st, &err, &p, msg, msg_size);
}
