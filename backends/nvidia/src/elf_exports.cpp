#include "elf_exports.h"

#include <elf.h>
#include <fmt/format.h>

#include <cstring>

#include "xpuperf/core/input_file.h"

namespace xpuperf::nvidia {
namespace {

template <typename T>
bool ReadAt(const std::string& data, uint64_t offset, T* out) {
  if (offset > data.size() || sizeof(T) > data.size() - offset) return false;
  std::memcpy(out, data.data() + offset, sizeof(T));
  return true;
}

bool InFile(const std::string& data, uint64_t offset, uint64_t size) {
  return offset <= data.size() && size <= data.size() - offset;
}

}  // namespace

Status CheckSharedLibraryExports(const std::string& path,
                                 std::initializer_list<std::string_view> symbols) {
  auto unusable = [&](const std::string& why) {
    return MakeError(ErrorCode::kUnavailable,
                     fmt::format("{} is not a usable NVML library: {}", path, why));
  };
  Result<std::string> read = ReadInputFile(path, uint64_t{1} << 30);
  if (!read.ok()) return MakeError(ErrorCode::kUnavailable, read.error().message);
  const std::string& data = *read;
  Elf64_Ehdr header{};
  if (!ReadAt(data, 0, &header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0) {
    return unusable("not an ELF file");
  }
  if (header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_ident[EI_DATA] != ELFDATA2LSB) {
    return unusable("not a 64-bit little-endian ELF file");
  }
#if defined(__x86_64__)
  if (header.e_machine != EM_X86_64) return unusable("built for another machine");
#elif defined(__aarch64__)
  if (header.e_machine != EM_AARCH64) return unusable("built for another machine");
#endif
  if (header.e_type != ET_DYN) return unusable("not a shared library");
  if (header.e_phentsize != sizeof(Elf64_Phdr) || header.e_shentsize != sizeof(Elf64_Shdr)) {
    return unusable("malformed ELF header");
  }
  // Every loaded segment must lie inside the file: the loader would fault on the missing pages.
  for (uint16_t i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr segment{};
    if (!ReadAt(data, header.e_phoff + uint64_t{i} * sizeof(Elf64_Phdr), &segment)) {
      return unusable(
          fmt::format("truncated: the program headers end past the {}-byte file", data.size()));
    }
    if (segment.p_type == PT_LOAD && !InFile(data, segment.p_offset, segment.p_filesz)) {
      return unusable(fmt::format("truncated: segment {} ends at byte {} of a {}-byte file", i,
                                  segment.p_offset + segment.p_filesz, data.size()));
    }
  }
  // The dynamic symbol table (section headers are present in every shipped library).
  for (uint16_t i = 0; i < header.e_shnum; ++i) {
    Elf64_Shdr section{};
    if (!ReadAt(data, header.e_shoff + uint64_t{i} * sizeof(Elf64_Shdr), &section)) {
      return unusable(
          fmt::format("truncated: the section headers end past the {}-byte file", data.size()));
    }
    if (section.sh_type != SHT_DYNSYM) continue;
    Elf64_Shdr strings{};
    if (section.sh_entsize != sizeof(Elf64_Sym) ||
        !InFile(data, section.sh_offset, section.sh_size) ||
        !ReadAt(data, header.e_shoff + uint64_t{section.sh_link} * sizeof(Elf64_Shdr), &strings) ||
        !InFile(data, strings.sh_offset, strings.sh_size)) {
      return unusable("malformed dynamic symbol table");
    }
    for (uint64_t at = 0; at + sizeof(Elf64_Sym) <= section.sh_size; at += sizeof(Elf64_Sym)) {
      Elf64_Sym symbol{};
      std::memcpy(&symbol, data.data() + section.sh_offset + at, sizeof symbol);
      if (symbol.st_shndx == SHN_UNDEF || symbol.st_name >= strings.sh_size) continue;
      const char* name = data.data() + strings.sh_offset + symbol.st_name;
      const size_t room = strings.sh_size - symbol.st_name;
      const std::string_view text(name, strnlen(name, room));
      for (std::string_view wanted : symbols) {
        if (text == wanted) return Status::Ok();
      }
    }
  }
  std::string names;
  for (std::string_view wanted : symbols)
    names += (names.empty() ? "" : ", ") + std::string(wanted);
  return unusable("it defines none of " + names);
}

}  // namespace xpuperf::nvidia
