/*
 * policy.c - strict text codec and validation of cpu_gemm policies.
 *
 * The stored form must mean exactly one thing, and each policy has exactly
 * one text: every key appears once and in the order cg_policy_format writes,
 * the values are canonical decimals without sign or leading zero, and anything
 * else (unknown words, stray spaces, out-of-range values, kernels this CPU
 * cannot run) is rejected with a reason rather than guessed at.
 */
#include "policy.h"

#include <stdio.h>
#include <string.h>

#include "kernels/kernels.h"

static const char *const split_names[] = {"none", "ic", "jc"};
static const char *const pack_names[] = {"none", "a", "b", "ab", "bj", "abj"};

#define KEY_KERNEL 0
#define KEY_MC 1
#define KEY_KC 2
#define KEY_NC 3
#define KEY_SPLIT 4
#define KEY_PACK 5
#define KEY_COUNT 6
static const char *const key_names[KEY_COUNT] = {"kernel", "mc", "kc", "nc", "split", "pack"};

static int word_is(const char *w, size_t len, const char *lit) {
  return strlen(lit) == len && memcmp(w, lit, len) == 0;
}

static int word_index(const char *w, size_t len, const char *const *names, int count) {
  for (int i = 0; i < count; i++) {
    if (word_is(w, len, names[i]))
      return i;
  }
  return -1;
}

/* Canonical unsigned decimal: 1 to 9 digits, no leading zero (0 itself is
 * never a valid value here). */
static int parse_u32(const char *s, size_t len, uint32_t *out) {
  uint32_t v = 0;
  if (len == 0 || len > 9 || s[0] == '0')
    return -1;
  for (size_t i = 0; i < len; i++) {
    if (s[i] < '0' || s[i] > '9')
      return -1;
    v = v * 10u + (uint32_t)(s[i] - '0');
  }
  *out = v;
  return 0;
}

static int fail(char *why, size_t cap, const char *what, const char *arg, size_t arg_len) {
  /* Echo at most 40 bytes, printable ASCII only, so the reason stays one
   * short, valid line whatever bytes the policy holds. */
  char shown[41];
  size_t n = arg_len > 40 ? 40 : arg_len;
  for (size_t i = 0; i < n; i++)
    shown[i] = (arg[i] >= 0x20 && arg[i] < 0x7f) ? arg[i] : '?';
  shown[n] = '\0';
  if (why != NULL && cap > 0)
    snprintf(why, cap, "policy: %s '%s'", what, shown);
  return -1;
}

static int parse_value(cg_policy *p, int key, const char *v, size_t vlen, char *why, size_t cap) {
  int idx;
  switch (key) {
  case KEY_KERNEL:
    idx = cg_kernel_find(v, vlen);
    if (idx < 0)
      return fail(why, cap, "unknown kernel", v, vlen);
    p->kernel = (uint32_t)idx;
    return 0;
  case KEY_MC:
  case KEY_KC:
  case KEY_NC: {
    uint32_t n;
    if (parse_u32(v, vlen, &n) != 0)
      return fail(why, cap, "bad number", v, vlen);
    *(key == KEY_MC ? &p->mc : key == KEY_KC ? &p->kc : &p->nc) = n;
    return 0;
  }
  case KEY_SPLIT:
    idx = word_index(v, vlen, split_names, 3);
    if (idx < 0)
      return fail(why, cap, "unknown split", v, vlen);
    p->split = (uint32_t)idx;
    return 0;
  default:
    /* abj2 and abj4: the grouped forms of abj. */
    if (vlen == 4 && memcmp(v, "abj", 3) == 0 && (v[3] == '2' || v[3] == '4')) {
      p->pack = CG_PACK_A | CG_PACK_BJ;
      p->bj_group = v[3] == '2' ? 1u : 2u;
      return 0;
    }
    idx = word_index(v, vlen, pack_names, 6);
    if (idx < 0)
      return fail(why, cap, "unknown pack", v, vlen);
    p->pack = (uint32_t)idx;
    p->bj_group = 0;
    return 0;
  }
}

int cg_policy_parse(cg_policy *out, const char *text, size_t len, uint32_t max_isa, char *why,
                    size_t why_cap) {
  cg_policy p;
  unsigned seen = 0;
  int next = 0; /* the key the canonical order expects now */
  size_t pos = 0, start;
  memset(&p, 0, sizeof(p));
  while (pos < len && text[pos] != ' ')
    pos++;
  if (!word_is(text, pos, "v1"))
    return fail(why, why_cap, "unknown version word", text, pos);
  while (pos < len) {
    const char *w, *eq;
    size_t wlen;
    int key;
    if (text[pos] != ' ' || pos + 1 >= len || text[pos + 1] == ' ')
      return fail(why, why_cap, "bad spacing near", text + pos, len - pos);
    start = ++pos;
    while (pos < len && text[pos] != ' ')
      pos++;
    w = text + start;
    wlen = pos - start;
    eq = memchr(w, '=', wlen);
    if (eq == NULL)
      return fail(why, why_cap, "unknown word", w, wlen);
    key = word_index(w, (size_t)(eq - w), key_names, KEY_COUNT);
    if (key < 0)
      return fail(why, why_cap, "unknown key", w, (size_t)(eq - w));
    if (seen & (1u << key))
      return fail(why, why_cap, "duplicate key", w, (size_t)(eq - w));
    if (key != next)
      return fail(why, why_cap, "key out of order (kernel mc kc nc split pack), found", w,
                  (size_t)(eq - w));
    seen |= 1u << key;
    next++;
    if (parse_value(&p, key, eq + 1, wlen - (size_t)(eq - w) - 1, why, why_cap) != 0)
      return -1;
  }
  for (int k = 0; k < KEY_COUNT; k++) {
    if (!(seen & (1u << k)))
      return fail(why, why_cap, "missing key", key_names[k], strlen(key_names[k]));
  }
  if (cg_policy_check(&p, max_isa, why, why_cap) != 0)
    return -1;
  *out = p;
  return 0;
}

