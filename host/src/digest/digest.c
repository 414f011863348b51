/*
 * digest/digest.c - what the SHA-256 implementations share: the text form
 * of a digest and hashing bytes held in memory.
 */
#include "digest/digest.h"

static const char hex[] = "0123456789abcdef";

void olc_digest__text(char out[OLC_DIGEST_SIZE], const unsigned char md[32]) {
  unsigned i;
  out[0] = 's', out[1] = 'h', out[2] = 'a', out[3] = '2', out[4] = '5', out[5] = '6';
  out[6] = ':';
  for (i = 0; i < 32u; i++) {
    out[7 + 2 * i] = hex[md[i] >> 4];
    out[8 + 2 * i] = hex[md[i] & 15u];
  }
  out[7 + 64] = 0;
}

olc_status olc_digest__bytes(char out[OLC_DIGEST_SIZE], const void *p, size_t n, olc_error *err) {
  olc_digest *d = NULL;
  olc_status st = olc_digest__begin(&d, err);
  if (st == OLC_OK)
    st = olc_digest__update(d, p, n, err);
  if (st != OLC_OK) {
    olc_digest__free(d);
    return st;
  }
  return olc_digest__end(out, d, err);
}
