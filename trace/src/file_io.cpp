// Whole-file reads of traces: regular files only, gzip inflated up to the decompressed-size cap
// (xpuperf/core/input_file.h).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "xpuperf/core/gzip_stream.h"
#include "xpuperf/core/input_file.h"
#include "xpuperf/trace/reader.h"

namespace xpuperf::trace {
Result<std::string> ReadMaybeGzipFile(const std::string& path) {
  // Only regular files: a FIFO or device would block or never end (xpuperf/core/input_file.h).
  XPUPERF_ASSIGN_OR_RETURN(InputFile file, OpenInputFile(path));
  std::string data(file.size_bytes(), '\0');
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t got = ::read(file.fd(), data.data() + done, data.size() - done);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return MakeError(ErrorCode::kIo, path + ": read failed: " + std::strerror(errno));
    if (got == 0) break;
    done += static_cast<size_t>(got);
  }
  data.resize(done);
  if (IsGzip(data)) return InflateGzip(data, path, MaxDecompressedBytes());
  return data;
}

Result<std::string> ReadTextHead(const std::string& path, size_t bytes) {
  XPUPERF_ASSIGN_OR_RETURN(InputFile file, OpenInputFile(path));
  const auto size = static_cast<size_t>(file.size_bytes());
  std::string head(std::min(size, bytes), '\0');
  const ssize_t got = pread(file.fd(), head.data(), head.size(), 0);
  if (got < 0) return MakeError(ErrorCode::kIo, path + ": read failed: " + std::strerror(errno));
  head.resize(static_cast<size_t>(got));
  if (!IsGzip(head)) return head;
  // Inflate the start of the whole file (mapped: nothing is read beyond what inflating needs).
  void* at = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, file.fd(), 0);
  if (at == MAP_FAILED) {
    return MakeError(ErrorCode::kIo, path + ": cannot map: " + std::strerror(errno));
  }
  std::string text(bytes, '\0');
  size_t done = 0;
  Status status = Status::Ok();
  auto stream = OpenGzipStream(std::string_view(static_cast<const char*>(at), size), path,
                               MaxDecompressedBytes());
  if (!stream.ok()) status = stream.error();
  while (status.ok() && done < bytes) {
    auto read = (*stream)->Read(text.data() + done, bytes - done);
    if (!read.ok()) status = read.error();
    if (!read.ok() || *read == 0) break;
    done += *read;
  }
  munmap(at, size);
  if (!status.ok() && done == 0) return status.error();
  text.resize(done);  // a damaged stream's start is still its start; the full read reports it
  return text;
}

TraceText::TraceText(TraceText&& other) noexcept
    : mapped_(other.mapped_),
      mapped_size_(other.mapped_size_),
      text_size_(other.text_size_),
      owned_(std::move(other.owned_)) {
  other.mapped_ = nullptr;
  other.mapped_size_ = 0;
  other.text_size_ = 0;
}

TraceText& TraceText::operator=(TraceText&& other) noexcept {
  if (this != &other) {
    Reset();
    mapped_ = other.mapped_;
    mapped_size_ = other.mapped_size_;
    text_size_ = other.text_size_;
    owned_ = std::move(other.owned_);
    other.mapped_ = nullptr;
    other.mapped_size_ = 0;
    other.text_size_ = 0;
  }
  return *this;
}

TraceText::~TraceText() { Reset(); }

void TraceText::Reset() {
  if (mapped_) munmap(const_cast<char*>(mapped_), mapped_size_);
  mapped_ = nullptr;
  mapped_size_ = 0;
  text_size_ = 0;
  std::string().swap(owned_);
}

Result<TraceText> TraceText::Load(const std::string& path) {
  XPUPERF_ASSIGN_OR_RETURN(InputFile file, OpenInputFile(path));
  TraceText text;
  if (file.size_bytes() > 0) {
    unsigned char magic[2] = {0, 0};
    bool gzip = pread(file.fd(), magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
    if (!gzip) {
      size_t size = static_cast<size_t>(file.size_bytes());
      // Writable but private: the reader parses chunks in place (ParseOptions::writable_text),
      // and a page it writes becomes a copy of its own; the file is never changed. A page of
      // zeros is reserved after the file's last page (an anonymous range the file is mapped over),
      // so that the last chunk has its parse padding in place too.
      const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
      const size_t whole = (size + page - 1) / page * page + page;
      void* range =
          mmap(nullptr, whole, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      void* at = range == MAP_FAILED ? MAP_FAILED
                                     : mmap(range, size, PROT_READ | PROT_WRITE,
                                            MAP_PRIVATE | MAP_FIXED, file.fd(), 0);
      if (at != MAP_FAILED) {
        madvise(at, size, MADV_SEQUENTIAL);
        text.mapped_ = static_cast<const char*>(at);
        text.mapped_size_ = whole;
        text.text_size_ = size;
        return text;
      }
      if (range != MAP_FAILED) munmap(range, whole);
    }
  }
  XPUPERF_ASSIGN_OR_RETURN(text.owned_, ReadMaybeGzipFile(path));
  return text;
}

}  // namespace xpuperf::trace
