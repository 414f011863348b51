/*
 * olc/store.hpp - CalibrationProfileStore, the C++ API of the calibration
 * profile store (docs/store.md, docs/api.md).
 *
 * Header-only C++17 over olc/store.h, in namespace onnx_light, with
 * onnx-light's names: a backend fills a CalibrationProfileKey, hands Store its
 * measurements, a serializer and an optional validator, and looks profiles
 * up with CalibrationProfileLookupOptions:
 *
 *   CalibrationProfileStore store;                 // the default path
 *   store.Store(key, {{"median_latency", 2.5, "us"}},
 *               [&] { return policy.Serialize(); },          // std::string
 *               [](std::string_view bytes, std::string &why) { return Check(bytes, why); });
 *   CalibrationProfileLookupOptions lookup;
 *   lookup.exact_key = key;
 *   auto selected = store.Lookup(lookup, Check);   // selected->policy, ->measurements
 *
 * Callbacks
 *   serializer  any callable taking no argument whose result converts to
 *               std::string_view (std::string, std::string_view, const
 *               char *): the policy bytes, which may contain any byte.
 *   validator   any callable (std::string_view bytes, std::string &error)
 *               returning bool: true when the policy is usable, else false
 *               with a one-line reason in error.  Called on the calling
 *               thread during the call only.  Optional everywhere.
 *   An exception a callback throws is caught before it reaches the C
 *   library (a validator that throws rejects the policy) and rethrown,
 *   unchanged, when the call returns; Store then has written nothing.
 *
 * Errors: every failure throws onnx_light::Error (olc/error.hpp) with the
 * olc_status of the C call (OLC_E_INVALID, OLC_E_VALIDATION, OLC_E_IO,
 * OLC_E_LOCK_TIMEOUT, ... as olc/store.h lists per function) and its
 * message.  A write that committed but whose durability across power loss
 * is not confirmed (OLC_COMMITTED_UNSYNCED) is not a failure: it returns
 * normally and DurabilityConfirmed() answers false until the next write.
 *
 * [[nodiscard]] marks only calls made for their result (Lookup, List);
 * Store, InstallOverride and RemoveOverride are called for their effect, as
 * the example in docs/api.md does.
 *
 * Ownership: CalibrationProfileStore owns its olc_store handle (freed by
 * the destructor; move-only).  Everything a lookup returns is a copy owned
 * by the caller (std::string, std::vector), valid after the store is gone.
 * Strings are UTF-8; one that contains a NUL byte is OLC_E_INVALID (policy
 * bytes excepted).
 *
 * Thread safety: one CalibrationProfileStore may be used from many threads
 * at once, like the olc_store it wraps, except for moving and destroying
 * it.  Link olc::olc (CMake) or `pkg-config --libs olc`.
 */
#ifndef OLC_STORE_HPP
#define OLC_STORE_HPP

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "olc/error.hpp"
#include "olc/store.h"

