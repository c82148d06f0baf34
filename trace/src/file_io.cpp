// Whole-file reads, with gzip (possibly multi-member) decompressed by zlib.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "xpuperf/trace/reader.h"

namespace xpuperf::trace {
namespace {

Result<std::string> Inflate(const std::string& compressed, const std::string& path) {
  std::string out;
  // The gzip trailer holds the uncompressed size mod 2^32: a good first guess for the buffer.
  size_t guess = compressed.size() * 4;
  if (compressed.size() >= 4) {
    const auto* tail =
        reinterpret_cast<const unsigned char*>(compressed.data() + compressed.size() - 4);
    uint32_t isize = tail[0] | (tail[1] << 8) | (tail[2] << 16) | (uint32_t{tail[3]} << 24);
    // Deflate cannot exceed ~1032:1; a corrupt trailer must not make us allocate gigabytes.
    if (isize > guess) guess = std::min<size_t>(isize, compressed.size() * 1032 + 1024);
  }
  out.resize(guess + 1);
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 32) != Z_OK) {
    return MakeError(ErrorCode::kInternal, path + ": zlib initialisation failed");
  }
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  zs.avail_in = static_cast<uInt>(compressed.size());
  size_t produced = 0;
  for (;;) {
    if (produced == out.size()) out.resize(out.size() * 2);
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + produced);
    size_t room = out.size() - produced;
    zs.avail_out = static_cast<uInt>(room > (1u << 30) ? (1u << 30) : room);
    uInt before = zs.avail_out;
    int rc = inflate(&zs, Z_NO_FLUSH);
    produced += before - zs.avail_out;
    if (rc == Z_STREAM_END) {
      // Another gzip member may follow (concatenated .gz files decompress to their concatenation).
      if (zs.avail_in > 0 && zs.next_in[0] == 0x1f) {
        if (inflateReset(&zs) != Z_OK) break;
        continue;
      }
      break;
    }
    if (rc == Z_BUF_ERROR && zs.avail_in == 0) {
      size_t at = compressed.size();
      inflateEnd(&zs);
      return MakeError(ErrorCode::kParse, path + ": gzip data truncated at compressed byte " +
                                              std::to_string(at) + " (after " +
                                              std::to_string(produced) + " bytes of JSON)");
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      size_t at = compressed.size() - zs.avail_in;
      std::string why = zs.msg ? zs.msg : "error " + std::to_string(rc);
      inflateEnd(&zs);
      return MakeError(ErrorCode::kParse, path + ": corrupt gzip data at compressed byte " +
                                              std::to_string(at) + ": " + why);
    }
  }
  inflateEnd(&zs);
  out.resize(produced);
  return out;
}

}  // namespace

Result<std::string> ReadMaybeGzipFile(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file)
    return MakeError(ErrorCode::kNotFound, path + ": cannot open: " + std::strerror(errno));
  std::string data;
  if (std::fseek(file, 0, SEEK_END) == 0) {
    long size = std::ftell(file);
    if (size > 0) data.resize(static_cast<size_t>(size));
    std::fseek(file, 0, SEEK_SET);
  }
  size_t got = data.empty() ? 0 : std::fread(data.data(), 1, data.size(), file);
  bool failed = std::ferror(file) != 0;
  std::fclose(file);
  if (failed) return MakeError(ErrorCode::kIo, path + ": read failed");
  data.resize(got);
  if (data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f &&
      static_cast<unsigned char>(data[1]) == 0x8b) {
    return Inflate(data, path);
  }
  return data;
}

TraceText::TraceText(TraceText&& other) noexcept
    : mapped_(other.mapped_), mapped_size_(other.mapped_size_), owned_(std::move(other.owned_)) {
  other.mapped_ = nullptr;
  other.mapped_size_ = 0;
}

TraceText& TraceText::operator=(TraceText&& other) noexcept {
  if (this != &other) {
    Reset();
    mapped_ = other.mapped_;
    mapped_size_ = other.mapped_size_;
    owned_ = std::move(other.owned_);
    other.mapped_ = nullptr;
    other.mapped_size_ = 0;
  }
  return *this;
}

TraceText::~TraceText() { Reset(); }

void TraceText::Reset() {
  if (mapped_) munmap(const_cast<char*>(mapped_), mapped_size_);
  mapped_ = nullptr;
  mapped_size_ = 0;
  std::string().swap(owned_);
}

Result<TraceText> TraceText::Load(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return MakeError(ErrorCode::kNotFound, path + ": cannot open: " + std::strerror(errno));
  }
  struct stat info {};
  bool regular = fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && info.st_size > 0;
  TraceText text;
  if (regular) {
    unsigned char magic[2] = {0, 0};
    bool gzip = pread(fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
    if (!gzip) {
      size_t size = static_cast<size_t>(info.st_size);
      void* at = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
      if (at != MAP_FAILED) {
        madvise(at, size, MADV_SEQUENTIAL);
        ::close(fd);
        text.mapped_ = static_cast<const char*>(at);
        text.mapped_size_ = size;
        return text;
      }
    }
  }
  ::close(fd);
  XPUPERF_ASSIGN_OR_RETURN(text.owned_, ReadMaybeGzipFile(path));
  return text;
}

}  // namespace xpuperf::trace
