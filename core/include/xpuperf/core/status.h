// Errors as values. Library code returns Result<T> / Status; only main() turns them into exit
// codes.
#pragma once

#include <cassert>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace xpuperf {

enum class ErrorCode {
  kInvalidArgument,  // the caller passed something wrong (usage error)
  kNotFound,         // unknown metric, device, backend, file
  kUnsupported,      // this machine cannot provide it (no PMU, no RAPL, no driver)
  kUnavailable,      // could exist but is not reachable now (runtime not serving, permission)
  kIo,               // a read or write failed
  kParse,            // input is malformed
  kInternal,         // a broken invariant that still deserves a message
};

std::string_view ErrorCodeName(ErrorCode code);

struct Error {
  ErrorCode code = ErrorCode::kInternal;
  std::string message;  // one line a user can act on

  std::string ToString() const;
};

inline Error MakeError(ErrorCode code, std::string message) {
  return Error{code, std::move(message)};
}

// A value or an Error. Accessing the wrong alternative aborts: it is a programming error.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : state_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & {
    Check(ok());
    return std::get<0>(state_);
  }
  const T& value() const& {
    Check(ok());
    return std::get<0>(state_);
  }
  T&& value() && {
    Check(ok());
    return std::get<0>(std::move(state_));
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const {
    Check(!ok());
    return std::get<1>(state_);
  }

 private:
  static void Check(bool condition) {
    if (!condition) std::abort();
  }
  std::variant<T, Error> state_;
};

// Result<void>: success or an Error.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error)
      : error_(std::move(error)), ok_(false) {}  // NOLINT(google-explicit-constructor)
  static Status Ok() { return Status(); }

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const {
    if (ok_) std::abort();
    return error_;
  }

 private:
  Error error_;
  bool ok_ = true;
};

}  // namespace xpuperf

#define XPUPERF_CONCAT_INNER_(a, b) a##b
#define XPUPERF_CONCAT_(a, b) XPUPERF_CONCAT_INNER_(a, b)

// Returns the error of a Status or Result expression from the enclosing function.
#define XPUPERF_RETURN_IF_ERROR(expr)                          \
  do {                                                         \
    auto&& xpuperf_status_ = (expr);                           \
    if (!xpuperf_status_.ok()) return xpuperf_status_.error(); \
  } while (false)

// `XPUPERF_ASSIGN_OR_RETURN(auto x, ReadSomething());`
#define XPUPERF_ASSIGN_OR_RETURN(lhs, expr) \
  XPUPERF_ASSIGN_OR_RETURN_IMPL_(XPUPERF_CONCAT_(xpuperf_result_, __LINE__), lhs, expr)
// lhs is a declaration ("auto x"), so it cannot be parenthesised.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define XPUPERF_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                   \
  if (!tmp.ok()) return tmp.error();                   \
  lhs = std::move(tmp).value()
// NOLINTEND(bugprone-macro-parentheses)
