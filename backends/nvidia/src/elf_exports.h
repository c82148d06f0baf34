// Checks a shared library's file before dlopen: dlopen of a truncated ELF faults with SIGBUS when
// the loader touches a segment past the end of the file, and dlopen of a library that is not the
// one expected runs its constructors (a second libxpuperf, or any library registering protobuf
// types, aborts the process). Reading the file first turns both into an error value.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include "xpuperf/core/status.h"

namespace xpuperf::nvidia {

// Ok when `path` is a complete 64-bit little-endian ELF shared object for this machine whose
// dynamic symbol table defines at least one of `symbols`; kUnavailable naming the path and what
// is wrong ("truncated: segment 2 ends at byte 2097152 of a 4096-byte file", "not an ELF file",
// "defines none of nvmlInit_v2, nvmlInit") otherwise. Reads at most 1 GiB. Thread-safe.
Status CheckSharedLibraryExports(const std::string& path,
                                 std::initializer_list<std::string_view> symbols);

}  // namespace xpuperf::nvidia
