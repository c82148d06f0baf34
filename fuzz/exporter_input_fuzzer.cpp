// The exporter's parsers of user input: the web config file, the Accept header, the Authorization
// header's base64, the --listen address, the `serve --bench-check` file and the kubelet's device
// ids (GPU/MIG UUIDs, GKE's nvidia0/gi1/vgpu0) matched against a GPU and a MIG device, and a
// process's /proc/PID/cgroup and environ as Slurm job and pod attribution read them, and the
// kubelet's /pods answer. The first byte picks
// the parser.
#include <cstddef>
#include <cstdint>
#include <string>

#include "xpuperf/exporter/basic_auth.h"
#include "xpuperf/exporter/bench_check_series.h"
#include "xpuperf/exporter/diag_series.h"
#include "xpuperf/exporter/exposition.h"
#include "xpuperf/exporter/metrics_server.h"
#include "xpuperf/exporter/pod_attribution.h"
#include "xpuperf/exporter/process_pods.h"
#include "xpuperf/exporter/slurm_jobs.h"
#include "xpuperf/exporter/web_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string input(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 11) {
    case 0:
      (void)xpuperf::exporter::ParseWebConfig(input, "fuzz");
      break;
    case 1:
      (void)xpuperf::exporter::NegotiateFormat(input);
      break;
    case 2: {
      std::string decoded;
      (void)xpuperf::exporter::DecodeBase64(input, decoded);
      break;
    }
    case 3:
      (void)xpuperf::exporter::ParseListenAddress(input);
      break;
    case 4:
      (void)xpuperf::exporter::BenchCheckFamilies(input, 0, "node");
      break;
    case 6:
      (void)xpuperf::exporter::DiagFamilies(input, 0, "node");
      break;
    case 5: {
      xpuperf::exporter::PodMapping mapping;
      mapping[xpuperf::exporter::NormaliseDeviceId(input)].push_back({"pod", "ns", "c"});
      xpuperf::Device mig;
      mig.backend = "nvidia";
      mig.id = "nvidia0/gi1/ci0";
      mig.uuid = "MIG-1";
      mig.partition = {"nvidia0", "GPU-1", 1, 0, "1g.10gb"};
      (void)xpuperf::exporter::ConsumersOf(mapping, mig);
      break;
    }
    case 7:
      (void)xpuperf::exporter::SlurmJobIdFromCgroup(input);
      break;
    case 8:
      (void)xpuperf::exporter::SlurmJobFromEnviron(input);
      break;
    case 9:
      (void)xpuperf::exporter::PodOfCgroup(input);
      break;
    case 10:
      (void)xpuperf::exporter::ParseKubeletPods(input);
      break;
  }
  return 0;
}