/*
 * A thin kernel has one text per behaviour: the keys it does not use take
 * their one allowed value (mc = 4; mv: nc = 4), its large operand is never
 * packed (pack = none) and threads split only its long dimension (vm:
 * columns, jc; mv: rows, ic).
 */
static const char *thin_check(const cg_policy *p, const cg_kernel_info *ki) {
  const int vm = ki->kind == CG_KIND_VM;
  if (p->mc != ki->mr)
    return "policy: a thin kernel takes mc=4";
  if (p->kc < 1 || p->kc > CG_KC_MAX)
    return "policy: kc out of range (1 to 8192)";
  if (vm && (p->nc < ki->nr || p->nc > CG_NC_MAX || p->nc % ki->nr != 0))
    return "policy: nc out of range (a multiple of the kernel's nr, at most 65536)";
  if (!vm && p->nc != ki->nr)
    return "policy: an mv kernel takes nc=4";
  if (p->split != CG_SPLIT_NONE && p->split != (vm ? CG_SPLIT_JC : CG_SPLIT_IC))
    return vm ? "policy: a vm kernel splits none or jc" : "policy: an mv kernel splits none or ic";
  if (p->pack != 0 || p->bj_group != 0)
    return "policy: a thin kernel takes pack=none";
  return NULL;
}

int cg_policy_check(const cg_policy *p, uint32_t max_isa, char *why, size_t why_cap) {
  const cg_kernel_info *ki;
  const char *bad = NULL;
  if (p->kernel >= cg_kernel_count) {
    bad = "policy: kernel index out of range";
  } else {
    ki = &cg_kernel_table[p->kernel];
    if (ki->isa > max_isa) {
      if (why != NULL && why_cap > 0)
        snprintf(why, why_cap, "policy: kernel %s needs %s, this cpu offers %s", ki->name,
                 cg_isa_name(ki->isa), cg_isa_name(max_isa));
      return -1;
    }
    if (ki->kind != CG_KIND_TILE) {
      bad = thin_check(p, ki);
    } else if (p->mc < ki->mr || p->mc > CG_MC_MAX || p->mc % ki->mr != 0)
      bad = "policy: mc out of range (a multiple of the kernel's mr, at most 8192)";
    else if (p->kc < 1 || p->kc > CG_KC_MAX)
      bad = "policy: kc out of range (1 to 8192)";
    else if (p->nc < ki->nr || p->nc > CG_NC_MAX || p->nc % ki->nr != 0)
      bad = "policy: nc out of range (a multiple of the kernel's nr, at most 65536)";
    else if ((uint64_t)p->mc * p->kc * 4u > CG_PANEL_BYTES_MAX ||
             (uint64_t)p->kc * p->nc * 4u > CG_PANEL_BYTES_MAX)
      bad = "policy: packed block too large (mc*kc or kc*nc over 256 MiB)";
    else if (p->split > CG_SPLIT_JC)
      bad = "policy: split out of range";
    else if (p->pack > CG_PACK_MAX)
      bad = "policy: pack out of range";
    else if (p->bj_group > CG_BJ_GROUP_MAX ||
             (p->bj_group != 0 && p->pack != (CG_PACK_A | CG_PACK_BJ)))
      bad = "policy: panel group out of range (abj2 and abj4 only)";
  }
  if (bad == NULL)
    return 0;
  if (why != NULL && why_cap > 0)
    snprintf(why, why_cap, "%s", bad);
  return -1;
}

size_t cg_policy_format(char *out, size_t cap, const cg_policy *p) {
  static const char *const group_suffix[] = {"", "2", "4"};
  int w;
  if (p->kernel >= cg_kernel_count || p->split > CG_SPLIT_JC || p->pack > CG_PACK_MAX ||
      p->bj_group > CG_BJ_GROUP_MAX)
    return 0;
  w = snprintf(out, cap, "v1 kernel=%s mc=%u kc=%u nc=%u split=%s pack=%s%s",
               cg_kernel_table[p->kernel].name, p->mc, p->kc, p->nc, split_names[p->split],
               pack_names[p->pack], group_suffix[p->bj_group]);
  if (w < 0 || (size_t)w >= cap)
    return 0;
  return (size_t)w;
}
