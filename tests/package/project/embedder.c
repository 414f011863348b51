/*
 * An embedding program outside the install's bin: the default
 * configuration alone (no OLC_PLUGIN_PATH, no OLC_CONFIG) must find the
 * installed plugins and the installed system profile layer, through the
 * library's own directory.  Prints "embedder: N plugins, M layers".
 */
#include <olc/olc.h>

#include <stdio.h>

int main(void) {
  olc_config *config = NULL;
  olc_store *store = NULL;
  olc_host *host = NULL;
  olc_store_options so = OLC_STORE_OPTIONS_INIT;
  olc_host_options ho = OLC_HOST_OPTIONS_INIT;
  olc_diagnostic d;
  olc_error err;
  size_t i, loaded = 0, layers;
  int rc = 1;

  olc_error_clear(&err);
  if (olc_config_load_default(&config, 0, &err) != OLC_OK)
    goto done;
  olc_config_store_options(config, &so);
  layers = so.layer_count;
  so.persistence_enabled = 0; /* nothing written under the user's home */
  if (olc_store_open(&store, &so, &err) != OLC_OK)
    goto done;
  if (olc_host_open(&host, config, store, &ho, &err) != OLC_OK)
    goto done;
  for (i = 0; i < olc_host_report_count(host); i++)
    loaded += olc_host_report(host, i)->stage == OLC_LOAD_LOADED;
  while (olc_host_next_diagnostic(&d, host) == OLC_OK)
    fprintf(stderr, "embedder: warning (%s): %s\n", d.where, d.message);
  printf("embedder: %lu plugins, %lu layers\n", (unsigned long)loaded, (unsigned long)layers);
  rc = loaded > 0 && layers > 0 ? 0 : 1;
done:
  if (err.code != OLC_OK)
    fprintf(stderr, "embedder: %s: %s\n", err.where, err.message);
  olc_host_free(host);
  olc_store_free(store);
  olc_config_free(config);
  return rc;
}
