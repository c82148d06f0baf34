// InflatingText (inflating_text.h): a GzipStream on a worker thread writing into a reserved range
// that the reader waits on and releases.
#include "inflating_text.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "xpuperf/core/gzip_stream.h"
#include "xpuperf/core/input_file.h"

namespace xpuperf::trace::internal {
namespace {

// The inflater's step: small enough that the reader starts soon, large enough that the lock and
// the stream's cancellation check are noise.
constexpr size_t kStepBytes = size_t{4} << 20;

uint32_t TrailerSize(const char* compressed, size_t size) {
  const auto* tail = reinterpret_cast<const unsigned char*>(compressed + size - 4);
  return tail[0] | (tail[1] << 8) | (tail[2] << 16) | (uint32_t{tail[3]} << 24);
}

}  // namespace

void InflatingText::Populate(size_t from, size_t bytes) {
#ifdef MADV_POPULATE_WRITE
  // One call maps the step's pages (Linux 5.14+) instead of a fault per 4 KiB page as the
  // inflater first writes each; where it is refused, the writes fault them in as before.
  static const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto lo = reinterpret_cast<uintptr_t>(data_ + from) & ~(page - 1);
  const auto hi = reinterpret_cast<uintptr_t>(data_ + from + bytes);
  // NOLINTNEXTLINE(performance-no-int-to-ptr): page-aligned bounds inside the mapping
  madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_POPULATE_WRITE);
#else
  (void)from;
  (void)bytes;
#endif
}

Result<std::unique_ptr<InflatingText>> InflatingText::Start(const std::string& path,
                                                            const Limits& limits) {
  XPUPERF_ASSIGN_OR_RETURN(InputFile file, OpenInputFile(path));
  const auto compressed_size = static_cast<size_t>(file.size_bytes());
  if (compressed_size < 8) return std::unique_ptr<InflatingText>();
  unsigned char magic[2] = {0, 0};
  if (pread(file.fd(), magic, 2, 0) != 2 || magic[0] != 0x1f || magic[1] != 0x8b) {
    return std::unique_ptr<InflatingText>();
  }
  void* compressed = mmap(nullptr, compressed_size, PROT_READ, MAP_PRIVATE, file.fd(), 0);
  if (compressed == MAP_FAILED) return std::unique_ptr<InflatingText>();
  const uint32_t stated = TrailerSize(static_cast<const char*>(compressed), compressed_size);
  // A size below the compressed one is not a JSON trace's (several members, or 4 GiB and more
  // wrapped around); over the cap, the whole read reports the cap.
  if (stated < compressed_size || stated > MaxDecompressedBytes()) {
    munmap(compressed, compressed_size);
    return std::unique_ptr<InflatingText>();
  }
  std::unique_ptr<InflatingText> text(new InflatingText());
  text->path_ = path;
  text->window_bytes_ = limits.window_bytes;
  text->compressed_ = static_cast<const char*>(compressed);
  text->compressed_size_ = compressed_size;
  text->size_ = stated;
  // Zeros past the text (the rest of its last page, at least kPaddingBytes): a reader that looks
  // past the end reads zeros, and the in-place parse has its padding.
  const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  text->mapped_size_ = (text->size_ + kPaddingBytes + page - 1) / page * page;
  void* range = mmap(nullptr, text->mapped_size_, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (range == MAP_FAILED) {
    text->mapped_size_ = 0;
    return std::unique_ptr<InflatingText>();  // the destructor unmaps the compressed file
  }
  text->data_ = static_cast<char*>(range);

  if (compressed_size < limits.threaded_from_bytes) {
    text->window_bytes_ = SIZE_MAX;  // no reader runs meanwhile to release anything
    text->Inflate();
  } else {
    text->worker_ = std::thread([raw = text.get()] { raw->Inflate(); });
  }
  return text;
}

InflatingText::~InflatingText() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  if (worker_.joinable()) worker_.join();
  if (data_ != nullptr) munmap(data_, mapped_size_);
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-const-cast): munmap takes the mapping's address
  if (compressed_ != nullptr) munmap(const_cast<char*>(compressed_), compressed_size_);
}

void InflatingText::Inflate() {
  Status status = Status::Ok();
  bool exact = true;  // false once the text is found longer or shorter than stated
  auto stream = OpenGzipStream(std::string_view(compressed_, compressed_size_), path_,
                               MaxDecompressedBytes());
  if (!stream.ok()) {
    status = stream.error();
  } else {
    size_t produced = 0;
    for (;;) {
      if (produced == size_) {
        // The stated size is reached: the stream must end here.
        char extra = 0;
        auto more = (*stream)->Read(&extra, 1);
        if (!more.ok()) {
          status = more.error();
        } else {
          exact = *more == 0;
        }
        break;
      }
      const size_t step = std::min(kStepBytes, size_ - produced);
      {
        // Run ahead of the reader by at most the window, unless it waits for more.
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] {
          return stop_ || produced < wanted_ || produced < released_ + window_bytes_;
        });
        if (stop_) break;
        writing_end_ = produced + step;  // Recycle moves no page below this
      }
      Populate(produced, step);
      auto got = (*stream)->Read(data_ + produced, step);
      if (!got.ok()) {
        status = got.error();
        break;
      }
      if (*got == 0) {  // shorter than stated
        exact = false;
        break;
      }
      produced += *got;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        produced_ = produced;
      }
      changed_.notify_all();
    }
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
    status_ = status;
    exact_ = exact;
  }
  changed_.notify_all();
}

size_t InflatingText::WaitFor(size_t end) {
  end = std::min(end, size_);
  std::unique_lock<std::mutex> lock(mutex_);
  if (end > wanted_) {
    wanted_ = end;
    changed_.notify_all();
  }
  changed_.wait(lock, [&] { return done_ || produced_ >= end; });
  return done_ ? size_ : produced_;
}

void InflatingText::Released(size_t position) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (position <= released_) return;
    released_ = position;
  }
  changed_.notify_all();
}

bool InflatingText::Recycle(void* at, size_t bytes) {
  static const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  std::lock_guard<std::mutex> lock(mutex_);
  if (done_) return false;
  const size_t target = std::max(recycled_end_, (writing_end_ + page - 1) / page * page);
  // Never into the text's last partial page or the one after it: what lies past size() stays
  // zero (Start's extra page).
  if (target + bytes > size_ / page * page) return false;
  // Under the lock: the inflater does not write at or past writing_end_ until it takes it again.
  void* moved = mremap(at, bytes, bytes, MREMAP_MAYMOVE | MREMAP_FIXED, data_ + target);
  if (moved == MAP_FAILED) return false;
  recycled_end_ = target + bytes;
  // The reader never reads the pages it gave back, but they must stay mapped (reading one past
  // a released position is allowed): a fresh zero page in their place, not a hole.
  void* refill = mmap(at, bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
  return refill != MAP_FAILED;
}

Result<bool> InflatingText::Finish() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  if (worker_.joinable()) worker_.join();
  if (!status_.ok()) return status_.error();
  return exact_;
}

}  // namespace xpuperf::trace::internal
