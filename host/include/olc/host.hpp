/*
 * olc/host.hpp - the plugin host in C++: configuration, plugin loading with
 * its load report, the calibrate-and-select loop and explain.
 *
 * Header-only C++17 over olc/config.h, olc/loader.h and olc/calibrate.h,
 * in namespace onnx_light, in the style of olc/store.hpp (which it
 * includes):
 *
 *   auto config = HostConfig::FromFile("olc.ini");      // or HostConfig::Default()
 *   CalibrationProfileStore store(config.StoreOptions());
 *   Host host(config, store);
 *   for (const auto &w : host.Calibrate())
 *     if (w.selection) use(w.selection->policy);
 *
 * Errors: failures throw onnx_light::Error (olc/error.hpp) with the C
 * call's status and message.  A workload that fails inside Calibrate is not
 * thrown: its WorkloadResult carries the status, as in the C API.
 *
 * Ownership: HostConfig owns its olc_config and Host its olc_host
 * (move-only; the destructors free them).  A Host borrows the config's and
 * the store's C handles: the HostConfig and the CalibrationProfileStore
 * must outlive it (moving them is fine; their handles do not change).
 * Results are copies owned by the caller.
 *
 * Thread safety: a HostConfig is immutable and may be read from many
 * threads.  A Host may be used from many threads at once (olc/loader.h);
 * Bind, Select and the Selection's calls are thread-safe, a Binding's
 * Select too (not its destruction or move).
 *
 * The runtime path (olc/runtime.h):
 *
 *   RuntimeWorkload w{"cpu_gemm", "MatMul", {{"dtype", "float32"}, {"m", "8"}, ...}};
 *   Binding b = host.Bind(w);                // once, when the model loads
 *   Selection s = b.Select();                // OLC_OK or OLC_FIRST_CANDIDATE: s.Status()
 *   s.MatMulF32(m, n, k, 1, a, k, bm, n, 0, c, n);
 */
#ifndef OLC_HOST_HPP
#define OLC_HOST_HPP

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "olc/error.hpp"
#include "olc/calibrate.h"
#include "olc/config.h"
#include "olc/loader.h"
#include "olc/runtime.hpp"
#include "olc/store.hpp"

namespace onnx_light {

/* One [workload.NAME] section (a copy). */
struct WorkloadConfig {
  std::string name;
  std::string backend;
  std::string operator_name;
  std::string model_digest;                /* as olc_workload_config documents it; never empty */
  CalibrationProfileProperties properties; /* in file order */
  std::uint32_t line = 0;                  /* of the section header */
};

/* One [plugin.NAME] section (a copy). */
struct PluginConfig {
  std::string name;
  bool enabled = true;
  bool critical = false;
  CalibrationProfileProperties entries; /* every key = value */
};

namespace detail {
struct ConfigFree {
  void operator()(olc_config *c) const noexcept { olc_config_free(c); }
};
struct HostFree {
  void operator()(olc_host *h) const noexcept { olc_host_free(h); }
};
struct CalibrationFree {
  void operator()(olc_calibration *c) const noexcept { olc_calibration_free(c); }
};

inline CalibrationProfileProperties ToProperties(const olc_property *p, std::size_t n) {
  CalibrationProfileProperties out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; i++)
    out.push_back({Str(p[i].name), Str(p[i].value)});
  return out;
}

inline WorkloadConfig ToWorkload(const olc_workload_config &w) {
  WorkloadConfig out;
  out.name = Str(w.name);
  out.backend = Str(w.backend);
  out.operator_name = Str(w.operator_name);
  out.model_digest = Str(w.model_digest);
  out.properties = ToProperties(w.properties, w.property_count);
  out.line = w.line;
  return out;
}
} // namespace detail

/*
 * A configuration: an ini file (olc_config_load_file), ini text or the
 * embedded default.  The loaders throw Error: OLC_E_CONFIG (message
 * "FILE:LINE: ...", detail().line set), OLC_E_IO, OLC_E_NOMEM.
 */
