#include "xpuperf/core/shared_library_file.h"

#include <elf.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "xpuperf/core/input_file.h"

namespace xpuperf {
namespace {

// A dynamic symbol table (with its strings) larger than this is not a library anyone ships.
constexpr uint64_t kMaxSymbolTableBytes = uint64_t{256} << 20;

Error Unusable(const std::string& why) { return MakeError(ErrorCode::kInvalidArgument, why); }

bool InFile(uint64_t offset, uint64_t size, uint64_t file_size) {
  return offset <= file_size && size <= file_size - offset;
}

// Reads exactly `size` bytes at `offset`; false on a short read or an error.
bool ReadAt(int fd, uint64_t offset, void* out, size_t size) {
  auto* bytes = static_cast<char*>(out);
  while (size > 0) {
    const ssize_t n = ::pread(fd, bytes, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes += n;
    offset += static_cast<uint64_t>(n);
    size -= static_cast<size_t>(n);
  }
  return true;
}

Result<std::string> ReadRange(int fd, uint64_t offset, uint64_t size, uint64_t file_size) {
  if (!InFile(offset, size, file_size) || size > kMaxSymbolTableBytes) {
    return Unusable("malformed dynamic symbol table");
  }
  std::string data(size, '\0');
  if (!ReadAt(fd, offset, data.data(), data.size())) return Unusable("unreadable symbol table");
  return data;
}

Status DefinesOneOf(int fd, const Elf64_Ehdr& header, uint64_t file_size,
                    const std::vector<std::string>& symbols) {
  for (uint16_t i = 0; i < header.e_shnum; ++i) {
    Elf64_Shdr section{};
    if (!ReadAt(fd, header.e_shoff + uint64_t{i} * sizeof(Elf64_Shdr), &section, sizeof section)) {
      return Unusable(
          fmt::format("truncated: the section headers end past the {}-byte file", file_size));
    }
    if (section.sh_type != SHT_DYNSYM) continue;
    Elf64_Shdr strings_header{};
    if (section.sh_entsize != sizeof(Elf64_Sym) || section.sh_link >= header.e_shnum ||
        !ReadAt(fd, header.e_shoff + uint64_t{section.sh_link} * sizeof(Elf64_Shdr),
                &strings_header, sizeof strings_header)) {
      return Unusable("malformed dynamic symbol table");
    }
    XPUPERF_ASSIGN_OR_RETURN(const std::string table,
                             ReadRange(fd, section.sh_offset, section.sh_size, file_size));
    XPUPERF_ASSIGN_OR_RETURN(
        const std::string strings,
        ReadRange(fd, strings_header.sh_offset, strings_header.sh_size, file_size));
    for (uint64_t at = 0; at + sizeof(Elf64_Sym) <= table.size(); at += sizeof(Elf64_Sym)) {
      Elf64_Sym symbol{};
      std::memcpy(&symbol, table.data() + at, sizeof symbol);
      if (symbol.st_shndx == SHN_UNDEF || symbol.st_name >= strings.size()) continue;
      const char* name = strings.data() + symbol.st_name;
      const std::string_view text(name, strnlen(name, strings.size() - symbol.st_name));
      for (const std::string& wanted : symbols) {
        if (text == wanted) return Status::Ok();
      }
    }
  }
  std::string names;
  for (const std::string& wanted : symbols) names += (names.empty() ? "" : ", ") + wanted;
  return Unusable("it defines none of " + names);
}

}  // namespace

Status CheckSharedLibraryFile(const std::string& path,
                              const std::vector<std::string>& any_of_symbols) {
  Result<InputFile> file = OpenInputFile(path);
  if (!file.ok()) {
    // The input policy's messages start with the path; the caller names it already.
    std::string why = file.error().message;
    if (why.starts_with(path + ": ")) why.erase(0, path.size() + 2);
    return MakeError(ErrorCode::kInvalidArgument, why);
  }
  const int fd = file->fd();
  const uint64_t file_size = file->size_bytes();
  Elf64_Ehdr header{};
  if (!ReadAt(fd, 0, &header, sizeof header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0) {
    return Unusable("not an ELF file");
  }
  if (header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_ident[EI_DATA] != ELFDATA2LSB) {
    return Unusable("not a 64-bit little-endian ELF file");
  }
#if defined(__x86_64__)
  if (header.e_machine != EM_X86_64) return Unusable("built for another machine");
#elif defined(__aarch64__)
  if (header.e_machine != EM_AARCH64) return Unusable("built for another machine");
#endif
  if (header.e_type != ET_DYN) return Unusable("not a shared library");
  if (header.e_phentsize != sizeof(Elf64_Phdr) ||
      (header.e_shnum > 0 && header.e_shentsize != sizeof(Elf64_Shdr))) {
    return Unusable("malformed ELF header");
  }
  // Every loaded segment must lie inside the file: the loader would fault on the missing pages.
  for (uint16_t i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr segment{};
    if (!ReadAt(fd, header.e_phoff + uint64_t{i} * sizeof(Elf64_Phdr), &segment, sizeof segment)) {
      return Unusable(
          fmt::format("truncated: the program headers end past the {}-byte file", file_size));
    }
    if (segment.p_type == PT_LOAD && !InFile(segment.p_offset, segment.p_filesz, file_size)) {
      // p_offset + p_filesz may wrap in a corrupt header: say where it starts then.
      const uint64_t end = segment.p_offset + segment.p_filesz;
      return Unusable(fmt::format("truncated: segment {} ends at byte {} of a {}-byte file", i,
                                  end >= segment.p_offset ? end : segment.p_offset, file_size));
    }
  }
  if (any_of_symbols.empty()) return Status::Ok();
  return DefinesOneOf(fd, header, file_size, any_of_symbols);
}

}  // namespace xpuperf