namespace onnx_light {

/* A structural property ("dtype" = "float16"); names must not repeat. */
struct CalibrationProfileProperty {
  std::string name;
  std::string value;
};
using CalibrationProfileProperties = std::vector<CalibrationProfileProperty>;

/* A named measurement: a finite value with its unit ("median_latency", 2.5, "us"). */
struct CalibrationProfileMeasurement {
  std::string name;
  double value = 0.0;
  std::string unit;
};
using CalibrationProfileMeasurements = std::vector<CalibrationProfileMeasurement>;

/*
 * A key.  backend, operator_name and implementation_version are always
 * required.  The exact identity is model_digest, processor and
 * thread_count (>= 0; 0: not applicable; empty strings are values too).
 * structural_properties, when not empty, is the portable identity: Store
 * and InstallOverride then write a portable record besides the exact one
 * (CalibrationProfileLevels selects), and a lookup whose options carry no
 * structural properties of their own uses these.
 */
struct CalibrationProfileKey {
  std::string backend;
  std::string operator_name;
  std::string implementation_version;
  std::string model_digest;
  std::string processor;
  std::int64_t thread_count = 0;
  CalibrationProfileProperties structural_properties;
};

/* Which identity a record carries. */
enum class CalibrationProfileLevel { Exact = OLC_LEVEL_EXACT, Portable = OLC_LEVEL_PORTABLE };
/* Where a record came from. */
enum class CalibrationProfileOrigin {
  Calibrated = OLC_ORIGIN_CALIBRATED,
  Override = OLC_ORIGIN_OVERRIDE
};
/* Lookup precedence, 1 = highest (docs/store.md). */
enum class CalibrationProfilePrecedence {
  ExactOverride = OLC_PRECEDENCE_EXACT_OVERRIDE,
  PortableOverride = OLC_PRECEDENCE_PORTABLE_OVERRIDE,
  ExactCalibrated = OLC_PRECEDENCE_EXACT_CALIBRATED,
  PortableCalibrated = OLC_PRECEDENCE_PORTABLE_CALIBRATED
};
/* The levels a write touches: Default = exact, plus portable when the key
 * has structural properties. */
enum class CalibrationProfileLevels : unsigned {
  Default = OLC_LEVELS_DEFAULT,
  Exact = OLC_LEVEL_BIT_EXACT,
  Portable = OLC_LEVEL_BIT_PORTABLE,
  ExactAndPortable = OLC_LEVEL_BIT_EXACT | OLC_LEVEL_BIT_PORTABLE
};
/* Why a candidate was not selected (olc_reason; append-only, so a value
 * without a name here may still arrive). */
enum class CalibrationProfileRejectionReason {
  OutdatedImplementation = OLC_REASON_OUTDATED_IMPLEMENTATION,
  NewerImplementation = OLC_REASON_NEWER_IMPLEMENTATION,
  DifferentModel = OLC_REASON_DIFFERENT_MODEL,
  DifferentProcessor = OLC_REASON_DIFFERENT_PROCESSOR,
  DifferentThreadCount = OLC_REASON_DIFFERENT_THREAD_COUNT,
  DifferentStructure = OLC_REASON_DIFFERENT_STRUCTURE,
  ForcePortable = OLC_REASON_FORCE_PORTABLE,
  Shadowed = OLC_REASON_SHADOWED,
  ValidationFailed = OLC_REASON_VALIDATION_FAILED,
  DifferentIdentity = OLC_REASON_DIFFERENT_IDENTITY
};

/*
 * A stored profile (a copy).  For an exact record key.structural_properties
 * is empty; for a portable one key.model_digest and key.processor are empty
 * and key.thread_count is 0.  policy holds the opaque bytes.
 */
struct CalibrationProfile {
  CalibrationProfileLevel level = CalibrationProfileLevel::Exact;
  CalibrationProfileOrigin origin = CalibrationProfileOrigin::Calibrated;
  CalibrationProfileKey key;
  CalibrationProfileMeasurements measurements;
  std::string policy;
  /* The file it was read from (olc_record.source): the store's, or a
   * read-only layer's (from_layer); empty for one only in memory. */
  std::string source;
  bool from_layer = false;

  CalibrationProfilePrecedence precedence() const noexcept {
    bool exact = level == CalibrationProfileLevel::Exact;
    if (origin == CalibrationProfileOrigin::Override)
      return exact ? CalibrationProfilePrecedence::ExactOverride
                   : CalibrationProfilePrecedence::PortableOverride;
    return exact ? CalibrationProfilePrecedence::ExactCalibrated
                 : CalibrationProfilePrecedence::PortableCalibrated;
  }
  /* The measurement called name, or nullptr. */
  const CalibrationProfileMeasurement *FindMeasurement(std::string_view name) const noexcept {
    for (const auto &m : measurements)
      if (m.name == name)
        return &m;
    return nullptr;
  }
};

/* One rejected candidate: the reason, its stable identifier
 * ("outdated_implementation", ...), a one-line message, the record. */
struct CalibrationProfileRejection {
  CalibrationProfileRejectionReason reason = CalibrationProfileRejectionReason::Shadowed;
  std::string reason_name;
  std::string message;
  CalibrationProfile profile;
};

/*
 * What Lookup returns: the selected profile, if any (its level is
 * selected->precedence(), with its measurements and policy), and every
 * rejected candidate.  operator-> and operator* need has_value(); on an
 * empty selection they throw Error (OLC_E_NOT_FOUND).
 */
struct CalibrationProfileSelection {
  std::optional<CalibrationProfile> selected;
  std::vector<CalibrationProfileRejection> rejections;