class HostConfig {
public:
  [[nodiscard]] static HostConfig FromFile(const std::string &path) {
    olc_config *raw = nullptr;
    olc_error err = detail::NewError();
    detail::Check(olc_config_load_file(&raw, detail::CString(path, "config: path"), &err), err);
    return HostConfig(raw);
  }
  /* name is used in messages; base_dir resolves relative paths (empty:
   * the current directory). */
  [[nodiscard]] static HostConfig FromString(std::string_view text,
                                             const std::string &name = "<string>",
                                             const std::string &base_dir = std::string()) {
    olc_config *raw = nullptr;
    olc_error err = detail::NewError();
    const char *base = base_dir.empty() ? nullptr : detail::CString(base_dir, "config: base_dir");
    detail::Check(olc_config_load_string(&raw, text.data(), text.size(),
                                         detail::CString(name, "config: name"), base, &err),
                  err);
    return HostConfig(raw);
  }
  [[nodiscard]] static HostConfig Default() {
    olc_config *raw = nullptr;
    olc_error err = detail::NewError();
    detail::Check(olc_config_load_default(&raw, 0, &err), err);
    return HostConfig(raw);
  }

  /* "<embedded default>" or the file's path. */
  std::string Source() const { return detail::Str(olc_config_source(Get())); }
  std::vector<std::string> PluginDirs() const {
    std::vector<std::string> out;
    for (std::size_t i = 0, n = olc_config_plugin_dir_count(Get()); i < n; i++)
      out.push_back(detail::Str(olc_config_plugin_dir(Get(), i)));
    return out;
  }
  /* The effective thread count (threads = 0: the CPUs this process may use). */
  std::uint32_t Threads() const { return olc_config_threads(Get()); }
  /* The [store] section as store options (path empty: the default path). */
  CalibrationProfileStoreOptions StoreOptions() const {
    olc_store_options o = OLC_STORE_OPTIONS_INIT;
    olc_config_store_options(Get(), &o);
    CalibrationProfileStoreOptions out;
    out.path = detail::Str(o.path);
    out.persistence_enabled = o.persistence_enabled != 0;
    out.lock_timeout_ms = o.lock_timeout_ms;
    out.check_for_changes = o.check_for_changes != 0;
    out.tmp_grace_seconds = o.tmp_grace_seconds;
    out.file_mode = o.file_mode;
    out.max_file_size = o.max_file_size;
    for (std::size_t i = 0; i < o.layer_count; i++)
      out.layers.push_back(detail::Str(o.layers[i]));
    out.read_only = o.read_only != 0;
    out.allow_network_fs = o.allow_network_fs != 0;
    return out;
  }
  bool ForcePortable() const { return olc_config_force_portable(Get()) != 0; }
  /* The [calibration] settings (a copy of the C struct). */
  olc_calibration_settings Calibration() const { return *olc_config_calibration(Get()); }
  std::vector<WorkloadConfig> Workloads() const {
    std::vector<WorkloadConfig> out;
    for (std::size_t i = 0, n = olc_config_workload_count(Get()); i < n; i++)
      out.push_back(detail::ToWorkload(*olc_config_workload(Get(), i)));
    return out;
  }
  std::optional<WorkloadConfig> FindWorkload(const std::string &name) const {
    const olc_workload_config *w =
        olc_config_find_workload(Get(), detail::CString(name, "workload name"));
    if (w == nullptr)
      return std::nullopt;
    return detail::ToWorkload(*w);
  }
  /* The [plugin.NAME] section, if the file has one. */
  std::optional<PluginConfig> Plugin(const std::string &name) const {
    const olc_plugin_config *p = olc_config_plugin(Get(), detail::CString(name, "plugin name"));
    if (p == nullptr)
      return std::nullopt;
    PluginConfig out;
    out.name = detail::Str(p->name);
    out.enabled = p->enabled != 0;
    out.critical = p->critical != 0;
    out.entries = detail::ToProperties(p->entries, p->entry_count);
    return out;
  }

  /* The C handle (owned by this object). */
  const olc_config *NativeHandle() const noexcept { return config_.get(); }

private:
  explicit HostConfig(olc_config *config) : config_(config) {}
  const olc_config *Get() const {
    if (!config_)
      throw Error(OLC_E_INVALID, "config: used after it was moved from");
    return config_.get();
  }
  std::unique_ptr<olc_config, detail::ConfigFree> config_;
};

/* A host diagnostic (olc/diag.h), as HostOptions::diagnostics sees it. */
struct Diagnostic {
  olc_diag_level level = OLC_DIAG_WARNING;
  std::string_view where;   /* "load", "plugins", "measure_lock", ... */
  std::string_view message; /* one line */
};

/* Options of Host: every field of olc_host_options (0 / empty: the
 * config's, as there). */
