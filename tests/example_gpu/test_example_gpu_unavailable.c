/*
 * test_example_gpu_unavailable.c - with no OpenCL platform, create answers
 * OLC_PLUGIN_E_UNAVAILABLE with a message, and no instance.
 *
 * The ICD loader is pointed at an empty vendors directory before the plugin
 * (and so libOpenCL) is loaded: it then finds no platform at all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "egpu_harness.h"
#include "test_support.h"

static const olc_plugin *g_table;

static void test_create_unavailable(void) {
  void *inst = &inst;
  olc_plugin_kv kv = {"device", "0"};
  olc_stub_host_clear_error();
  CU_ASSERT_EQUAL(g_table->create(&harness_host, NULL, 0, 1, &inst), OLC_PLUGIN_E_UNAVAILABLE);
  CU_ASSERT_PTR_NULL(inst);
  CU_ASSERT_EQUAL(harness_last_error.code, OLC_PLUGIN_E_UNAVAILABLE);
  CU_ASSERT_PTR_NOT_NULL(strstr(harness_last_error.message, "no opencl platform"));
  fprintf(stderr, "\n  message: %s\n", harness_last_error.message);
  /* The same with a device chosen in the config. */
  inst = &inst;
  CU_ASSERT_EQUAL(g_table->create(&harness_host, &kv, 1, 1, &inst), OLC_PLUGIN_E_UNAVAILABLE);
  CU_ASSERT_PTR_NULL(inst);
}

int main(int argc, char **argv) {
  void *handle = NULL;
  char *dir = olc_test_tmpdir("egpu_noicd");
  CU_pSuite s;
  int result;
  if (dir == NULL)
    return 1;
  /* Before libOpenCL is loaded: the loader reads these once. */
  setenv("OCL_ICD_VENDORS", dir, 1);
  setenv("OPENCL_VENDOR_PATH", dir, 1);
  g_table = harness_load(EGPU_PLUGIN_PATH, &handle);
  if (g_table == NULL) {
    fprintf(stderr, "cannot load %s\n", EGPU_PLUGIN_PATH);
    olc_test_rmtree(dir);
    free(dir);
    return 1;
  }
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  s = CU_add_suite("example_gpu_unavailable", NULL, NULL);
  CU_add_test(s, "create_unavailable", test_create_unavailable);
  CU_add_test(s, "messages_unprefixed", harness_test_messages_unprefixed);
  result = olc_test_run(argc, argv);
  olc_test_rmtree(dir);
  free(dir);
  return result;
}
