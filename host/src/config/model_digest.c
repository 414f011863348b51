/*
 * config/model_digest.c - the model digest of `model = PATH`: the file's SHA-256
 * (digest module), read in chunks so that multi-gigabyte models never sit
 * in memory.
 */
#include "config/config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/error.h"

#define DIGEST_CHUNK ((size_t)1 << 16)

/* Feeds the whole of f to d. */
static olc_status hash_stream(olc_digest *d, FILE *f, unsigned char *chunk, const char *path,
                              olc_error *err) {
  for (;;) {
    size_t n = fread(chunk, 1, DIGEST_CHUNK, f);
    olc_status st = olc_digest__update(d, chunk, n, err);
    if (st != OLC_OK)
      return olc_error__set(err, st, "sha256", "cannot hash model '%s': %s", path, err->message);
    if (n < DIGEST_CHUNK) {
      if (ferror(f))
        return olc_error__sys(err, OLC_E_IO, errno, "read", "cannot read model '%s'", path);
      return OLC_OK;
    }
  }
}

olc_status olc_config__sha256_file(char out[OLC_DIGEST_SIZE], const char *path, olc_error *err) {
  unsigned char *chunk = NULL;
  olc_digest *d = NULL;
  FILE *f = fopen(path, "rb");
  olc_status st;
  if (f == NULL)
    return olc_error__sys(err, OLC_E_IO, errno, "open", "cannot open model '%s'", path);
  chunk = malloc(DIGEST_CHUNK);
  st = chunk == NULL
           ? olc_error__set(err, OLC_E_NOMEM, "sha256", "out of memory hashing '%s'", path)
           : olc_digest__begin(&d, err);
  if (st == OLC_OK)
    st = hash_stream(d, f, chunk, path, err);
  if (st == OLC_OK) {
    st = olc_digest__end(out, d, err);
    d = NULL;
  }
  olc_digest__free(d);
  free(chunk);
  fclose(f);
  return st;
}
