/*
 * olc/error.hpp - the one exception type of the C++ API (olc/store.hpp,
 * olc/host.hpp).
 *
 * Header-only C++17 over olc/error.h.  Every failure of a C++ call is an
 * onnx_light::Error carrying the olc_status the C call returned and its
 * olc_error record (message, where, errno, line and column).  Successes that
 * carry a warning (OLC_COMMITTED_UNSYNCED) are never thrown: the object
 * that made the call reports them through an accessor.
 *
 * An exception thrown by a caller's callback (serializer, validator,
 * progress) is not wrapped: it is caught before it can reach C code and
 * rethrown unchanged once the C call has returned.
 */
#ifndef OLC_ERROR_HPP
#define OLC_ERROR_HPP

#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>

#include "olc/error.h"

namespace onnx_light {

/*
 * A failed call: status() is the olc_status (always < 0), detail() the
 * olc_error the C library filled, what() its message (the status text when
 * the library gave none).  Copyable, like every std::exception.
 */
class Error : public std::runtime_error {
public:
  Error(olc_status status, const olc_error &detail)
      : std::runtime_error(Text(status, detail.message)), status_(status), detail_(detail) {
    detail_.code = status;
  }
  /* A failure detected by the C++ layer itself (where: "c++"). */
  Error(olc_status status, std::string_view message)
      : std::runtime_error(Text(status, std::string(message).c_str())), status_(status),
        detail_(Blank(status, message)) {}

  olc_status status() const noexcept { return status_; }
  /* "OLC_E_IO", ... */
  const char *status_name() const noexcept { return olc_status_name(status_); }
  const olc_error &detail() const noexcept { return detail_; }

private:
  static std::string Text(olc_status status, const char *message) {
    if (message != nullptr && message[0] != '\0')
      return message;
    return olc_status_str(status);
  }
  static olc_error Blank(olc_status status, std::string_view message) {
    olc_error e;
    std::memset(&e, 0, sizeof e);
    e.code = status;
    std::memcpy(e.where, "c++", 4);
    std::size_t n = message.size() < sizeof e.message - 1 ? message.size() : sizeof e.message - 1;
    std::memcpy(e.message, message.data(), n);
    e.message[n] = '\0';
    return e;
  }

  olc_status status_;
  olc_error detail_;
};

namespace detail {

/* An olc_error ready for a C call. */
inline olc_error NewError() {
  olc_error e;
  olc_error_clear(&e);
  return e;
}

/* Throws for a failure; a success (warnings included) returns it. */
inline olc_status Check(olc_status status, const olc_error &err) {
  if (status < 0)
    throw Error(status, err);
  return status;
}

/* Copies text into a C message buffer as one line: control bytes become
 * spaces and a UTF-8 sequence cut by the size is dropped. */
inline void CopyLine(char *out, std::size_t size, std::string_view text) {
  if (out == nullptr || size == 0)
    return;
  std::size_t n = text.size() < size - 1 ? text.size() : size - 1;
  if (n < text.size())
    while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0u) == 0x80u)
      n--;
  for (std::size_t i = 0; i < n; i++) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    out[i] = c < 0x20u || c == 0x7Fu ? ' ' : text[i];
  }
  out[n] = '\0';
}

/* A C string for s; a NUL byte inside it is OLC_E_INVALID naming what. */
inline const char *CString(const std::string &s, const char *what) {
  if (s.find('\0') != std::string::npos)
    throw Error(OLC_E_INVALID, std::string(what) + " contains a NUL byte");
  return s.c_str();
}

} // namespace detail
} // namespace onnx_light

#endif /* OLC_ERROR_HPP */
