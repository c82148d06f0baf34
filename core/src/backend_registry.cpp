#include <algorithm>

#include "xpuperf/core/backend.h"

namespace xpuperf {

void BackendRegistry::Register(std::string name, std::string description, BackendFactory factory) {
  std::lock_guard lock(mutex_);
  for (Entry& entry : entries_) {
    if (entry.name == name) {
      entry = Entry{std::move(name), std::move(description), std::move(factory)};
      return;
    }
  }
  entries_.push_back(Entry{std::move(name), std::move(description), std::move(factory)});
}

std::vector<std::string> BackendRegistry::Names() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> names;
  for (const Entry& entry : entries_) names.push_back(entry.name);
  return names;
}

std::string BackendRegistry::Description(std::string_view name) const {
  std::lock_guard lock(mutex_);
  for (const Entry& entry : entries_) {
    if (entry.name == name) return entry.description;
  }
  return {};
}

bool BackendRegistry::Has(std::string_view name) const {
  std::lock_guard lock(mutex_);
  return std::any_of(entries_.begin(), entries_.end(),
                     [&](const Entry& e) { return e.name == name; });
}

Result<std::unique_ptr<Backend>> BackendRegistry::Open(std::string_view name,
                                                       const BackendOptions& options) const {
  BackendFactory factory;
  {
    std::lock_guard lock(mutex_);
    for (const Entry& entry : entries_) {
      if (entry.name == name) factory = entry.factory;
    }
  }
  if (!factory) {
    return MakeError(ErrorCode::kNotFound, "unknown backend '" + std::string(name) + "'");
  }
  return factory(options);  // outside the lock: a factory may take long or call back
}

}  // namespace xpuperf
