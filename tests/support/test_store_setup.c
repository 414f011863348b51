/* tests/support/test_store_setup.c - store setup shared by the tests. */
#include "test_store_setup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_support.h"

int olc_test_store_dir(const char *tag, const char *name, char **dir, char **path) {
  *path = NULL;
  *dir = olc_test_tmpdir(tag);
  if (*dir == NULL)
    return 1;
  *path = olc_test_path(*dir, name);
  return *path == NULL;
}

void olc_test_store_dir_free(char **dir, char **path) {
  olc_test_rmtree(*dir);
  free(*dir);
  free(*path);
  *dir = NULL;
  *path = NULL;
}

void olc_test_store_remove(const char *path) {
  char *lock = malloc(strlen(path) + sizeof ".lock");
  remove(path);
  if (lock == NULL)
    return;
  strcpy(lock, path);
  strcat(lock, ".lock");
  remove(lock);
  free(lock);
}

olc_key olc_test_matmul_key(const char *backend, const char *model_digest) {
  olc_key key;
  memset(&key, 0, sizeof key);
  key.backend = backend;
  key.operator_name = "MatMul";
  key.implementation = "1";
  key.model_digest = model_digest;
  key.processor = "cpu";
  key.thread_count = 1;
  return key;
}

olc_save_request olc_test_bit_exact_request(const olc_key *key, const void *policy, size_t len,
                                            const olc_measurement *m, size_t n) {
  olc_save_request req = OLC_SAVE_REQUEST_INIT;
  req.key = key;
  req.measurements = m;
  req.measurement_count = n;
  req.policy = policy;
  req.policy_len = len;
  req.levels = OLC_LEVEL_BIT_EXACT;
  return req;
}

olc_status olc_test_save_once(const olc_store_options *o, const olc_save_request *req,
                              olc_error *err) {
  olc_store *s = NULL;
  olc_status st = olc_store_open(&s, o, err);
  if (st != OLC_OK)
    return st;
  st = olc_store_save(s, req, err);
  olc_store_free(s);
  return st;
}
