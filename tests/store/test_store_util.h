/*
 * tests/store/test_store_util.h - small builders shared by the store tests.
 */
#ifndef OLC_TEST_STORE_UTIL_H
#define OLC_TEST_STORE_UTIL_H

#include <stdio.h>
#include <string.h>

#include "olc/store.h"
#include "test_support.h"

static const olc_property tsu_structure[] = {{"shape", "m,n,4096"}, {"dtype", "float16"}};

/* An exact key with structure (so a save writes both levels). */
static inline olc_key tsu_key(const char *impl, const char *model, const char *proc,
                              int64_t threads) {
  olc_key k;
  memset(&k, 0, sizeof k);
  k.backend = "example_gpu";
  k.operator_name = "MatMul";
  k.implementation = impl;
  k.model_digest = model;
  k.processor = proc;
  k.thread_count = threads;
  k.structure = tsu_structure;
  k.structure_count = 2;
  return k;
}

static inline olc_status tsu_put(olc_store *s, const olc_key *key, const char *policy,
                                 unsigned levels, int override_, olc_error *err) {
  olc_measurement m[2] = {{"median_latency", 2.5, "us"}, {"spread", 0.125, "%"}};
  olc_save_request r = OLC_SAVE_REQUEST_INIT;
  r.key = key;
  r.measurements = m;
  r.measurement_count = 2;
  r.policy = policy;
  r.policy_len = strlen(policy);
  r.levels = levels;
  return override_ ? olc_store_install_override(s, &r, err) : olc_store_save(s, &r, err);
}

static inline olc_store *tsu_open_memory(void) {
  olc_store_options o = OLC_STORE_OPTIONS_INIT;
  olc_store *s = NULL;
  olc_error e;
  o.persistence_enabled = 0;
  if (olc_store_open(&s, &o, &e) != OLC_OK)
    fprintf(stderr, "open: %s\n", e.message);
  return s;
}

static inline olc_store *tsu_open_file(const char *path, int check) {
  olc_store_options o = OLC_STORE_OPTIONS_INIT;
  olc_store *s = NULL;
  olc_error e;
  o.path = path;
  o.check_for_changes = check;
  o.tmp_grace_seconds = 0;
  if (olc_store_open(&s, &o, &e) != OLC_OK)
    fprintf(stderr, "open %s: %s\n", path, e.message);
  return s;
}

/* The selected policy as a string ("" when none). */
static inline const char *tsu_selected_policy(const olc_lookup_result *res) {
  const olc_record *r = olc_lookup_result_selected(res);
  return r != NULL ? (const char *)r->policy : "";
}

/* The first rejection with that reason, or NULL. */
static inline const olc_rejection *tsu_find_rejection(const olc_lookup_result *res,
                                                      olc_reason reason) {
  size_t i;
  for (i = 0; i < olc_lookup_result_rejected_count(res); i++) {
    const olc_rejection *rj = olc_lookup_result_rejected(res, i);
    if (rj->reason == reason)
      return rj;
  }
  return NULL;
}

static inline size_t tsu_count_rejections(const olc_lookup_result *res, olc_reason reason) {
  size_t i, n = 0;
  for (i = 0; i < olc_lookup_result_rejected_count(res); i++)
    if (olc_lookup_result_rejected(res, i)->reason == reason)
      n++;
  return n;
}

#endif
