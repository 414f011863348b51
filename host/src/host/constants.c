/*
 * host/constants.c - a binding's constant inputs (olc_workload version 2)
 * and olc_binding_execute.
 *
 * The constants are checked at bind as execute checks an input, their
 * descriptions copied (the data borrowed), and their bits set in the
 * plugin workload, so that the plugin's key and its measurement know which
 * inputs are constant.  On the first execute with a selection the binding
 * packs each constant for its policy (the plugin's pack, ABI 1.3) into a
 * set (runtime.h: olc_host_packed) and publishes it; every later call with
 * that selection takes a reference on the published set (an atomic load
 * and a compare-exchange), executes with its copies and drops the
 * reference.  A new selection packs a new set under the binding's lock and
 * publishes it; the old set's copies are released by whichever call drops
 * its last reference, while the calls that took one before finish with it.
 */
#include <stdlib.h>
#include <string.h>

#include "host/host_int.h"
#include "util/error.h"

olc_status olc_host__bind_constants(olc_binding *b, const olc_workload *w, olc_loaded_plugin *p,
                                    olc_error *err) {
  olc_host_constants *c;
  size_t i;
  if (w->constant_count == 0)
    return OLC_OK;
  if (w->constant_count > OLC_EXECUTE_MAX_OPERANDS)
    return olc_error__set(err, OLC_E_INVALID, "bind", "%lu constants (at most %u)",
                          (unsigned long)w->constant_count, OLC_EXECUTE_MAX_OPERANDS);
  if (w->constants == NULL)
    return olc_error__set(err, OLC_E_INVALID, "bind", "%lu constants at a null pointer",
                          (unsigned long)w->constant_count);
  c = calloc(1, sizeof *c);
  if (c == NULL)
    return olc_error__set(err, OLC_E_NOMEM, "bind", "out of memory");
  for (i = 0; i < w->constant_count; i++) {
    const olc_constant *k = &w->constants[i];
    olc_status st;
    if (k->input >= OLC_EXECUTE_MAX_OPERANDS) {
      free(c);
      return olc_error__set(err, OLC_E_INVALID, "bind", "constant %lu: input %u is not below %u",
                            (unsigned long)i, (unsigned)k->input, OLC_EXECUTE_MAX_OPERANDS);
    }
    if (c->mask & (UINT32_C(1) << k->input)) {
      free(c);
      return olc_error__set(err, OLC_E_INVALID, "bind", "constant %lu: input %u given twice",
                            (unsigned long)i, (unsigned)k->input);
    }
    st = olc_host__take_constant(&c->operand[k->input], &k->tensor, k->input, p, err);
    if (st != OLC_OK) {
      free(c);
      return st;
    }
    c->tensor[k->input] = k->tensor;
    c->mask |= UINT32_C(1) << k->input;
  }
  atomic_init(&c->current, NULL);
  atomic_init(&c->bytes, 0);
  olc_util__rwlock_init(&c->lock);
  b->constants = c;
  b->workload.constant_inputs = c->mask;
  return OLC_OK;
}

/* Frees the copies of set p of binding b; the set may be reused. */
static void release_set(olc_host_constants *c, olc_loaded_plugin *plugin, olc_host_packed *p) {
  uint32_t i;
  for (i = 0; i < OLC_EXECUTE_MAX_OPERANDS; i++) {
    olc_plugins__release_packed(plugin, p->packed[i]);
    p->packed[i] = NULL;
  }
  atomic_fetch_sub_explicit(&c->bytes, p->bytes, memory_order_relaxed);
  p->bytes = 0;
  atomic_store_explicit(&p->released, 1, memory_order_release);
}

static void drop(olc_host_constants *c, olc_loaded_plugin *plugin, olc_host_packed *p) {
  if (atomic_fetch_sub_explicit(&p->refs, 1, memory_order_acq_rel) == 1)
    release_set(c, plugin, p);
}

void olc_host__free_constants(olc_binding *b) {
  olc_host_constants *c = b->constants;
  olc_host_packed *p;
  if (c == NULL)
    return;
  /* No call runs on b any more (olc_binding_free): only the current set
   * still holds copies. */
  p = c->sets;
  while (p != NULL) {
    olc_host_packed *next = p->next;
    if (!atomic_load_explicit(&p->released, memory_order_acquire))
      release_set(c, b->slot->plugin, p);
    free(p);
    p = next;
  }
  olc_util__rwlock_destroy(&c->lock);
  free(c);
  b->constants = NULL;
}

