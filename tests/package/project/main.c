/*
 * An installed-package consumer: saves a profile in an in-memory store and
 * looks it up again, through the umbrella header only.
 */
#include <olc/olc.h>

#include <stdio.h>
#include <string.h>

int main(void) {
  olc_store_options options = OLC_STORE_OPTIONS_INIT;
  olc_save_request req = OLC_SAVE_REQUEST_INIT;
  olc_lookup_options lookup = OLC_LOOKUP_OPTIONS_INIT;
  olc_property prop = {"dtype", "float16"};
  olc_measurement m = {"median_latency", 2.5, "us"};
  olc_key key = {"example_gpu", "MatMul", "3", "model", "cpu", 8, NULL, 0};
  olc_store *store = NULL;
  olc_lookup_result *result = NULL;
  const olc_record *sel;
  olc_error err;
  int rc = 1;

  key.structure = &prop;
  key.structure_count = 1;
  olc_error_clear(&err);
  options.persistence_enabled = 0;
  if (olc_store_open(&store, &options, &err) != OLC_OK)
    goto done;
  req.key = &key;
  req.measurements = &m;
  req.measurement_count = 1;
  req.policy = "tile=16";
  req.policy_len = 7;
  if (olc_store_save(store, &req, &err) != OLC_OK)
    goto done;
  lookup.key = &key;
  if (olc_store_lookup(&result, store, &lookup, &err) != OLC_OK)
    goto done;
  sel = olc_lookup_result_selected(result);
  if (sel == NULL || sel->policy_len != 7 || memcmp(sel->policy, "tile=16", 7) != 0 ||
      sel->level != OLC_LEVEL_EXACT) {
    fprintf(stderr, "consumer: unexpected selection\n");
    goto done;
  }
  printf("consumer: olc %s ok (%s %s)\n", olc_version(), olc_level_str(sel->level),
         olc_origin_str(sel->origin));
  rc = 0;
done:
  if (rc != 0 && err.code != OLC_OK)
    fprintf(stderr, "consumer: %s: %s\n", err.where, err.message);
  olc_lookup_result_free(result);
  olc_store_free(store);
  return rc;
}
