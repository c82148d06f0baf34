// Kineto's IPC fabric, as the agent uses it: the wire format and endpoints live in core
// (xpuperf/core/kineto_ipc.h) because the tracer's on-demand mode speaks the client side.
#pragma once

#include "xpuperf/core/kineto_ipc.h"

namespace xpuperf::agent {

using kineto::EncodeIpcDatagram;
using kineto::EncodeKinetoRequest;
using kineto::IpcEndpoint;
using kineto::IpcNameOf;
using kineto::IpcSocketDirFromEnvironment;
using kineto::kActivityProfilerBit;
using kineto::kDaemonEndpointName;
using kineto::KinetoContext;
using kineto::KinetoOutputPath;
using kineto::KinetoRequest;
using kineto::kIpcHeaderBytes;
using kineto::MakeIpcAddress;
using kineto::ParseIpcDatagram;
using kineto::ParseKinetoContext;
using kineto::ParseKinetoRequest;

}  // namespace xpuperf::agent
