/*
 * tests/package/test_store_hpp.cpp - olc/store.hpp: CalibrationProfileStore
 * over the C store, through its C++ surface only.
 *
 * Precedence and the structure of a selection, portable records from a
 * key's structural properties, overrides, the validator (refusal, message,
 * exceptions that must not cross the C library), policies with any byte,
 * the one exception type with its status, move-only RAII, persistence
 * across handles, and durability reporting: suite "durability" runs again
 * as test_store_hpp_unsynced with OLC_TEST_FAIL_AT=dir-fsync, where every
 * write commits without a confirmed directory sync.
 */
#include <olc/store.hpp>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <vector>

#include <sys/stat.h>

extern "C" {
#include "test_support.h"
}

using namespace onnx_light;

static_assert(!std::is_copy_constructible_v<CalibrationProfileStore>, "a store handle is unique");
static_assert(!std::is_copy_assignable_v<CalibrationProfileStore>, "a store handle is unique");
static_assert(std::is_nothrow_move_constructible_v<CalibrationProfileStore>, "movable");
static_assert(std::is_nothrow_move_assignable_v<CalibrationProfileStore>, "movable");
static_assert(std::is_base_of_v<std::runtime_error, Error>, "one exception type");

namespace {

CalibrationProfileStoreOptions memory() {
  CalibrationProfileStoreOptions o;
  o.persistence_enabled = false;
  return o;
}

CalibrationProfileKey make_key(std::string impl = "3") {
  CalibrationProfileKey k;
  k.backend = "example_gpu";
  k.operator_name = "MatMul";
  k.implementation_version = std::move(impl);
  k.model_digest = "sha256:model";
  k.processor = "gpu0";
  k.thread_count = 8;
  return k;
}

bool accept_v1(std::string_view bytes, std::string &why) {
  if (bytes.substr(0, 3) == "v1 ")
    return true;
  why = "wants a v1 policy";
  return false;
}

/* Runs f and returns the status of the Error it throws (OLC_OK: none). */
template <class F> olc_status status_of(F &&f) {
  try {
    f();
  } catch (const Error &e) {
    CU_ASSERT(e.status() < 0);
    CU_ASSERT(e.detail().code == e.status());
    CU_ASSERT(std::strlen(e.what()) > 0);
    return e.status();
  }
  return OLC_OK;
}

void test_store_lookup_exact() {
  CalibrationProfileStore store(memory());
  CalibrationProfileKey key = make_key();
  store.Store(key, {{"median_latency", 2.5, "us"}, {"samples", 9, "count"}},
              [] { return std::string("v1 tile=8"); });
  CalibrationProfileLookupOptions lookup;
  lookup.exact_key = key;
  CalibrationProfileSelection s = store.Lookup(lookup);
  CU_ASSERT_FATAL(s.has_value());
  CU_ASSERT(static_cast<bool>(s));
  CU_ASSERT(s->precedence() == CalibrationProfilePrecedence::ExactCalibrated);
  CU_ASSERT(s->level == CalibrationProfileLevel::Exact);
  CU_ASSERT(s->origin == CalibrationProfileOrigin::Calibrated);
  CU_ASSERT(s->policy == "v1 tile=8");
  CU_ASSERT(s->key.model_digest == "sha256:model" && s->key.thread_count == 8);
  CU_ASSERT_EQUAL(s->measurements.size(), 2u);
  const CalibrationProfileMeasurement *m = s->FindMeasurement("samples");
  CU_ASSERT(m != nullptr && m->value == 9.0 && m->unit == "count");
  CU_ASSERT(s->FindMeasurement("gflops") == nullptr);
  CU_ASSERT(s.rejections.empty());
  CU_ASSERT_EQUAL(store.List().size(), 1u); /* no structure: exact only */

  /* Another thread count: nothing selected, one rejection with its reason. */
  lookup.exact_key.thread_count = 4;
  s = store.Lookup(lookup);
  CU_ASSERT(!s.has_value());
  CU_ASSERT_EQUAL_FATAL(s.rejections.size(), 1u);
  CU_ASSERT(s.rejections[0].reason == CalibrationProfileRejectionReason::DifferentThreadCount);
  CU_ASSERT(s.rejections[0].reason_name == "different_thread_count");
  CU_ASSERT(s.rejections[0].message.find("thread_count") != std::string::npos);
  CU_ASSERT(s.rejections[0].profile.policy == "v1 tile=8");
  CU_ASSERT_EQUAL(status_of([&] { (void)s->policy; }), OLC_E_NOT_FOUND);
}

void test_portable_levels() {
  CalibrationProfileStore store(memory());
  CalibrationProfileKey key = make_key();
  key.structural_properties = {{"m", "64"}, {"dtype", "float32"}};
  std::string_view bytes = "v1 portable";
  store.Store(key, {{"median_latency", 3.0, "us"}}, [&] { return bytes; });
  std::vector<CalibrationProfile> all = store.List();
  CU_ASSERT_EQUAL_FATAL(all.size(), 2u); /* exact and portable */

  CalibrationProfileLookupOptions lookup;
  lookup.exact_key = make_key();
  lookup.exact_key.processor = "another gpu"; /* the exact record no longer fits */
  lookup.structural_properties = {{"dtype", "float32"}, {"m", "64"}};
  CalibrationProfileSelection s = store.Lookup(lookup);
  CU_ASSERT_FATAL(s.has_value());
  CU_ASSERT(s->precedence() == CalibrationProfilePrecedence::PortableCalibrated);
  CU_ASSERT(s->key.model_digest.empty() && s->key.processor.empty());
  CU_ASSERT_EQUAL_FATAL(s->key.structural_properties.size(), 2u);
  CU_ASSERT(s->key.structural_properties[0].name == "dtype"); /* sorted */
  CU_ASSERT_EQUAL_FATAL(s.rejections.size(), 1u);
  CU_ASSERT(s.rejections[0].reason == CalibrationProfileRejectionReason::DifferentProcessor);

  /* force_portable; and the key's own structure when the options have none. */
  lookup = CalibrationProfileLookupOptions();
  lookup.exact_key = key;
  lookup.force_portable = true;
  s = store.Lookup(lookup);
  CU_ASSERT_FATAL(s.has_value());
  CU_ASSERT(s->level == CalibrationProfileLevel::Portable);
  CU_ASSERT_EQUAL_FATAL(s.rejections.size(), 1u);
  CU_ASSERT(s.rejections[0].reason == CalibrationProfileRejectionReason::ForcePortable);

  /* Only the portable level, through the levels argument. */
  CalibrationProfileStore other(memory());
  CalibrationProfileKey k2 = key;
  k2.implementation_version = "4";
  other.Store(
      k2, {}, [] { return "v1 p"; }, nullptr, CalibrationProfileLevels::Portable);
  all = other.List();
  CU_ASSERT_EQUAL_FATAL(all.size(), 1u);
  CU_ASSERT(all[0].level == CalibrationProfileLevel::Portable);
  CU_ASSERT(all[0].policy == "v1 p");
  /* The exact level of a key without structure cannot be portable. */
  CU_ASSERT_EQUAL(status_of([&] {
                    other.Store(
                        make_key(), {}, [] { return "v1"; }, nullptr,
                        CalibrationProfileLevels::Portable);
                  }),
                  OLC_E_INVALID);
}

void test_overrides() {
  CalibrationProfileStore store(memory());
  CalibrationProfileKey key = make_key();
  store.Store(key, {{"median_latency", 2.0, "us"}}, [] { return "v1 measured"; });
  store.InstallOverride(
      key, {}, [] { return std::string("v1 chosen"); }, accept_v1);
  CalibrationProfileLookupOptions lookup;
  lookup.exact_key = key;
  CalibrationProfileSelection s = store.Lookup(lookup, accept_v1);
  CU_ASSERT_FATAL(s.has_value());
  CU_ASSERT(s->precedence() == CalibrationProfilePrecedence::ExactOverride);
  CU_ASSERT(s->origin == CalibrationProfileOrigin::Override);
  CU_ASSERT(s->policy == "v1 chosen");
  CU_ASSERT_EQUAL_FATAL(s.rejections.size(), 1u);
  CU_ASSERT(s.rejections[0].reason == CalibrationProfileRejectionReason::Shadowed);
  CU_ASSERT(store.RemoveOverride(key));
  CU_ASSERT(!store.RemoveOverride(key)); /* none left: false, not an exception */
  s = store.Lookup(lookup);
  CU_ASSERT(s.has_value() && s->policy == "v1 measured");
}

void test_validators() {
  CalibrationProfileStore store(memory());
  CalibrationProfileKey key = make_key();
  /* Refused while storing: OLC_E_VALIDATION with the reason, nothing written. */
  try {
    store.Store(
        key, {}, [] { return "v2 new"; }, accept_v1);
    CU_FAIL("a refused policy was stored");
  } catch (const Error &e) {
    CU_ASSERT_EQUAL(e.status(), OLC_E_VALIDATION);
    CU_ASSERT_STRING_EQUAL(e.status_name(), "OLC_E_VALIDATION");
    CU_ASSERT(std::string(e.what()).find("wants a v1 policy") != std::string::npos);
  }
  CU_ASSERT(store.List().empty());

  /* A validator that throws: its own exception, unchanged; nothing written. */
  auto thrower = [](std::string_view, std::string &) -> bool {
    throw std::logic_error("validator bug");
  };
  try {
    store.Store(
        key, {}, [] { return "v1 x"; }, thrower);
    CU_FAIL("no exception");
  } catch (const std::logic_error &e) {
    CU_ASSERT_STRING_EQUAL(e.what(), "validator bug");
  }
  CU_ASSERT(store.List().empty());

  /* A serializer that throws: its exception, nothing written. */
  try {
    store.Store(key, {}, []() -> std::string { throw std::runtime_error("no policy"); });
    CU_FAIL("no exception");
  } catch (const Error &) {
    CU_FAIL("a serializer's exception became an Error");
  } catch (const std::runtime_error &e) {
    CU_ASSERT_STRING_EQUAL(e.what(), "no policy");
  }
  CU_ASSERT(store.List().empty());

  /* In a lookup: a refusal is a rejection; a throw is rethrown. */
  store.Store(key, {}, [] { return "v1 ok"; });
  CalibrationProfileLookupOptions lookup;
  lookup.exact_key = key;
  int calls = 0;
  CalibrationProfileSelection s = store.Lookup(lookup, [&](std::string_view b, std::string &why) {
    calls++;
    why = "refused " + std::string(b);
    return false;
  });
  CU_ASSERT_EQUAL(calls, 1);
  CU_ASSERT(!s.has_value());
  CU_ASSERT_EQUAL_FATAL(s.rejections.size(), 1u);
  CU_ASSERT(s.rejections[0].reason == CalibrationProfileRejectionReason::ValidationFailed);
  CU_ASSERT(s.rejections[0].message.find("refused v1 ok") != std::string::npos);
  try {
    (void)store.Lookup(lookup, thrower);
    CU_FAIL("no exception");
  } catch (const std::logic_error &e) {
    CU_ASSERT_STRING_EQUAL(e.what(), "validator bug");
  }
}

void test_bytes_and_errors() {
  CalibrationProfileStore store(memory());
  CalibrationProfileKey key = make_key();
  const std::string binary("v1\0\n\"\\\xff", 7);
  store.Store(key, {}, [&] { return binary; });
  CalibrationProfileLookupOptions lookup;
  lookup.exact_key = key;
  CalibrationProfileSelection s = store.Lookup(lookup);
  CU_ASSERT(s.has_value() && s->policy == binary);

  CalibrationProfileKey bad = make_key();
  bad.backend = std::string("gpu\0x", 5);
  CU_ASSERT_EQUAL(status_of([&] { store.Store(bad, {}, [] { return "v1"; }); }), OLC_E_INVALID);
  bad = make_key();
  bad.backend.clear();
  CU_ASSERT_EQUAL(status_of([&] { store.Store(bad, {}, [] { return "v1"; }); }), OLC_E_INVALID);
  bad = make_key();
  bad.structural_properties = {{"m", "1"}, {"m", "2"}};
  CU_ASSERT_EQUAL(status_of([&] { store.Store(bad, {}, [] { return "v1"; }); }), OLC_E_INVALID);
  CU_ASSERT_EQUAL(status_of([&] {
                    store.Store(key, {{"median_latency", std::nan(""), "us"}}, [] { return "v1"; });
                  }),
                  OLC_E_INVALID);
  try {
    store.Store(bad, {}, [] { return "v1"; });
  } catch (const Error &e) {
    CU_ASSERT(std::string(e.what()).find("\"m\"") != std::string::npos);
    CU_ASSERT(e.detail().where[0] != 0);
  }
}

void test_move() {
  CalibrationProfileStore a(memory());
  a.Store(make_key(), {}, [] { return "v1 moved"; });
  olc_store *handle = a.NativeHandle();
  CalibrationProfileStore b(std::move(a));
  CU_ASSERT(b.NativeHandle() == handle);
  CU_ASSERT(a.NativeHandle() == nullptr);
  CU_ASSERT_EQUAL(status_of([&] { (void)a.List(); }), OLC_E_INVALID);
  CU_ASSERT(a.DurabilityConfirmed()); /* harmless on a moved-from store */
  CU_ASSERT_EQUAL(b.List().size(), 1u);
  CalibrationProfileStore c(memory());
  c = std::move(b);
  CU_ASSERT(c.NativeHandle() == handle && c.List().size() == 1u);
  CU_ASSERT(c.Path().empty()); /* persistence off */
}

void test_persistence() {
  char *dir = olc_test_tmpdir("store_hpp");
  CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
  CalibrationProfileStoreOptions o;
  o.path = std::string(dir) + "/profiles.txt";
  {
    CalibrationProfileStore writer(o);
    CU_ASSERT(writer.Path() == o.path);
    writer.Store(make_key(), {{"median_latency", 1.5, "us"}}, [] { return "v1 disk"; });
    CU_ASSERT(writer.DurabilityConfirmed());
    CU_ASSERT(writer.DurabilityMessage().empty());
  }
  CalibrationProfileStore reader(o);
  CalibrationProfileLookupOptions lookup;
  lookup.exact_key = make_key();
  CalibrationProfileSelection s = reader.Lookup(lookup);
  CU_ASSERT(s.has_value() && s->policy == "v1 disk");
  /* A file that does not parse: Reload throws with the line, the
   * profiles in memory stay. */
  CU_ASSERT_EQUAL(olc_test_write_file(o.path.c_str(), "not a store\n", 12), 0);
  try {
    reader.Reload();
    CU_FAIL("a malformed file reloaded");
  } catch (const Error &e) {
    CU_ASSERT(e.status() == OLC_E_MALFORMED || e.status() == OLC_E_VERSION);
    CU_ASSERT_EQUAL(e.detail().line, 1u);
  }
  CU_ASSERT_EQUAL(reader.List().size(), 1u);
  olc_test_rmtree(dir);
  std::free(dir);
}

/* Layers (as a list and from OLC_STORE_LAYERS), each profile's source,
 * and read-only mode: the user's file wins, a layer's record says where
 * it came from, a read-only handle keeps a save in memory. */
void test_layers_and_read_only() {
  char *dir = olc_test_tmpdir("store_hpp_layers");
  CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
  const std::string layer = std::string(dir) + "/layer.txt", user = std::string(dir) + "/user.txt";
  {
    CalibrationProfileStoreOptions lo;
    lo.path = layer;
    CalibrationProfileStore(lo).Store(make_key(), {}, [] { return "v1 shipped"; });
  }
  CalibrationProfileLookupOptions lookup;
  lookup.exact_key = make_key();
  CalibrationProfileStoreOptions o;
  o.path = user;
  o.layers = {layer};
  {
    CalibrationProfileStore s(o);
    CalibrationProfileSelection sel = s.Lookup(lookup);
    CU_ASSERT_FATAL(sel.has_value());
    CU_ASSERT(sel->policy == "v1 shipped" && sel->source == layer && sel->from_layer);
    s.Store(make_key(), {}, [] { return "v1 mine"; });
    sel = s.Lookup(lookup);
    CU_ASSERT(sel->policy == "v1 mine" && sel->source == user && !sel->from_layer);
    CU_ASSERT_EQUAL(sel.rejections.size(), 1u);
  }
  /* The environment: a read-only store over the layer from
   * OLC_STORE_LAYERS; the options' own layers give way to it. */
  CU_ASSERT_EQUAL(setenv("OLC_PERSISTENCE", "read_only", 1), 0);
  CU_ASSERT_EQUAL(setenv("OLC_STORE_LAYERS", layer.c_str(), 1), 0);
  CalibrationProfileStoreOptions e;
  e.path = std::string(dir) + "/other.txt";
  e.layers = {user};
  e.ApplyEnvironment();
  CU_ASSERT(e.read_only && e.persistence_enabled && e.layers_list == layer);
  {
    CalibrationProfileStore s(e);
    CalibrationProfileSelection sel = s.Lookup(lookup);
    CU_ASSERT(sel.has_value() && sel->policy == "v1 shipped" && sel->from_layer);
    s.Store(make_key(), {}, [] { return "v1 memory"; }); /* kept in memory */
    CU_ASSERT(s.Lookup(lookup)->policy == "v1 memory");
  }
  struct stat st;
  CU_ASSERT(stat((std::string(dir) + "/other.txt").c_str(), &st) != 0); /* nothing written */
  CU_ASSERT_EQUAL(setenv("OLC_PERSISTENCE", "sometimes", 1), 0);
  CU_ASSERT_EQUAL(status_of([&] { e.ApplyEnvironment(); }), OLC_E_INVALID);
  unsetenv("OLC_PERSISTENCE");
  unsetenv("OLC_STORE_LAYERS");
  olc_test_rmtree(dir);
  std::free(dir);
}

/* With OLC_TEST_FAIL_AT=dir-fsync (test_store_hpp_unsynced) every write
 * commits unsynced: not an exception, reported by the accessor until a
 * write is confirmed.  Without it, every write is confirmed. */
void test_durability() {
  const char *fail_at = std::getenv("OLC_TEST_FAIL_AT");
  bool unsynced = fail_at != nullptr && std::strcmp(fail_at, "dir-fsync") == 0;
  char *dir = olc_test_tmpdir("store_hpp_sync");
  CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
  CalibrationProfileStoreOptions o;
  o.path = std::string(dir) + "/profiles.txt";
  CalibrationProfileStore store(o);
  CU_ASSERT(store.DurabilityConfirmed());
  store.Store(make_key(), {}, [] { return "v1 a"; });
  CU_ASSERT_EQUAL(store.DurabilityConfirmed(), !unsynced);
  CU_ASSERT_EQUAL(store.DurabilityMessage().empty(), !unsynced);
  store.InstallOverride(make_key(), {}, [] { return "v1 b"; });
  CU_ASSERT_EQUAL(store.DurabilityConfirmed(), !unsynced);
  CU_ASSERT(store.RemoveOverride(make_key()));
  CU_ASSERT_EQUAL(store.DurabilityConfirmed(), !unsynced);
  /* The write happened all the same. */
  CalibrationProfileStore again(o);
  CU_ASSERT_EQUAL(again.List().size(), 1u);
  olc_test_rmtree(dir);
  std::free(dir);
}

/* One store, many threads: each stores its own key and looks up all of
 * them (ThreadSanitizer sees the wrapper's own state too). */
void test_threads() {
  char *dir = olc_test_tmpdir("store_hpp_threads");
  CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
  CalibrationProfileStoreOptions o;
  o.path = std::string(dir) + "/profiles.txt";
  CalibrationProfileStore store(o);
  std::vector<std::thread> threads;
  std::vector<int> found(4, 0);
  for (int t = 0; t < 4; t++)
    threads.emplace_back([&store, &found, t] {
      CalibrationProfileKey key = make_key(std::to_string(t + 1));
      try {
        store.Store(
            key, {{"median_latency", 1.0 + t, "us"}}, [t] { return "v1 t" + std::to_string(t); },
            accept_v1);
        for (int round = 0; round < 20; round++) {
          CalibrationProfileLookupOptions lookup;
          lookup.exact_key = key;
          CalibrationProfileSelection s = store.Lookup(lookup, accept_v1);
          found[static_cast<std::size_t>(t)] +=
              s.has_value() && s->policy == "v1 t" + std::to_string(t);
          (void)store.DurabilityConfirmed();
        }
      } catch (const Error &) {
        found[static_cast<std::size_t>(t)] = -1;
      }
    });
  for (auto &th : threads)
    th.join();
  for (int t = 0; t < 4; t++)
    CU_ASSERT_EQUAL(found[static_cast<std::size_t>(t)], 20);
  CU_ASSERT_EQUAL(store.List().size(), 4u);
  olc_test_rmtree(dir);
  std::free(dir);
}

} // namespace

int main(int argc, char **argv) {
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  CU_pSuite s = CU_add_suite("store_hpp", nullptr, nullptr);
  CU_add_test(s, "store_lookup_exact", test_store_lookup_exact);
  CU_add_test(s, "portable_levels", test_portable_levels);
  CU_add_test(s, "overrides", test_overrides);
  CU_add_test(s, "validators", test_validators);
  CU_add_test(s, "bytes_and_errors", test_bytes_and_errors);
  CU_add_test(s, "move", test_move);
  CU_add_test(s, "persistence", test_persistence);
  CU_add_test(s, "layers_and_read_only", test_layers_and_read_only);
  CU_add_test(s, "threads", test_threads);
  CU_pSuite d = CU_add_suite("durability", nullptr, nullptr);
  CU_add_test(d, "durability", test_durability);
  return olc_test_run(argc, argv);
}
