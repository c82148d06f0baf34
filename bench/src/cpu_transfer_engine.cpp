#include "cpu_transfer_engine.h"

#include <fmt/format.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "xpuperf/bench/host_transfer.h"

namespace xpuperf::bench {
namespace {

constexpr size_t kPageBytes = 4096;
constexpr int kMpolBind = 2;         // MPOL_BIND from <linux/mempolicy.h>
constexpr unsigned kMpolMfMove = 2;  // MPOL_MF_MOVE: also move pages already faulted in
constexpr int kMaxNodes = 1024;

std::string ErrnoText(int error) { return std::strerror(error); }

std::string MemlockLimitText() {
  rlimit limit{};
  if (getrlimit(RLIMIT_MEMLOCK, &limit) != 0) return "unknown";
  if (limit.rlim_cur == RLIM_INFINITY) return "unlimited";
  return fmt::format("{} bytes", static_cast<uint64_t>(limit.rlim_cur));
}

// mbind(2) through syscall(2), so no libnuma is needed. Returns 0 or the errno.
int BindToNode(void* data, size_t bytes, int node) {
  if (node < 0 || node >= kMaxNodes) return EINVAL;
  unsigned long mask[kMaxNodes / (8 * sizeof(unsigned long))] = {};
  mask[node / (8 * sizeof(unsigned long))] = 1UL << (node % (8 * sizeof(unsigned long)));
  const long rc = syscall(SYS_mbind, data, bytes, kMpolBind, mask,
                          static_cast<unsigned long>(kMaxNodes), kMpolMfMove);
  return rc == 0 ? 0 : errno;
}

// Writes every page from a thread pinned to the node's CPUs, so first-touch places them there.
bool TouchFromNode(void* data, size_t bytes, const std::vector<int>& cpus) {
  if (cpus.empty()) return false;
  std::thread toucher([&] {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int cpu : cpus) CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
    std::memset(data, 0x5a, bytes);
  });
  toucher.join();
  return true;
}

// 8 pattern bytes for word `index` of a buffer filled from `seed`: a mixed Weyl sequence, so
// neighbouring words differ and a shifted or stale copy cannot match.
uint64_t PatternWord(uint64_t seed, uint64_t index) {
  uint64_t x = seed * 0x9e3779b97f4a7c15ULL + (index + 1) * 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 31;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 29;
  return x;
}

uint8_t PatternByte(uint64_t seed, size_t offset) {
  const uint64_t word = PatternWord(seed, offset / 8);
  uint8_t bytes[8];
  std::memcpy(bytes, &word, 8);
  return bytes[offset % 8];
}

class CpuBuffer final : public TransferBuffer {
 public:
  CpuBuffer(void* data, size_t bytes, size_t allocated, bool on_device, std::string description)
      : data_(data),
        bytes_(bytes),
        allocated_(allocated),
        on_device_(on_device),
        description_(std::move(description)) {}
  ~CpuBuffer() override {
    if (locked_) munlock(data_, allocated_);
    std::free(data_);
  }
  CpuBuffer(const CpuBuffer&) = delete;
  CpuBuffer& operator=(const CpuBuffer&) = delete;
  void* data() override { return data_; }
  size_t bytes() const override { return bytes_; }
  bool on_device() const override { return on_device_; }
  std::string description() const override { return description_; }
  size_t allocated() const { return allocated_; }
  void set_locked(std::string description) {
    locked_ = true;
    description_ = std::move(description);
  }

 private:
  void* data_;
  size_t bytes_;
  size_t allocated_;
  bool on_device_;
  bool locked_ = false;
  std::string description_;
};

// [begin, end) of part `part` of `parts` equal pieces of `bytes`, on 64-byte boundaries.
std::pair<size_t, size_t> Slice(size_t bytes, int part, int parts) {
  const size_t chunk = (bytes / static_cast<size_t>(parts) + 63) / 64 * 64;
  const size_t begin = std::min(bytes, chunk * static_cast<size_t>(part));
  return {begin, std::min(bytes, begin + chunk)};
}

void CopySlice(void* dst, const void* src, size_t bytes, int part, int parts) {
  const auto [begin, end] = Slice(bytes, part, parts);
  if (end > begin) {
    std::memcpy(static_cast<char*>(dst) + begin, static_cast<const char*>(src) + begin,
                end - begin);
  }
}

}  // namespace

