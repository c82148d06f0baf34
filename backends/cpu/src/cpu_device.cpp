#include "cpu_device.h"

#include <algorithm>
#include <string_view>

#include "cpu_readings.h"
#include "xpuperf/core/sysfs_file.h"
#include "xpuperf/cpu/topology.h"

namespace xpuperf::cpu {
namespace {

// x86: AVX/AVX2/FMA/AVX-512/AMX families; Arm: Advanced SIMD, dot product, SVE, BF16, int8 matmul,
// SME.
constexpr std::string_view kFeaturesOfInterest[] = {
    "sse4_2",   "avx",      "avx2",        "fma",         "f16c",        "avx_vnni", "avx512f",
    "avx512bw", "avx512vl", "avx512_vnni", "avx512_bf16", "avx512_fp16", "amx_tile", "amx_bf16",
    "amx_int8", "amx_fp16", "asimd",       "asimdhp",     "asimddp",     "sve",      "sve2",
    "bf16",     "i8mm",     "sme",         "hypervisor"};

int CountNumaNodes(const std::string& root) {
  Result<std::vector<std::string>> entries =
      ListDirectory(JoinRoot(root, "/sys/devices/system/node"));
  if (!entries.ok()) return 0;
  return static_cast<int>(std::count_if(entries->begin(), entries->end(), [](const std::string& e) {
    return ParseIndexedName(e, "node").has_value();
  }));
}

std::string ModelName(const LogicalCpuInfo& cpu) {
  if (!cpu.model_name.empty()) return cpu.model_name;
  if (!cpu.cpu_part.empty()) return cpu.vendor + " CPU part " + cpu.cpu_part;
  return "unknown";
}

}  // namespace

std::vector<std::string> IsaFeaturesOfInterest(const std::vector<std::string>& flags) {
  std::vector<std::string> features;
  for (std::string_view feature : kFeaturesOfInterest) {
    if (std::find(flags.begin(), flags.end(), feature) != flags.end()) {
      features.emplace_back(feature);
    }
  }
  return features;
}

Device DescribeCpuDevice(const std::string& root, const Result<CpuInfo>& cpuinfo,
                         const Result<MemInfo>& meminfo, int logical_cpus) {
  Device device;
  device.backend = "cpu";
  device.id = std::string(kCpuDeviceId);
  device.index = 0;
  device.vendor = "unknown";
  device.model = "unknown";
  if (cpuinfo.ok()) {
    const LogicalCpuInfo& first = cpuinfo->cpus.front();
    if (!first.vendor.empty()) device.vendor = first.vendor;
    device.model = ModelName(first);
    device.features = IsaFeaturesOfInterest(first.flags);
  }
  if (meminfo.ok()) device.memory_bytes = meminfo->total_bytes;

  if (Result<Topology> topology = ReadTopology(root); topology.ok()) {
    device.topology = std::move(topology).value();
  } else if (cpuinfo.ok()) {
    device.topology = TopologyFromCpuInfo(*cpuinfo);
    device.topology.numa_nodes = CountNumaNodes(root);
  } else {
    // Nothing but /proc/stat: each logical CPU counted as a core of one package.
    device.topology.packages = 1;
    device.topology.cores = logical_cpus;
    device.topology.threads = logical_cpus;
    device.topology.numa_nodes = CountNumaNodes(root);
    device.topology.source = "procstat";
  }
  return device;
}

}  // namespace xpuperf::cpu
