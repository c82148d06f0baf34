// Topology (xpuperf/pjrt/topology.h): PJRT_TopologyDescription_* and PJRT_Compile.
#include "xpuperf/pjrt/topology.h"

#include <fmt/format.h>

#include "api_call.h"
#include "compile_options.h"
#include "named_value.h"

namespace xpuperf::pjrt {

Result<std::unique_ptr<Topology>> Topology::Create(std::shared_ptr<const Plugin> plugin,
                                                   const std::string& name,
                                                   const std::vector<NamedValue>& options) {
  const PJRT_Api* api = plugin->api();
  std::vector<PJRT_NamedValue> pjrt_options = ToPjrt(options);
  XPUPERF_PJRT_ARGS(PJRT_TopologyDescription_Create_Args, create);
  create.topology_name = name.data();
  create.topology_name_size = name.size();
  create.create_options = pjrt_options.data();
  create.num_options = pjrt_options.size();
  XPUPERF_PJRT_CALL(api, PJRT_TopologyDescription_Create, create);
  std::unique_ptr<Topology> topology(new Topology());
  topology->plugin_ = std::move(plugin);
  topology->topology_ = create.topology;  // destroyed by ~Topology on every return below
  topology->name_ = name;

  XPUPERF_PJRT_ARGS(PJRT_TopologyDescription_PlatformName_Args, platform);
  platform.topology = create.topology;
  XPUPERF_PJRT_CALL(api, PJRT_TopologyDescription_PlatformName, platform);
  topology->platform_name_.assign(platform.platform_name, platform.platform_name_size);
  XPUPERF_PJRT_ARGS(PJRT_TopologyDescription_GetDeviceDescriptions_Args, devices);
  devices.topology = create.topology;
  XPUPERF_PJRT_CALL(api, PJRT_TopologyDescription_GetDeviceDescriptions, devices);
  for (size_t d = 0; d < devices.num_descriptions; ++d) {
    XPUPERF_PJRT_ARGS(PJRT_DeviceDescription_Id_Args, id);
    id.device_description = devices.descriptions[d];
    XPUPERF_PJRT_CALL(api, PJRT_DeviceDescription_Id, id);
    topology->device_ids_.push_back(id.id);
    if (d == 0) {
      XPUPERF_PJRT_ARGS(PJRT_DeviceDescription_Kind_Args, kind);
      kind.device_description = devices.descriptions[d];
      XPUPERF_PJRT_CALL(api, PJRT_DeviceDescription_Kind, kind);
      topology->device_kind_.assign(kind.device_kind, kind.device_kind_size);
    }
  }
  if (topology->device_ids_.empty()) {
    return MakeError(ErrorCode::kUnsupported,
                     fmt::format("topology '{}' describes no devices", name));
  }
  return topology;
}

Topology::~Topology() {
  if (topology_ == nullptr) return;
  const PJRT_Api* api = plugin_->api();
  XPUPERF_PJRT_ARGS(PJRT_TopologyDescription_Destroy_Args, destroy);
  destroy.topology = topology_;
  (void)TakeError(api, api->PJRT_TopologyDescription_Destroy(&destroy),
                  "PJRT_TopologyDescription_Destroy");
}

namespace {

// What the compiler says about an executable; it is destroyed whatever happens.
Result<CompiledProgram> Inspect(const PJRT_Api* api, PJRT_Executable* executable) {
  CompiledProgram program;
  XPUPERF_PJRT_ARGS(PJRT_Executable_NumOutputs_Args, outputs);
  outputs.executable = executable;
  Status counted = TakeError(api, api->PJRT_Executable_NumOutputs(&outputs), "NumOutputs");
  program.num_outputs = static_cast<int>(outputs.num_outputs);
  if (HasEntry(api, offsetof(PJRT_Api, PJRT_Executable_GetCompiledMemoryStats)) &&
      api->PJRT_Executable_GetCompiledMemoryStats != nullptr) {
    XPUPERF_PJRT_ARGS(PJRT_Executable_GetCompiledMemoryStats_Args, memory);
    memory.executable = executable;
    if (TakeError(api, api->PJRT_Executable_GetCompiledMemoryStats(&memory), "MemoryStats").ok()) {
      program.has_memory = true;
      program.memory = {memory.generated_code_size_in_bytes, memory.argument_size_in_bytes,
                        memory.output_size_in_bytes, memory.alias_size_in_bytes,
                        memory.temp_size_in_bytes};
    }
  }
  if (HasEntry(api, offsetof(PJRT_Api, PJRT_Executable_GetCostAnalysis)) &&
      api->PJRT_Executable_GetCostAnalysis != nullptr) {
    XPUPERF_PJRT_ARGS(PJRT_Executable_GetCostAnalysis_Args, cost);
    cost.executable = executable;
    if (TakeError(api, api->PJRT_Executable_GetCostAnalysis(&cost), "GetCostAnalysis").ok()) {
      program.cost_analysis = FromPjrt(cost.properties, cost.num_properties);
    }
  }
  XPUPERF_PJRT_ARGS(PJRT_Executable_Destroy_Args, destroy);
  destroy.executable = executable;
  (void)TakeError(api, api->PJRT_Executable_Destroy(&destroy), "PJRT_Executable_Destroy");
  XPUPERF_RETURN_IF_ERROR(counted);
  return program;
}

}  // namespace

Result<CompiledProgram> Topology::Compile(std::string_view mlir, int num_replicas) const {
  if (num_replicas < 1 || num_replicas > static_cast<int>(device_ids_.size())) {
    return MakeError(ErrorCode::kInvalidArgument,
                     fmt::format("{} replicas asked, topology '{}' has {} devices", num_replicas,
                                 name_, device_ids_.size()));
  }
  const std::vector<int64_t> ids(device_ids_.begin(), device_ids_.begin() + num_replicas);
  const std::string options = EncodeCompileOptions(ids);
  std::string code(mlir);
  PJRT_Program program = MlirProgram(code);
  const PJRT_Api* api = plugin_->api();
  XPUPERF_PJRT_ARGS(PJRT_Compile_Args, compile);
  compile.topology = topology_;
  compile.program = &program;
  compile.compile_options = options.data();
  compile.compile_options_size = options.size();
  XPUPERF_PJRT_CALL(api, PJRT_Compile, compile);
  return Inspect(api, compile.executable);
}

}  // namespace xpuperf::pjrt
