/*
 * The C++ integration example of calibration-profile-store.rst, as it
 * stands: rst_block.inc is the .rst's `code-block:: cpp`, extracted at test
 * time (tests/package/scripts/rst_example.cmake).  This file adds only what the block
 * assumes (ExamplePolicy, policy, model_digest, processor_and_cache_identity,
 * effective_threads, median_us, the onnx_light names) and then checks that
 * its lookup selected the record its Store wrote.
 *
 * Run with XDG_CACHE_HOME pointing at a scratch directory: the block's
 * CalibrationProfileStore uses the default path.
 */
#include <olc/store.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

using namespace onnx_light;

namespace {

int validations = 0;

/* The example backend's policy: a tile shape, as text. */
struct ExamplePolicy {
  unsigned tile_m = 64;
  unsigned tile_n = 32;

  std::string Serialize() const {
    return "example_policy v1 tile=" + std::to_string(tile_m) + "x" + std::to_string(tile_n);
  }
  static bool ValidateSerialized(std::string_view payload, std::string &error) {
    validations++;
    if (payload.substr(0, 23) == "example_policy v1 tile=")
      return true;
    error = "not an example_policy v1 text";
    return false;
  }
};

int fail(const char *what) {
  std::fprintf(stderr, "rst example: %s\n", what);
  return 1;
}

} // namespace

int main() {
  const std::string model_digest = "sha256:" + std::string(64, 'e');
  const std::string processor_and_cache_identity = "example-gpu-0 l2=4MiB";
  const int effective_threads = 8;
  const double median_us = 2.5;
  ExamplePolicy policy;

  try {
#include "rst_block.inc"

    if (!selected)
      return fail("the lookup selected nothing");
    if (selected->precedence() != CalibrationProfilePrecedence::ExactCalibrated)
      return fail("the selection is not the exact calibrated record");
    if (selected->policy != policy.Serialize())
      return fail("the selected policy is not the stored one");
    if (selected->key.model_digest != model_digest ||
        selected->key.processor != processor_and_cache_identity ||
        selected->key.thread_count != effective_threads)
      return fail("the selected record has another identity");
    const CalibrationProfileMeasurement *m = selected->FindMeasurement("median_latency");
    if (m == nullptr || m->value != median_us || m->unit != "us")
      return fail("the selected record lacks median_latency = 2.5 us");
    if (validations < 2)
      return fail("the validators of Store and Lookup did not both run");
    if (store.Path().empty() || !store.DurabilityConfirmed())
      return fail("the store is not on disk, or its write was not durable");
    std::printf("rst example: selected %s policy \"%s\" from %s (%zu rejected)\n",
                selected->level == CalibrationProfileLevel::Exact ? "exact" : "portable",
                selected->policy.c_str(), store.Path().c_str(), selected.rejections.size());
  } catch (const Error &e) {
    std::fprintf(stderr, "rst example: %s: %s\n", e.status_name(), e.what());
    return 1;
  }
  return EXIT_SUCCESS;
}
