/*
 * tests/support/sha256_vectors.h - the SHA-256 examples of FIPS 180-2
 * (one block, two blocks, a million 'a' fed in pieces of many sizes) held
 * against the digest module; shared by tests/digest/test_digest.c and the
 * Windows run (tests/windows/win_host_smoke.c), whose BCrypt must agree
 * with OpenSSL.  Header-only: the Windows program links no test support.
 */
#ifndef OLC_TEST_SHA256_VECTORS_H
#define OLC_TEST_SHA256_VECTORS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "digest/digest.h"

#define SHA256_ABC "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

typedef struct sha256_vector {
  const char *text;
  const char *digest;
} sha256_vector;

static const sha256_vector sha256_vectors[] = {
    {"", "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
    {"abc", SHA256_ABC},
    {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
     "sha256:248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
};

#define SHA256_MILLION_A "sha256:cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"

/* A million 'a' fed in pieces of 0, 1, 2 ... 996 bytes (then the rest):
 * block boundaries fall everywhere inside a piece. */
static olc_status sha256_million_a(char out[OLC_DIGEST_SIZE], olc_error *err) {
  size_t done = 0, piece = 0, total = 1000000;
  char *a = malloc(1000);
  olc_digest *d = NULL;
  olc_status st = a == NULL ? OLC_E_NOMEM : olc_digest__begin(&d, err);
  if (a != NULL)
    memset(a, 'a', 1000);
  while (st == OLC_OK && done < total) {
    size_t n = piece % 997;
    if (n > total - done)
      n = total - done;
    st = olc_digest__update(d, a, n, err);
    done += n, piece++;
  }
  if (st == OLC_OK) {
    st = olc_digest__end(out, d, err);
    d = NULL;
  }
  olc_digest__free(d);
  free(a);
  return st;
}

/* Every vector, whole and streamed; prints each mismatch and returns how
 * many there were. */
static int sha256_check_vectors(void) {
  char out[OLC_DIGEST_SIZE];
  olc_error err;
  int bad = 0;
  size_t i;
  for (i = 0; i < sizeof sha256_vectors / sizeof sha256_vectors[0]; i++) {
    const sha256_vector *v = &sha256_vectors[i];
    out[0] = 0;
    if (olc_digest__bytes(out, v->text, strlen(v->text), &err) != OLC_OK ||
        strcmp(out, v->digest) != 0) {
      printf("sha256(\"%s\") = %s, expected %s\n", v->text, out, v->digest);
      bad++;
    }
  }
  out[0] = 0;
  if (sha256_million_a(out, &err) != OLC_OK || strcmp(out, SHA256_MILLION_A) != 0) {
    printf("sha256(a million 'a') = %s, expected %s\n", out, SHA256_MILLION_A);
    bad++;
  }
  return bad;
}

#endif