struct HostOptions {
  bool allow_insecure_plugins = false; /* load files/dirs writable by other users */
  bool ignore_env = false;             /* read no OLC_PLUGIN_PATH, OLC_WORKER, OLC_SELECT_MODE */
  /* Called from any thread for each diagnostic; empty: kept (the C API's
   * olc_host_next_diagnostic on NativeHandle()). */
  std::function<void(const Diagnostic &)> diagnostics;
  olc_select_mode select_mode = OLC_SELECT_HOST_DEFAULT; /* what a miss does */
  std::string measure_lock;                              /* empty: the default */
  std::string record_misses;                             /* empty: the config's, else none */
  double max_seconds_total = 0;                          /* 0: the config's */
  std::uint32_t max_runs_per_candidate = 0;              /* 0: the config's */
  std::vector<std::string> plugin_dirs;                  /* empty: the config's */
  std::uint32_t threads = 0;                             /* 0: the config's */
  bool force_portable = false;
  /* Every [calibration] key; unset: the config's.  Its strings
   * (measure_lock, record_misses) must outlive the Host. */
  std::optional<olc_calibration_settings> calibration;
};

/* One line of the load report (a copy of olc_load_entry). */
struct PluginLoadEntry {
  std::string path;
  std::string plugin_name; /* empty when not known */
  std::string plugin_version;
  olc_load_stage stage = OLC_LOAD_LOADED;
  std::string stage_name; /* "loaded", "open", ... */
  olc_status status = OLC_OK;
  std::int32_t plugin_status = 0;
  bool unavailable = false;
  std::string message;
  bool loaded() const noexcept { return stage == OLC_LOAD_LOADED; }
};

/* A progress report of Calibrate (olc_progress_fn): workload i of n,
 * candidate j of m, the best median so far in us (< 0: none yet). */
struct CalibrationProgress {
  std::string_view workload;
  std::size_t workload_index = 0;
  std::size_t workload_count = 0;
  std::size_t candidate_index = 0;
  std::size_t candidate_count = 0;
  double best_us = -1.0;
};

/* Options of Calibrate (olc_calibrate_options). */
struct CalibrateOptions {
  std::vector<std::string> workloads; /* empty: every configured workload */
  bool recalibrate = false;           /* measure even when the store has a selection */
  bool force_portable = false;        /* in addition to the config's setting */
  bool select_only = false;           /* never measure (olc select) */
  bool in_process = false;            /* measure here instead of in olc-worker */
  double run_timeout_seconds = 0.0;   /* one run's limit in the worker; 0: automatic */
  bool keep_samples = false;          /* fill CandidateResult::samples_us */
  /* Called on the calling thread; an exception it throws stops further
   * reports and is rethrown when Calibrate returns. */
  std::function<void(const CalibrationProgress &)> progress;
};

/* One measured candidate (a copy of olc_candidate_result). */
struct CandidateResult {
  std::string policy; /* serialized */
  double median_us = 0.0;
  double spread_us = 0.0;
  std::uint32_t samples = 0;
  bool abandoned = false;
  olc_status status = OLC_OK;
  std::string message;
  /* Every timed run, us, when CalibrateOptions::keep_samples was set. */
  std::vector<double> samples_us;
};

/* The outcome for one workload (a copy of olc_workload_result).
 * selection: the selected profile, if any, and the final lookup's
 * rejections. */
struct WorkloadResult {
  std::string workload;
  std::string backend;
  std::string operator_name;
  olc_status status = OLC_OK; /* OLC_OK, OLC_E_NOT_FOUND (nothing selected), ... */
  std::string message;        /* why, or a warning; may be empty */
  bool calibrated_now = false;
  CalibrationProfileSelection selection;
  std::vector<CandidateResult> candidates; /* measured now, in order */
  /* The candidate measuring chose and saved (olc_calibration_winner: the
   * race keeps the first candidate on a lead it cannot tell from noise, so
   * not always the lowest median); candidates.size() when none was. */
  std::size_t winner = 0;
  double seconds = 0.0;
  bool ok() const noexcept { return status == OLC_OK; }
};