  bool has_value() const noexcept { return selected.has_value(); }
  explicit operator bool() const noexcept { return selected.has_value(); }
  const CalibrationProfile &operator*() const { return Get(); }
  const CalibrationProfile *operator->() const { return &Get(); }

private:
  const CalibrationProfile &Get() const {
    if (!selected)
      throw Error(OLC_E_NOT_FOUND, "lookup: nothing was selected");
    return *selected;
  }
};

/*
 * What to look up.  exact_key gives backend, operator and implementation
 * (required) and the exact identity; structural_properties the portable
 * one (empty: exact_key.structural_properties).  force_portable skips both
 * exact levels; all_candidates reports every record of the backend and
 * operator.
 */
struct CalibrationProfileLookupOptions {
  CalibrationProfileKey exact_key;
  CalibrationProfileProperties structural_properties;
  bool force_portable = false;
  bool all_candidates = false;
};

namespace detail {
inline olc_store_options StoreDefaults() {
  olc_store_options o = OLC_STORE_OPTIONS_INIT;
  return o;
}
} // namespace detail

/*
 * How to open a store (olc_store_options; the defaults are
 * OLC_STORE_OPTIONS_INIT's).  path empty: the default path
 * ($XDG_CACHE_HOME/onnx-light/calibration_profiles.txt, ...).
 * persistence_enabled = false: memory only, no file-system call at all.
 */
struct CalibrationProfileStoreOptions {
  std::string path;
  bool persistence_enabled = detail::StoreDefaults().persistence_enabled != 0;
  std::int64_t lock_timeout_ms = detail::StoreDefaults().lock_timeout_ms; /* < 0: forever */
  bool check_for_changes = detail::StoreDefaults().check_for_changes != 0;
  std::uint32_t tmp_grace_seconds = detail::StoreDefaults().tmp_grace_seconds;
  std::uint32_t file_mode = detail::StoreDefaults().file_mode;
  std::size_t max_file_size = detail::StoreDefaults().max_file_size; /* 0: 64 MiB */
  /* Read-only layers beneath the store's file (olc_store_options.layers:
   * paths, a '*' in the last component for its matching files). */
  std::vector<std::string> layers;
  /* The layers as one text, as OLC_STORE_LAYERS gives them; not empty:
   * replaces layers (olc_store_options.layers_list). */
  std::string layers_list;
  /* Read the file and follow other processes' changes, never write it. */
  bool read_only = false;
  /* Write a store that lies on a network file system. */
  bool allow_network_fs = false;

