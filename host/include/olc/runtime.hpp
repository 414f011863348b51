/*
 * olc/runtime.hpp - the runtime path in C++ (olc/runtime.h):
 * RuntimeWorkload, SelectOptions, Selection and Binding, which
 * Host::Bind and Host::Select (olc/host.hpp, which includes this) return.
 * Header-only C++17 in namespace onnx_light; failures throw
 * onnx_light::Error with the C call's status and message.
 *
 * Thread safety: a Selection's calls and a Binding's Select are
 * thread-safe (the C calls are); destroying or moving a Binding is not
 * concurrent with its use.
 */
#ifndef OLC_RUNTIME_HPP
#define OLC_RUNTIME_HPP

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "olc/error.hpp"
#include "olc/runtime.h"
#include "olc/store.hpp"

namespace onnx_light {

/* A workload described in code (olc_workload); see olc/runtime.h. */
struct RuntimeWorkload {
  std::string backend;                     /* a loaded plugin's name */
  std::string operator_name;               /* an operator it serves ("MatMul") */
  CalibrationProfileProperties properties; /* structural: dtype, m, n, k ... */
  std::string model_digest;                /* empty: none, or model_bytes hashed */
  std::string_view model_bytes;            /* borrowed for the call; hashed with SHA-256 */
  std::string name;                        /* for messages; empty: "backend/operator" */
  /* Constant inputs (weights), their data borrowed for the binding's life:
   * Host::Bind packs each once per selected policy (Binding::Execute). */
  std::vector<olc_constant> constants;
};

/* How one select goes (olc_select_options). */
struct SelectOptions {
  olc_select_mode mode = OLC_SELECT_HOST_DEFAULT;
  std::int64_t timeout_ms = -1; /* < 0: wait as long as it takes; 0: never wait */
  std::function<bool()> cancel; /* polled while waiting; true stops (an exception too) */
  bool force_portable = false;
  bool in_process = false;
  /* Wait for another thread's measurement of the key rather than take the
   * nearest measured workload's policy at once (olc_select_options.wait). */
  bool wait = false;
};

namespace detail {
struct BindingFree {
  void operator()(olc_binding *b) const noexcept { olc_binding_free(b); }
};

inline int CancelCall(void *payload) {
  try {
    return (*static_cast<const std::function<bool()> *>(payload))() ? 1 : 0;
  } catch (...) {
    return 1; /* a cancel callback that throws stops the wait */
  }
}

/* The C options of o, pointing into o. */
inline olc_select_options ToSelectOptions(const SelectOptions &o) {
  olc_select_options c = OLC_SELECT_OPTIONS_INIT;
  c.mode = o.mode;
  c.timeout_ms = o.timeout_ms;
  if (o.cancel) {
    c.cancel = &CancelCall;
    c.cancel_payload = const_cast<std::function<bool()> *>(&o.cancel);
  }
  c.force_portable = o.force_portable ? 1 : 0;
  c.in_process = o.in_process ? 1 : 0;
  c.wait = o.wait ? 1 : 0;
  return c;
}

/* The C workload of w; props holds its properties. */
inline olc_workload ToCWorkload(const RuntimeWorkload &w, std::vector<olc_property> &props) {
  olc_workload c = OLC_WORKLOAD_INIT;
  props.clear();
  for (const auto &p : w.properties)
    props.push_back({CString(p.name, "property name"), CString(p.value, "property value")});
  c.backend = CString(w.backend, "backend");
  c.operator_name = CString(w.operator_name, "operator");
  c.properties = props.data();
  c.property_count = props.size();
  c.model_digest = w.model_digest.empty() ? nullptr : CString(w.model_digest, "model digest");
  c.model_bytes = w.model_bytes.empty() ? nullptr : w.model_bytes.data();
  c.model_len = w.model_bytes.size();
  c.name = w.name.empty() ? nullptr : CString(w.name, "workload name");
  c.constants = w.constants.empty() ? nullptr : w.constants.data();
  c.constant_count = w.constants.size();
  return c;
}
} // namespace detail

/*
 * What a select chose (olc_selection): a view of the host's immutable
 * selection, valid until the Host is destroyed; copyable.
 */
class Selection {
public:
  Selection(const olc_selection *s, olc_status status) noexcept : s_(s), status_(status) {}
  /* OLC_OK (a stored or just measured record), OLC_NEAREST_RECORD or
   * OLC_FIRST_CANDIDATE. */
  olc_status Status() const noexcept { return status_; }
  bool IsFirstCandidate() const noexcept {
    return olc_selection_record(s_) == nullptr && olc_selection_nearest(s_) == nullptr;
  }
  /* The nearest measured workload's policy (OLC_NEAREST_RECORD). */
  bool IsNearest() const noexcept { return olc_selection_nearest(s_) != nullptr; }
  /* Why a first candidate (OLC_OK for a record): olc_selection_why. */
  olc_status Why() const noexcept { return olc_selection_why(s_); }
  std::string Message() const { return detail::Str(olc_selection_message(s_)); }
  bool CalibratedNow() const noexcept { return olc_selection_calibrated_now(s_) != 0; }
  bool CanExecute() const noexcept { return olc_selection_can_execute(s_) != 0; }
  /* The record selected (a copy); none for a first candidate. */
  std::optional<CalibrationProfile> Record() const {
    const olc_record *r = olc_selection_record(s_);
    return r != nullptr ? std::optional<CalibrationProfile>(detail::ToProfile(*r)) : std::nullopt;
  }
  /* The serialized policy (a copy). */
  std::string Policy() const {
    std::size_t len = 0;
    const unsigned char *p = olc_selection_policy(s_, &len);
    return p != nullptr ? std::string(reinterpret_cast<const char *>(p), len) : std::string();
  }
  /* olc_selection_execute; throws Error (OLC_E_INVALID, OLC_E_UNSUPPORTED,
   * OLC_E_PLUGIN) with its message.  Reentrant. */
  void Execute(const olc_execute_args &args) const {
    olc_error err = detail::NewError();
    detail::Check(olc_selection_execute(s_, &args, &err), err);
  }
  /* C = alpha * A * B + beta * C, fp32 row-major (olc_selection_matmul_f32);
   * throws like Execute. */
  void MatMulF32(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float *a,
                 std::int64_t lda, const float *b, std::int64_t ldb, float beta, float *c,
                 std::int64_t ldc) const {
    olc_error err = detail::NewError();
    detail::Check(olc_selection_matmul_f32(s_, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, &err),
                  err);
  }
  const olc_selection *NativeHandle() const noexcept { return s_; }

private:
  const olc_selection *s_;
  olc_status status_;
};

/*
 * One workload bound to its plugin and key (olc_host_bind); move-only.
 * Destroy it before its Host.
 */
class Binding {
public:
  explicit Binding(olc_binding *b) noexcept : b_(b) {}
  /* olc_binding_select: throws Error for a failure (no selection at all);
   * a first candidate is a Selection whose Status() says so.  Rethrows
   * nothing from cancel (an exception there stops the wait). */
  Selection Select(const SelectOptions &options = SelectOptions()) const {
    olc_select_options o = detail::ToSelectOptions(options);
    const olc_selection *s = nullptr;
    olc_error err = detail::NewError();
    olc_status st = detail::Check(olc_binding_select(&s, Get(), &o, &err), err);
    return Selection(s, st);
  }
  /* olc_binding_explain: the workload's scoped lookup (all: every record
   * of its backend and operator); never measures. */
  [[nodiscard]] CalibrationProfileSelection Explain(bool all = false) const {
    olc_lookup_result *raw = nullptr;
    olc_error err = detail::NewError();
    olc_status st = olc_binding_explain(&raw, Get(), all ? OLC_EXPLAIN_ALL : 0u, &err);
    detail::LookupResultPtr result(raw);
    if (!(st == OLC_E_NOT_FOUND && raw != nullptr))
      detail::Check(st, err);
    return detail::ToSelection(result.get());
  }
  /* olc_binding_execute: with the selection s of this binding's key, or
   * (none) the binding's own select; a constant input is given as bound
   * and read from its packed copy.  Throws Error like Selection::Execute.
   * Reentrant. */
  void Execute(const olc_execute_args &args, const Selection *s = nullptr) const {
    olc_error err = detail::NewError();
    detail::Check(
        olc_binding_execute(Get(), s != nullptr ? s->NativeHandle() : nullptr, &args, &err), err);
  }
  /* The bytes the binding's packed constants take now (olc_binding_packed_bytes). */
  std::uint64_t PackedBytes() const { return olc_binding_packed_bytes(Get()); }
  /* The key the binding composed (olc_binding_key): what an override must
   * carry to be the one select finds for the workload (a copy). */
  CalibrationProfileKey Key() const {
    const olc_key *k = olc_binding_key(Get());
    CalibrationProfileKey out;
    out.backend = detail::Str(k->backend);
    out.operator_name = detail::Str(k->operator_name);
    out.implementation_version = detail::Str(k->implementation);
    out.model_digest = detail::Str(k->model_digest);
    out.processor = detail::Str(k->processor);
    out.thread_count = k->thread_count;
    for (std::size_t i = 0; i < k->structure_count; i++)
      out.structural_properties.push_back(
          {detail::Str(k->structure[i].name), detail::Str(k->structure[i].value)});
    return out;
  }
  olc_binding *NativeHandle() const noexcept { return b_.get(); }

private:
  olc_binding *Get() const {
    if (!b_)
      throw Error(OLC_E_INVALID, "binding: used after it was moved from");
    return b_.get();
  }
  std::unique_ptr<olc_binding, detail::BindingFree> b_;
};

} // namespace onnx_light

#endif /* OLC_RUNTIME_HPP */
