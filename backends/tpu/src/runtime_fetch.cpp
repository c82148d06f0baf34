#include "runtime_fetch.h"

#include <fmt/format.h>

namespace xpuperf::tpu {

RuntimeFetch::RuntimeFetch(std::vector<RuntimeClient>& clients) {
  for (RuntimeClient& client : clients) {
    Port port{&client, std::nullopt, {}, {}};
    auto names = client.ListSupportedMetrics();
    if (names.ok()) {
      port.supported.insert(names->begin(), names->end());
    } else {
      port.down = names.error();
    }
    ports_.push_back(std::move(port));
  }
}

std::vector<RuntimeFetch::Answer> RuntimeFetch::Get(std::string_view runtime_name) {
  std::vector<Answer> answers;
  for (size_t index = 0; index < ports_.size(); ++index) {
    Port& port = ports_[index];
    auto it = port.metrics.find(runtime_name);
    if (it == port.metrics.end()) {
      Result<runtime::TPUMetric> result = MakeError(ErrorCode::kInternal, "not fetched");
      if (port.down) {
        result = *port.down;
      } else if (!port.supported.contains(runtime_name)) {
        result = MakeError(ErrorCode::kUnsupported,
                           fmt::format("the TPU runtime at {} does not serve {}",
                                       port.client->target(), runtime_name));
      } else {
        result = port.client->GetMetric(std::string(runtime_name));
        if (!result.ok() && result.error().code == ErrorCode::kUnavailable) {
          port.down = result.error();
        }
      }
      it = port.metrics.emplace(std::string(runtime_name), std::move(result)).first;
    }
    answers.push_back(Answer{index, port.client, &it->second});
  }
  return answers;
}

bool RuntimeFetch::Serves(std::string_view runtime_name) const {
  for (const Port& port : ports_) {
    if (!port.down && port.supported.contains(runtime_name)) return true;
  }
  return false;
}

bool RuntimeFetch::AnyReachable() const {
  for (const Port& port : ports_) {
    if (!port.down) return true;
  }
  return false;
}

std::string RuntimeFetch::UnreachableReason() const {
  if (AnyReachable()) return {};
  std::string refused;
  for (const Port& port : ports_) {
    const std::string& target = port.client->target();
    if (IsNoServerError(*port.down)) {
      refused += (refused.empty() ? "" : ",") + target.substr(target.find_last_of(':') + 1);
    } else {
      return port.down->message;
    }
  }
  return NoServerMessage(refused);
}

const std::vector<std::optional<runtime::GetTpuRuntimeStatusResponse>>&
RuntimeFetch::RuntimeStatuses() {
  if (statuses_) return *statuses_;
  statuses_.emplace();
  for (Port& port : ports_) {
    auto& slot = statuses_->emplace_back();
    if (port.down) continue;
    auto status = port.client->GetRuntimeStatus();
    if (status.ok()) {
      slot = std::move(status).value();
    } else if (status.error().code == ErrorCode::kUnavailable) {
      port.down = status.error();
    }
  }
  return *statuses_;
}

}  // namespace xpuperf::tpu
