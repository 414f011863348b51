/*
 * host/workload.c - a workload described in code (olc_workload): its
 * checks, its model digest, the copy a binding keeps, and the description
 * hash and comparison of olc_host_select's cache, which allocate nothing
 * (a warm olc_host_select must not).
 */
#include <stdlib.h>
#include <string.h>

#include "digest/digest.h"
#include "host/host_int.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/text.h"

/* More would make every comparison of the description quadratic. */
#define OLC_HOST_MAX_PROPERTIES 256u
/* A workload bound here can be recorded (misses_append.c) and read back. */
_Static_assert(OLC_HOST_MAX_PROPERTIES == OLC_MISSES_MAX_PROPS,
               "the recorded-workloads file carries every property a workload may have");

static int text_ok(const char *s) { return olc_util__utf8_valid(s, strlen(s)); }

static olc_status check_properties(const olc_workload *w, const char *name, olc_error *err) {
  size_t i, j;
  if (w->property_count > OLC_HOST_MAX_PROPERTIES)
    return olc_error__set(err, OLC_E_INVALID, "bind", "%s: more than %u properties", name,
                          OLC_HOST_MAX_PROPERTIES);
  if (w->property_count > 0 && w->properties == NULL)
    return olc_error__set(err, OLC_E_INVALID, "bind", "%s: %lu properties at a null pointer", name,
                          (unsigned long)w->property_count);
  for (i = 0; i < w->property_count; i++) {
    const olc_property *p = &w->properties[i];
    if (p->name == NULL || p->name[0] == 0)
      return olc_error__set(err, OLC_E_INVALID, "bind", "%s: property %lu has no name", name,
                            (unsigned long)i);
    if (p->value == NULL)
      return olc_error__set(err, OLC_E_INVALID, "bind", "%s: property '%.64s' has no value", name,
                            text_ok(p->name) ? p->name : "?");
    if (!text_ok(p->name) || !text_ok(p->value))
      return olc_error__set(err, OLC_E_INVALID, "bind", "%s: property %lu is not valid utf-8", name,
                            (unsigned long)i);
    for (j = 0; j < i; j++)
      if (strcmp(w->properties[j].name, p->name) == 0)
        return olc_error__set(err, OLC_E_INVALID, "bind", "%s: property '%.64s' given twice", name,
                              p->name);
  }
  return OLC_OK;
}

olc_status olc_host__check_workload(const olc_workload *w, const char *name, olc_error *err) {
  if (w->backend == NULL || w->backend[0] == 0)
    return olc_error__set(err, OLC_E_INVALID, "bind", "%s: no backend", name);
  if (!text_ok(w->backend))
    return olc_error__set(err, OLC_E_INVALID, "bind", "%s: backend is not valid utf-8", name);
  if (w->operator_name == NULL || w->operator_name[0] == 0)
    return olc_error__set(err, OLC_E_INVALID, "bind", "%s: no operator", name);
  if (!text_ok(w->operator_name))
    return olc_error__set(err, OLC_E_INVALID, "bind", "%s: operator is not valid utf-8", name);
  if (w->model_digest != NULL && (w->model_digest[0] == 0 || !text_ok(w->model_digest)))
    return olc_error__set(err, OLC_E_INVALID, "bind", "%s: model_digest is %s", name,
                          w->model_digest[0] == 0 ? "empty" : "not valid utf-8");
  if (olc_host__workload_identity(w->model_digest))
    return olc_error__set(err, OLC_E_INVALID, "bind",
                          "%s: model_digest '%.80s' is not a model digest (workload: is the "
                          "identity of a workload without a model: leave model_digest NULL)",
                          name, w->model_digest);
  if (w->model_bytes == NULL && w->model_len > 0)
    return olc_error__set(err, OLC_E_INVALID, "bind", "%s: %lu model bytes at a null pointer", name,
                          (unsigned long)w->model_len);
  return check_properties(w, name, err);
}

olc_status olc_host__model_digest(const char **out, char *buf, const olc_workload *w,
                                  olc_error *err) {
  *out = w->model_digest;
  if (w->model_digest != NULL || w->model_bytes == NULL)
    return OLC_OK;
  *out = buf;
  return olc_digest__bytes(buf, w->model_bytes, w->model_len, err);
}

