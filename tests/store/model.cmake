# Z3 (docs/durability.md, family Z): random save/override/remove/reload sequences with
# injected failures and crashes, on the public store API, against an
# in-memory model.  POSIX (fork for the crash injections).
if(NOT WIN32)
  olc_add_test(NAME test_store_model LABELS torture HOOKS TIMEOUT 120
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_store_model.c ${CMAKE_CURRENT_LIST_DIR}/store_model.c)
endif()

# Negative control (docs/durability.md, negative controls): with the rename step switched off
# (the file written in place), an injected write failure or a crash leaves a
# damaged file, and the model check must report a mismatch.  (fsync,
# dirsync and lock cannot be observed by a sequential check without power
# loss or a concurrent writer; the durability tests cover those.)
if(NOT WIN32)
  add_test(NAME test_store_model_nc_rename COMMAND test_store_model)
  set_tests_properties(test_store_model_nc_rename PROPERTIES LABELS "torture;negative" TIMEOUT 120
    ENVIRONMENT "OLC_MODEL_SABOTAGE=rename;OLC_MODEL_SEED=1"
    PASS_REGULAR_EXPRESSION "step [0-9]+: model mismatch")
endif()
