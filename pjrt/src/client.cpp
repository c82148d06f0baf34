#include "xpuperf/pjrt/client.h"

#include <fmt/format.h>

#include "api_call.h"
#include "client_internal.h"
#include "compile_options.h"
#include "named_value.h"

namespace xpuperf::pjrt {
namespace {

PJRT_Buffer_Type ToBufferType(ElementType type) {
  switch (type) {
    case ElementType::kF64:
      return PJRT_Buffer_Type_F64;
    case ElementType::kF32:
      return PJRT_Buffer_Type_F32;
    case ElementType::kBF16:
      return PJRT_Buffer_Type_BF16;
    case ElementType::kF16:
      return PJRT_Buffer_Type_F16;
    case ElementType::kS64:
      return PJRT_Buffer_Type_S64;
    case ElementType::kS32:
      return PJRT_Buffer_Type_S32;
    case ElementType::kS8:
      return PJRT_Buffer_Type_S8;
  }
  return PJRT_Buffer_Type_INVALID;
}

// Waits for and destroys an event (null = nothing to wait for).
Status AwaitEvent(const PJRT_Api* api, PJRT_Event* event, std::string_view what) {
  if (event == nullptr) return Status::Ok();
  XPUPERF_PJRT_ARGS(PJRT_Event_Await_Args, await);
  await.event = event;
  Status status = TakeError(api, api->PJRT_Event_Await(&await), what);
  XPUPERF_PJRT_ARGS(PJRT_Event_Destroy_Args, destroy);
  destroy.event = event;
  api->PJRT_Event_Destroy(&destroy);
  return status;
}

Result<DeviceDescription> Describe(const PJRT_Api* api, PJRT_Device* device) {
  XPUPERF_PJRT_ARGS(PJRT_Device_GetDescription_Args, get);
  get.device = device;
  XPUPERF_PJRT_CALL(api, PJRT_Device_GetDescription, get);
  PJRT_DeviceDescription* description = get.device_description;
  DeviceDescription out;
  XPUPERF_PJRT_ARGS(PJRT_DeviceDescription_Id_Args, id);
  id.device_description = description;
  XPUPERF_PJRT_CALL(api, PJRT_DeviceDescription_Id, id);
  out.id = id.id;
  XPUPERF_PJRT_ARGS(PJRT_DeviceDescription_Kind_Args, kind);
  kind.device_description = description;
  XPUPERF_PJRT_CALL(api, PJRT_DeviceDescription_Kind, kind);
  out.kind.assign(kind.device_kind, kind.device_kind_size);
  XPUPERF_PJRT_ARGS(PJRT_DeviceDescription_ProcessIndex_Args, process);
  process.device_description = description;
  XPUPERF_PJRT_CALL(api, PJRT_DeviceDescription_ProcessIndex, process);
  out.process_index = process.process_index;
  XPUPERF_PJRT_ARGS(PJRT_DeviceDescription_ToString_Args, text);
  text.device_description = description;
  XPUPERF_PJRT_CALL(api, PJRT_DeviceDescription_ToString, text);
  out.debug_string.assign(text.to_string, text.to_string_size);
  XPUPERF_PJRT_ARGS(PJRT_DeviceDescription_Attributes_Args, attributes);
  attributes.device_description = description;
  XPUPERF_PJRT_CALL(api, PJRT_DeviceDescription_Attributes, attributes);
  out.attributes = FromPjrt(attributes.attributes, attributes.num_attributes);
  XPUPERF_PJRT_ARGS(PJRT_Device_LocalHardwareId_Args, hardware);
  hardware.device = device;
  XPUPERF_PJRT_CALL(api, PJRT_Device_LocalHardwareId, hardware);
  out.local_hardware_id = hardware.local_hardware_id;
  return out;
}

}  // namespace

// --- Buffer ---

Buffer::Buffer(Buffer&& other) noexcept : api_(other.api_), buffer_(other.buffer_) {
  other.buffer_ = nullptr;
}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    this->~Buffer();
    api_ = other.api_;
    buffer_ = other.buffer_;
    other.buffer_ = nullptr;
  }
  return *this;
}

Buffer::~Buffer() {
  if (buffer_ == nullptr) return;
  XPUPERF_PJRT_ARGS(PJRT_Buffer_Destroy_Args, destroy);
  destroy.buffer = buffer_;
  (void)TakeError(api_, api_->PJRT_Buffer_Destroy(&destroy), "PJRT_Buffer_Destroy");
  buffer_ = nullptr;
}

