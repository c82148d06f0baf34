#include "amd_smi_loader.h"

namespace xpuperf::amd {

const AmdSmiLibrary* AmdSmiLoader::Get() {
  if (tried_) return smi_.get();
  tried_ = true;
  if (library_ == "none") {
    reason_ = "disabled";
    return nullptr;
  }
  auto opened = AmdSmiLibrary::Open(AmdSmiLibraryCandidates(library_));
  if (!opened.ok()) {
    reason_ = opened.error().message;
    return nullptr;
  }
  smi_ = std::move(opened).value();
  return smi_.get();
}

}  // namespace xpuperf::amd
