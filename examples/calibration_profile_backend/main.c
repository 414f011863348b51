/*
 * calibration_profile_backend - the store's example backend (docs/store.md), in C, using only
 * the public store API (olc/store.h).
 *
 * The backend owns the meaning of its policy (ExamplePolicy: serialize and
 * validate); the store owns loading, locking, merging and replacement.  This
 * file has no persistence code: the store file is wherever the caller says.
 *
 * usage: calibration_profile_backend [STORE_FILE]
 *   STORE_FILE, else $OLC_STORE, else an in-memory store (persistence off).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "olc/store.h"

/* ---- the backend's policy ---------------------------------------------- */

/* ExamplePolicy: a tile shape and an unroll depth, as text
 * "example_policy v1 tile=64x32 unroll=4". */
typedef struct example_policy {
  unsigned tile_m, tile_n, unroll;
} example_policy;

/* ExamplePolicy::Serialize, as the store's serializer callback. */
static olc_status example_policy_serialize(olc_bytes *out, void *payload, char *message,
                                           size_t message_size) {
  const example_policy *p = payload;
  char text[96];
  int n = snprintf(text, sizeof text, "example_policy v1 tile=%ux%u unroll=%u", p->tile_m,
                   p->tile_n, p->unroll);
  if (n < 0 || (size_t)n >= sizeof text) {
    snprintf(message, message_size, "example policy does not fit its text form");
    return OLC_E_LIMIT;
  }
  return olc_bytes_append(out, text, (size_t)n);
}

/* Parses and checks serialized bytes (not NUL-terminated); 0 when usable. */
static int example_policy_parse(const unsigned char *bytes, size_t len, example_policy *out,
                                char *message, size_t message_size) {
  char text[96], tail;
  example_policy p;
  if (len == 0 || len >= sizeof text || memchr(bytes, '\0', len) != NULL) {
    snprintf(message, message_size, "example policy: %zu bytes is not a policy", len);
    return -1;
  }
  memcpy(text, bytes, len);
  text[len] = '\0';
  if (sscanf(text, "example_policy v1 tile=%ux%u unroll=%u%c", &p.tile_m, &p.tile_n, &p.unroll,
             &tail) != 3) {
    snprintf(message, message_size, "example policy: cannot parse \"%s\"", text);
    return -1;
  }
  if (p.tile_m == 0 || p.tile_m > 256 || p.tile_n == 0 || p.tile_n > 256 || p.unroll == 0 ||
      p.unroll > 16) {
    snprintf(message, message_size,
             "example policy: tile %ux%u or unroll %u out of range (tiles 1..256, unroll 1..16)",
             p.tile_m, p.tile_n, p.unroll);
    return -1;
  }
  if (out != NULL)
    *out = p;
  return 0;
}

/* ExamplePolicy::ValidateSerialized, as the store's validator callback. */
static olc_status example_policy_validate_serialized(const unsigned char *policy, size_t policy_len,
                                                     void *payload, char *message,
                                                     size_t message_size) {
  (void)payload;
  return example_policy_parse(policy, policy_len, NULL, message, message_size) == 0
             ? OLC_OK
             : OLC_E_VALIDATION;
}

/* ---- printing ---------------------------------------------------------- */

static void print_policy(const olc_record *r) {
  example_policy p;
  char why[160];
  printf("  policy: \"%.*s\"", (int)r->policy_len, (const char *)r->policy);
  if (example_policy_parse(r->policy, r->policy_len, &p, why, sizeof why) == 0)
    printf(" (tile %ux%u, unroll %u)\n", p.tile_m, p.tile_n, p.unroll);
  else
    printf(" (%s)\n", why);
}

static void print_record(const olc_record *r) {
  size_t i;
  printf("  %s %s profile, precedence %d: backend %s, operator %s, implementation %s\n",
         olc_level_str(r->level), olc_origin_str(r->origin), (int)olc_record_precedence(r),
         r->backend, r->operator_name, r->implementation);
  if (r->level == OLC_LEVEL_EXACT)
    printf("  model %s, processor \"%s\", threads %lld\n", r->model_digest, r->processor,
           (long long)r->thread_count);
  for (i = 0; i < r->structure_count; i++)
    printf("  structure %s = %s\n", r->structure[i].name, r->structure[i].value);
  print_policy(r);
}

static int fail(const char *what, olc_status st, const olc_error *err) {
  fprintf(stderr, "calibration_profile_backend: %s: %s: %s\n", what, olc_status_name(st),
          err->message);
  return 1;
}

