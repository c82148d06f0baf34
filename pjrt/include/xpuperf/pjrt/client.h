// A PJRT client and what it owns: devices, buffers and compiled executables. Every object holds
// the plugin's C handle and frees it when destroyed; buffers and executables must not outlive the
// Client that made them. Thread-safety: as the PJRT C API (clients, executables and buffers may be
// used from several threads); the C++ objects themselves are not synchronised.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/status.h"
#include "xpuperf/pjrt/element_type.h"
#include "xpuperf/pjrt/plugin.h"

struct PJRT_Api;
struct PJRT_Client;
struct PJRT_Buffer;
struct PJRT_Device;
struct PJRT_LoadedExecutable;

namespace xpuperf::pjrt {

struct DeviceDescription {
  int id = 0;                  // global device id (PJRT_DeviceDescription_Id)
  int local_hardware_id = -1;  // e.g. CUDA ordinal; -1 when the plugin has none
  int process_index = 0;
  std::string kind;          // "cpu", "TPU v5 lite", "NVIDIA H100 80GB HBM3"
  std::string debug_string;  // the plugin's own short description
  std::vector<NamedValue> attributes;
};

// PJRT_Device_MemoryStats: what this client's allocator holds on the device (not other processes).
struct MemoryStats {
  int64_t bytes_in_use = 0;
  std::optional<int64_t> peak_bytes_in_use;
  std::optional<int64_t> bytes_limit;
  std::optional<int64_t> largest_alloc_size;
};

class Buffer {
 public:
  Buffer() = default;
  Buffer(const PJRT_Api* api, PJRT_Buffer* buffer) : api_(api), buffer_(buffer) {}
  Buffer(Buffer&& other) noexcept;
  Buffer& operator=(Buffer&& other) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer();

  // Blocks until the buffer's data is on the device.
  Status AwaitReady() const;
  // Copies the whole buffer to `destination` (exactly `size` bytes, dense row-major) and waits.
  Status ToHost(void* destination, size_t size) const;
  Result<size_t> OnDeviceBytes() const;

  PJRT_Buffer* handle() const { return buffer_; }

 private:
  const PJRT_Api* api_ = nullptr;
  PJRT_Buffer* buffer_ = nullptr;
};

// What the compiler needs beyond the program: replicas over devices (one per replica).
struct CompileSettings {
  int num_replicas = 1;
  // Positions in Client::devices() of the replicas' devices; empty = the first num_replicas.
  std::vector<int> devices;
};

class Executable {
 public:
  Executable(const PJRT_Api* api, PJRT_LoadedExecutable* executable, int num_outputs,
             std::vector<PJRT_Device*> devices);
  Executable(Executable&& other) noexcept;
  Executable(const Executable&) = delete;
  Executable& operator=(const Executable&) = delete;
  Executable& operator=(Executable&&) = delete;
  ~Executable();

  int num_outputs() const { return num_outputs_; }
  // The devices the executable runs on, in the order Execute takes argument lists.
  const std::vector<PJRT_Device*>& devices() const { return devices_; }

  // Runs once: arguments[d] are the buffers for devices()[d]. Returns outputs[d][o] when every
  // device has finished (so a wall clock around the call times the execution).
  Result<std::vector<std::vector<Buffer>>> Execute(
      const std::vector<std::vector<const Buffer*>>& arguments) const;

  // XLA's static estimates ("flops", "bytes accessed", ...); empty when the plugin has none.
  std::vector<NamedValue> CostAnalysis() const;

 private:
  friend class Client;  // fills the outputs and devices once compiled

  const PJRT_Api* api_ = nullptr;
  PJRT_LoadedExecutable* executable_ = nullptr;
  int num_outputs_ = 0;
  std::vector<PJRT_Device*> devices_;
};

class Client {
 public:
  Client(const PJRT_Api* api, PJRT_Client* client);
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;
  ~Client();

  // Fills platform and devices; called once by the plugin after creation.
  Status Describe();

  const std::string& platform_name() const { return platform_name_; }
  const std::string& platform_version() const { return platform_version_; }
  const std::vector<DeviceDescription>& devices() const { return devices_; }

  Result<MemoryStats> DeviceMemoryStats(int device) const;

  // Compiles StableHLO (MLIR text or bytecode, format "mlir").
  Result<Executable> Compile(std::string_view mlir, const CompileSettings& settings) const;

  // Copies dense row-major host data to `device` (a position in devices()) and waits until it is
  // there. The host data may be reused as soon as this returns.
  Result<Buffer> FromHost(const void* data, ElementType type, const std::vector<int64_t>& dims,
                          int device) const;
  Result<Buffer> FromHost(const void* data, ElementType type, const std::vector<int64_t>& dims,
                          PJRT_Device* device) const;

  PJRT_Device* device_handle(int device) const { return device_handles_.at(device); }
  // The plugin's table (for its extensions, pjrt/profiler.h).
  const PJRT_Api* api() const { return api_; }

 private:
  const PJRT_Api* api_ = nullptr;
  PJRT_Client* client_ = nullptr;
  std::string platform_name_;
  std::string platform_version_;
  std::vector<DeviceDescription> devices_;
  std::vector<PJRT_Device*> device_handles_;
};

}  // namespace xpuperf::pjrt
