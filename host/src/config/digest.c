/*
 * config/digest.c - the model digest of `model = PATH`: SHA-256 with
 * OpenSSL's libcrypto (EVP), read in chunks so that multi-gigabyte models
 * never sit in memory; and of model bytes a runtime holds in memory.
 */
#include "config/config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "util/error.h"

#define DIGEST_CHUNK ((size_t)1 << 16)

static const char hex[] = "0123456789abcdef";

/* "sha256:" and the hex of md (32 bytes). */
static void digest_text(char out[OLC_CONFIG_DIGEST_SIZE], const unsigned char *md) {
  unsigned i;
  memcpy(out, "sha256:", 7);
  for (i = 0; i < 32u; i++) {
    out[7 + 2 * i] = hex[md[i] >> 4];
    out[8 + 2 * i] = hex[md[i] & 15u];
  }
  out[7 + 64] = 0;
}

olc_status olc_config__sha256_bytes(char out[OLC_CONFIG_DIGEST_SIZE], const void *bytes, size_t len,
                                    olc_error *err) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int md_len = 0;
  EVP_MD_CTX *ctx = EVP_MD_CTX_new();
  olc_status st = OLC_OK;
  if (ctx == NULL)
    return olc_error__set(err, OLC_E_NOMEM, "sha256", "out of memory hashing the model bytes");
  if (EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1 ||
      (len > 0 && EVP_DigestUpdate(ctx, bytes, len) != 1) ||
      EVP_DigestFinal_ex(ctx, md, &md_len) != 1 || md_len != 32u)
    st = olc_error__set(err, OLC_E_INTERNAL, "sha256", "libcrypto failed hashing the model bytes");
  else
    digest_text(out, md);
  EVP_MD_CTX_free(ctx);
  return st;
}

olc_status olc_config__sha256_file(char out[OLC_CONFIG_DIGEST_SIZE], const char *path,
                                   olc_error *err) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int md_len = 0;
  unsigned char *chunk = NULL;
  EVP_MD_CTX *ctx = NULL;
  FILE *f = NULL;
  olc_status st = OLC_OK;

  f = fopen(path, "rb");
  if (f == NULL) {
    st = olc_error__sys(err, OLC_E_IO, errno, "open", "cannot open model '%s'", path);
    goto done;
  }
  chunk = malloc(DIGEST_CHUNK);
  ctx = EVP_MD_CTX_new();
  if (chunk == NULL || ctx == NULL) {
    st = olc_error__set(err, OLC_E_NOMEM, "sha256", "out of memory hashing '%s'", path);
    goto done;
  }
  if (EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
    st = olc_error__set(err, OLC_E_INTERNAL, "sha256", "libcrypto cannot start sha-256");
    goto done;
  }
  for (;;) {
    size_t n = fread(chunk, 1, DIGEST_CHUNK, f);
    if (n > 0 && EVP_DigestUpdate(ctx, chunk, n) != 1) {
      st = olc_error__set(err, OLC_E_INTERNAL, "sha256", "libcrypto failed hashing '%s'", path);
      goto done;
    }
    if (n < DIGEST_CHUNK) {
      if (ferror(f)) {
        st = olc_error__sys(err, OLC_E_IO, errno, "read", "cannot read model '%s'", path);
        goto done;
      }
      break;
    }
  }
  if (EVP_DigestFinal_ex(ctx, md, &md_len) != 1 || md_len != 32u) {
    st = olc_error__set(err, OLC_E_INTERNAL, "sha256", "libcrypto failed hashing '%s'", path);
    goto done;
  }
  digest_text(out, md);
done:
  EVP_MD_CTX_free(ctx);
  free(chunk);
  if (f != NULL)
    fclose(f);
  return st;
}
