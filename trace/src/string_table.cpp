#include <cstring>

#include "xpuperf/trace/trace.h"

namespace xpuperf::trace {

StringTable::StringTable() {
  views_.push_back(std::string_view());
  ids_.emplace(std::string_view(), 0);
}

uint32_t StringTable::Intern(std::string_view text) {
  auto it = ids_.find(text);
  if (it != ids_.end()) return it->second;
  // Strings live in 64 KiB blocks (or one block of their own when longer), so views never move.
  constexpr size_t kBlock = size_t{64} * 1024;
  if (blocks_.empty() || block_used_ + text.size() > block_size_) {
    block_size_ = text.size() > kBlock ? text.size() : kBlock;
    blocks_.push_back(std::make_unique_for_overwrite<char[]>(block_size_));  // not zero-filled
    block_used_ = 0;
  }
  char* dest = blocks_.back().get() + block_used_;
  if (!text.empty()) std::memcpy(dest, text.data(), text.size());
  block_used_ += text.size();
  std::string_view stored(dest, text.size());
  auto id = static_cast<uint32_t>(views_.size());
  views_.push_back(stored);
  ids_.emplace(stored, id);
  return id;
}

int64_t StringTable::Find(std::string_view text) const {
  auto it = ids_.find(text);
  return it == ids_.end() ? -1 : static_cast<int64_t>(it->second);
}

std::string_view EventKindName(EventKind kind) {
  switch (kind) {
    case EventKind::kOther:
      return "other";
    case EventKind::kCpuOp:
      return "cpu_op";
    case EventKind::kUserAnnotation:
      return "user_annotation";
    case EventKind::kGpuUserAnnotation:
      return "gpu_user_annotation";
    case EventKind::kKernel:
      return "kernel";
    case EventKind::kMemcpy:
      return "gpu_memcpy";
    case EventKind::kMemset:
      return "gpu_memset";
    case EventKind::kRuntime:
      return "cuda_runtime";
    case EventKind::kDriver:
      return "cuda_driver";
    case EventKind::kSync:
      return "cuda_sync";
    case EventKind::kPythonFunction:
      return "python_function";
    case EventKind::kMemory:
      return "memory";
    case EventKind::kFlow:
      return "flow";
  }
  return "other";
}

std::string_view TraceFormatName(TraceFormat format) {
  switch (format) {
    case TraceFormat::kKineto:
      return "kineto";
    case TraceFormat::kKineto2021:
      return "kineto-2021";
    case TraceFormat::kJax:
      return "jax";
    case TraceFormat::kXPlane:
      return "xplane";
    case TraceFormat::kUnknown:
      return "chrome-trace";
  }
  return "chrome-trace";
}

namespace {

// One [n, len0, d.., ...] block of the dims pool from `pos`, which it moves past the block.
std::vector<std::vector<int64_t>> ReadShapeBlock(const std::vector<int64_t>& dims, size_t& pos) {
  std::vector<std::vector<int64_t>> result;
  if (pos >= dims.size()) return result;
  int64_t inputs = dims[pos++];
  for (int64_t i = 0; i < inputs && pos < dims.size(); ++i) {
    int64_t len = dims[pos++];
    std::vector<int64_t> shape;
    for (int64_t d = 0; d < len && pos < dims.size(); ++d) shape.push_back(dims[pos++]);
    result.push_back(std::move(shape));
  }
  return result;
}

}  // namespace

std::vector<std::vector<int64_t>> Trace::InputDims(const TraceEvent& e) const {
  if (e.input_dims < 0) return {};
  size_t pos = static_cast<size_t>(e.input_dims);
  return ReadShapeBlock(dims, pos);
}

std::vector<std::vector<int64_t>> Trace::ConcreteInputs(const TraceEvent& e) const {
  if (e.input_dims < 0) return {};
  size_t pos = static_cast<size_t>(e.input_dims);
  ReadShapeBlock(dims, pos);
  return ReadShapeBlock(dims, pos);
}

int64_t Trace::DeviceMemory(int device) const {
  for (const auto& d : devices) {
    if (d.id == device) return d.total_global_mem;
  }
  return devices.size() == 1 && device < 0 ? devices[0].total_global_mem : 0;
}

}  // namespace xpuperf::trace