namespace detail {
inline WorkloadResult ToWorkloadResult(const olc_calibration *cal, std::size_t index) {
  const olc_workload_result &r = *olc_calibration_get(cal, index);
  WorkloadResult out;
  out.workload = Str(r.workload);
  out.backend = Str(r.backend);
  out.operator_name = Str(r.operator_name);
  out.status = r.status;
  out.message = Str(r.message);
  out.calibrated_now = r.calibrated_now != 0;
  out.selection = ToSelection(r.lookup);
  out.selection.selected.reset();
  if (r.selected != nullptr)
    out.selection.selected = ToProfile(*r.selected);
  for (std::size_t i = 0; i < r.candidate_count; i++) {
    const olc_candidate_result &c = r.candidates[i];
    CandidateResult cr;
    if (c.policy_len > 0)
      cr.policy.assign(reinterpret_cast<const char *>(c.policy), c.policy_len);
    cr.median_us = c.median_us;
    cr.spread_us = c.spread_us;
    cr.samples = c.samples;
    cr.abandoned = c.abandoned != 0;
    cr.status = c.status;
    cr.message = Str(c.message);
    const double *samples = nullptr;
    std::size_t n = olc_calibration_samples(&samples, cal, index, i);
    if (samples != nullptr)
      cr.samples_us.assign(samples, samples + n);
    out.candidates.push_back(std::move(cr));
  }
  out.winner = olc_calibration_winner(cal, index);
  out.seconds = r.seconds;
  return out;
}

/* The C progress callback over CalibrateOptions::progress. */
struct ProgressCall {
  const std::function<void(const CalibrationProgress &)> *fn = nullptr;
  std::exception_ptr error;
  static void Call(void *payload, const char *workload, std::size_t wi, std::size_t wn,
                   std::size_t ci, std::size_t cn, double best_us) noexcept {
    auto *self = static_cast<ProgressCall *>(payload);
    if (self->error)
      return;
    try {
      CalibrationProgress p;
      p.workload = workload != nullptr ? std::string_view(workload) : std::string_view();
      p.workload_index = wi;
      p.workload_count = wn;
      p.candidate_index = ci;
      p.candidate_count = cn;
      p.best_us = best_us;
      (*self->fn)(p);
    } catch (...) {
      self->error = std::current_exception();
    }
  }
};

/* The C prune report over a C++ callback. */
struct PruneCall {
  const std::function<void(const CalibrationProfile &, std::string_view)> *fn = nullptr;
  std::exception_ptr error;
  static void Call(void *payload, const olc_record *record, const char *why) noexcept {
    auto *self = static_cast<PruneCall *>(payload);
    if (self->error || record == nullptr)
      return;
    try {
      (*self->fn)(ToProfile(*record), why != nullptr ? std::string_view(why) : std::string_view());
    } catch (...) {
      self->error = std::current_exception();
    }
  }
};
} // namespace detail

/*
 * The plugin host: loads every plugin of the configured directories (and
 * OLC_PLUGIN_PATH unless ignore_env) and creates one instance of each.
 * Files that fail are skipped and listed in LoadReport(); the constructor
 * throws Error (OLC_E_PLUGIN) only when a plugin marked critical fails, and
 * OLC_E_INVALID, OLC_E_NOMEM.
 */
class Host {
public:
  Host(const HostConfig &config, CalibrationProfileStore &store,
       const HostOptions &options = HostOptions()) {
    if (config.NativeHandle() == nullptr || store.NativeHandle() == nullptr)
      throw Error(OLC_E_INVALID, "host: config or store was moved from");
    Open(config.NativeHandle(), store.NativeHandle(), options);
  }
  /* A host of the built-in defaults, configured by options alone (no
   * ini text): olc_host_open with a NULL config. */
  explicit Host(CalibrationProfileStore &store, const HostOptions &options = HostOptions()) {
    if (store.NativeHandle() == nullptr)
      throw Error(OLC_E_INVALID, "host: store was moved from");
    Open(nullptr, store.NativeHandle(), options);
  }

  /* Every plugin file, loaded or skipped, in load order. */
  std::vector<PluginLoadEntry> LoadReport() const {
    std::vector<PluginLoadEntry> out;
    for (std::size_t i = 0, n = olc_host_report_count(Get()); i < n; i++) {
      const olc_load_entry *e = olc_host_report(Get(), i);
      PluginLoadEntry p;
      p.path = detail::Str(e->path);
      p.plugin_name = detail::Str(e->plugin_name);
      p.plugin_version = detail::Str(e->plugin_version);
      p.stage = e->stage;
      p.stage_name = detail::Str(olc_load_stage_str(e->stage));
      p.status = e->status;
      p.plugin_status = e->plugin_status;
      p.unavailable = e->unavailable != 0;
      p.message = detail::Str(e->message);
      out.push_back(std::move(p));
    }
    return out;
  }

