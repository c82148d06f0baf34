// Internal to the Intel backend: opens Level Zero the first time a reading asks for it, once.
#pragma once

#include <memory>
#include <string>

#include "level_zero_library.h"

namespace xpuperf::intel {

class LevelZeroLoader {
 public:
  // An empty `library` means the default candidates; "none" disables Level Zero.
  explicit LevelZeroLoader(std::string library) : library_(std::move(library)) {}
  // nullptr when Level Zero cannot be used; reason() then says why.
  LevelZeroLibrary* Get() {
    if (tried_) return ze_.get();
    tried_ = true;
    if (library_ == "none") {
      reason_ = "disabled";
      return nullptr;
    }
    auto opened = LevelZeroLibrary::Open(LevelZeroLibraryCandidates(library_));
    if (!opened.ok()) {
      reason_ = opened.error().message;
      return nullptr;
    }
    ze_ = std::move(opened).value();
    return ze_.get();
  }
  const std::string& reason() const { return reason_; }

 private:
  std::string library_;
  bool tried_ = false;
  std::unique_ptr<LevelZeroLibrary> ze_;
  std::string reason_;
};

}  // namespace xpuperf::intel