/* ---- the integration --------------------------------------------------- */

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : getenv("OLC_STORE");
  const char *model_digest =
      "sha256:3b8e0d2f6c1a4e5b9d7f0a2c4e6b8d0f1a3c5e7b9d1f3a5c7e9b1d3f5a7c9e1b";
  const char *processor = "example-gpu-16cu driver=1.0 l2=4194304 line=128";
  olc_store_options opts = OLC_STORE_OPTIONS_INIT;
  olc_property structure[2] = {{"dtype", "float16"}, {"shape", "m,n,4096"}};
  olc_measurement measurements[1] = {{"median_latency", 812.5, "us"}};
  olc_measurement old_measurements[1] = {{"median_latency", 990.0, "us"}};
  example_policy policy = {64, 32, 4}, old_policy = {32, 32, 2};
  olc_key key, old_key, lookup_key;
  olc_save_request save = OLC_SAVE_REQUEST_INIT;
  olc_lookup_options lookup = OLC_LOOKUP_OPTIONS_INIT;
  olc_lookup_result *result = NULL;
  const olc_record *selected;
  olc_store *store = NULL;
  olc_error err;
  olc_status st;
  size_t i, n;
  int rc = 1;

  olc_error_clear(&err);
  if (path != NULL && path[0] != '\0')
    opts.path = path;
  else
    opts.persistence_enabled = 0;
  st = olc_store_open(&store, &opts, &err);
  if (st != OLC_OK)
    return fail("open", st, &err);
  printf("store: %s\n", opts.persistence_enabled ? olc_store_path(store) : "(in memory)");

  /* The example's key: exact identity, plus the structure a portable record needs. */
  memset(&key, 0, sizeof key);
  key.backend = "example_gpu";
  key.operator_name = "MatMul";
  key.implementation = "3";
  key.model_digest = model_digest;
  key.processor = processor;
  key.thread_count = 8;
  key.structure = structure;
  key.structure_count = 2;

  /* Store(key, {{"median_latency", median_us, "us"}}, serialize, validate). */
  save.key = &key;
  save.measurements = measurements;
  save.measurement_count = 1;
  save.serialize = example_policy_serialize;
  save.serialize_payload = &policy;
  save.validate = example_policy_validate_serialized;
  st = olc_store_save(store, &save, &err);
  if (st < 0)
    goto fail_save;

  /* What an older build left behind: implementation "2", exact only. */
  old_key = key;
  old_key.implementation = "2";
  old_key.structure = NULL;
  old_key.structure_count = 0;
  save.key = &old_key;
  save.measurements = old_measurements;
  save.serialize_payload = &old_policy;
  st = olc_store_save(store, &save, &err);
  if (st < 0)
    goto fail_save;

  /* A hand-edited user override the backend cannot use: the lookup skips it. */
  save.key = &key;
  save.serialize = NULL;
  save.validate = NULL;
  save.policy = "example_policy v1 tile=0x32 unroll=4";
  save.policy_len = strlen(save.policy);
  save.levels = OLC_LEVEL_BIT_EXACT;
  st = olc_store_install_override(store, &save, &err);
  if (st < 0)
    goto fail_save;

  /* Lookup(exact_key = key, structural_properties = {...}, ValidateSerialized). */
  lookup_key = key;
  lookup_key.structure = structure;
  lookup_key.structure_count = 2;
  lookup.key = &lookup_key;
  lookup.validate = example_policy_validate_serialized;
  st = olc_store_lookup(&result, store, &lookup, &err);
  if (st != OLC_OK && st != OLC_E_NOT_FOUND) {
    rc = fail("lookup", st, &err);
    goto done;
  }
  selected = olc_lookup_result_selected(result);
  if (selected == NULL) {
    printf("selected: none\n");
  } else {
    printf("selected: %s %s profile\n", olc_level_str(selected->level),
           olc_origin_str(selected->origin));
    print_record(selected);
    printf("measurements: %zu\n", selected->measurement_count);
    for (i = 0; i < selected->measurement_count; i++)
      printf("  %s = %g %s\n", selected->measurements[i].name, selected->measurements[i].value,
             selected->measurements[i].unit);
  }
  n = olc_lookup_result_rejected_count(result);
  printf("rejected candidates: %zu\n", n);
  for (i = 0; i < n; i++) {
    const olc_rejection *rej = olc_lookup_result_rejected(result, i);
    printf("- %s: %s\n", olc_reason_str(rej->reason), rej->message);
    print_record(rej->record);
  }
  rc = selected != NULL ? 0 : 1;
  goto done;

fail_save:
  rc = fail("save", st, &err);
done:
  olc_lookup_result_free(result);
  olc_store_free(store);
  return rc;
}
