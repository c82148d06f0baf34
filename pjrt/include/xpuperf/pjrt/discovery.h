// Where PJRT plugins are found, in order: an explicit path (--pjrt-plugin, the `plugin` parameter
// of a benchmark point), $XPUPERF_PJRT_PLUGIN, then the installed plugins where JAX finds them:
// $TPU_LIBRARY_PATH; the `libtpu`, `jax_plugins/xla_cuda13|12` and `xla_plugins/xla_cpu_pjrt`
// packages in the site-packages of $VIRTUAL_ENV, of ~/.local and of the system's Python; and
// $PJRT_NAMES_AND_LIBRARY_PATHS ("name:path,name:path", JAX's own variable).
#pragma once

#include <string>
#include <vector>

#include "xpuperf/core/status.h"

namespace xpuperf::pjrt {

struct PluginLocation {
  std::string kind;    // "tpu", "cuda", "cpu", or the name given in PJRT_NAMES_AND_LIBRARY_PATHS
  std::string path;    // the shared library
  std::string source;  // how it was found: "XPUPERF_PJRT_PLUGIN", "site-packages of $VIRTUAL_ENV"
};

struct DiscoveryEnvironment {
  // Values of the variables above; empty = unset. FromProcess() reads the real environment.
  std::string xpuperf_pjrt_plugin;
  std::string tpu_library_path;
  std::string pjrt_names_and_library_paths;
  std::string virtual_env;
  std::string home;
  // Extra site-packages folders searched after the others (tests point this at a venv).
  std::vector<std::string> site_packages;
  // Where the system's Python keeps packages; tests clear it.
  std::vector<std::string> system_site_globs = {"/usr/local/lib/python3*/dist-packages",
                                                "/usr/lib/python3/dist-packages",
                                                "/usr/local/lib/python3*/site-packages"};
  static DiscoveryEnvironment FromProcess();
};

// Every plugin file that exists, deduplicated by real path, in the order above.
std::vector<PluginLocation> FindPlugins(const DiscoveryEnvironment& environment);

// The kind a plugin's file name suggests ("tpu" for libtpu.so, "cuda" for xla_cuda_plugin.so and
// xla_gpu_pjrt.so, "cpu" for xla_cpu_pjrt.so and pjrt_c_api_cpu_plugin.so), else "".
std::string KindFromPath(const std::string& path);

// An explicit choice: a path (contains '/' or ends in .so), or a kind name ("tpu", "cuda", "cpu")
// picked from FindPlugins ("" = the first found). kUnsupported saying what to install when
// nothing matches.
Result<PluginLocation> ResolvePlugin(const std::string& choice,
                                     const DiscoveryEnvironment& environment);

}  // namespace xpuperf::pjrt
