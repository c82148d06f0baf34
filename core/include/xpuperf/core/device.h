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
};

}  // namespace xpuperf
