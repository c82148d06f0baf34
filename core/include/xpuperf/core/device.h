// Devices and their topology.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace xpuperf {

struct CacheLevel {
  int level = 0;            // 1, 2, 3
  std::string type;         // "data", "instruction", "unified"
  uint64_t size_bytes = 0;  // per instance
  int instances = 0;        // how many such caches on the device
  int line_bytes = 0;
};

struct Topology {
  int packages = 0;  // sockets / chips
  int numa_nodes = 0;
  int cores = 0;    // physical cores
  int threads = 0;  // hardware threads (logical CPUs)
  std::vector<CacheLevel> caches;
  std::string source;  // where it was read from: "hwloc", "sysfs", "nvml", ...
};

// A device that is a slice of another one (an NVIDIA MIG device: one compute instance of one GPU
// instance). Empty `parent` for a whole device.
struct Partition {
  std::string parent;       // id of the device it is a slice of, e.g. "nvidia0"
  std::string parent_uuid;  // that device's UUID, e.g. "GPU-5d1a…"
  int gpu_instance_id = -1;
  int compute_instance_id = -1;
  std::string profile;  // NVIDIA's profile name, e.g. "1g.10gb"; empty when the driver does not say
};

struct Device {
  std::string backend;  // "cpu", "nvidia", "tpu"
  std::string id;       // stable within a host: "cpu0", "nvidia0", "tpu0"
  int index = 0;
  std::string vendor;         // "GenuineIntel", "AuthenticAMD", "NVIDIA", "Google"
  std::string model;          // human model name
  std::string uuid;           // empty if none
  std::string bus_id;         // PCI bus id, empty if none
  uint64_t memory_bytes = 0;  // device memory (host RAM for the CPU backend)
  Topology topology;
  std::vector<std::string> features;  // ISA features, compute capability...
  Partition partition;                // set for a MIG device; listed right after its parent

  bool is_partition() const { return !partition.parent.empty(); }
};

}  // namespace xpuperf