  /* The opt-in environment (olc_store_options_from_env): OLC_STORE,
   * OLC_PERSISTENCE and OLC_STORE_LAYERS, where set, over these options.
   * Throws Error (OLC_E_INVALID: an OLC_PERSISTENCE value that is none of
   * off, read_only, on; nothing changed). */
  CalibrationProfileStoreOptions &ApplyEnvironment();
};

namespace detail {

/* An olc_key over a CalibrationProfileKey (borrowed strings). */
class CKey {
public:
  CKey(const CalibrationProfileKey &k, const CalibrationProfileProperties &structure) {
    key_.backend = CString(k.backend, "key: backend");
    key_.operator_name = CString(k.operator_name, "key: operator_name");
    key_.implementation = CString(k.implementation_version, "key: implementation_version");
    key_.model_digest = CString(k.model_digest, "key: model_digest");
    key_.processor = CString(k.processor, "key: processor");
    key_.thread_count = k.thread_count;
    props_.reserve(structure.size());
    for (const auto &p : structure)
      props_.push_back(olc_property{CString(p.name, "key: structural property name"),
                                    CString(p.value, "key: structural property value")});
    key_.structure = props_.empty() ? nullptr : props_.data();
    key_.structure_count = props_.size();
  }
  CKey(const CKey &) = delete;
  CKey &operator=(const CKey &) = delete;
  const olc_key *get() const noexcept { return &key_; }

private:
  olc_key key_{};
  std::vector<olc_property> props_;
};

/* Copies a C record into a CalibrationProfile. */
inline std::string Str(const char *s) { return s != nullptr ? std::string(s) : std::string(); }

inline CalibrationProfile ToProfile(const olc_record &r) {
  CalibrationProfile p;
  p.level = static_cast<CalibrationProfileLevel>(r.level);
  p.origin = static_cast<CalibrationProfileOrigin>(r.origin);
  p.key.backend = Str(r.backend);
  p.key.operator_name = Str(r.operator_name);
  p.key.implementation_version = Str(r.implementation);
  p.key.model_digest = Str(r.model_digest);
  p.key.processor = Str(r.processor);
  p.key.thread_count = r.thread_count;
  for (std::size_t i = 0; i < r.structure_count; i++)
    p.key.structural_properties.push_back({Str(r.structure[i].name), Str(r.structure[i].value)});
  for (std::size_t i = 0; i < r.measurement_count; i++)
    p.measurements.push_back(
        {Str(r.measurements[i].name), r.measurements[i].value, Str(r.measurements[i].unit)});
  if (r.policy_len > 0)
    p.policy.assign(reinterpret_cast<const char *>(r.policy), r.policy_len);
  p.source = Str(r.source);
  p.from_layer = r.from_layer != 0;
  return p;
}

/* Copies a C lookup result into a selection. */
inline CalibrationProfileSelection ToSelection(const olc_lookup_result *result) {
  CalibrationProfileSelection s;
  if (result == nullptr)
    return s;
  if (const olc_record *r = olc_lookup_result_selected(result))
    s.selected = ToProfile(*r);
  std::size_t n = olc_lookup_result_rejected_count(result);
  s.rejections.reserve(n);
  for (std::size_t i = 0; i < n; i++) {
    const olc_rejection *j = olc_lookup_result_rejected(result, i);
    if (j == nullptr)
      continue;
    CalibrationProfileRejection out;
    out.reason = static_cast<CalibrationProfileRejectionReason>(j->reason);
    out.reason_name = Str(olc_reason_str(j->reason));
    out.message = Str(j->message);
    if (j->record != nullptr)
      out.profile = ToProfile(*j->record);
    s.rejections.push_back(std::move(out));
  }
  return s;
}

struct LookupResultFree {
  void operator()(olc_lookup_result *r) const noexcept { olc_lookup_result_free(r); }
};
using LookupResultPtr = std::unique_ptr<olc_lookup_result, LookupResultFree>;

/* The C validator over a C++ one.  The first exception it throws is kept
 * for Rethrow (the policy counts as rejected meanwhile). */
template <class Validator> class ValidatorCall {
public:
  explicit ValidatorCall(Validator &v) : validator_(v) {}
  static olc_status Call(const unsigned char *policy, std::size_t len, void *payload, char *message,
                         std::size_t message_size) noexcept {
    auto *self = static_cast<ValidatorCall *>(payload);
    try {
      std::string why;
      std::string_view bytes(reinterpret_cast<const char *>(policy), len);
      if (std::invoke(self->validator_, bytes, why))
        return OLC_OK;
      CopyLine(message, message_size, why.empty() ? "rejected by the validator" : why);
    } catch (...) {
      if (!self->error_)
        self->error_ = std::current_exception();
      CopyLine(message, message_size, "the validator threw an exception");
    }
    return OLC_E_VALIDATION;
  }
  void Rethrow() const {
    if (error_)
      std::rethrow_exception(error_);
  }

private:
  Validator &validator_;
  std::exception_ptr error_;
};

template <class V> constexpr bool IsNoValidator() {
  return std::is_same_v<std::decay_t<V>, std::nullptr_t>;
}

template <class V> void CheckValidatorType() {
  static_assert(IsNoValidator<V>() ||
                    std::is_invocable_r_v<bool, V &, std::string_view, std::string &>,
                "a validator is callable as bool(std::string_view bytes, std::string &error)");
}

} // namespace detail

/*
 * The store.  Opening reads the file once (a missing file is an empty
 * store; an unreadable one leaves it empty, reported by Reload(), so that
 * overrides and repairs keep working) and creates nothing on disk before
 * the first write.
 */
class CalibrationProfileStore {
public:
  /* The default path with persistence on.  Throws Error: OLC_E_NOT_FOUND
   * (no default path: no XDG_CACHE_HOME and no home directory),
   * OLC_E_NOMEM. */
  CalibrationProfileStore() : CalibrationProfileStore(CalibrationProfileStoreOptions{}) {}
  /* Throws Error: OLC_E_INVALID, OLC_E_NOMEM, OLC_E_NOT_FOUND. */
  explicit CalibrationProfileStore(const CalibrationProfileStoreOptions &options)
      : state_(std::make_unique<State>()) {
    olc_store_options o = OLC_STORE_OPTIONS_INIT;
    o.path = options.path.empty() ? nullptr : detail::CString(options.path, "store: path");
    o.persistence_enabled = options.persistence_enabled ? 1 : 0;
    o.lock_timeout_ms = options.lock_timeout_ms;
    o.check_for_changes = options.check_for_changes ? 1 : 0;
    o.tmp_grace_seconds = options.tmp_grace_seconds;
    o.file_mode = options.file_mode;
    o.max_file_size = options.max_file_size;
    std::vector<const char *> layers; /* borrowed for the open only */
    for (const auto &l : options.layers)
      layers.push_back(detail::CString(l, "store: layer"));
    o.layers = layers.empty() ? nullptr : layers.data();
    o.layer_count = layers.size();
    o.layers_list = options.layers_list.empty()
                        ? nullptr
                        : detail::CString(options.layers_list, "store: layers");
    o.read_only = options.read_only ? 1 : 0;
    o.allow_network_fs = options.allow_network_fs ? 1 : 0;
    olc_error err = detail::NewError();
    detail::Check(olc_store_open(&state_->handle, &o, &err), err);
  }
  CalibrationProfileStore(CalibrationProfileStore &&) noexcept = default;
  CalibrationProfileStore &operator=(CalibrationProfileStore &&) noexcept = default;
  CalibrationProfileStore(const CalibrationProfileStore &) = delete;
  CalibrationProfileStore &operator=(const CalibrationProfileStore &) = delete;
  ~CalibrationProfileStore() = default;

