/*
 * egpu_policy.c - the example_gpu policy: its text form, its rules, the
 * device limits it must respect, and the candidates worth measuring.
 *
 * Text form (strict: this order, single spaces, plain decimals):
 *   v1 tm=64 tn=64 tk=16 wm=4 wn=4 vec=4 local=1 wg=16x16
 * where wg is <items along n>x<items along m> and must equal
 * (tn / wn) x (tm / wm).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "egpu.h"

#define EGPU_POLICY_MAX_LEN 128

size_t egpu_policy_format(const egpu_policy *p, char *buf, size_t size) {
  int n = snprintf(buf, size, "v1 tm=%u tn=%u tk=%u wm=%u wn=%u vec=%u local=%u wg=%ux%u", p->tm,
                   p->tn, p->tk, p->wm, p->wn, p->vec, p->local, p->wgx, p->wgy);
  return n < 0 ? 0 : (size_t)n;
}

/* Reads a plain decimal (no sign, no leading zero) at *pos, up to 4 digits. */
static int parse_uint(const char *t, size_t len, size_t *pos, uint32_t *out) {
  size_t i = *pos;
  uint32_t v = 0;
  if (i >= len || t[i] < '0' || t[i] > '9')
    return -1;
  if (t[i] == '0' && i + 1 < len && t[i + 1] >= '0' && t[i + 1] <= '9')
    return -1;
  while (i < len && t[i] >= '0' && t[i] <= '9') {
    if (i - *pos >= 4)
      return -1;
    v = v * 10u + (uint32_t)(t[i] - '0');
    i++;
  }
  *pos = i;
  *out = v;
  return 0;
}

static int expect(const char *t, size_t len, size_t *pos, const char *lit) {
  size_t n = strlen(lit);
  if (len - *pos < n || memcmp(t + *pos, lit, n) != 0)
    return -1;
  *pos += n;
  return 0;
}

int egpu_policy_parse(const char *text, size_t len, egpu_policy *out, char *msg, size_t msg_size) {
  static const char *const names[8] = {"tm", "tn", "tk", "wm", "wn", "vec", "local", "wg"};
  uint32_t *fields[8];
  egpu_policy p;
  size_t pos = 0, i;
  char lit[16];
  memset(&p, 0, sizeof p);
  fields[0] = &p.tm;
  fields[1] = &p.tn;
  fields[2] = &p.tk;
  fields[3] = &p.wm;
  fields[4] = &p.wn;
  fields[5] = &p.vec;
  fields[6] = &p.local;
  fields[7] = &p.wgx;
  if (text == NULL || len == 0) {
    snprintf(msg, msg_size, "empty policy");
    return -1;
  }
  if (len > EGPU_POLICY_MAX_LEN) {
    snprintf(msg, msg_size, "policy is %zu bytes long (at most %d)", len, EGPU_POLICY_MAX_LEN);
    return -1;
  }
  if (expect(text, len, &pos, "v1") != 0) {
    snprintf(msg, msg_size, "policy does not start with version \"v1\"");
    return -1;
  }
  for (i = 0; i < 8; i++) {
    snprintf(lit, sizeof lit, " %s=", names[i]);
    if (expect(text, len, &pos, lit) != 0) {
      snprintf(msg, msg_size, "policy: expected \"%s\" at byte %zu", lit + 1, pos + 1);
      return -1;
    }
    if (parse_uint(text, len, &pos, fields[i]) != 0) {
      snprintf(msg, msg_size, "policy: field %s: expected a plain decimal at byte %zu", names[i],
               pos + 1);
      return -1;
    }
  }
  if (expect(text, len, &pos, "x") != 0 || parse_uint(text, len, &pos, &p.wgy) != 0) {
    snprintf(msg, msg_size, "policy: field wg: expected <x>x<y> at byte %zu", pos + 1);
    return -1;
  }
  if (pos != len) {
    snprintf(msg, msg_size, "policy: unexpected trailing data at byte %zu", pos + 1);
    return -1;
  }
  *out = p;
  return 0;
}

uint64_t egpu_policy_local_bytes(const egpu_policy *p) {
  /* As is stored transposed with one float of padding per row (bank conflicts). */
  if (!p->local)
    return 0;
  return 4u * ((uint64_t)p->tk * (p->tm + 1u) + (uint64_t)p->tk * p->tn);
}

static int in_range(uint32_t v, uint32_t lo, uint32_t hi) { return v >= lo && v <= hi; }

