// The one place where backends are registered.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "xpuperf/core/backend.h"

namespace xpuperf {

// Registers every backend compiled into this build (cpu always; others when built).
void RegisterBuiltinBackends(BackendRegistry& registry);

// A registry with the built-in backends, created once. Thread-safe.
const BackendRegistry& BuiltinBackendRegistry();

// Every metric libtpu's monitoring SDK lists, read once (`xpuperf metrics --tpu-sdk`; the TPU
// backend's tpu_sdk.h): {"python", "libtpu_version", "metrics": [{"name", "catalog", "note",
// "description", "data", "state", "reason"}]}. An error when the SDK cannot be read at all, or in
// a build without the TPU backend.
Result<nlohmann::json> ReadTpuSdkJson(const std::string& root);

}  // namespace xpuperf
