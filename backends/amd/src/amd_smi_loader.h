// Internal to the AMD backend: opens AMD SMI the first time a reading needs it (amdsmi_init costs
// time and most devices never need it), once; later calls return the same library or reason.
#pragma once

#include <memory>
#include <string>

#include "amd_smi_library.h"

namespace xpuperf::amd {

class AmdSmiLoader {
 public:
  // An empty `library` means the default candidates; "none" disables the library.
  explicit AmdSmiLoader(std::string library) : library_(std::move(library)) {}
  // nullptr when the library cannot be used; reason() then says why.
  const AmdSmiLibrary* Get();
  const std::string& reason() const { return reason_; }

 private:
  std::string library_;
  bool tried_ = false;
  std::unique_ptr<AmdSmiLibrary> smi_;
  std::string reason_;
};

}  // namespace xpuperf::amd
