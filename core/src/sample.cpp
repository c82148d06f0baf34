#include "xpuperf/core/sample.h"

#include <algorithm>

namespace xpuperf {

Labels::Labels(std::initializer_list<std::pair<std::string, std::string>> init) {
  for (const auto& [key, value] : init) Set(key, value);
}

void Labels::Set(std::string_view key, std::string_view value) {
  auto it = std::lower_bound(items_.begin(), items_.end(), key,
                             [](const auto& item, std::string_view k) { return item.first < k; });
  if (it != items_.end() && it->first == key) {
    it->second = std::string(value);
  } else {
    items_.emplace(it, std::string(key), std::string(value));
  }
}

std::string_view Labels::Get(std::string_view key) const {
  for (const auto& [k, v] : items_) {
    if (k == key) return v;
  }
  return {};
}

bool Labels::Has(std::string_view key) const {
  return std::any_of(items_.begin(), items_.end(),
                     [&](const auto& item) { return item.first == key; });
}

std::string Labels::ToString() const {
  std::string out = "{";
  for (size_t i = 0; i < items_.size(); ++i) {
    if (i > 0) out += ',';
    out += items_[i].first + "=\"" + items_[i].second + "\"";
  }
  return out + "}";
}

std::string_view ReadingStateName(ReadingState state) {
  switch (state) {
    case ReadingState::kOk:
      return "ok";
    case ReadingState::kUnsupported:
      return "unsupported";
    case ReadingState::kNoData:
      return "no_data";
  }
  return "unknown";
}

Reading Reading::Unsupported(std::string_view metric, std::string_view device, std::string reason) {
  Reading r;
  r.metric = std::string(metric);
  r.device = std::string(device);
  r.state = ReadingState::kUnsupported;
  r.reason = std::move(reason);
  return r;
}

Reading Reading::NoData(std::string_view metric, std::string_view device, std::string reason) {
  Reading r = Unsupported(metric, device, std::move(reason));
  r.state = ReadingState::kNoData;
  return r;
}

const Sample* Reading::Overall() const {
  for (const Sample& s : samples) {
    const auto& items = s.labels.items();
    if (items.empty() || (items.size() == 1 && items[0].first == "device")) return &s;
  }
  return nullptr;
}

}  // namespace xpuperf
