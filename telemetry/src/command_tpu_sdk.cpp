// `xpuperf metrics --tpu-sdk`: libtpu's monitoring SDK as libtpu gives it, beside xpuperf's
// catalog.
#include <fmt/format.h>

#include <ostream>

#include "xpuperf/builtin_backends.h"
#include "xpuperf/core/exit_code.h"
#include "xpuperf/telemetry/commands.h"

namespace xpuperf::telemetry {
namespace {

std::string Values(const nlohmann::json& metric) {
  if (metric.value("state", "") != "ok") return metric.value("reason", "");
  std::string text;
  for (const auto& item : metric["data"]) {
    if (!text.empty()) text += "; ";
    text += item.get<std::string>();
  }
  return text.size() > 100 ? text.substr(0, 97) + "..." : text;
}

}  // namespace

int RunTpuSdkListing(const MetricsOptions& options, std::ostream& out, std::ostream& err) {
  if (options.format == "csv" || options.watch || options.list) {
    err << "xpuperf metrics: error: --tpu-sdk prints one table or JSON document (no --format csv, "
           "--watch or --list)\n";
    return kExitUsage;
  }
  auto doc = ReadTpuSdkJson(options.common.root);
  if (!doc.ok()) {
    err << "xpuperf metrics: error: libtpu's SDK: " << doc.error().message << "\n";
    return ExitCodeFor(doc.error());
  }
  if (options.format == "json") {
    out << doc->dump(2) << "\n";
    return kExitOk;
  }
  out << fmt::format("libtpu {} (read by {})\n", (*doc)["libtpu_version"].get<std::string>(),
                     (*doc)["python"].get<std::string>());
  out << fmt::format("{:<42} {:<12} {:<36} {}\n", "SDK METRIC", "STATE", "XPUPERF METRIC",
                     "VALUES OR REASON");
  for (const auto& metric : (*doc)["metrics"]) {
    const std::string catalog =
        metric["catalog"].is_string() ? metric["catalog"].get<std::string>() : "-";
    out << fmt::format("{:<42} {:<12} {:<36} {}\n", metric["name"].get<std::string>(),
                       metric["state"].get<std::string>(), catalog, Values(metric));
  }
  return kExitOk;
}

}  // namespace xpuperf::telemetry