Status Buffer::AwaitReady() const {
  XPUPERF_PJRT_ARGS(PJRT_Buffer_ReadyEvent_Args, ready);
  ready.buffer = buffer_;
  XPUPERF_PJRT_CALL(api_, PJRT_Buffer_ReadyEvent, ready);
  return AwaitEvent(api_, ready.event, "PJRT_Buffer_ReadyEvent");
}

Status Buffer::ToHost(void* destination, size_t size) const {
  XPUPERF_PJRT_ARGS(PJRT_Buffer_ToHostBuffer_Args, query);
  query.src = buffer_;
  XPUPERF_PJRT_CALL(api_, PJRT_Buffer_ToHostBuffer, query);  // dst null: asks for the size
  if (query.dst_size != size) {
    return MakeError(
        ErrorCode::kInternal,
        fmt::format("PJRT_Buffer_ToHostBuffer: buffer holds {} bytes, caller expects {}",
                    query.dst_size, size));
  }
  XPUPERF_PJRT_ARGS(PJRT_Buffer_ToHostBuffer_Args, copy);
  copy.src = buffer_;
  copy.dst = destination;
  copy.dst_size = size;
  XPUPERF_PJRT_CALL(api_, PJRT_Buffer_ToHostBuffer, copy);
  return AwaitEvent(api_, copy.event, "PJRT_Buffer_ToHostBuffer");
}

Result<size_t> Buffer::OnDeviceBytes() const {
  XPUPERF_PJRT_ARGS(PJRT_Buffer_OnDeviceSizeInBytes_Args, size);
  size.buffer = buffer_;
  XPUPERF_PJRT_CALL(api_, PJRT_Buffer_OnDeviceSizeInBytes, size);
  return size.on_device_size_in_bytes;
}

// --- Executable ---

Executable::Executable(const PJRT_Api* api, PJRT_LoadedExecutable* executable, int num_outputs,
                       std::vector<PJRT_Device*> devices)
    : api_(api), executable_(executable), num_outputs_(num_outputs), devices_(std::move(devices)) {}

Executable::Executable(Executable&& other) noexcept
    : api_(other.api_),
      executable_(other.executable_),
      num_outputs_(other.num_outputs_),
      devices_(std::move(other.devices_)) {
  other.executable_ = nullptr;
}

Executable::~Executable() {
  if (executable_ == nullptr) return;
  XPUPERF_PJRT_ARGS(PJRT_LoadedExecutable_Destroy_Args, destroy);
  destroy.executable = executable_;
  (void)TakeError(api_, api_->PJRT_LoadedExecutable_Destroy(&destroy),
                  "PJRT_LoadedExecutable_Destroy");
}

Result<std::vector<std::vector<Buffer>>> Executable::Execute(
    const std::vector<std::vector<const Buffer*>>& arguments) const {
  if (arguments.size() != devices_.size()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     fmt::format("executable runs on {} devices, {} argument lists given",
                                 devices_.size(), arguments.size()));
  }
  const size_t num_args = arguments.empty() ? 0 : arguments.front().size();
  std::vector<std::vector<PJRT_Buffer*>> argument_handles(arguments.size());
  std::vector<PJRT_Buffer* const*> argument_lists;
  for (size_t d = 0; d < arguments.size(); ++d) {
    if (arguments[d].size() != num_args) {
      return MakeError(ErrorCode::kInvalidArgument, "argument lists differ in length");
    }
    for (const Buffer* b : arguments[d]) argument_handles[d].push_back(b->handle());
    argument_lists.push_back(argument_handles[d].data());
  }
  std::vector<std::vector<PJRT_Buffer*>> output_handles(
      devices_.size(), std::vector<PJRT_Buffer*>(num_outputs_, nullptr));
  std::vector<PJRT_Buffer**> output_lists;
  output_lists.reserve(output_handles.size());
  for (auto& list : output_handles) output_lists.push_back(list.data());
  std::vector<PJRT_Event*> complete(devices_.size(), nullptr);

  XPUPERF_PJRT_ARGS(PJRT_ExecuteOptions, options);
  XPUPERF_PJRT_ARGS(PJRT_LoadedExecutable_Execute_Args, execute);
  execute.executable = executable_;
  execute.options = &options;
  execute.argument_lists = argument_lists.data();
  execute.num_devices = devices_.size();
  execute.num_args = num_args;
  execute.output_lists = output_lists.data();
  execute.device_complete_events = complete.data();
  XPUPERF_PJRT_CALL(api_, PJRT_LoadedExecutable_Execute, execute);

  std::vector<std::vector<Buffer>> outputs(devices_.size());
  for (size_t d = 0; d < devices_.size(); ++d) {
    for (PJRT_Buffer* b : output_handles[d]) outputs[d].emplace_back(api_, b);
  }
  Status first = Status::Ok();
  for (PJRT_Event* event : complete) {
    Status s = AwaitEvent(api_, event, "PJRT_LoadedExecutable_Execute");
    if (first.ok() && !s.ok()) first = s;
  }
  if (!first.ok()) return first.error();
  return outputs;
}

