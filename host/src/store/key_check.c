/*
 * store/key_check.c - checking keys and turning a save request into records.
 *
 * Decisions (documented here because store.h leaves them open):
 * - backend, operator and implementation must be non-empty strings;
 * - the exact identity is present when model_digest and processor are both
 *   non-NULL (they may be empty strings); its thread_count must be >= 0
 *   (0 means "not applicable", e.g. a GPU backend with no host threads);
 * - the portable identity is present when the structure is non-empty;
 * - OLC_LEVELS_DEFAULT saves every level whose identity the key carries and
 *   is OLC_E_INVALID when it carries none; an explicit level bit whose
 *   identity is missing is OLC_E_INVALID;
 * - a measurement needs a non-empty name, a non-NULL unit (may be empty) and
 *   a finite value.
 */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_int.h"
#include "util/error.h"
#include "util/options.h"

static olc_status check_text(const char *s, const char *what, const char *field, int nonempty,
                             size_t max_len, olc_error *err) {
  if (s == NULL)
    return olc_error__set(err, OLC_E_INVALID, "key", "%s: %s is NULL", what, field);
  if (nonempty && s[0] == 0)
    return olc_error__set(err, OLC_E_INVALID, "key", "%s: %s is empty", what, field);
  if (strlen(s) > max_len)
    return olc_error__set(err, OLC_E_LIMIT, "key", "%s: %s is longer than %llu bytes", what, field,
                          (unsigned long long)max_len);
  return OLC_OK;
}

int olc_store__key_has_exact(const olc_key *key) {
  return key->model_digest != NULL && key->processor != NULL;
}

