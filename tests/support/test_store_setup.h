/*
 * tests/support/test_store_setup.h - the store file, key and save request
 * that the store, hostile and integration tests set up again and again.
 */
#ifndef OLC_TEST_STORE_SETUP_H
#define OLC_TEST_STORE_SETUP_H

#include <stddef.h>

#include "olc/store.h"

/* Suite setup: a fresh temporary directory (olc_test_tmpdir(tag)) into
 * *dir and DIR/name into *path; 0 on success, as CUnit's setup returns. */
int olc_test_store_dir(const char *tag, const char *name, char **dir, char **path);
/* Suite teardown: removes *dir recursively and frees both. */
void olc_test_store_dir_free(char **dir, char **path);

/* Removes the store file path and its lock file PATH.lock, for a test
 * that starts from no store. */
void olc_test_store_remove(const char *path);

/* A MatMul key of backend with implementation "1" on processor "cpu" and
 * one thread, without structure. */
olc_key olc_test_matmul_key(const char *backend, const char *model_digest);

/* A bit-exact request saving key with policy (len bytes) and the n
 * measurements m. */
olc_save_request olc_test_bit_exact_request(const olc_key *key, const void *policy, size_t len,
                                            const olc_measurement *m, size_t n);

/* Opens the store o names, saves req and frees the handle again: a whole
 * short-lived writer.  Returns the open's status when it fails, else the
 * save's. */
olc_status olc_test_save_once(const olc_store_options *o, const olc_save_request *req,
                              olc_error *err);

#endif