std::vector<NamedValue> Executable::CostAnalysis() const {
  XPUPERF_PJRT_ARGS(PJRT_LoadedExecutable_GetExecutable_Args, get);
  get.loaded_executable = executable_;
  if (!TakeError(api_, api_->PJRT_LoadedExecutable_GetExecutable(&get), "GetExecutable").ok()) {
    return {};
  }
  std::vector<NamedValue> out;
  if (HasEntry(api_, offsetof(PJRT_Api, PJRT_Executable_GetCostAnalysis))) {
    XPUPERF_PJRT_ARGS(PJRT_Executable_GetCostAnalysis_Args, cost);
    cost.executable = get.executable;
    if (TakeError(api_, api_->PJRT_Executable_GetCostAnalysis(&cost), "GetCostAnalysis").ok()) {
      out = FromPjrt(cost.properties, cost.num_properties);
    }
  }
  XPUPERF_PJRT_ARGS(PJRT_Executable_Destroy_Args, destroy);
  destroy.executable = get.executable;
  (void)TakeError(api_, api_->PJRT_Executable_Destroy(&destroy), "PJRT_Executable_Destroy");
  return out;
}

// --- Client ---

Client::Client(const PJRT_Api* api, PJRT_Client* client) : api_(api), client_(client) {}

Client::~Client() {
  XPUPERF_PJRT_ARGS(PJRT_Client_Destroy_Args, destroy);
  destroy.client = client_;
  (void)TakeError(api_, api_->PJRT_Client_Destroy(&destroy), "PJRT_Client_Destroy");
}

Result<std::unique_ptr<Client>> MakeClient(const PJRT_Api* api, PJRT_Client* handle) {
  auto client = std::make_unique<Client>(api, handle);
  XPUPERF_RETURN_IF_ERROR(client->Describe());
  return client;
}

Status Client::Describe() {
  XPUPERF_PJRT_ARGS(PJRT_Client_PlatformName_Args, name);
  name.client = client_;
  XPUPERF_PJRT_CALL(api_, PJRT_Client_PlatformName, name);
  platform_name_.assign(name.platform_name, name.platform_name_size);
  XPUPERF_PJRT_ARGS(PJRT_Client_PlatformVersion_Args, version);
  version.client = client_;
  XPUPERF_PJRT_CALL(api_, PJRT_Client_PlatformVersion, version);
  platform_version_.assign(version.platform_version, version.platform_version_size);
  XPUPERF_PJRT_ARGS(PJRT_Client_AddressableDevices_Args, devices);
  devices.client = client_;
  XPUPERF_PJRT_CALL(api_, PJRT_Client_AddressableDevices, devices);
  for (size_t i = 0; i < devices.num_addressable_devices; ++i) {
    PJRT_Device* device = devices.addressable_devices[i];
    XPUPERF_ASSIGN_OR_RETURN(DeviceDescription description, pjrt::Describe(api_, device));
    devices_.push_back(std::move(description));
    device_handles_.push_back(device);
  }
  return Status::Ok();
}