int olc_host__describable(const olc_workload *w) {
  size_t i;
  if (w->backend == NULL || w->operator_name == NULL ||
      (w->model_bytes == NULL && w->model_len > 0) ||
      (w->property_count > 0 && w->properties == NULL) ||
      w->property_count > OLC_HOST_MAX_PROPERTIES)
    return 0;
  for (i = 0; i < w->property_count; i++)
    if (w->properties[i].name == NULL || w->properties[i].value == NULL)
      return 0;
  return 1;
}

/* A property's hash; summed, so the order of the properties does not
 * matter. */
static uint64_t property_hash(const olc_property *p) {
  return olc_hash__str(olc_hash__str(0x70726f70ULL, p->name), p->value);
}

uint64_t olc_host__describe(const olc_workload *w, const char *model_digest) {
  uint64_t h = olc_hash__str(olc_hash__str(0, w->backend), w->operator_name);
  uint64_t props = 0;
  size_t i;
  h = olc_hash__str(h, model_digest != NULL ? model_digest : "\x01none");
  for (i = 0; i < w->property_count; i++)
    props += property_hash(&w->properties[i]);
  return olc_hash__mix(h ^ olc_hash__mix(props + w->property_count));
}

/* The index of name in b's sorted properties, or -1. */
static long find_property(const olc_binding *b, const char *name) {
  size_t lo = 0, hi = b->prop_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(b->props[mid].name, name);
    if (c == 0)
      return (long)mid;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return -1;
}

int olc_host__same_description(const olc_binding *b, const olc_workload *w,
                               const char *model_digest) {
  size_t i, j;
  if (w->property_count != b->prop_count || strcmp(b->backend, w->backend) != 0 ||
      strcmp(b->workload.operator_name, w->operator_name) != 0)
    return 0;
  if ((model_digest == NULL) != (b->model_digest == NULL) ||
      (model_digest != NULL && strcmp(model_digest, b->model_digest) != 0))
    return 0;
  for (i = 0; i < w->property_count; i++) {
    const olc_property *p = &w->properties[i];
    long at = find_property(b, p->name);
    if (at < 0 || strcmp(b->props[at].value, p->value) != 0)
      return 0;
    /* A name given twice could match b's one twice: no binding has it. */
    for (j = 0; j < i; j++)
      if (strcmp(w->properties[j].name, p->name) == 0)
        return 0;
  }
  return 1;
}

static int cmp_property(const void *a, const void *b) {
  return strcmp(((const olc_property *)a)->name, ((const olc_property *)b)->name);
}

/* The properties in b's arena: sorted for the cache, in the caller's
 * order for the plugin. */
static olc_status copy_properties(olc_binding *b, const olc_workload *w) {
  size_t i, n = w->property_count;
  if (n == 0)
    return OLC_OK;
  b->props = olc_arena__alloc(&b->arena, n * sizeof *b->props);
  b->kv = olc_arena__alloc(&b->arena, n * sizeof *b->kv);
  if (b->props == NULL || b->kv == NULL)
    return OLC_E_NOMEM;
  for (i = 0; i < n; i++) {
    b->props[i].name = olc_arena__strdup(&b->arena, w->properties[i].name);
    b->props[i].value = olc_arena__strdup(&b->arena, w->properties[i].value);
    if (b->props[i].name == NULL || b->props[i].value == NULL)
      return OLC_E_NOMEM;
    b->kv[i].key = b->props[i].name;
    b->kv[i].value = b->props[i].value;
  }
  b->prop_count = n;
  qsort(b->props, n, sizeof *b->props, cmp_property);
  return OLC_OK;
}

olc_status olc_host__copy_workload(olc_binding *b, const olc_workload *w, const char *name,
                                   const char *model_digest) {
  olc_plugin_workload *pw = &b->workload;
  memset(pw, 0, sizeof *pw);
  b->backend = olc_arena__strdup(&b->arena, w->backend);
  b->name = olc_arena__strdup(&b->arena, name);
  pw->operator_name = olc_arena__strdup(&b->arena, w->operator_name);
  b->model_digest = model_digest != NULL ? olc_arena__strdup(&b->arena, model_digest) : NULL;
  if (b->backend == NULL || b->name == NULL || pw->operator_name == NULL ||
      (model_digest != NULL && b->model_digest == NULL) || copy_properties(b, w) != OLC_OK)
    return OLC_E_NOMEM;
  pw->struct_size = (uint32_t)sizeof *pw;
  pw->abi_minor = OLC_PLUGIN_ABI_MINOR;
  pw->name = b->name;
  pw->properties = b->kv;
  pw->property_count = (uint32_t)b->prop_count;
  pw->model_digest = b->model_digest;
  return OLC_OK;
}
