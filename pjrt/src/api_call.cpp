#include "api_call.h"

#include <fmt/format.h>

#include <string>

namespace xpuperf::pjrt {

std::string_view PjrtCodeName(PJRT_Error_Code code) {
  switch (static_cast<int>(code)) {
    case 0:
      return "OK";
    case PJRT_Error_Code_CANCELLED:
      return "CANCELLED";
    case PJRT_Error_Code_UNKNOWN:
      return "UNKNOWN";
    case PJRT_Error_Code_INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case PJRT_Error_Code_DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    case PJRT_Error_Code_NOT_FOUND:
      return "NOT_FOUND";
    case PJRT_Error_Code_ALREADY_EXISTS:
      return "ALREADY_EXISTS";
    case PJRT_Error_Code_PERMISSION_DENIED:
      return "PERMISSION_DENIED";
    case PJRT_Error_Code_RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case PJRT_Error_Code_FAILED_PRECONDITION:
      return "FAILED_PRECONDITION";
    case PJRT_Error_Code_ABORTED:
      return "ABORTED";
    case PJRT_Error_Code_OUT_OF_RANGE:
      return "OUT_OF_RANGE";
    case PJRT_Error_Code_UNIMPLEMENTED:
      return "UNIMPLEMENTED";
    case PJRT_Error_Code_INTERNAL:
      return "INTERNAL";
    case PJRT_Error_Code_UNAVAILABLE:
      return "UNAVAILABLE";
    case PJRT_Error_Code_DATA_LOSS:
      return "DATA_LOSS";
    case PJRT_Error_Code_UNAUTHENTICATED:
      return "UNAUTHENTICATED";
    default:
      return "UNKNOWN_CODE";
  }
}

namespace {

ErrorCode ToErrorCode(PJRT_Error_Code code) {
  switch (code) {
    case PJRT_Error_Code_INVALID_ARGUMENT:
    case PJRT_Error_Code_OUT_OF_RANGE:
      return ErrorCode::kInvalidArgument;
    case PJRT_Error_Code_NOT_FOUND:
      return ErrorCode::kNotFound;
    case PJRT_Error_Code_UNIMPLEMENTED:
      return ErrorCode::kUnsupported;
    case PJRT_Error_Code_UNAVAILABLE:
    case PJRT_Error_Code_ABORTED:
    case PJRT_Error_Code_PERMISSION_DENIED:
    case PJRT_Error_Code_RESOURCE_EXHAUSTED:
    case PJRT_Error_Code_DEADLINE_EXCEEDED:
      return ErrorCode::kUnavailable;
    default:
      return ErrorCode::kInternal;
  }
}

// Plugin messages can span lines (MLIR diagnostics); errors are one line.
std::string OneLine(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

}  // namespace

Status TakeError(const PJRT_Api* api, PJRT_Error* error, std::string_view call) {
  if (error == nullptr) return Status::Ok();
  XPUPERF_PJRT_ARGS(PJRT_Error_Message_Args, message);
  message.error = error;
  api->PJRT_Error_Message(&message);
  std::string text(message.message, message.message_size);

  XPUPERF_PJRT_ARGS(PJRT_Error_GetCode_Args, code);
  code.error = error;
  PJRT_Error_Code pjrt_code = PJRT_Error_Code_UNKNOWN;
  if (PJRT_Error* code_error = api->PJRT_Error_GetCode(&code); code_error == nullptr) {
    pjrt_code = code.code;
  } else {
    XPUPERF_PJRT_ARGS(PJRT_Error_Destroy_Args, destroy);
    destroy.error = code_error;
    api->PJRT_Error_Destroy(&destroy);
  }
  XPUPERF_PJRT_ARGS(PJRT_Error_Destroy_Args, destroy);
  destroy.error = error;
  api->PJRT_Error_Destroy(&destroy);
  return MakeError(ToErrorCode(pjrt_code),
                   fmt::format("{}: {}: {}", call, PjrtCodeName(pjrt_code), OneLine(text)));
}

}  // namespace xpuperf::pjrt
