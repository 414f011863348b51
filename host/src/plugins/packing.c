/*
 * plugins/packing.c - the table fields of ABI 1.3 that the execute path
 * reads: features (views) and the packing of constant inputs (pack,
 * release_packed), each read only inside struct_size.
 */
#include <stdio.h>

#include "plugins/plugins_int.h"
#include "util/error.h"

uint32_t olc_plugins__features(const olc_loaded_plugin *p) {
  return OLC_PLUGIN_HAS_FIELD(p->table, olc_plugin, features) ? p->table->features : 0u;
}

int olc_plugins__can_pack(const olc_loaded_plugin *p) {
  return olc_plugins__can_execute(p) &&
         OLC_PLUGIN_HAS_FIELD(p->table, olc_plugin, release_packed) && p->table->pack != NULL &&
         p->table->release_packed != NULL;
}

olc_status olc_plugins__pack(void **packed, uint64_t *bytes, olc_loaded_plugin *p,
                             const olc_plugin_workload *w, const void *policy, uint32_t input,
                             const olc_plugin_tensor *operand, olc_error *err) {
  void *made = NULL;
  uint64_t size = 0;
  const char *detail;
  int32_t rc;
  *packed = NULL;
  *bytes = 0;
  if (!olc_plugins__can_pack(p))
    return OLC_E_UNSUPPORTED;
  if (olc_plugins__forked(p, "pack", err)) {
    /* Not "read in place": the instance cannot run here at all. */
    if (err != NULL)
      err->code = OLC_E_PLUGIN;
    return OLC_E_PLUGIN;
  }
  olc_plugins__error_clear();
  rc = p->table->pack(p->instance, w, policy, input, operand, &made, &size);
  if (rc == OLC_PLUGIN_OK && made != NULL) {
    *packed = made;
    *bytes = size;
    return OLC_OK;
  }
  if (rc == OLC_PLUGIN_OK || rc == OLC_PLUGIN_E_UNSUPPORTED)
    return OLC_E_UNSUPPORTED; /* read in place (OK without a copy: the same) */
  if (made != NULL)           /* a failing pack must not leave a copy behind */
    p->table->release_packed(p->instance, made);
  detail = olc_plugins__error_message(p->lib, NULL);
  if (err != NULL)
    err->backend_code = rc;
  if (rc == OLC_PLUGIN_E_NOMEM)
    return olc_error__set(err, OLC_E_NOMEM, "pack", "plugin %s: pack of input %u: out of memory",
                          p->name, (unsigned)input);
  if (detail != NULL)
    return olc_error__set(err, OLC_E_PLUGIN, "pack", "plugin %s: %s", p->name, detail);
  return olc_error__set(err, OLC_E_PLUGIN, "pack",
                        "plugin %s: pack of input %u failed with status %d", p->name,
                        (unsigned)input, (int)rc);
}

void olc_plugins__release_packed(olc_loaded_plugin *p, void *packed) {
  if (packed != NULL && olc_plugins__can_pack(p))
    p->table->release_packed(p->instance, packed);
}
