/*
 * tests/digest/test_digest.c - the digest module (host/src/digest): the
 * FIPS 180-2 examples, whole and streamed, the text form, and a workload's
 * model bytes hashing to the digest of the same bytes in a file.
 */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "digest/digest.h"
#include "sha256_vectors.h"
#include "test_support.h"

static void test_vectors(void) { CU_ASSERT_EQUAL(sha256_check_vectors(), 0); }

/* The text is "sha256:" and 64 lower-case hex digits, NUL-terminated. */
static void test_text_form(void) {
  unsigned char md[32];
  char out[OLC_DIGEST_SIZE];
  unsigned i;
  for (i = 0; i < 32u; i++)
    md[i] = (unsigned char)(i * 37u + 250u);
  memset(out, 'x', sizeof out);
  olc_digest__text(out, md);
  CU_ASSERT_EQUAL(strlen(out), 71u);
  CU_ASSERT_EQUAL(strncmp(out, "sha256:fa1f44", 13), 0);
  CU_ASSERT_EQUAL(strspn(out + 7, "0123456789abcdef"), 64u);
}

/* An update of 0 bytes changes nothing; free of NULL is fine. */
static void test_empty_updates(void) {
  char out[OLC_DIGEST_SIZE];
  olc_digest *d = NULL;
  olc_error err;
  OLC_ASSERT_OK(olc_digest__begin(&d, &err), &err);
  OLC_ASSERT_OK(olc_digest__update(d, NULL, 0, &err), &err);
  OLC_ASSERT_OK(olc_digest__update(d, "ab", 2, &err), &err);
  OLC_ASSERT_OK(olc_digest__update(d, "", 0, &err), &err);
  OLC_ASSERT_OK(olc_digest__update(d, "c", 1, &err), &err);
  OLC_ASSERT_OK(olc_digest__end(out, d, &err), &err);
  CU_ASSERT_STRING_EQUAL(out, SHA256_ABC);
  olc_digest__free(NULL);
}

/* model = PATH (config, chunked file reads) and model_bytes (the digest
 * module on memory) agree on a file larger than one read chunk. */
static void test_file_matches_bytes(void) {
  size_t len = (1u << 16) * 3u + 17u, i;
  unsigned char *bytes = malloc(len);
  char *dir = olc_test_tmpdir("digest"), *path = olc_test_path(dir, "model.onnx");
  char from_file[OLC_DIGEST_SIZE], from_bytes[OLC_DIGEST_SIZE];
  olc_error err;
  CU_ASSERT_PTR_NOT_NULL_FATAL(bytes);
  for (i = 0; i < len; i++)
    bytes[i] = (unsigned char)(i * 131u >> 3);
  CU_ASSERT_EQUAL_FATAL(olc_test_write_file(path, bytes, len), 0);
  OLC_ASSERT_OK(olc_config__sha256_file(from_file, path, &err), &err);
  OLC_ASSERT_OK(olc_digest__bytes(from_bytes, bytes, len, &err), &err);
  CU_ASSERT_STRING_EQUAL(from_file, from_bytes);
  bytes[len - 1] ^= 1u;
  OLC_ASSERT_OK(olc_digest__bytes(from_bytes, bytes, len, &err), &err);
  CU_ASSERT_STRING_NOT_EQUAL(from_file, from_bytes);
  olc_test_rmtree(dir);
  free(path);
  free(dir);
  free(bytes);
}

int main(int argc, char **argv) {
  CU_pSuite s;
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("digest", NULL, NULL);
  CU_add_test(s, "vectors", test_vectors);
  CU_add_test(s, "text_form", test_text_form);
  CU_add_test(s, "empty_updates", test_empty_updates);
  CU_add_test(s, "file_matches_bytes", test_file_matches_bytes);
  return olc_test_run(argc, argv);
}
