/*
 * digest/digest_win32.c - SHA-256 with Windows' CNG (BCrypt), part of the
 * system since Vista: no third-party library on Windows.
 */
#include "digest/digest.h"

#include <stdint.h>
#include <stdlib.h>

#include <windows.h>

#include <bcrypt.h>

#include "util/error.h"

struct olc_digest {
  BCRYPT_ALG_HANDLE alg;
  BCRYPT_HASH_HANDLE hash;
  PUCHAR object; /* the hash object's memory, which Windows 7 needs given */
};

/* BCryptHashData takes a ULONG count. */
#define CHUNK ((size_t)1 << 30)

static olc_status fail(olc_error *err, const char *fn, NTSTATUS ns) {
  return olc_error__set(err, OLC_E_INTERNAL, "sha256", "%s failed for SHA-256 (NTSTATUS 0x%08lx)",
                        fn, (unsigned long)ns);
}

olc_status olc_digest__begin(olc_digest **out, olc_error *err) {
  olc_digest *d = calloc(1, sizeof *d);
  DWORD size = 0, got = 0;
  NTSTATUS ns;
  *out = NULL;
  if (d == NULL)
    return olc_error__set(err, OLC_E_NOMEM, "sha256", "out of memory starting sha-256");
  ns = BCryptOpenAlgorithmProvider(&d->alg, BCRYPT_SHA256_ALGORITHM, NULL, 0);
  if (!BCRYPT_SUCCESS(ns)) {
    free(d);
    return fail(err, "BCryptOpenAlgorithmProvider", ns);
  }
  ns = BCryptGetProperty(d->alg, BCRYPT_OBJECT_LENGTH, (PUCHAR)&size, sizeof size, &got, 0);
  if (BCRYPT_SUCCESS(ns)) {
    d->object = malloc(size > 0 ? size : 1);
    if (d->object == NULL) {
      olc_digest__free(d);
      return olc_error__set(err, OLC_E_NOMEM, "sha256", "out of memory starting sha-256");
    }
    ns = BCryptCreateHash(d->alg, &d->hash, d->object, size, NULL, 0, 0);
  }
  if (!BCRYPT_SUCCESS(ns)) {
    olc_digest__free(d);
    return fail(err, "BCryptCreateHash", ns);
  }
  *out = d;
  return OLC_OK;
}

olc_status olc_digest__update(olc_digest *d, const void *p, size_t n, olc_error *err) {
  const unsigned char *at = p;
  while (n > 0) {
    size_t part = n < CHUNK ? n : CHUNK;
    NTSTATUS ns = BCryptHashData(d->hash, (PUCHAR)(uintptr_t)at, (ULONG)part, 0);
    if (!BCRYPT_SUCCESS(ns))
      return fail(err, "BCryptHashData", ns);
    at += part, n -= part;
  }
  return OLC_OK;
}

olc_status olc_digest__end(char out[OLC_DIGEST_SIZE], olc_digest *d, olc_error *err) {
  unsigned char md[32];
  NTSTATUS ns = BCryptFinishHash(d->hash, md, sizeof md, 0);
  olc_digest__free(d);
  if (!BCRYPT_SUCCESS(ns))
    return fail(err, "BCryptFinishHash", ns);
  olc_digest__text(out, md);
  return OLC_OK;
}

void olc_digest__free(olc_digest *d) {
  if (d == NULL)
    return;
  if (d->hash != NULL)
    BCryptDestroyHash(d->hash);
  if (d->alg != NULL)
    BCryptCloseAlgorithmProvider(d->alg, 0);
  free(d->object);
  free(d);
}
