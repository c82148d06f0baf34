#include "xpuperf/pjrt/discovery.h"

#include <fmt/format.h>
#include <glob.h>
#include <sys/stat.h>

#include <climits>
#include <cstdlib>
#include <set>

namespace xpuperf::pjrt {
namespace {

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

bool IsFile(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::vector<std::string> Glob(const std::string& pattern) {
  std::vector<std::string> out;
  glob_t matches{};
  if (::glob(pattern.c_str(), 0, nullptr, &matches) == 0) {
    for (size_t i = 0; i < matches.gl_pathc; ++i) out.emplace_back(matches.gl_pathv[i]);
  }
  ::globfree(&matches);
  return out;
}

// The plugin files of one site-packages folder, in the order TPU, CUDA, CPU.
struct PackagedPlugin {
  const char* kind;
  const char* relative_path;
};
constexpr PackagedPlugin kPackagedPlugins[] = {
    {"tpu", "libtpu/libtpu.so"},
    {"cuda", "jax_plugins/xla_cuda13/xla_cuda_plugin.so"},
    {"cuda", "jax_plugins/xla_cuda12/xla_cuda_plugin.so"},
    {"cuda", "xla_plugins/xla_cuda13_pjrt/xla_gpu_pjrt.so"},
    {"cuda", "xla_plugins/xla_cuda12_pjrt/xla_gpu_pjrt.so"},
    {"cpu", "xla_plugins/xla_cpu_pjrt/xla_cpu_pjrt.so"},
};

class Collector {
 public:
  void Add(std::string kind, const std::string& path, std::string source) {
    if (!IsFile(path)) return;
    char resolved[PATH_MAX];
    const std::string key = ::realpath(path.c_str(), resolved) != nullptr ? resolved : path;
    if (!seen_.insert(key).second) return;
    if (kind.empty()) kind = KindFromPath(path);
    found_.push_back({std::move(kind), path, std::move(source)});
  }
  void AddSitePackages(const std::string& folder, const std::string& source) {
    for (const PackagedPlugin& p : kPackagedPlugins) {
      Add(p.kind, folder + "/" + p.relative_path, source);
    }
  }
  std::vector<PluginLocation> Take() { return std::move(found_); }

 private:
  std::set<std::string> seen_;
  std::vector<PluginLocation> found_;
};

}  // namespace

DiscoveryEnvironment DiscoveryEnvironment::FromProcess() {
  DiscoveryEnvironment e;
  e.xpuperf_pjrt_plugin = Env("XPUPERF_PJRT_PLUGIN");
  e.tpu_library_path = Env("TPU_LIBRARY_PATH");
  e.pjrt_names_and_library_paths = Env("PJRT_NAMES_AND_LIBRARY_PATHS");
  e.virtual_env = Env("VIRTUAL_ENV");
  e.home = Env("HOME");
  return e;
}

std::string KindFromPath(const std::string& path) {
  const std::string name = path.substr(path.find_last_of('/') + 1);
  if (name.rfind("libtpu", 0) == 0) return "tpu";
  if (name == "xla_cuda_plugin.so" || name == "xla_gpu_pjrt.so" ||
      name == "pjrt_c_api_gpu_plugin.so") {
    return "cuda";
  }
  if (name == "xla_cpu_pjrt.so" || name == "pjrt_c_api_cpu_plugin.so") return "cpu";
  return "";
}

std::vector<PluginLocation> FindPlugins(const DiscoveryEnvironment& e) {
  Collector found;
  if (!e.xpuperf_pjrt_plugin.empty()) found.Add("", e.xpuperf_pjrt_plugin, "XPUPERF_PJRT_PLUGIN");
  if (!e.tpu_library_path.empty()) found.Add("tpu", e.tpu_library_path, "TPU_LIBRARY_PATH");
  if (!e.virtual_env.empty()) {
    for (const std::string& folder : Glob(e.virtual_env + "/lib/python3*/site-packages")) {
      found.AddSitePackages(folder, "site-packages of $VIRTUAL_ENV");
    }
  }
  if (!e.home.empty()) {
    for (const std::string& folder : Glob(e.home + "/.local/lib/python3*/site-packages")) {
      found.AddSitePackages(folder, "site-packages of ~/.local");
    }
  }
  for (const std::string& pattern : e.system_site_globs) {
    for (const std::string& folder : Glob(pattern)) {
      found.AddSitePackages(folder, "system site-packages");
    }
  }
  for (const std::string& folder : e.site_packages) found.AddSitePackages(folder, "site-packages");
  // JAX's "name1:path1,name2:path2".
  const std::string& list = e.pjrt_names_and_library_paths;
  for (size_t start = 0; start < list.size();) {
    size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    const std::string entry = list.substr(start, end - start);
    if (const size_t colon = entry.find(':'); colon != std::string::npos) {
      found.Add(entry.substr(0, colon), entry.substr(colon + 1), "PJRT_NAMES_AND_LIBRARY_PATHS");
    }
    start = end + 1;
  }
  return found.Take();
}

Result<PluginLocation> ResolvePlugin(const std::string& choice, const DiscoveryEnvironment& e) {
  const bool is_path = choice.find('/') != std::string::npos ||
                       (choice.size() > 3 && choice.compare(choice.size() - 3, 3, ".so") == 0);
  if (is_path) return PluginLocation{KindFromPath(choice), choice, "given"};
  std::vector<PluginLocation> found = FindPlugins(e);
  for (PluginLocation& location : found) {
    if (choice.empty() || location.kind == choice) return std::move(location);
  }
  return MakeError(ErrorCode::kUnsupported,
                   fmt::format("unsupported: no PJRT plugin{} found (give a path, set "
                               "XPUPERF_PJRT_PLUGIN, or install libtpu, jax-cuda13-pjrt or "
                               "xla-cpu-pjrt where Python finds it)",
                               choice.empty() ? "" : " of kind '" + choice + "'"));
}

}  // namespace xpuperf::pjrt