int egpu_policy_check(const egpu_policy *p, const egpu_limits *l, char *msg, size_t msg_size) {
  uint64_t items = (uint64_t)p->wgx * p->wgy, lbytes;
  if (!in_range(p->tm, 1, 256) || !in_range(p->tn, 1, 256) || !in_range(p->tk, 1, 64) ||
      !in_range(p->wm, 1, 16) || !in_range(p->wn, 1, 16)) {
    snprintf(msg, msg_size, "policy: tm, tn must be in 1..256, tk in 1..64, wm, wn in 1..16");
    return -1;
  }
  if (p->vec != 1 && p->vec != 2 && p->vec != 4) {
    snprintf(msg, msg_size, "policy: vec=%u is not 1, 2 or 4", p->vec);
    return -1;
  }
  if (p->local > 1) {
    snprintf(msg, msg_size, "policy: local=%u is not 0 or 1", p->local);
    return -1;
  }
  if (p->tm % p->wm != 0 || p->tn % p->wn != 0) {
    snprintf(msg, msg_size, "policy: tm=%u, tn=%u are not multiples of wm=%u, wn=%u", p->tm, p->tn,
             p->wm, p->wn);
    return -1;
  }
  /* vec runs along n, except in the transposed form (local=0) where it runs along k. */
  if (p->local && p->wn % p->vec != 0) {
    snprintf(msg, msg_size, "policy: wn=%u is not a multiple of vec=%u", p->wn, p->vec);
    return -1;
  }
  if (p->wgx != p->tn / p->wn || p->wgy != p->tm / p->wm) {
    snprintf(msg, msg_size, "policy: wg=%ux%u does not match tn/wn x tm/wm = %ux%u", p->wgx, p->wgy,
             p->tn / p->wn, p->tm / p->wm);
    return -1;
  }
  if (p->wm * p->wn > 64) {
    snprintf(msg, msg_size, "policy: wm x wn = %u accumulators per item (at most 64)",
             p->wm * p->wn);
    return -1;
  }
  if (l == NULL)
    return 0;
  if (items > l->max_work_group_size || p->wgx > l->max_work_item_sizes[0] ||
      p->wgy > l->max_work_item_sizes[1]) {
    snprintf(msg, msg_size,
             "policy: work-group %ux%u exceeds the device's limits (%llu items, %llux%llu)", p->wgx,
             p->wgy, (unsigned long long)l->max_work_group_size,
             (unsigned long long)l->max_work_item_sizes[0],
             (unsigned long long)l->max_work_item_sizes[1]);
    return -1;
  }
  lbytes = egpu_policy_local_bytes(p);
  if (lbytes > l->local_mem_size) {
    snprintf(msg, msg_size, "policy: needs %llu bytes of local memory, the device has %llu",
             (unsigned long long)lbytes, (unsigned long long)l->local_mem_size);
    return -1;
  }
  return 0;
}

void egpu_policy_simplest(const egpu_limits *l, egpu_policy *out) {
  /* One element per item; an 8x8 work-group where allowed, else a single item. */
  uint32_t w = (l == NULL || (l->max_work_group_size >= 64 && l->max_work_item_sizes[0] >= 8 &&
                              l->max_work_item_sizes[1] >= 8))
                   ? 8u
                   : 1u;
  egpu_policy p = {
      .tm = w, .tn = w, .tk = 1, .wm = 1, .wn = 1, .vec = 1, .local = 0, .wgx = w, .wgy = w};
  *out = p;
}

/* A tiling to start from: wg follows from it (from_seed). */
typedef struct seed {
  uint8_t tm, tn, tk, wm, wn, vec, local;
} seed;

/*
 * Best guesses first.  On a GPU (dedicated local memory) the local-memory
 * tilings lead; on a CPU device (e.g. POCL) local memory is ordinary memory
 * and work items run one after another, so the transposed dot-product form
 * (contiguous streams, explicit vectors) and register-blocked direct loads
 * lead.
 */
static const seed gpu_seeds[] = {
    {.tm = 64, .tn = 64, .tk = 16, .wm = 4, .wn = 4, .vec = 4, .local = 1},
    {.tm = 128, .tn = 128, .tk = 16, .wm = 8, .wn = 8, .vec = 4, .local = 1},
    {.tm = 64, .tn = 128, .tk = 16, .wm = 4, .wn = 8, .vec = 4, .local = 1},
    {.tm = 64, .tn = 64, .tk = 8, .wm = 4, .wn = 4, .vec = 1, .local = 1},
    {.tm = 32, .tn = 32, .tk = 16, .wm = 2, .wn = 2, .vec = 2, .local = 1},
    {.tm = 32, .tn = 64, .tk = 16, .wm = 2, .wn = 4, .vec = 4, .local = 1},
    {.tm = 16, .tn = 16, .tk = 16, .wm = 1, .wn = 1, .vec = 1, .local = 1},
    {.tm = 64, .tn = 64, .tk = 16, .wm = 4, .wn = 4, .vec = 1, .local = 0},
};
static const seed cpu_seeds[] = {
    {.tm = 32, .tn = 32, .tk = 4, .wm = 4, .wn = 4, .vec = 4, .local = 0},
    {.tm = 32, .tn = 16, .tk = 4, .wm = 4, .wn = 2, .vec = 4, .local = 0},
    {.tm = 16, .tn = 32, .tk = 4, .wm = 2, .wn = 4, .vec = 4, .local = 0},
    {.tm = 64, .tn = 64, .tk = 4, .wm = 4, .wn = 4, .vec = 4, .local = 0},
    {.tm = 32, .tn = 64, .tk = 16, .wm = 4, .wn = 8, .vec = 1, .local = 0},
    {.tm = 64, .tn = 64, .tk = 16, .wm = 8, .wn = 8, .vec = 1, .local = 0},
    {.tm = 32, .tn = 64, .tk = 16, .wm = 4, .wn = 8, .vec = 4, .local = 1},
    {.tm = 64, .tn = 64, .tk = 16, .wm = 4, .wn = 4, .vec = 4, .local = 1},
};

