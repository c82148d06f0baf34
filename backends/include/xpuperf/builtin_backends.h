// The one place where backends are registered.
#pragma once

#include "xpuperf/core/backend.h"

namespace xpuperf {

// Registers every backend compiled into this build (cpu always; others when built).
void RegisterBuiltinBackends(BackendRegistry& registry);

// A registry with the built-in backends, created once. Thread-safe.
const BackendRegistry& BuiltinBackendRegistry();

}  // namespace xpuperf
