/* The smallest translation unit a plugin has: olc/plugin.h and the entry. */
#include <olc/plugin.h>

OLC_PLUGIN_EXPORT int32_t olc_plugin_entry(uint32_t host_abi_major, const olc_plugin_host *host,
                                           const olc_plugin **plugin);

OLC_PLUGIN_EXPORT int32_t olc_plugin_entry(uint32_t host_abi_major, const olc_plugin_host *host,
                                           const olc_plugin **plugin) {
  (void)host_abi_major;
  (void)host;
  (void)plugin;
  return OLC_PLUGIN_E_ABI;
}