/* A reference on the binding's current set, or NULL when none is
 * published yet. */
static olc_host_packed *take_current(olc_host_constants *c) {
  for (;;) {
    olc_host_packed *p = atomic_load_explicit(&c->current, memory_order_acquire);
    uint64_t r;
    if (p == NULL)
      return NULL;
    r = atomic_load_explicit(&p->refs, memory_order_relaxed);
    while (r != 0)
      if (atomic_compare_exchange_weak_explicit(&p->refs, &r, r + 1, memory_order_acquire,
                                                memory_order_relaxed))
        return p;
    /* Released since the load: a newer set is published. */
  }
}

/* Whether a and b are one policy: a copy packed for one serves the other
 * (two selections of one policy: the first candidate, then its calibrated
 * record; or two threads' answers made at once). */
static int same_policy(const olc_selection *a, const olc_selection *b) {
  return a == b || (a != NULL && a->policy_len == b->policy_len &&
                    (a->policy_len == 0 || memcmp(a->policy, b->policy, a->policy_len) == 0));
}

/* Whether set p serves a call with selection s: packed for its policy, or,
 * when the binding chose s itself (chosen), s is the policy p replaced (a
 * call that selected just before the change; the newer set serves it). */
static int serves(const olc_host_packed *p, const olc_selection *s, int chosen) {
  return same_policy(p->sel, s) || (chosen && same_policy(p->replaced, s));
}

/* A released set to reuse, or a new one (the lock held). */
static olc_host_packed *free_set(olc_host_constants *c) {
  olc_host_packed *p;
  for (p = c->sets; p != NULL; p = p->next)
    if (atomic_load_explicit(&p->released, memory_order_acquire))
      return p;
  p = calloc(1, sizeof *p);
  if (p == NULL)
    return NULL;
  atomic_init(&p->refs, 0);
  atomic_init(&p->released, 1);
  p->next = c->sets;
  c->sets = p;
  return p;
}

/* Packs every constant of b for s into p (released, the lock held). */
static olc_status pack_set(olc_host_packed *p, olc_binding *b, const olc_selection *s,
                           olc_error *err) {
  olc_host_constants *c = b->constants;
  olc_loaded_plugin *plugin = b->slot->plugin;
  uint32_t i;
  p->any = 0;
  p->bytes = 0;
  for (i = 0; i < OLC_EXECUTE_MAX_OPERANDS; i++) {
    uint64_t bytes = 0;
    olc_status st;
    if (!(c->mask & (UINT32_C(1) << i)))
      continue;
    st = olc_plugins__pack(&p->packed[i], &bytes, plugin, &b->workload, s->handle, i,
                           &c->operand[i], err);
    if (st == OLC_E_UNSUPPORTED)
      continue; /* read in place, on every call */
    if (st != OLC_OK) {
      uint32_t j;
      for (j = 0; j < i; j++) {
        olc_plugins__release_packed(plugin, p->packed[j]);
        p->packed[j] = NULL;
      }
      return st;
    }
    p->any = 1;
    p->bytes += bytes;
  }
  return OLC_OK;
}

/* A reference on the set that serves s: the current one, or one packed
 * now under the binding's lock (which then becomes the current one). */