  /*
   * The calibrate-and-select loop (olc_host_calibrate): one result per
   * workload, in order; a failing workload does not stop the others.
   * Throws Error: OLC_E_NOT_FOUND (an unknown workload name),
   * OLC_E_INVALID, OLC_E_NOMEM; or rethrows what progress threw.
   */
  std::vector<WorkloadResult> Calibrate(const CalibrateOptions &options = CalibrateOptions()) {
    std::vector<const char *> names;
    for (const auto &n : options.workloads)
      names.push_back(detail::CString(n, "workload name"));
    olc_calibrate_options o = OLC_CALIBRATE_OPTIONS_INIT;
    o.workloads = names.empty() ? nullptr : names.data();
    o.workload_count = names.size();
    o.recalibrate = options.recalibrate ? 1 : 0;
    o.force_portable = options.force_portable ? 1 : 0;
    o.select_only = options.select_only ? 1 : 0;
    o.in_process = options.in_process ? 1 : 0;
    o.run_timeout_seconds = options.run_timeout_seconds;
    o.keep_samples = options.keep_samples ? 1 : 0;
    detail::ProgressCall progress;
    if (options.progress) {
      progress.fn = &options.progress;
      o.progress = &detail::ProgressCall::Call;
      o.progress_payload = &progress;
    }
    olc_calibration *raw = nullptr;
    olc_error err = detail::NewError();
    olc_status st = olc_host_calibrate(&raw, Get(), &o, &err);
    std::unique_ptr<olc_calibration, detail::CalibrationFree> cal(raw);
    if (progress.error)
      std::rethrow_exception(progress.error);
    detail::Check(st, err);
    std::vector<WorkloadResult> out;
    for (std::size_t i = 0, n = olc_calibration_count(cal.get()); i < n; i++)
      out.push_back(detail::ToWorkloadResult(cal.get(), i));
    return out;
  }

  /* The configured workload's lookup, validated by its plugin
   * (olc_host_explain; all: every record of its backend and operator).
   * Throws Error: OLC_E_NOT_FOUND (no such workload), OLC_E_UNAVAILABLE
   * (its plugin is missing), OLC_E_INVALID, OLC_E_NOMEM. */
  [[nodiscard]] CalibrationProfileSelection Explain(const std::string &workload, bool all = false) {
    olc_lookup_result *raw = nullptr;
    olc_error err = detail::NewError();
    olc_status st = olc_host_explain(&raw, Get(), detail::CString(workload, "workload name"),
                                     all ? OLC_EXPLAIN_ALL : 0u, &err);
    detail::LookupResultPtr result(raw);
    if (!(st == OLC_E_NOT_FOUND && raw != nullptr))
      detail::Check(st, err);
    return detail::ToSelection(result.get());
  }

  /* Removes calibrated records a loaded plugin rejects as outdated or
   * invalid (never overrides; olc_host_prune); report, when set, sees each
   * one (dry_run: would be removed).  Returns the count.  Throws Error with
   * the write failure, or rethrows what report threw. */
  std::size_t
  Prune(bool dry_run = false,
        const std::function<void(const CalibrationProfile &, std::string_view why)> &report = {}) {
    detail::PruneCall call;
    call.fn = &report;
    std::size_t removed = 0;
    olc_error err = detail::NewError();
    olc_status st =
        olc_host_prune(Get(), dry_run ? OLC_PRUNE_DRY_RUN : 0u,
                       report ? &detail::PruneCall::Call : nullptr, &call, &removed, &err);
    if (call.error)
      std::rethrow_exception(call.error);
    detail::Check(st, err);
    return removed;
  }

  /* olc_host_bind.  Throws Error: OLC_E_NOT_FOUND (no such plugin),
   * OLC_E_UNAVAILABLE, OLC_E_UNSUPPORTED, OLC_E_INVALID (malformed
   * properties, or what the plugin's key rejects), OLC_E_PLUGIN,
   * OLC_E_NOMEM; the message names the workload.  Thread-safe. */
  Binding Bind(const RuntimeWorkload &w) const {
    std::vector<olc_property> props;
    olc_workload c = detail::ToCWorkload(w, props);
    olc_binding *raw = nullptr;
    olc_error err = detail::NewError();
    olc_status st = olc_host_bind(&raw, Get(), &c, &err);
    Binding b(raw);
    detail::Check(st, err);
    return b;
  }

