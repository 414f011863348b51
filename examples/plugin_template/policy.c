/*
 * policy.c - the template plugin's policy: block sizes as one canonical
 * text, and the candidates worth measuring for a shape.
 */
#include <stdio.h>
#include <string.h>

#include "template.h"

static int in_range(uint32_t v) { return v >= 1u && v <= TM_BLOCK_MAX; }

size_t tm_policy_format(char *buf, size_t size, const tm_policy *p) {
  int n;
  if (!in_range(p->mb) || !in_range(p->nb) || !in_range(p->kb))
    return 0;
  n = snprintf(buf, size, "v1 mb=%u nb=%u kb=%u", (unsigned)p->mb, (unsigned)p->nb,
               (unsigned)p->kb);
  return n > 0 && (size_t)n < size ? (size_t)n : 0;
}

/* Reads "<name>=<decimal>" at *pos; no sign, no leading zero. */
static int read_field(const char *s, size_t len, size_t *pos, const char *name, uint32_t *out) {
  size_t i = *pos, nlen = strlen(name);
  uint32_t v = 0;
  if (len - i < nlen + 2 || memcmp(s + i, name, nlen) != 0 || s[i + nlen] != '=')
    return -1;
  i += nlen + 1;
  if (s[i] < '1' || s[i] > '9')
    return -1;
  while (i < len && s[i] >= '0' && s[i] <= '9') {
    v = v * 10u + (uint32_t)(s[i] - '0');
    if (v > TM_BLOCK_MAX)
      return -1;
    i++;
  }
  *pos = i;
  *out = v;
  return 0;
}

int tm_policy_parse(tm_policy *out, const void *bytes, size_t len, char *why, size_t why_size) {
  static const char *const names[3] = {"mb", "nb", "kb"};
  const char *s = bytes;
  uint32_t v[3];
  size_t pos = 3;
  if (bytes == NULL || len < 3 || len > TM_POLICY_TEXT_MAX || memcmp(s, "v1 ", 3) != 0) {
    snprintf(why, why_size, "policy is not a \"v1 mb=N nb=N kb=N\" text (%zu bytes)", len);
    return -1;
  }
  for (int f = 0; f < 3; f++) {
    if (f > 0 && (pos >= len || s[pos++] != ' ')) {
      snprintf(why, why_size, "policy: expected a space before %s", names[f]);
      return -1;
    }
    if (read_field(s, len, &pos, names[f], &v[f]) != 0) {
      snprintf(why, why_size, "policy: %s must be an integer in 1..%u without leading zeros",
               names[f], TM_BLOCK_MAX);
      return -1;
    }
  }
  if (pos != len) {
    snprintf(why, why_size, "policy: unexpected bytes after kb");
    return -1;
  }
  out->mb = v[0];
  out->nb = v[1];
  out->kb = v[2];
  return 0;
}

static uint32_t clip(uint32_t block, int64_t dim, uint32_t max_block) {
  if (block > max_block)
    block = max_block;
  return (int64_t)block > dim ? (uint32_t)dim : block;
}

uint32_t tm_policy_candidates(tm_policy *out, uint32_t cap, const tm_shape *shape,
                              uint32_t max_block) {
  /* The first row is the plugin's guess: a 64 x 64 block of C over 128 of
   * k keeps A's and B's blocks (64 KiB) within a typical L2.  The host
   * keeps it unless another candidate is clearly faster. */
  static const uint32_t blocks[][3] = {{64, 64, 128},  {32, 32, 64},   {32, 128, 128},
                                       {64, 256, 64},  {128, 64, 256}, {128, 128, 128},
                                       {16, 512, 256}, {256, 256, 256}};
  uint32_t count = 0;
  if (max_block < 1 || max_block > TM_BLOCK_MAX)
    max_block = TM_BLOCK_MAX;
  for (size_t i = 0; i < sizeof blocks / sizeof blocks[0] && count < cap; i++) {
    tm_policy p;
    int seen = 0;
    p.mb = clip(blocks[i][0], shape->m, max_block);
    p.nb = clip(blocks[i][1], shape->n, max_block);
    p.kb = clip(blocks[i][2], shape->k, max_block);
    /* Small shapes clip several rows to one policy: measure it once. */
    for (uint32_t j = 0; j < count && !seen; j++)
      seen = out[j].mb == p.mb && out[j].nb == p.nb && out[j].kb == p.kb;
    if (!seen)
      out[count++] = p;
  }
  return count;
}
