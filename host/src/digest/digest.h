/*
 * digest/digest.h - SHA-256 of a model, the one digest the host computes:
 * the platform's implementation (OpenSSL's libcrypto on POSIX, CNG's
 * BCrypt on Windows) behind one streaming interface, so that a model file
 * is hashed in chunks and a runtime's model bytes hash the same on every
 * platform.
 */
#ifndef OLC_DIGEST_H
#define OLC_DIGEST_H

#include <stddef.h>

#include "olc/error.h"

/* "sha256:", 64 lower-case hex digits and the NUL. */
#define OLC_DIGEST_SIZE 72u

typedef struct olc_digest olc_digest;

/* Starts a hash; *out is given to olc_digest__end or olc_digest__free.
 * Returns OLC_OK, OLC_E_NOMEM, or OLC_E_INTERNAL (the platform's
 * implementation refused). */
olc_status olc_digest__begin(olc_digest **out, olc_error *err);
/* Hashes n more bytes at p (any n, 0 included).  Returns OLC_OK or
 * OLC_E_INTERNAL. */
olc_status olc_digest__update(olc_digest *d, const void *p, size_t n, olc_error *err);
/* Writes "sha256:<hex>" of all the bytes to out and frees d, also on
 * failure.  Returns OLC_OK or OLC_E_INTERNAL. */
olc_status olc_digest__end(char out[OLC_DIGEST_SIZE], olc_digest *d, olc_error *err);
/* NULL is fine. */
void olc_digest__free(olc_digest *d);

/* begin, update and end of n bytes at p. */
olc_status olc_digest__bytes(char out[OLC_DIGEST_SIZE], const void *p, size_t n, olc_error *err);

/* Internal to the module: "sha256:" and the hex of md (32 bytes). */
void olc_digest__text(char out[OLC_DIGEST_SIZE], const unsigned char md[32]);

#endif