  /*
   * Saves a calibrated profile (olc_store_save): the exact record, and the
   * portable one when the key has structural properties (levels selects).
   * The serializer runs once; the validator, when given, checks its bytes
   * before anything is written.  Replaces the calibrated record of the
   * same identity.  Throws Error: OLC_E_INVALID (bad key, duplicate
   * property, non-finite measurement), OLC_E_VALIDATION, OLC_E_LIMIT,
   * OLC_E_NOMEM and the write failures (OLC_E_LOCK_TIMEOUT, OLC_E_LOCK,
   * OLC_E_IO, OLC_E_NOSPC, OLC_E_MALFORMED, OLC_E_VERSION); on failure
   * nothing changed.
   */
  template <class Serializer, class Validator = std::nullptr_t>
  void Store(const CalibrationProfileKey &key, const CalibrationProfileMeasurements &measurements,
             Serializer &&serializer, Validator &&validator = nullptr,
             CalibrationProfileLevels levels = CalibrationProfileLevels::Default) {
    Write(olc_store_save, key, measurements, serializer, validator, levels);
  }

  /* The same as Store for a user override (olc_store_install_override). */
  template <class Serializer, class Validator = std::nullptr_t>
  void InstallOverride(const CalibrationProfileKey &key,
                       const CalibrationProfileMeasurements &measurements, Serializer &&serializer,
                       Validator &&validator = nullptr,
                       CalibrationProfileLevels levels = CalibrationProfileLevels::Default) {
    Write(olc_store_install_override, key, measurements, serializer, validator, levels);
  }