olc_status olc_store__check_key(olc_property **sorted, const olc_key *key, const char *what,
                                olc_error *err) {
  static const olc_format_limits limits = OLC_FORMAT_LIMITS_DEFAULT;
  const size_t max = limits.max_value_size;
  olc_property *props = NULL;
  olc_status st;
  size_t i, dup;
  *sorted = NULL;
  if (key == NULL)
    return olc_error__set(err, OLC_E_INVALID, "key", "%s is NULL", what);
  if ((st = check_text(key->backend, what, "backend", 1, max, err)) != OLC_OK ||
      (st = check_text(key->operator_name, what, "operator", 1, max, err)) != OLC_OK ||
      (st = check_text(key->implementation, what, "implementation", 1, max, err)) != OLC_OK)
    return st;
  if (key->model_digest != NULL &&
      (st = check_text(key->model_digest, what, "model_digest", 0, max, err)) != OLC_OK)
    return st;
  if (key->processor != NULL &&
      (st = check_text(key->processor, what, "processor", 0, max, err)) != OLC_OK)
    return st;
  if ((key->model_digest == NULL) != (key->processor == NULL))
    return olc_error__set(err, OLC_E_INVALID, "key",
                          "%s: model_digest and processor must be given together", what);
  if (olc_store__key_has_exact(key) && key->thread_count < 0)
    return olc_error__set(err, OLC_E_INVALID, "key", "%s: thread_count %lld is negative", what,
                          (long long)key->thread_count);
  if (key->structure_count == 0)
    return OLC_OK;
  if (key->structure == NULL)
    return olc_error__set(err, OLC_E_INVALID, "key", "%s: structure is NULL with %llu entries",
                          what, (unsigned long long)key->structure_count);
  if (key->structure_count > limits.max_fields_per_record / 2)
    return olc_error__set(err, OLC_E_LIMIT, "key", "%s: %llu structural properties is too many",
                          what, (unsigned long long)key->structure_count);
  for (i = 0; i < key->structure_count; i++) {
    const olc_property *p = &key->structure[i];
    if (p->name == NULL || p->name[0] == 0)
      return olc_error__set(err, OLC_E_INVALID, "key", "%s: structural property %llu has no name",
                            what, (unsigned long long)i);
    if (p->value == NULL)
      return olc_error__set(err, OLC_E_INVALID, "key",
                            "%s: structural property \"%s\" has a NULL value", what, p->name);
    if (strlen(p->name) > max || strlen(p->value) > max)
      return olc_error__set(err, OLC_E_LIMIT, "key",
                            "%s: structural property \"%.64s\" is too long", what, p->name);
  }
  props = malloc(key->structure_count * sizeof *props);
  if (props == NULL)
    return olc_error__set(err, OLC_E_NOMEM, "key", "out of memory");
  memcpy(props, key->structure, key->structure_count * sizeof *props);
  dup = olc_properties__sort(props, key->structure_count);
  if (dup != (size_t)-1) {
    st = olc_error__set(err, OLC_E_INVALID, "key", "%s: duplicate structural property \"%s\"", what,
                        props[dup].name);
    free(props);
    return st;
  }
  *sorted = props;
  return OLC_OK;
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

int olc_store__version_cmp(const char *a, const char *b) {
  while (*a != 0 && *b != 0) {
    if (is_digit(*a) && is_digit(*b)) {
      const char *ea, *eb;
      size_t la, lb;
      while (*a == '0' && is_digit(a[1]))
        a++;
      while (*b == '0' && is_digit(b[1]))
        b++;
      for (ea = a; is_digit(*ea); ea++) {
      }
      for (eb = b; is_digit(*eb); eb++) {
      }
      la = (size_t)(ea - a);
      lb = (size_t)(eb - b);
      if (la != lb)
        return la < lb ? -1 : 1;
      {
        int c = memcmp(a, b, la);
        if (c != 0)
          return c < 0 ? -1 : 1;
      }
      a = ea;
      b = eb;
    } else if (*a != *b) {
      return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
    } else {
      a++;
      b++;
    }
  }
  if (*a == *b)
    return 0;
  return *a == 0 ? -1 : 1;
}

olc_status olc_store__levels(unsigned *levels, const olc_key *key, unsigned requested,
                             const char *what, olc_error *err) {
  int has_exact = olc_store__key_has_exact(key), has_portable = key->structure_count > 0;
  if ((requested & ~(OLC_LEVEL_BIT_EXACT | OLC_LEVEL_BIT_PORTABLE)) != 0)
    return olc_error__set(err, OLC_E_INVALID, "levels", "unknown level bits 0x%x", requested);
  if (requested == OLC_LEVELS_DEFAULT) {
    requested =
        (has_exact ? OLC_LEVEL_BIT_EXACT : 0u) | (has_portable ? OLC_LEVEL_BIT_PORTABLE : 0u);
    if (requested == 0)
      return olc_error__set(err, OLC_E_INVALID, "levels",
                            "%s has neither an exact identity (model_digest, processor) nor "
                            "structural properties",
                            what);
  }
  if ((requested & OLC_LEVEL_BIT_EXACT) != 0 && !has_exact)
    return olc_error__set(err, OLC_E_INVALID, "levels",
                          "%s: the exact level needs model_digest and processor", what);
  if ((requested & OLC_LEVEL_BIT_PORTABLE) != 0 && !has_portable)
    return olc_error__set(err, OLC_E_INVALID, "levels",
                          "%s: the portable level needs structural properties", what);
  *levels = requested;
  return OLC_OK;
}

static olc_status check_measurements(const olc_save_request *req, size_t max, olc_error *err) {
  size_t i;
  if (req->measurement_count != 0 && req->measurements == NULL)
    return olc_error__set(err, OLC_E_INVALID, "measurement",
                          "measurements is NULL with %llu entries",
                          (unsigned long long)req->measurement_count);
  for (i = 0; i < req->measurement_count; i++) {
    const olc_measurement *m = &req->measurements[i];
    if (m->name == NULL || m->name[0] == 0)
      return olc_error__set(err, OLC_E_INVALID, "measurement", "measurement %llu has no name",
                            (unsigned long long)i);
    if (m->unit == NULL)
      return olc_error__set(err, OLC_E_INVALID, "measurement", "measurement \"%s\" has a NULL unit",
                            m->name);
    if (strlen(m->name) > max || strlen(m->unit) > max)
      return olc_error__set(err, OLC_E_LIMIT, "measurement", "measurement \"%.64s\" is too long",
                            m->name);
    /* Written out (not isfinite) so no <math.h> macro narrows the double. */
    if (m->value != m->value || m->value > DBL_MAX || m->value < -DBL_MAX)
      return olc_error__set(err, OLC_E_INVALID, "measurement",
                            "measurement \"%s\" is not a finite number", m->name);
  }
  return OLC_OK;
}

/* The policy bytes: the serializer's output or the request's bytes. */
static olc_status get_policy(olc_buf *policy, const olc_save_request *req, size_t max,
                             olc_error *err) {
  char msg[OLC_ERROR_MESSAGE_SIZE];
  olc_status st;
  policy->limit = max;
  if (req->serialize == NULL) {
    if (req->policy == NULL && req->policy_len != 0)
      return olc_error__set(err, OLC_E_INVALID, "policy", "policy is NULL with %llu bytes",
                            (unsigned long long)req->policy_len);
    if (req->policy_len > max)
      return olc_error__set(err, OLC_E_LIMIT, "policy", "policy of %llu bytes exceeds %llu",
                            (unsigned long long)req->policy_len, (unsigned long long)max);
    st = olc_buf__append(policy, req->policy, req->policy_len);
    if (st != OLC_OK)
      return olc_error__set(err, st, "policy", "cannot copy the policy");
    return OLC_OK;
  }
  msg[0] = 0;
  st = req->serialize(policy, req->serialize_payload, msg, sizeof msg);
  msg[sizeof msg - 1] = 0;
  if (st == OLC_OK)
    return OLC_OK;
  if (st == OLC_E_LIMIT)
    return olc_error__set(err, OLC_E_LIMIT, "serialize", "serialized policy exceeds %llu bytes",
                          (unsigned long long)max);
  olc_error__set(err, OLC_E_SERIALIZE, "serialize", "policy serialization failed: %s",
                 msg[0] != 0 ? msg : olc_status_str(st));
  if (err != NULL)
    err->backend_code = (int32_t)st;
  return OLC_E_SERIALIZE;
}

static olc_status run_validator(const olc_save_request *req, const olc_buf *policy,
                                olc_error *err) {
  char msg[OLC_ERROR_MESSAGE_SIZE];
  static const unsigned char empty[1] = {0};
  olc_status st;
  if (req->validate == NULL)
    return OLC_OK;
  msg[0] = 0;
  st = req->validate(policy->data != NULL ? policy->data : empty, policy->len,
                     req->validate_payload, msg, sizeof msg);
  msg[sizeof msg - 1] = 0;
  if (st == OLC_OK)
    return OLC_OK;
  olc_error__set(err, OLC_E_VALIDATION, "validate", "policy validation failed: %s",
                 msg[0] != 0 ? msg : olc_status_str(st));
  if (err != NULL)
    err->backend_code = (int32_t)st;
  return OLC_E_VALIDATION;
}

/* Appends the record of each level in levels: req's identity, measurements
 * and the serialized policy. */
static olc_status append_levels(olc_recset *out, const olc_save_request *req, olc_origin origin,
                                unsigned levels, const olc_property *props, const olc_buf *policy,
                                olc_error *err) {
  olc_record r;
  olc_status st;
  memset(&r, 0, sizeof r);
  r.origin = origin;
  r.backend = req->key->backend;
  r.operator_name = req->key->operator_name;
  r.implementation = req->key->implementation;
  r.measurements = req->measurements;
  r.measurement_count = req->measurement_count;
  r.policy = policy->data != NULL ? policy->data : (const unsigned char *)"";
  r.policy_len = policy->len;
  if ((levels & OLC_LEVEL_BIT_EXACT) != 0) {
    r.level = OLC_LEVEL_EXACT;
    r.model_digest = req->key->model_digest;
    r.processor = req->key->processor;
    r.thread_count = req->key->thread_count;
    if ((st = olc_recset__append_copy(out, &r)) != OLC_OK)
      return olc_error__set(err, st, "save", "out of memory");
  }
  if ((levels & OLC_LEVEL_BIT_PORTABLE) != 0) {
    r.level = OLC_LEVEL_PORTABLE;
    r.model_digest = NULL;
    r.processor = NULL;
    r.thread_count = 0;
    r.structure = props;
    r.structure_count = req->key->structure_count;
    if ((st = olc_recset__append_copy(out, &r)) != OLC_OK)
      return olc_error__set(err, st, "save", "out of memory");
  }
  return OLC_OK;
}

olc_status olc_store__build_records(olc_recset *out, const olc_save_request *request,
                                    olc_origin origin, olc_error *err) {
  static const olc_format_limits limits = OLC_FORMAT_LIMITS_DEFAULT;
  olc_save_request full;
  const olc_save_request *req = &full;
  olc_property *props = NULL;
  olc_buf policy = OLC_BUF_INIT;
  unsigned levels = 0;
  olc_status st;

  if (request == NULL)
    return olc_error__set(err, OLC_E_INVALID, "save", "save request is NULL");
  st = olc_options__load(&full, &olc_options__save, request, "save", err);
  if (st != OLC_OK)
    return st;
  st = olc_store__check_key(&props, req->key, "key", err);
  if (st != OLC_OK)
    goto done;
  if ((st = olc_store__levels(&levels, req->key, req->levels, "key", err)) != OLC_OK ||
      (st = check_measurements(req, limits.max_value_size, err)) != OLC_OK)
    goto done;
  if (req->measurement_count + req->key->structure_count + 8 > limits.max_fields_per_record) {
    st = olc_error__set(err, OLC_E_LIMIT, "save", "%llu measurements is too many",
                        (unsigned long long)req->measurement_count);
    goto done;
  }
  if ((st = get_policy(&policy, req, limits.max_value_size, err)) == OLC_OK &&
      (st = run_validator(req, &policy, err)) == OLC_OK)
    st = append_levels(out, req, origin, levels, props, &policy, err);
done:
  free(props);
  olc_buf__free(&policy);
  return st;
}