static olc_status acquire(olc_host_packed **out, olc_binding *b, const olc_selection *s, int chosen,
                          olc_error *err) {
  olc_host_constants *c = b->constants;
  olc_loaded_plugin *plugin = b->slot->plugin;
  olc_host_packed *p = take_current(c), *made;
  olc_status st;
  *out = NULL;
  if (p != NULL && serves(p, s, chosen)) {
    *out = p;
    return OLC_OK;
  }
  if (p != NULL)
    drop(c, plugin, p);
  olc_util__rwlock_wrlock(&c->lock);
  /* Only a packer replaces the current set, under this lock: it stays
   * published (its refs above 0) while the lock is held. */
  p = atomic_load_explicit(&c->current, memory_order_acquire);
  if (p != NULL && serves(p, s, chosen)) {
    atomic_fetch_add_explicit(&p->refs, 1, memory_order_relaxed);
    olc_util__rwlock_wrunlock(&c->lock);
    *out = p;
    return OLC_OK;
  }
  made = free_set(c);
  if (made == NULL) {
    olc_util__rwlock_wrunlock(&c->lock);
    return olc_error__set(err, OLC_E_NOMEM, "execute", "out of memory");
  }
  st = pack_set(made, b, s, err);
  if (st != OLC_OK) {
    olc_util__rwlock_wrunlock(&c->lock);
    return st;
  }
  made->sel = s;
  made->replaced = p != NULL ? p->sel : NULL;
  atomic_fetch_add_explicit(&c->bytes, made->bytes, memory_order_relaxed);
  atomic_store_explicit(&made->released, 0, memory_order_relaxed);
  /* Published (1) and this call's (1); the fields above are written
   * before a stale reader can raise refs from 0. */
  atomic_store_explicit(&made->refs, 2, memory_order_release);
  atomic_store_explicit(&c->current, made, memory_order_release);
  olc_util__rwlock_wrunlock(&c->lock);
  if (p != NULL)
    drop(c, plugin, p); /* its publication: released when its last call ends */
  *out = made;
  return OLC_OK;
}

static int same_tensor(const olc_tensor *a, const olc_tensor *b) {
  uint32_t i;
  if (a->dtype != b->dtype || a->rank != b->rank || a->data != b->data ||
      a->rank > OLC_TENSOR_MAX_RANK)
    return 0;
  for (i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i] || a->strides[i] != b->strides[i])
      return 0;
  return 1;
}

/* The caller's constant inputs: absent (data NULL) or as bound. */
static olc_status check_constant_args(const olc_binding *b, const olc_execute_args *a,
                                      olc_error *err) {
  const olc_host_constants *c = b->constants;
  uint32_t i;
  for (i = 0; i < OLC_EXECUTE_MAX_OPERANDS; i++) {
    const olc_tensor *t;
    if (!(c->mask & (UINT32_C(1) << i)))
      continue;
    if (i >= a->input_count || a->inputs == NULL)
      return olc_error__set(err, OLC_E_INVALID, "execute",
                            "workload '%s': input %u is a constant of the binding, but only %lu "
                            "inputs are given",
                            b->name, (unsigned)i, (unsigned long)a->input_count);
    t = &a->inputs[i];
    if (t->data != NULL && !same_tensor(t, &c->tensor[i]))
      return olc_error__set(err, OLC_E_INVALID, "execute",
                            "workload '%s': input %u is a constant of the binding: give it with "
                            "data NULL or as bound, not with other data",
                            b->name, (unsigned)i);
  }
  return OLC_OK;
}

olc_status olc_binding_execute(olc_binding *b, const olc_selection *s, const olc_execute_args *args,
                               olc_error *err) {
  olc_execute_args copy;
  const olc_execute_args *a;
  olc_host_packed *p = NULL;
  olc_status st;
  int chosen = s == NULL;
  if (b == NULL || args == NULL)
    return olc_error__set(err, OLC_E_INVALID, "execute", "no binding or arguments");
  st = olc_host__check_fork(b->host, "execute", err);
  if (st != OLC_OK)
    return st;
  st = olc_host__execute_args(&a, &copy, args, err);
  if (st != OLC_OK)
    return st;
  if (s == NULL) {
    st = olc_host__select_binding(&s, b, NULL, err);
    if (st < 0) /* a record, the nearest one's policy, or the first candidate */
      return st;
  } else if (s->slot != b->slot) {
    return olc_error__set(err, OLC_E_INVALID, "execute",
                          "workload '%s': the selection is not one of this binding's key", b->name);
  }
  if (b->constants == NULL || !olc_plugins__can_execute(s->slot->plugin))
    return olc_host__execute(s, &b->workload, a, NULL, 0, NULL, err);
  st = check_constant_args(b, a, err);
  if (st == OLC_OK)
    st = acquire(&p, b, s, chosen, err);
  if (st != OLC_OK)
    return st;
  st = olc_host__execute(p->sel, &b->workload, a, b->constants->tensor, b->constants->mask,
                         p->any ? p->packed : NULL, err);
  drop(b->constants, s->slot->plugin, p);
  return st;
}

uint64_t olc_binding_packed_bytes(const olc_binding *b) {
  if (b == NULL || b->constants == NULL)
    return 0;
  return atomic_load_explicit(&b->constants->bytes, memory_order_relaxed);
}