std::vector<int> CpusOfNumaNode(const std::string& root, int node) {
  std::ifstream file(fmt::format("{}/sys/devices/system/node/node{}/cpulist", root, node));
  std::string text;
  if (!file || !std::getline(file, text)) return {};
  auto cpus = ParseNodeList(text);
  return cpus.ok() ? *cpus : std::vector<int>{};
}

int NumaNodeOfCpu(const std::string& root, int cpu) {
  for (int node : OnlineNumaNodes(root)) {
    const std::vector<int> cpus = CpusOfNumaNode(root, node);
    if (std::find(cpus.begin(), cpus.end(), cpu) != cpus.end()) return node;
  }
  return -1;
}

CpuTransferEngine::CpuTransferEngine(CpuTransferOptions options)
    : options_(std::move(options)), team_(options_.threads) {
  if (!options_.lock) options_.lock = [](const void* p, size_t n) { return ::mlock(p, n); };
  device_node_ = options_.device_node >= 0
                     ? options_.device_node
                     : NumaNodeOfCpu(options_.root, AllowedCpus().empty() ? 0 : AllowedCpus()[0]);
}

std::string CpuTransferEngine::name() const {
  return fmt::format("cpu memcpy ({} threads)", team_.size());
}

Result<std::unique_ptr<TransferBuffer>> CpuTransferEngine::Allocate(size_t bytes, int node,
                                                                    bool on_device,
                                                                    std::string what) {
  const size_t allocated = std::max(kPageBytes, (bytes + kPageBytes - 1) / kPageBytes * kPageBytes);
  void* data = std::aligned_alloc(kPageBytes, allocated);
  if (data == nullptr) {
    return MakeError(ErrorCode::kInvalidArgument,
                     fmt::format("cannot allocate {} bytes for {}", bytes, what));
  }
  std::string placement = "unbound";
  if (node >= 0) {
    if (const int error = BindToNode(data, allocated, node); error == 0) {
      placement = fmt::format("node {}, mbind", node);
    } else if (TouchFromNode(data, allocated, CpusOfNumaNode(options_.root, node))) {
      placement = fmt::format("node {}, first touch (mbind: {})", node, ErrnoText(error));
    } else {
      std::free(data);
      return MakeError(ErrorCode::kUnsupported,
                       fmt::format("unsupported: cannot place memory on NUMA node {}: mbind "
                                   "failed ({}) and the node has no CPUs to touch it from",
                                   node, ErrnoText(error)));
    }
  }
  return std::unique_ptr<TransferBuffer>(std::make_unique<CpuBuffer>(
      data, bytes, allocated, on_device, fmt::format("{} ({})", what, placement)));
}

Result<std::unique_ptr<TransferBuffer>> CpuTransferEngine::AllocateHost(size_t bytes,
                                                                        HostMemoryKind kind,
                                                                        int numa_node) {
  XPUPERF_ASSIGN_OR_RETURN(
      std::unique_ptr<TransferBuffer> buffer,
      Allocate(bytes, numa_node, false, std::string(HostMemoryKindName(kind)) + " host"));
  if (kind == HostMemoryKind::kPinned) {
    auto& cpu = static_cast<CpuBuffer&>(*buffer);
    errno = 0;
    if (options_.lock(cpu.data(), cpu.allocated()) != 0) {
      const int error = errno;
      return MakeError(ErrorCode::kUnsupported,
                       fmt::format("unsupported: mlock failed: {}, RLIMIT_MEMLOCK={}",
                                   ErrnoText(error), MemlockLimitText()));
    }
    cpu.set_locked(cpu.description() + ", mlock'ed");
  }
  return buffer;
}

Result<std::unique_ptr<TransferBuffer>> CpuTransferEngine::AllocateDevice(size_t bytes) {
  return Allocate(bytes, device_node_, true, "device");
}

Status CpuTransferEngine::Fill(TransferBuffer& buffer, uint64_t seed) {
  auto* data = static_cast<uint8_t*>(buffer.data());
  const size_t bytes = buffer.bytes();
  const int64_t words = static_cast<int64_t>(bytes / 8);
#pragma omp parallel for schedule(static) \
    num_threads(team_.size()) if (bytes >= kCpuParallelCopyMinBytes)
  for (int64_t i = 0; i < words; ++i) {
    const uint64_t word = PatternWord(seed, static_cast<uint64_t>(i));
    std::memcpy(data + i * 8, &word, 8);
  }
  for (size_t offset = static_cast<size_t>(words) * 8; offset < bytes; ++offset) {
    data[offset] = PatternByte(seed, offset);
  }
  return Status::Ok();
}