  /* olc_host_bind_workload: binds the config's [workload.NAME] as
   * calibrate and explain do.  Throws Error: OLC_E_NOT_FOUND (no such
   * workload), OLC_E_UNAVAILABLE (its plugin is not usable here),
   * OLC_E_INVALID (a host without config), or what Bind throws. */
  Binding BindWorkload(const std::string &workload) const {
    olc_binding *raw = nullptr;
    olc_error err = detail::NewError();
    olc_status st =
        olc_host_bind_workload(&raw, Get(), detail::CString(workload, "workload name"), &err);
    Binding b(raw);
    detail::Check(st, err);
    return b;
  }

  /* olc_host_validate_policy: whether the loaded plugin backend accepts
   * serialized policy bytes as select would a stored record's.  Throws
   * Error: OLC_E_VALIDATION with the plugin's reason, OLC_E_NOT_FOUND (no
   * such plugin loaded), OLC_E_UNAVAILABLE, OLC_E_PLUGIN. */
  void ValidatePolicy(const std::string &backend, std::string_view policy) const {
    olc_error err = detail::NewError();
    detail::Check(olc_host_validate_policy(Get(), detail::CString(backend, "backend"),
                                           policy.data(), policy.size(), &err),
                  err);
  }

  /* olc_host_select: Bind + Select with the binding kept by the host.
   * Throws like both. */
  Selection Select(const RuntimeWorkload &w, const SelectOptions &options = SelectOptions()) const {
    std::vector<olc_property> props;
    olc_workload c = detail::ToCWorkload(w, props);
    olc_select_options o = detail::ToSelectOptions(options);
    const olc_selection *s = nullptr;
    olc_error err = detail::NewError();
    olc_status st = detail::Check(olc_host_select(&s, Get(), &c, &o, &err), err);
    return Selection(s, st);
  }

  /* The C handle (owned by this object), for what has no C++ form yet. */
  olc_host *NativeHandle() const noexcept { return host_.get(); }

private:
  /* What the C host borrows for its life: kept here, before host_, so that
   * it outlives it. */
  struct Kept {
    std::function<void(const Diagnostic &)> diagnostics;
    std::string measure_lock, record_misses;
    std::vector<std::string> dirs;
    std::vector<const char *> dir_ptrs;
    olc_calibration_settings calibration{};
  };
  static void OnDiagnostic(void *payload, olc_diag_level level, const char *where,
                           const char *message) {
    const Kept *k = static_cast<const Kept *>(payload);
    try {
      k->diagnostics(
          Diagnostic{level, where != nullptr ? where : "", message != nullptr ? message : ""});
    } catch (...) {
      /* A callback's exception never crosses the C library. */
    }
  }
  void Open(const olc_config *config, olc_store *store, const HostOptions &options) {
    kept_ = std::make_unique<Kept>();
    Kept &k = *kept_;
    olc_host_options o = OLC_HOST_OPTIONS_INIT;
    o.allow_insecure_plugins = options.allow_insecure_plugins ? 1 : 0;
    o.ignore_env = options.ignore_env ? 1 : 0;
    if (options.diagnostics) {
      k.diagnostics = options.diagnostics;
      o.diag = &Host::OnDiagnostic;
      o.diag_payload = &k;
    }
    o.select_mode = options.select_mode;
    k.measure_lock = options.measure_lock;
    k.record_misses = options.record_misses;
    o.measure_lock = k.measure_lock.empty() ? nullptr : k.measure_lock.c_str();
    o.record_misses = k.record_misses.empty() ? nullptr : k.record_misses.c_str();
    o.max_seconds_total = options.max_seconds_total;
    o.max_runs_per_candidate = options.max_runs_per_candidate;
    k.dirs = options.plugin_dirs;
    for (const std::string &d : k.dirs)
      k.dir_ptrs.push_back(d.c_str());
    if (!k.dirs.empty()) {
      o.plugin_dirs = k.dir_ptrs.data();
      o.plugin_dir_count = k.dir_ptrs.size();
    }
    o.threads = options.threads;
    o.force_portable = options.force_portable ? 1 : 0;
    if (options.calibration) {
      k.calibration = *options.calibration;
      o.calibration = &k.calibration;
    }
    olc_host *raw = nullptr;
    olc_error err = detail::NewError();
    olc_status st = olc_host_open(&raw, config, store, &o, &err);
    host_.reset(raw);
    detail::Check(st, err);
  }
  olc_host *Get() const {
    if (!host_)
      throw Error(OLC_E_INVALID, "host: used after it was moved from");
    return host_.get();
  }
  std::unique_ptr<Kept> kept_;
  std::unique_ptr<olc_host, detail::HostFree> host_;
};

} // namespace onnx_light

#endif /* OLC_HOST_HPP */
