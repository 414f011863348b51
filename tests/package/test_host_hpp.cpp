/*
 * tests/package/test_host_hpp.cpp - olc/host.hpp: HostConfig, Host, Calibrate,
 * Explain and Prune, Bind / Select / MatMulF32 / Execute (constants packed
 * once), Key, BindWorkload and ValidatePolicy over the deterministic mock plugin (tests/plugins,
 * mock_det: candidates spin_us=400, 100, 200, 800), through the C++ surface
 * only.
 */
#include <algorithm>
#include <olc/host.hpp>

#include <stdexcept>
#include <string>
#include <type_traits>

extern "C" {
#include "test_support.h"
}

using namespace onnx_light;

static_assert(!std::is_copy_constructible_v<Host>, "a host handle is unique");
static_assert(std::is_nothrow_move_constructible_v<Host>, "movable");
static_assert(!std::is_copy_constructible_v<HostConfig>, "a config handle is unique");
static_assert(!std::is_copy_constructible_v<Binding>, "a binding handle is unique");
static_assert(std::is_nothrow_move_constructible_v<Binding>, "movable");

namespace {

std::string ini() {
  return std::string("[host]\nplugin_dirs = ") + OLC_MOCK_PLUGIN_DIR_GOOD +
         "\nthreads = 1\n\n[store]\npersistence = false\n\n"
         "[calibration]\nwarmup = 1\nmin_repetitions = 3\nmin_seconds = 0.001\n"
         "max_seconds_per_workload = 10\n\n"
         "[workload.w1]\nbackend = mock_det\noperator = MatMul\nm = 2\nn = 3\nk = 4\n\n"
         "[workload.w2]\nbackend = mock_det\noperator = MatMul\nm = 5\nn = 3\nk = 4\n";
}

void test_config() {
  HostConfig config = HostConfig::FromString(ini(), "test.ini");
  CU_ASSERT(config.Source() == "test.ini");
  CU_ASSERT_EQUAL(config.Threads(), 1u);
  CU_ASSERT(!config.StoreOptions().persistence_enabled);
  CU_ASSERT(config.PluginDirs().size() == 1u && config.PluginDirs()[0] == OLC_MOCK_PLUGIN_DIR_GOOD);
  CU_ASSERT_EQUAL(config.Calibration().min_repetitions, 3u);
  auto workloads = config.Workloads();
  CU_ASSERT_EQUAL_FATAL(workloads.size(), 2u);
  CU_ASSERT(workloads[0].name == "w1" && workloads[0].backend == "mock_det");
  CU_ASSERT(workloads[0].properties.size() == 3u && workloads[0].properties[0].name == "m");
  CU_ASSERT(config.FindWorkload("w2").has_value());
  CU_ASSERT(!config.FindWorkload("w3").has_value());
  CU_ASSERT(!config.Plugin("mock_det").has_value());
  {
    /* [store] read-only mode, layers and network file systems reach the
     * store's options. */
    HostConfig st = HostConfig::FromString("[store]\npersistence = read_only\nlayers = "
                                           "/srv/a.txt, /srv/d/*.txt\nallow_network_fs = true\n",
                                           "store.ini");
    CalibrationProfileStoreOptions so = st.StoreOptions();
    CU_ASSERT(so.persistence_enabled && so.read_only && so.allow_network_fs);
    CU_ASSERT(so.layers.size() == 2u && so.layers[0] == "/srv/a.txt" &&
              so.layers[1] == "/srv/d/*.txt");
  }
  try {
    (void)HostConfig::FromString("[host]\nthreads = 1\nbogus = 2\n", "bad.ini");
    CU_FAIL("a bad config loaded");
  } catch (const Error &e) {
    CU_ASSERT_EQUAL(e.status(), OLC_E_CONFIG);
    CU_ASSERT_EQUAL(e.detail().line, 3u);
    CU_ASSERT(std::string(e.what()).find("bad.ini") != std::string::npos);
  }
}

void test_calibrate() {
  HostConfig config = HostConfig::FromString(ini(), "test.ini");
  CalibrationProfileStore store(config.StoreOptions());
  HostOptions ho;
  ho.ignore_env = true;
  Host host(config, store, ho);
  auto report = host.LoadReport();
  CU_ASSERT_EQUAL_FATAL(report.size(), 1u);
  CU_ASSERT(report[0].loaded() && report[0].plugin_name == "mock_det");
  CU_ASSERT(report[0].stage_name == "loaded");

  CalibrateOptions o;
  o.in_process = true;
  o.workloads = {"w1"};
  o.keep_samples = true;
  int reports = 0;
  o.progress = [&](const CalibrationProgress &p) {
    reports++;
    CU_ASSERT(p.workload == "w1");
  };
  auto results = host.Calibrate(o);
  CU_ASSERT_EQUAL_FATAL(results.size(), 1u);
  const WorkloadResult &r = results[0];
  CU_ASSERT(r.ok() && r.calibrated_now && r.workload == "w1");
  CU_ASSERT(reports > 0);
  CU_ASSERT_EQUAL(r.candidates.size(), 4u);
  CU_ASSERT_FATAL(r.selection.has_value());
  /* Which candidate wins is the race's business (timing): the selection
   * is one of the measured candidates, with its measurements. */
  const std::string chosen = r.selection->policy;
  bool measured = false;
  for (const CandidateResult &c : r.candidates)
    measured = measured || (c.policy == chosen && c.status == OLC_OK && c.samples > 0);
  CU_ASSERT(measured);
  /* The winner is the saved policy, and every timed run is kept. */
  CU_ASSERT_FATAL(r.winner < r.candidates.size());
  CU_ASSERT(r.candidates[r.winner].policy == chosen);
  for (const CandidateResult &c : r.candidates)
    if (c.status == OLC_OK)
      CU_ASSERT_EQUAL(c.samples_us.size(), static_cast<std::size_t>(c.samples));
  CU_ASSERT(r.candidates[0].policy == "spin_us=400"); /* in the plugin's order */
  CU_ASSERT(r.selection->FindMeasurement("median_latency") != nullptr);

  /* Again: from the store, nothing measured. */
  o.progress = nullptr;
  results = host.Calibrate(o);
  CU_ASSERT_EQUAL_FATAL(results.size(), 1u);
  CU_ASSERT(!results[0].calibrated_now && results[0].candidates.empty());
  CU_ASSERT_EQUAL(results[0].winner, 0u); /* nothing measured: candidates.size() */
  CU_ASSERT(results[0].selection.has_value() && results[0].selection->policy == chosen);

  CalibrationProfileSelection e = host.Explain("w1");
  CU_ASSERT(e.has_value() && e->policy == chosen);
  try {
    (void)host.Explain("nope");
    CU_FAIL("explained an unknown workload");
  } catch (const Error &err) {
    CU_ASSERT_EQUAL(err.status(), OLC_E_NOT_FOUND);
  }
  o.workloads = {"nope"};
  try {
    (void)host.Calibrate(o);
    CU_FAIL("calibrated an unknown workload");
  } catch (const Error &err) {
    CU_ASSERT_EQUAL(err.status(), OLC_E_NOT_FOUND);
  }
  int pruned = 0;
  CU_ASSERT_EQUAL(host.Prune(true, [&](const CalibrationProfile &, std::string_view) { pruned++; }),
                  0u);
  CU_ASSERT_EQUAL(pruned, 0);

  /* A select-only run of w2: nothing stored, nothing selected, no throw. */
  o.workloads = {"w2"};
  o.select_only = true;
  results = host.Calibrate(o);
  CU_ASSERT_EQUAL_FATAL(results.size(), 1u);
  CU_ASSERT(!results[0].selection.has_value() && !results[0].calibrated_now);
  CU_ASSERT_EQUAL(results[0].status, OLC_E_NOT_FOUND);
}

void test_progress_throws() {
  HostConfig config = HostConfig::FromString(ini(), "test.ini");
  CalibrationProfileStore store(config.StoreOptions());
  HostOptions ho;
  ho.ignore_env = true;
  Host host(config, store, ho);
  Host moved(std::move(host)); /* the C handle moves with it */
  CU_ASSERT(host.NativeHandle() == nullptr && moved.NativeHandle() != nullptr);
  CalibrateOptions o;
  o.in_process = true;
  int calls = 0;
  o.progress = [&](const CalibrationProgress &) {
    calls++;
    throw std::runtime_error("stop reporting");
  };
  try {
    (void)moved.Calibrate(o);
    CU_FAIL("the progress callback's exception was lost");
  } catch (const std::runtime_error &e) {
    CU_ASSERT_STRING_EQUAL(e.what(), "stop reporting");
  }
  CU_ASSERT_EQUAL(calls, 1); /* no report after the first threw */
  /* The loop ran to its end all the same: both workloads are stored. */
  CU_ASSERT_EQUAL(store.List().size(), 4u);
}

/* HostOptions carries what olc_host_options does: a host without ini
 * text, its plugin directories, threads, select mode, calibration settings
 * and a diagnostics callback. */
void test_options_without_ini() {
  CalibrationProfileStoreOptions so;
  so.persistence_enabled = false; /* in memory: no file of the user's touched */
  CalibrationProfileStore store(so);
  HostOptions ho;
  ho.ignore_env = true;
  ho.plugin_dirs = {OLC_MOCK_PLUGIN_DIR_GOOD, "/nonexistent/olc-test-plugins"};
  ho.threads = 2;
  ho.select_mode = OLC_SELECT_ON_MISS;
  std::vector<std::string> seen;
  ho.diagnostics = [&](const Diagnostic &d) { seen.push_back(std::string(d.where)); };
  olc_calibration_settings cs{};
  {
    HostConfig defaults = HostConfig::FromString("", "defaults.ini");
    cs = defaults.Calibration();
  }
  cs.min_repetitions = 2;
  cs.isolation = 0;
  ho.calibration = cs;
  Host host(store, ho);
  std::size_t loaded = 0;
  for (const PluginLoadEntry &e : host.LoadReport())
    loaded += e.loaded() ? 1u : 0u;
  CU_ASSERT(loaded >= 1);
  /* The missing directory was said, through the callback. */
  CU_ASSERT(std::find(seen.begin(), seen.end(), "plugin_dirs") != seen.end());
  RuntimeWorkload w{
      "mock_det", "MatMul", {{"dtype", "float32"}, {"m", "2"}, {"n", "3"}, {"k", "4"}}, "", {},
      "w",        {}};
  Binding b = host.Bind(w);
  SelectOptions in_process;
  in_process.in_process = true;
  Selection s = b.Select(in_process); /* the host's mode: on_miss, measured */
  CU_ASSERT_EQUAL(s.Status(), OLC_OK);
  CU_ASSERT(s.CalibratedNow());
}

/* The runtime path: Bind, Select (never, on_miss, by description), the
 * selection's views, MatMulF32 through mock_det's execute, and errors. */
void test_runtime() {
  HostConfig config = HostConfig::FromString(ini(), "test.ini");
  CalibrationProfileStore store(config.StoreOptions());
  Host host(config, store);
  RuntimeWorkload w{
      "mock_det", "MatMul", {{"dtype", "float32"}, {"m", "2"}, {"n", "3"}, {"k", "4"}}, "", {},
      "layer0",   {}};
  Binding b = host.Bind(w);
  SelectOptions never;
  never.mode = OLC_SELECT_NEVER;
  Selection first = b.Select(never);
  CU_ASSERT_EQUAL(first.Status(), OLC_FIRST_CANDIDATE);
  CU_ASSERT(first.IsFirstCandidate() && !first.Record().has_value());
  CU_ASSERT_EQUAL(first.Why(), OLC_E_NOT_FOUND);
  CU_ASSERT(first.Policy() == "spin_us=400");
  SelectOptions on_miss;
  on_miss.mode = OLC_SELECT_ON_MISS;
  on_miss.in_process = true;
  on_miss.cancel = [] { return false; };
  Selection s = b.Select(on_miss);
  CU_ASSERT_EQUAL(s.Status(), OLC_OK);
  CU_ASSERT(s.CalibratedNow() && s.CanExecute());
  /* The winner, or the first candidate when load made the lead a tie. */
  CU_ASSERT(s.Policy() == "spin_us=100" || s.Policy() == "spin_us=400");
  CU_ASSERT_FATAL(s.Record().has_value());
  CU_ASSERT(s.Record()->key.model_digest.rfind("workload:", 0) == 0);
  /* By description, in another property order: the same selection. */
  RuntimeWorkload again = w;
  std::swap(again.properties[0], again.properties[3]);
  CU_ASSERT_EQUAL(host.Select(again).NativeHandle(), s.NativeHandle());
  float a[8] = {1, 2, 3, 4, 5, 6, 7, 8}, bm[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1};
  float c[6] = {0};
  s.MatMulF32(2, 3, 4, 1.0f, a, 4, bm, 3, 0.0f, c, 3);
  CU_ASSERT(c[0] == 5 && c[1] == 6 && c[2] == 7 && c[3] == 13 && c[4] == 14 && c[5] == 15);
  try {
    s.MatMulF32(2, 3, 4, 1.0f, a, 3, bm, 3, 0.0f, c, 3);
    CU_FAIL("lda < k executed");
  } catch (const Error &e) {
    CU_ASSERT_EQUAL(e.status(), OLC_E_INVALID);
    CU_ASSERT(std::string(e.what()).find("lda") != std::string::npos);
  }
  CU_ASSERT(b.Explain().selected.has_value());
  RuntimeWorkload unknown = w;
  unknown.backend = "no_such_plugin";
  try {
    (void)host.Bind(unknown);
    CU_FAIL("an unknown backend bound");
  } catch (const Error &e) {
    CU_ASSERT_EQUAL(e.status(), OLC_E_NOT_FOUND);
    CU_ASSERT(std::string(e.what()).find("layer0") != std::string::npos);
  }
  Binding moved = std::move(b);
  try {
    (void)b.Select(); // NOLINT(bugprone-use-after-move): the moved-from state is the point
    CU_FAIL("a moved-from binding selected");
  } catch (const Error &e) {
    CU_ASSERT_EQUAL(e.status(), OLC_E_INVALID);
  }
  CU_ASSERT_EQUAL(moved.Select().NativeHandle(), s.NativeHandle());
}

/* What the runtime path added after Bind and Select: Binding::Execute with
 * a constant packed once, PackedBytes, Key, Host::BindWorkload and
 * ValidatePolicy, SelectOptions::wait. */
void test_runtime_more() {
  HostConfig config = HostConfig::FromString(ini(), "test.ini");
  CalibrationProfileStore store(config.StoreOptions());
  Host host(config, store);
  float a[8] = {1, 2, 3, 4, 5, 6, 7, 8}, bm[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1};
  float c[6] = {0};
  olc_tensor t[3] = {};
  const std::int64_t dims[3][2] = {{2, 4}, {4, 3}, {2, 3}};
  void *data[3] = {a, bm, c};
  for (int i = 0; i < 3; i++) {
    t[i].dtype = OLC_DTYPE_FLOAT32;
    t[i].rank = 2;
    t[i].dims[0] = dims[i][0], t[i].dims[1] = dims[i][1];
    t[i].strides[0] = dims[i][1], t[i].strides[1] = 1;
    t[i].data = data[i];
  }
  olc_execute_args args = OLC_EXECUTE_ARGS_INIT;
  args.inputs = t;
  args.input_count = 2;
  args.outputs = &t[2];
  args.output_count = 1;
  RuntimeWorkload w{
      "mock_det", "MatMul", {{"dtype", "float32"}, {"m", "2"}, {"n", "3"}, {"k", "4"}}, "", {},
      "weights",  {}};
  olc_constant weights{};
  weights.input = 1;
  weights.tensor = t[1];
  w.constants.push_back(weights);
  Binding b = host.Bind(w);
  CU_ASSERT_EQUAL(b.PackedBytes(), 0u);
  SelectOptions never;
  never.mode = OLC_SELECT_NEVER;
  never.wait = true;
  Selection s = b.Select(never);
  b.Execute(args, &s);
  CU_ASSERT(c[0] == 5 && c[1] == 6 && c[2] == 7 && c[3] == 13 && c[4] == 14 && c[5] == 15);
  CU_ASSERT(b.PackedBytes() > 0u); /* mock_det packs B for the policy */
  std::fill(c, c + 6, 0.0f);
  b.Execute(args); /* the binding's own select */
  CU_ASSERT(c[5] == 15);
  CalibrationProfileKey key = b.Key();
  CU_ASSERT(key.backend == "mock_det" && key.operator_name == "MatMul");
  CU_ASSERT(key.model_digest.rfind("workload:", 0) == 0);
  CU_ASSERT_EQUAL(key.thread_count, 1);
  Binding w1 = host.BindWorkload("w1");
  CU_ASSERT(w1.Key().backend == "mock_det");
  try {
    (void)host.BindWorkload("w3");
    CU_FAIL("an unknown workload bound");
  } catch (const Error &e) {
    CU_ASSERT_EQUAL(e.status(), OLC_E_NOT_FOUND);
  }
  host.ValidatePolicy("mock_det", "spin_us=100");
  try {
    host.ValidatePolicy("mock_det", "not a policy");
    CU_FAIL("a bad policy validated");
  } catch (const Error &e) {
    CU_ASSERT_EQUAL(e.status(), OLC_E_VALIDATION);
  }
  try {
    host.ValidatePolicy("no_such_plugin", "spin_us=100");
    CU_FAIL("a policy of an unknown plugin validated");
  } catch (const Error &e) {
    CU_ASSERT_EQUAL(e.status(), OLC_E_NOT_FOUND);
  }
}

} // namespace

int main(int argc, char **argv) {
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  CU_pSuite s = CU_add_suite("host_hpp", nullptr, nullptr);
  CU_add_test(s, "config", test_config);
  CU_add_test(s, "calibrate", test_calibrate);
  CU_add_test(s, "progress_throws", test_progress_throws);
  CU_add_test(s, "runtime", test_runtime);
  CU_add_test(s, "runtime: execute, constants, key, validate", test_runtime_more);
  CU_add_test(s, "options without ini text", test_options_without_ini);
  return olc_test_run(argc, argv);
}