static egpu_policy from_seed(const seed *s) {
  egpu_policy p;
  p.tm = s->tm;
  p.tn = s->tn;
  p.tk = s->tk;
  p.wm = s->wm;
  p.wn = s->wn;
  p.vec = s->vec;
  p.local = s->local;
  p.wgx = p.tn / p.wn;
  p.wgy = p.tm / p.wm;
  return p;
}

static int32_t emit_copy(const egpu_instance *inst, const olc_plugin_policy_sink *sink,
                         const egpu_policy *p) {
  egpu_policy *copy = malloc(sizeof *copy);
  if (copy == NULL)
    return egpu_fail(inst->host, OLC_PLUGIN_E_NOMEM, "out of memory");
  *copy = *p;
  return sink->emit(sink->ctx, copy);
}

int32_t egpu_candidates(void *instance, const olc_plugin_workload *workload,
                        const olc_plugin_policy_sink *sink) {
  egpu_instance *inst = instance;
  const seed *seeds;
  size_t count, i;
  egpu_layout layout;
  egpu_policy p;
  char msg[EGPU_MESSAGE_SIZE];
  int32_t rc = egpu_parse_workload(inst, workload, &layout);
  int gpu =
      (inst->limits.type & CL_DEVICE_TYPE_GPU) != 0 && inst->limits.local_mem_type == CL_LOCAL;
  if (rc != OLC_PLUGIN_OK)
    return rc;
  if (!OLC_PLUGIN_HAS_FIELD(sink, olc_plugin_policy_sink, emit) || sink->emit == NULL)
    return egpu_fail(inst->host, OLC_PLUGIN_E_INVALID, "candidates: no sink");
  seeds = gpu ? gpu_seeds : cpu_seeds;
  count = gpu ? sizeof gpu_seeds / sizeof gpu_seeds[0] : sizeof cpu_seeds / sizeof cpu_seeds[0];
  for (i = 0; i < count; i++) {
    p = from_seed(&seeds[i]);
    /* Only what the device can run. */
    if (egpu_policy_check(&p, &inst->limits, msg, sizeof msg) != 0)
      continue;
    /* A non-OK answer asks us to stop; it is not a failure of ours. */
    if (emit_copy(inst, sink, &p) != OLC_PLUGIN_OK)
      return OLC_PLUGIN_OK;
  }
  egpu_policy_simplest(&inst->limits, &p);
  if (egpu_policy_check(&p, &inst->limits, msg, sizeof msg) == 0)
    (void)emit_copy(inst, sink, &p);
  return OLC_PLUGIN_OK;
}

int32_t egpu_validate(void *instance, const void *bytes, uint64_t len, void **policy) {
  egpu_instance *inst = instance;
  egpu_policy p, *copy;
  char msg[EGPU_MESSAGE_SIZE - 16];
  if (policy != NULL)
    *policy = NULL;
  if (bytes == NULL && len > 0)
    return egpu_fail(inst->host, OLC_PLUGIN_E_INVALID, "validate: no bytes");
  if (len > EGPU_POLICY_MAX_LEN)
    return egpu_fail(inst->host, OLC_PLUGIN_E_INVALID, "policy is %llu bytes long (at most %d)",
                     (unsigned long long)len, EGPU_POLICY_MAX_LEN);
  if (egpu_policy_parse(bytes, (size_t)len, &p, msg, sizeof msg) != 0 ||
      egpu_policy_check(&p, &inst->limits, msg, sizeof msg) != 0)
    return egpu_fail(inst->host, OLC_PLUGIN_E_INVALID, "%s", msg);
  if (policy == NULL)
    return OLC_PLUGIN_OK;
  copy = malloc(sizeof *copy);
  if (copy == NULL)
    return egpu_fail(inst->host, OLC_PLUGIN_E_NOMEM, "out of memory");
  *copy = p;
  *policy = copy;
  return OLC_PLUGIN_OK;
}

int32_t egpu_serialize(void *instance, const void *policy, const olc_plugin_byte_sink *out) {
  egpu_instance *inst = instance;
  char buf[EGPU_POLICY_MAX_LEN + 1];
  size_t n;
  int32_t rc;
  if (policy == NULL || !OLC_PLUGIN_HAS_FIELD(out, olc_plugin_byte_sink, write) ||
      out->write == NULL)
    return egpu_fail(inst->host, OLC_PLUGIN_E_INVALID, "serialize: bad argument");
  n = egpu_policy_format(policy, buf, sizeof buf);
  rc = out->write(out->ctx, buf, (uint64_t)n);
  if (rc != OLC_PLUGIN_OK)
    return egpu_fail(inst->host, rc, "serialize: the host refused the bytes");
  return OLC_PLUGIN_OK;
}

void egpu_release_policy(void *instance, void *policy) {
  (void)instance;
  free(policy);
}