  /* Removes the key's overrides at levels.  Returns false when there was
   * none (nothing written).  Throws Error: OLC_E_INVALID and the write
   * failures. */
  bool RemoveOverride(const CalibrationProfileKey &key,
                      CalibrationProfileLevels levels = CalibrationProfileLevels::Default) {
    detail::CKey k(key, key.structural_properties);
    olc_error err = detail::NewError();
    olc_status st =
        olc_store_remove_override(Handle(), k.get(), static_cast<unsigned>(levels), &err);
    if (st == OLC_E_NOT_FOUND)
      return false;
    Committed(detail::Check(st, err), err);
    return true;
  }

  /*
   * Looks up the best profile: exact override, portable override, exact
   * calibrated, portable calibrated; the first whose policy the validator
   * accepts is selected.  Nothing selected is not an error: the selection
   * is empty and still lists the rejections.  Throws Error: OLC_E_INVALID,
   * OLC_E_NOMEM.
   */
  template <class Validator = std::nullptr_t>
  [[nodiscard]] CalibrationProfileSelection Lookup(const CalibrationProfileLookupOptions &options,
                                                   Validator &&validator = nullptr) {
    detail::CheckValidatorType<Validator>();
    const CalibrationProfileProperties &structure = options.structural_properties.empty()
                                                        ? options.exact_key.structural_properties
                                                        : options.structural_properties;
    detail::CKey k(options.exact_key, structure);
    olc_lookup_options o = OLC_LOOKUP_OPTIONS_INIT;
    o.key = k.get();
    o.force_portable = options.force_portable ? 1 : 0;
    o.all_candidates = options.all_candidates ? 1 : 0;
    olc_error err = detail::NewError();
    olc_lookup_result *raw = nullptr;
    olc_status st;
    if constexpr (detail::IsNoValidator<Validator>()) {
      st = olc_store_lookup(&raw, Handle(), &o, &err);
    } else {
      detail::ValidatorCall<std::remove_reference_t<Validator>> call(validator);
      o.validate = &decltype(call)::Call;
      o.validate_payload = &call;
      st = olc_store_lookup(&raw, Handle(), &o, &err);
      detail::LookupResultPtr owned(raw);
      call.Rethrow();
      raw = owned.release();
    }
    detail::LookupResultPtr result(raw);
    if (st != OLC_E_NOT_FOUND)
      detail::Check(st, err);
    return detail::ToSelection(result.get());
  }

  /* Every record, in the file's canonical order (olc_store_list).  Throws
   * Error: OLC_E_NOMEM. */
  [[nodiscard]] std::vector<CalibrationProfile> List() {
    olc_record_list *raw = nullptr;
    olc_error err = detail::NewError();
    olc_status st = olc_store_list(&raw, Handle(), &err);
    std::unique_ptr<olc_record_list, void (*)(olc_record_list *)> list(raw, olc_record_list_free);
    detail::Check(st, err);
    std::vector<CalibrationProfile> out;
    std::size_t n = olc_record_list_count(list.get());
    out.reserve(n);
    for (std::size_t i = 0; i < n; i++)
      out.push_back(detail::ToProfile(*olc_record_list_get(list.get(), i)));
    return out;
  }

  /* Re-reads the file now.  Throws Error with the parse or I/O failure
   * (OLC_E_MALFORMED with line and column, OLC_E_VERSION, OLC_E_IO, ...);
   * the in-memory profiles are then unchanged. */
  void Reload() {
    olc_error err = detail::NewError();
    detail::Check(olc_store_reload(Handle(), &err), err);
  }

  /* The resolved file path; empty when persistence is off. */
  std::string Path() const { return detail::Str(olc_store_path(Handle())); }