Status CpuTransferEngine::Verify(TransferBuffer& buffer, uint64_t seed) {
  const auto* data = static_cast<const uint8_t*>(buffer.data());
  const size_t bytes = buffer.bytes();
  const int64_t words = static_cast<int64_t>(bytes / 8);
  int64_t wrong_words = 0;
#pragma omp parallel for schedule(static) num_threads(team_.size()) \
    reduction(+ : wrong_words) if (bytes >= kCpuParallelCopyMinBytes)
  for (int64_t i = 0; i < words; ++i) {
    uint64_t word;
    std::memcpy(&word, data + i * 8, 8);
    wrong_words += word != PatternWord(seed, static_cast<uint64_t>(i)) ? 1 : 0;
  }
  bool tail_wrong = false;
  for (size_t offset = static_cast<size_t>(words) * 8; offset < bytes; ++offset) {
    tail_wrong = tail_wrong || data[offset] != PatternByte(seed, offset);
  }
  if (wrong_words == 0 && !tail_wrong) return Status::Ok();
  for (size_t offset = 0; offset < bytes; ++offset) {
    const uint8_t expected = PatternByte(seed, offset);
    if (data[offset] != expected) {
      return MakeError(ErrorCode::kInternal,
                       fmt::format("verification failed: {}: byte {} of {} is 0x{:02x}, expected "
                                   "0x{:02x} ({} of {} 8-byte words wrong)",
                                   buffer.description(), offset, bytes, data[offset], expected,
                                   wrong_words, words));
    }
  }
  return MakeError(ErrorCode::kInternal, "verification failed: " + buffer.description());
}

Status CpuTransferEngine::EnqueueCopy(TransferBuffer& dst, TransferBuffer& src, size_t bytes) {
  if (bytes > dst.bytes() || bytes > src.bytes()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     fmt::format("copy of {} bytes from a {}-byte buffer into a {}-byte one", bytes,
                                 src.bytes(), dst.bytes()));
  }
  const int threads = team_.size();
  if (bytes < kCpuParallelCopyMinBytes || threads == 1) {
    std::memcpy(dst.data(), src.data(), bytes);
    return Status::Ok();
  }
  void* to = dst.data();
  const void* from = src.data();
#pragma omp parallel num_threads(threads)
  { CopySlice(to, from, bytes, omp_get_thread_num(), omp_get_num_threads()); }
  return Status::Ok();
}

Status CpuTransferEngine::EnqueueConcurrentCopies(TransferBuffer& dst1, TransferBuffer& src1,
                                                  TransferBuffer& dst2, TransferBuffer& src2,
                                                  size_t bytes) {
  if (bytes > dst1.bytes() || bytes > src1.bytes() || bytes > dst2.bytes() ||
      bytes > src2.bytes()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     fmt::format("concurrent copies of {} bytes exceed a buffer", bytes));
  }
  // Two threads at least, so the two copies really overlap; larger copies use the whole team.
  const int threads = bytes < kCpuParallelCopyMinBytes ? 2 : std::max(2, team_.size());
  void* to[2] = {dst1.data(), dst2.data()};
  const void* from[2] = {src1.data(), src2.data()};
#pragma omp parallel num_threads(threads)
  {
    const int team = omp_get_num_threads();
    const int index = omp_get_thread_num();
    const int first_half = team / 2;
    if (team == 1) {
      std::memcpy(to[0], from[0], bytes);
      std::memcpy(to[1], from[1], bytes);
    } else if (index < first_half) {
      CopySlice(to[0], from[0], bytes, index, first_half);
    } else {
      CopySlice(to[1], from[1], bytes, index - first_half, team - first_half);
    }
  }
  return Status::Ok();
}

std::unique_ptr<TransferEngine> MakeCpuTransferEngine(CpuTransferOptions options) {
  return std::make_unique<CpuTransferEngine>(std::move(options));
}

}  // namespace xpuperf::bench