Result<MemoryStats> Client::DeviceMemoryStats(int device) const {
  XPUPERF_PJRT_ARGS(PJRT_Device_MemoryStats_Args, stats);
  stats.device = device_handles_.at(device);
  XPUPERF_PJRT_CALL(api_, PJRT_Device_MemoryStats, stats);
  MemoryStats out;
  out.bytes_in_use = stats.bytes_in_use;
  if (stats.peak_bytes_in_use_is_set) out.peak_bytes_in_use = stats.peak_bytes_in_use;
  if (stats.bytes_limit_is_set) out.bytes_limit = stats.bytes_limit;
  if (stats.largest_alloc_size_is_set) out.largest_alloc_size = stats.largest_alloc_size;
  return out;
}

Result<Executable> Client::Compile(std::string_view mlir, const CompileSettings& settings) const {
  if (settings.num_replicas < 1 || settings.num_replicas > static_cast<int>(devices_.size())) {
    return MakeError(ErrorCode::kInvalidArgument,
                     fmt::format("{} replicas asked, the client has {} devices",
                                 settings.num_replicas, devices_.size()));
  }
  std::vector<int64_t> ids;
  for (int r = 0; r < settings.num_replicas; ++r) {
    const int position = settings.devices.empty() ? r : settings.devices.at(r);
    ids.push_back(devices_.at(position).id);
  }
  const std::string options = EncodeCompileOptions(ids);
  std::string code(mlir);
  PJRT_Program program = MlirProgram(code);
  XPUPERF_PJRT_ARGS(PJRT_Client_Compile_Args, compile);
  compile.client = client_;
  compile.program = &program;
  compile.compile_options = options.data();
  compile.compile_options_size = options.size();
  XPUPERF_PJRT_CALL(api_, PJRT_Client_Compile, compile);

  XPUPERF_PJRT_ARGS(PJRT_LoadedExecutable_GetExecutable_Args, get);
  get.loaded_executable = compile.executable;
  Executable loaded(api_, compile.executable, 0, {});  // destroys it on every early return
  XPUPERF_PJRT_CALL(api_, PJRT_LoadedExecutable_GetExecutable, get);
  XPUPERF_PJRT_ARGS(PJRT_Executable_NumOutputs_Args, outputs);
  outputs.executable = get.executable;
  Status counted = TakeError(api_, api_->PJRT_Executable_NumOutputs(&outputs), "NumOutputs");
  XPUPERF_PJRT_ARGS(PJRT_Executable_Destroy_Args, destroy);
  destroy.executable = get.executable;
  (void)TakeError(api_, api_->PJRT_Executable_Destroy(&destroy), "PJRT_Executable_Destroy");
  XPUPERF_RETURN_IF_ERROR(counted);

  XPUPERF_PJRT_ARGS(PJRT_LoadedExecutable_AddressableDevices_Args, where);
  where.executable = compile.executable;
  XPUPERF_PJRT_CALL(api_, PJRT_LoadedExecutable_AddressableDevices, where);
  std::vector<PJRT_Device*> devices(where.addressable_devices,
                                    where.addressable_devices + where.num_addressable_devices);
  Executable result(std::move(loaded));
  result.num_outputs_ = static_cast<int>(outputs.num_outputs);
  result.devices_ = std::move(devices);
  return result;
}

Result<Buffer> Client::FromHost(const void* data, ElementType type,
                                const std::vector<int64_t>& dims, int device) const {
  if (device < 0 || device >= static_cast<int>(device_handles_.size())) {
    return MakeError(ErrorCode::kInvalidArgument, fmt::format("no device {}", device));
  }
  return FromHost(data, type, dims, device_handles_[device]);
}

Result<Buffer> Client::FromHost(const void* data, ElementType type,
                                const std::vector<int64_t>& dims, PJRT_Device* device) const {
  XPUPERF_PJRT_ARGS(PJRT_Client_BufferFromHostBuffer_Args, transfer);
  transfer.client = client_;
  transfer.data = data;
  transfer.type = ToBufferType(type);
  transfer.dims = dims.data();
  transfer.num_dims = dims.size();
  // The plugin copies the data before the call returns: what a host-to-device transfer measures.
  transfer.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
  transfer.device = device;
  XPUPERF_PJRT_CALL(api_, PJRT_Client_BufferFromHostBuffer, transfer);
  Buffer buffer(api_, transfer.buffer);
  XPUPERF_RETURN_IF_ERROR(AwaitEvent(api_, transfer.done_with_host_buffer, "BufferFromHostBuffer"));
  XPUPERF_RETURN_IF_ERROR(buffer.AwaitReady());
  return buffer;
}

}  // namespace xpuperf::pjrt