  /* False when the last write through this object committed but syncing
   * the directory failed (OLC_COMMITTED_UNSYNCED); true otherwise. */
  bool DurabilityConfirmed() const noexcept {
    if (!state_)
      return true;
    std::lock_guard<std::mutex> lock(state_->mutex);
    return state_->durability_confirmed;
  }
  /* Why durability is unconfirmed (empty when it is confirmed). */
  std::string DurabilityMessage() const {
    if (!state_)
      return std::string();
    std::lock_guard<std::mutex> lock(state_->mutex);
    return state_->durability_message;
  }

  /* The C handle, for the rest of olc/store.h (import, export, repair).
   * Owned by this object. */
  olc_store *NativeHandle() const noexcept { return state_ ? state_->handle : nullptr; }

private:
  struct State {
    olc_store *handle = nullptr;
    std::mutex mutex;
    bool durability_confirmed = true;
    std::string durability_message;
    State() = default;
    State(const State &) = delete;
    State &operator=(const State &) = delete;
    ~State() { olc_store_free(handle); }
  };

  olc_store *Handle() const {
    if (!state_)
      throw Error(OLC_E_INVALID, "store: used after it was moved from");
    return state_->handle;
  }

  void Committed(olc_status st, const olc_error &err) {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->durability_confirmed = st != OLC_COMMITTED_UNSYNCED;
    state_->durability_message = st == OLC_COMMITTED_UNSYNCED ? err.message : "";
  }

  using WriteFn = olc_status (*)(olc_store *, const olc_save_request *, olc_error *);

  template <class Serializer, class Validator>
  void Write(WriteFn fn, const CalibrationProfileKey &key,
             const CalibrationProfileMeasurements &measurements, Serializer &serializer,
             Validator &validator, CalibrationProfileLevels levels) {
    static_assert(std::is_invocable_v<Serializer &>, "a serializer is callable with no argument");
    detail::CheckValidatorType<Validator>();
    olc_store *handle = Handle();
    detail::CKey k(key, key.structural_properties);
    std::vector<olc_measurement> ms;
    ms.reserve(measurements.size());
    for (const auto &m : measurements)
      ms.push_back(olc_measurement{detail::CString(m.name, "measurement name"), m.value,
                                   detail::CString(m.unit, "measurement unit")});
    auto &&bytes = std::invoke(serializer);
    static_assert(std::is_convertible_v<decltype(bytes), std::string_view>,
                  "a serializer returns std::string, std::string_view or const char *");
    std::string_view policy(bytes);
    olc_save_request req = OLC_SAVE_REQUEST_INIT;
    req.key = k.get();
    req.measurements = ms.empty() ? nullptr : ms.data();
    req.measurement_count = ms.size();
    req.policy = policy.data();
    req.policy_len = policy.size();
    req.levels = static_cast<unsigned>(levels);
    olc_error err = detail::NewError();
    olc_status st;
    if constexpr (detail::IsNoValidator<Validator>()) {
      st = fn(handle, &req, &err);
    } else {
      detail::ValidatorCall<Validator> call(validator);
      req.validate = &decltype(call)::Call;
      req.validate_payload = &call;
      st = fn(handle, &req, &err);
      call.Rethrow();
    }
    Committed(detail::Check(st, err), err);
  }

  std::unique_ptr<State> state_;
};

inline CalibrationProfileStoreOptions &CalibrationProfileStoreOptions::ApplyEnvironment() {
  olc_store_options o = OLC_STORE_OPTIONS_INIT;
  o.persistence_enabled = persistence_enabled ? 1 : 0;
  o.read_only = read_only ? 1 : 0;
  olc_error err = detail::NewError();
  detail::Check(olc_store_options_from_env(&o, &err), err);
  if (o.path != nullptr)
    path = o.path;
  persistence_enabled = o.persistence_enabled != 0;
  read_only = o.read_only != 0;
  if (o.layers_list != nullptr)
    layers_list = o.layers_list;
  return *this;
}

} // namespace onnx_light

#endif /* OLC_STORE_HPP */
