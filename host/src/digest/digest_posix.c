/*
 * digest/digest_posix.c - SHA-256 with OpenSSL's libcrypto (EVP), which
 * every POSIX build of the host links.
 */
#include "digest/digest.h"

#include <openssl/evp.h>

#include "util/error.h"

struct olc_digest {
  EVP_MD_CTX *ctx;
};

olc_status olc_digest__begin(olc_digest **out, olc_error *err) {
  EVP_MD_CTX *ctx = EVP_MD_CTX_new();
  *out = NULL;
  if (ctx == NULL)
    return olc_error__set(err, OLC_E_NOMEM, "sha256", "out of memory starting sha-256");
  if (EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
    EVP_MD_CTX_free(ctx);
    return olc_error__set(err, OLC_E_INTERNAL, "sha256", "libcrypto cannot start sha-256");
  }
  /* The context is the state: no wrapper to allocate. */
  *out = (olc_digest *)ctx;
  return OLC_OK;
}

olc_status olc_digest__update(olc_digest *d, const void *p, size_t n, olc_error *err) {
  if (n > 0 && EVP_DigestUpdate((EVP_MD_CTX *)d, p, n) != 1)
    return olc_error__set(err, OLC_E_INTERNAL, "sha256", "libcrypto failed hashing");
  return OLC_OK;
}

olc_status olc_digest__end(char out[OLC_DIGEST_SIZE], olc_digest *d, olc_error *err) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  int ok = EVP_DigestFinal_ex((EVP_MD_CTX *)d, md, &len) == 1 && len == 32u;
  olc_digest__free(d);
  if (!ok)
    return olc_error__set(err, OLC_E_INTERNAL, "sha256", "libcrypto failed finishing sha-256");
  olc_digest__text(out, md);
  return OLC_OK;
}

void olc_digest__free(olc_digest *d) { EVP_MD_CTX_free((EVP_MD_CTX *)d); }
