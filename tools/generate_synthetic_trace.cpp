// Writes a synthetic PyTorch-profiler (Kineto) Chrome trace of a requested size, for measuring
// trace readers and analyses on gigabyte inputs. The event mix follows the real traces in
// ../shared/data/traces (training steps of linear layers with python_function, cpu_op,
// cuda_runtime launches, kernels on a compute stream, NCCL all-reduce kernels on a comm stream,
// ac2g flows, gpu_memcpy/gpu_memset, [memory] allocation events, ProfilerStep#N annotations,
// deviceProperties and distributedInfo), with timings that are consistent: a kernel starts after
// its launch call and after the previous kernel of its stream, and each step ends with a stream
// synchronisation.
//
//   generate_synthetic_trace --size 1G [--ranks N] [--seed S] --out FILE|DIR
//
// Deterministic for a seed (its own SplitMix64 generator, integer arithmetic only). Streams: one
// training step is built in memory at a time (~1,500 events), so memory stays constant whatever
// the size. With --ranks N > 1, --out is a directory that receives rank-<r>.json, each of --size.
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace {

// SplitMix64: small, fast, and the same sequence on every platform.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi].
  int64_t Between(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(Next() % static_cast<uint64_t>(hi - lo + 1));
  }
  // Roughly log-uniform in [lo, hi] (lo >= 1): a uniform power of two, then uniform inside it.
  int64_t LogBetween(int64_t lo, int64_t hi) {
    const int lo_bits = 63 - __builtin_clzll(static_cast<uint64_t>(lo));
    const int hi_bits = 63 - __builtin_clzll(static_cast<uint64_t>(hi));
    const int bits = static_cast<int>(Between(lo_bits, hi_bits));
    const int64_t base = int64_t{1} << bits;
    const int64_t value = base + Between(0, base - 1);
    return value < lo ? lo : (value > hi ? hi : value);
  }
  bool Chance(int percent) { return Between(0, 99) < percent; }

 private:
  uint64_t state_;
};

// Buffered output with the number formats of Kineto traces.
class Writer {
 public:
  explicit Writer(std::FILE* file) : file_(file) { buffer_.reserve(kSpill + 65536); }
  void Raw(std::string_view text) { buffer_.append(text); }
  void Int(int64_t value) {
    char text[24];
    buffer_.append(text, std::to_chars(text, text + sizeof text, value).ptr);
  }
  // A time in ns as µs with three decimals.
  void Us(int64_t ns) {
    Int(ns / 1000);
    const auto frac = static_cast<int>(ns % 1000);
    const char digits[4] = {'.', static_cast<char>('0' + frac / 100),
                            static_cast<char>('0' + frac / 10 % 10),
                            static_cast<char>('0' + frac % 10)};
    buffer_.append(digits, 4);
  }
  // A float with three decimals (bandwidths, occupancies).
  void Fixed3(int64_t thousandths) { Us(thousandths); }
  void MaybeSpill() {
    if (buffer_.size() >= kSpill) Spill();
  }
  bool Finish() {
    Spill();
    return ok_ && std::fflush(file_) == 0;
  }
  uint64_t bytes() const { return written_ + buffer_.size(); }

 private:
  static constexpr size_t kSpill = size_t{4} << 20;
  void Spill() {
    if (ok_ && std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) ok_ = false;
    written_ += buffer_.size();
    buffer_.clear();
  }
  std::FILE* file_;
  std::string buffer_;
  uint64_t written_ = 0;
  bool ok_ = true;
};

// Kernel names as they appear in real traces (each a GEMM, an elementwise op, a reduction, ...).
constexpr std::string_view kGemmKernels[] = {
    "ampere_sgemm_128x64_tn",
    "ampere_sgemm_64x64_nn",
    "sm80_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x32_stage4_warpsize2x2x1_tensor16x8x16_"
    "kernel",
    "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_16x4_tn_align4>(cutlass_80_"
    "tensorop_s1688gemm_128x128_16x4_tn_align4::Params)",
};
constexpr std::string_view kElementwiseKernels[] = {
    "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "
    "namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, "
    "at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()"
    "() const::{lambda(float)#1}, at::detail::Array<char*, 2> >(int, at::native::(anonymous "
    "namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, "
    "at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()"
    "() const::{lambda(float)#1}, at::detail::Array<char*, 2>)",
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
    "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, "
    "1>)",
    "void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::"
    "TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() "
    "const::{lambda(float)#1}, at::detail::Array<char*, 2>, TrivialOffsetCalculator<1, unsigned "
    "int>, TrivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithCast<1>, "
    "at::native::memory::StoreWithCast<1> >(int, at::native::direct_copy_kernel_cuda(at::"
    "TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() "
    "const::{lambda(float)#1}, at::detail::Array<char*, 2>, TrivialOffsetCalculator<1, unsigned "
    "int>, TrivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithCast<1>, "
    "at::native::memory::StoreWithCast<1>)",
};
constexpr std::string_view kReduceKernel =
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
    "at::native::func_wrapper_t<float, at::native::sum_functor<float, float, "
    "float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4> "
    ">(at::native::ReduceOp<float, at::native::func_wrapper_t<float, "
    "at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, "
    "float)#1}>, unsigned int, float, 4>)";
constexpr std::string_view kOptimizerKernel =
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
    "namespace)::TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<"
    "float, 4>, float*, float, float, float, float, float, bool, bool, float*, float*>";
constexpr std::string_view kNcclKernel =
    "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)";

enum class Kind { kPython, kCpuOp, kUserAnnotation, kRuntime, kMemory };
enum class GpuKind { kKernel, kMemcpy, kMemset, kSync };

// A CPU-side event of the step being built; durations are known once its children are built.
struct CpuEvent {
  Kind kind;
  std::string_view name;
  int64_t tid;
  int64_t ts, dur;
  uint64_t external_id, correlation;  // correlation: runtime calls
  int64_t a, b, c;  // per kind: python ids; input dims; [memory] bytes/total/addr; runtime cbid
  bool flow;        // runtime call with an ac2g flow to its GPU activity
};

struct GpuEvent {
  GpuKind kind;
  std::string_view name;
  int stream;
  int64_t ts, dur;
  uint64_t external_id, correlation;
  int64_t bytes;  // memcpy/memset
};

struct Options {
  uint64_t size = 0;
  int ranks = 1;
  uint64_t seed = 1;
  std::string out;
};

constexpr int kComputeStream = 7;
constexpr int kCommStream = 20;
constexpr int kLayers = 24;

class TraceGenerator {
 public:
  TraceGenerator(Writer& out, uint64_t seed, int rank, int world)
      : out_(out),
        rng_(seed * 1000003 + static_cast<uint64_t>(rank)),
        rank_(rank),
        world_(world),
        pid_(4000 + rank),
        main_tid_(pid_),
        backward_tid_(pid_ + 31),
        device_(rank % 8) {}

  void Write(uint64_t target_bytes) {
    Header();
    const int64_t start = cpu_ns_;
    while (out_.bytes() < target_bytes) {
      Step();
      out_.MaybeSpill();
    }
    Footer(start);
  }

 private:
  // ---- building one step -----------------------------------------------------------------
  size_t Begin(Kind kind, std::string_view name, int64_t tid, int64_t& clock, int64_t a = 0) {
    cpu_.push_back({kind, name, tid, clock, 0, ++external_id_, 0, a, 0, 0, false});
    clock += rng_.Between(300, 1500);
    return cpu_.size() - 1;
  }
  void End(size_t index, int64_t& clock) {
    clock += rng_.Between(200, 900);
    cpu_[index].dur = clock - cpu_[index].ts;
  }
  void Leaf(Kind kind, std::string_view name, int64_t tid, int64_t& clock, int64_t dims = 0) {
    const size_t i = Begin(kind, name, tid, clock, dims);
    End(i, clock);
  }
  void Memory(int64_t tid, int64_t& clock, int64_t bytes) {
    allocated_ += bytes;
    if (allocated_ > reserved_)
      reserved_ = (allocated_ / (int64_t{2} << 20) + 1) * (int64_t{2} << 20);
    if (bytes > 0) next_addr_ += bytes + 512;
    cpu_.push_back({Kind::kMemory, "[memory]", tid, clock, 0, 0, 0, bytes, allocated_,
                    static_cast<int64_t>(next_addr_), false});
    clock += rng_.Between(50, 200);
  }
  // A launch call and its GPU activity on `stream`; returns the GPU event's end.
  int64_t Launch(std::string_view runtime, int64_t cbid, GpuKind kind, std::string_view name,
                 int stream, int64_t tid, int64_t& clock, int64_t gpu_dur, int64_t bytes = 0) {
    const uint64_t correlation = ++correlation_;
    const int64_t call_dur = rng_.Between(2500, 9000);
    cpu_.push_back({Kind::kRuntime, runtime, tid, clock, call_dur, external_id_, correlation, cbid,
                    0, 0, rng_.Chance(60)});
    int64_t& free_at = stream == kCommStream ? comm_free_ : compute_free_;
    const int64_t start = std::max(clock + call_dur + rng_.Between(1500, 12000), free_at);
    free_at = start + gpu_dur;
    gpu_.push_back({kind, name, stream, start, gpu_dur, external_id_, correlation, bytes});
    clock += call_dur + rng_.Between(200, 800);
    return free_at;
  }
  void Kernel(std::string_view name, int stream, int64_t tid, int64_t& clock, int64_t lo,
              int64_t hi) {
    Launch("cudaLaunchKernel", 211, GpuKind::kKernel, name, stream, tid, clock,
           rng_.LogBetween(lo, hi));
  }

  void ForwardLayer(int layer) {
    int64_t& t = cpu_ns_;
    const int64_t python_id = ++python_id_;
    const size_t module = Begin(Kind::kPython, kModuleNames[layer % 4], main_tid_, t, python_id);
    const size_t forward = Begin(Kind::kPython, "torch/nn/modules/linear.py(114): forward",
                                 main_tid_, t, ++python_id_);
    const size_t linear = Begin(Kind::kCpuOp, "aten::linear", main_tid_, t, 1);
    Leaf(Kind::kCpuOp, "aten::t", main_tid_, t, 2);
    const size_t addmm = Begin(Kind::kCpuOp, "aten::addmm", main_tid_, t, 3);
    Memory(main_tid_, t, int64_t{4} * 4096 * 1024);
    Kernel(kGemmKernels[rng_.Between(0, 3)], kComputeStream, main_tid_, t, 20'000, 400'000);
    End(addmm, t);
    End(linear, t);
    End(forward, t);
    End(module, t);
    const size_t relu_py =
        Begin(Kind::kPython, "torch/nn/functional.py(1457): relu", main_tid_, t, ++python_id_);
    const size_t relu = Begin(Kind::kCpuOp, "aten::relu", main_tid_, t, 4);
    Kernel(kElementwiseKernels[0], kComputeStream, main_tid_, t, 3'000, 60'000);
    End(relu, t);
    End(relu_py, t);
  }

  void BackwardLayer(int layer, int64_t& t) {
    const size_t evaluate = Begin(
        Kind::kCpuOp, "autograd::engine::evaluate_function: AddmmBackward0", backward_tid_, t, 5);
    const size_t backward = Begin(Kind::kCpuOp, "AddmmBackward0", backward_tid_, t, 5);
    for (int i = 0; i < 2; ++i) {
      const size_t mm = Begin(Kind::kCpuOp, "aten::mm", backward_tid_, t, 6);
      if (i == 0) Memory(backward_tid_, t, int64_t{4} * 4096 * 1024);
      Kernel(kGemmKernels[rng_.Between(0, 3)], kComputeStream, backward_tid_, t, 20'000, 400'000);
      End(mm, t);
    }
    const size_t sum = Begin(Kind::kCpuOp, "aten::sum", backward_tid_, t, 7);
    Kernel(kReduceKernel, kComputeStream, backward_tid_, t, 3'000, 40'000);
    End(sum, t);
    End(backward, t);
    // Frees the activation of the forward pass and the gradient above.
    for (int i = 0; i < 2; ++i) Memory(backward_tid_, t, int64_t{-4} * 4096 * 1024);
    End(evaluate, t);
    if (layer % 6 == 5) {
      // Gradient bucket ready: an all-reduce on the comm stream.
      const size_t comms = Begin(Kind::kCpuOp, "record_param_comms", backward_tid_, t, 8);
      const size_t nccl = Begin(Kind::kUserAnnotation, "nccl:all_reduce", backward_tid_, t, 9);
      Kernel(kNcclKernel, kCommStream, backward_tid_, t, 100'000, 3'000'000);
      End(nccl, t);
      End(comms, t);
    }
  }

  void Step() {
    cpu_.clear();
    gpu_.clear();
    int64_t& t = cpu_ns_;
    step_name_ = "ProfilerStep#" + std::to_string(step_number_++);
    const size_t step = Begin(Kind::kUserAnnotation, step_name_, main_tid_, t);
    // Input batch: host to device.
    const size_t to = Begin(Kind::kCpuOp, "aten::to", main_tid_, t, 10);
    const size_t copy = Begin(Kind::kCpuOp, "aten::copy_", main_tid_, t, 10);
    const int64_t input_bytes = int64_t{64} * 3 * 224 * 224 * 4;
    Launch("cudaMemcpyAsync", 41, GpuKind::kMemcpy, "Memcpy HtoD (Pageable -> Device)",
           kComputeStream, main_tid_, t, input_bytes / 12, input_bytes);
    End(copy, t);
    End(to, t);
    for (int layer = 0; layer < kLayers; ++layer) ForwardLayer(layer);
    Leaf(Kind::kCpuOp, "aten::mse_loss", main_tid_, t, 11);
    // backward() on the main thread waits while the autograd thread works.
    const size_t backward_call = Begin(Kind::kPython, "torch/autograd/__init__.py(197): backward",
                                       main_tid_, t, ++python_id_);
    int64_t bt = t;
    for (int layer = kLayers - 1; layer >= 0; --layer) BackwardLayer(layer, bt);
    t = bt;
    End(backward_call, t);
    // Optimizer.
    const size_t optimizer = Begin(Kind::kUserAnnotation, "Optimizer.step#Adam.step", main_tid_, t);
    const size_t zero = Begin(Kind::kCpuOp, "aten::zero_", main_tid_, t, 12);
    Launch("cudaMemsetAsync", 51, GpuKind::kMemset, "Memset (Device)", kComputeStream, main_tid_, t,
           4000, int64_t{4} * 1024 * 1024);
    End(zero, t);
    for (int i = 0; i < 4; ++i) {
      const size_t apply = Begin(Kind::kCpuOp, "aten::_fused_adam_", main_tid_, t, 13);
      Kernel(kOptimizerKernel, kComputeStream, main_tid_, t, 50'000, 200'000);
      End(apply, t);
    }
    End(optimizer, t);
    // Wait for the GPU: cudaStreamSynchronize returns when both streams are idle.
    const int64_t gpu_done = std::max(compute_free_, comm_free_);
    const uint64_t correlation = ++correlation_;
    cpu_.push_back({Kind::kRuntime, "cudaStreamSynchronize", main_tid_, t,
                    std::max<int64_t>(gpu_done - t, 0) + 3000, ++external_id_, correlation, 131, 0,
                    0, false});
    gpu_.push_back({GpuKind::kSync, "Stream Sync", kComputeStream, gpu_done, 1000, external_id_,
                    correlation, 0});
    t = std::max(t, gpu_done) + 5000;
    End(step, t);
    for (const CpuEvent& e : cpu_) WriteCpu(e);
    for (const GpuEvent& e : gpu_) WriteGpu(e);
    t += rng_.Between(20'000, 80'000);  // data loading between steps
  }

  // ---- writing ------------------------------------------------------------------------------
  void Sep() {
    out_.Raw(first_ ? "\n  " : ",\n  ");
    first_ = false;
  }
  void Common(std::string_view ph, std::string_view cat, std::string_view name, int64_t pid,
              int64_t tid, int64_t ts) {
    Sep();
    out_.Raw("{\"ph\": \"");
    out_.Raw(ph);
    out_.Raw("\", \"cat\": \"");
    out_.Raw(cat);
    out_.Raw("\", \"name\": \"");
    out_.Raw(name);
    out_.Raw("\", \"pid\": ");
    out_.Int(pid);
    out_.Raw(", \"tid\": ");
    out_.Int(tid);
    out_.Raw(", \"ts\": ");
    out_.Us(ts);
  }
  void Flow(bool start, uint64_t id, int64_t pid, int64_t tid, int64_t ts) {
    Sep();
    out_.Raw(start ? "{\"ph\": \"s\", \"id\": " : "{\"ph\": \"f\", \"id\": ");
    out_.Int(static_cast<int64_t>(id));
    out_.Raw(", \"pid\": ");
    out_.Int(pid);
    out_.Raw(", \"tid\": ");
    out_.Int(tid);
    out_.Raw(", \"ts\": ");
    out_.Us(ts);
    out_.Raw(start ? ", \"cat\": \"ac2g\", \"name\": \"ac2g\"}"
                   : ", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"}");
  }

  void WriteCpu(const CpuEvent& e) {
    switch (e.kind) {
      case Kind::kMemory:
        Common("i", "cpu_instant_event", e.name, pid_, e.tid, e.ts);
        out_.Raw(", \"s\": \"t\", \"args\": {\"Total Reserved\": ");
        out_.Int(reserved_);
        out_.Raw(", \"Total Allocated\": ");
        out_.Int(e.b);
        out_.Raw(", \"Bytes\": ");
        out_.Int(e.a);
        out_.Raw(", \"Addr\": ");
        out_.Int(e.c);
        out_.Raw(", \"Device Id\": ");
        out_.Int(device_);
        out_.Raw(", \"Device Type\": 1}}");
        return;
      case Kind::kPython:
        Common("X", "python_function", e.name, pid_, e.tid, e.ts);
        out_.Raw(", \"dur\": ");
        out_.Us(e.dur);
        out_.Raw(", \"args\": {\"Python parent id\": ");
        out_.Int(e.a - 1);
        out_.Raw(", \"Python id\": ");
        out_.Int(e.a);
        out_.Raw(", \"Python thread\": 0}}");
        return;
      case Kind::kRuntime:
        Common("X", "cuda_runtime", e.name, pid_, e.tid, e.ts);
        out_.Raw(", \"dur\": ");
        out_.Us(e.dur);
        out_.Raw(", \"args\": {\"External id\": ");
        out_.Int(static_cast<int64_t>(e.external_id));
        out_.Raw(", \"cbid\": ");
        out_.Int(e.a);
        out_.Raw(", \"correlation\": ");
        out_.Int(static_cast<int64_t>(e.correlation));
        out_.Raw("}}");
        if (e.flow) Flow(true, e.correlation, pid_, e.tid, e.ts);
        return;
      case Kind::kCpuOp:
      case Kind::kUserAnnotation:
        Common("X", e.kind == Kind::kCpuOp ? "cpu_op" : "user_annotation", e.name, pid_, e.tid,
               e.ts);
        out_.Raw(", \"dur\": ");
        out_.Us(e.dur);
        out_.Raw(", \"args\": {\"External id\": ");
        out_.Int(static_cast<int64_t>(e.external_id));
        out_.Raw(", \"Record function id\": 0, \"Ev Idx\": ");
        out_.Int(static_cast<int64_t>(++ev_idx_));
        if (e.kind == Kind::kCpuOp) {
          out_.Raw(", \"Sequence number\": ");
          out_.Int(static_cast<int64_t>(e.external_id / 3));
          out_.Raw(", \"Fwd thread id\": 0");
          out_.Raw(kInputArgs[e.a % 4]);
        }
        out_.Raw("}}");
        return;
    }
  }

  void WriteGpu(const GpuEvent& e) {
    const int64_t pid = device_;
    switch (e.kind) {
      case GpuKind::kKernel: {
        Common("X", "kernel", e.name, pid, e.stream, e.ts);
        out_.Raw(", \"dur\": ");
        out_.Us(e.dur);
        out_.Raw(", \"args\": {\"External id\": ");
        out_.Int(static_cast<int64_t>(e.external_id));
        out_.Raw(", \"queued\": 0, \"device\": ");
        out_.Int(device_);
        out_.Raw(", \"context\": 1, \"stream\": ");
        out_.Int(e.stream);
        out_.Raw(", \"correlation\": ");
        out_.Int(static_cast<int64_t>(e.correlation));
        out_.Raw(", \"registers per thread\": ");
        out_.Int(rng_.Between(16, 128));
        out_.Raw(", \"shared memory\": ");
        out_.Int(rng_.Between(0, 48) * 1024);
        out_.Raw(", \"blocks per SM\": ");
        out_.Fixed3(rng_.Between(100, 40'000));
        out_.Raw(", \"warps per SM\": ");
        out_.Fixed3(rng_.Between(1000, 64'000));
        out_.Raw(", \"grid\": [");
        out_.Int(rng_.LogBetween(1, 8192));
        out_.Raw(", 1, 1], \"block\": [");
        out_.Int(int64_t{32} << rng_.Between(0, 5));
        out_.Raw(", 1, 1], \"est. achieved occupancy %\": ");
        out_.Int(rng_.Between(5, 100));
        out_.Raw("}}");
        break;
      }
      case GpuKind::kMemcpy:
      case GpuKind::kMemset:
        Common("X", e.kind == GpuKind::kMemcpy ? "gpu_memcpy" : "gpu_memset", e.name, pid, e.stream,
               e.ts);
        out_.Raw(", \"dur\": ");
        out_.Us(e.dur);
        out_.Raw(", \"args\": {\"External id\": ");
        out_.Int(static_cast<int64_t>(e.external_id));
        out_.Raw(", \"device\": ");
        out_.Int(device_);
        out_.Raw(", \"context\": 1, \"stream\": ");
        out_.Int(e.stream);
        out_.Raw(", \"correlation\": ");
        out_.Int(static_cast<int64_t>(e.correlation));
        out_.Raw(", \"bytes\": ");
        out_.Int(e.bytes);
        out_.Raw(", \"memory bandwidth (GB/s)\": ");
        out_.Fixed3(e.bytes * 1000 / std::max<int64_t>(e.dur, 1));  // bytes/ns = GB/s
        out_.Raw("}}");
        break;
      case GpuKind::kSync:
        Common("X", "cuda_sync", e.name, pid, e.stream, e.ts);
        out_.Raw(", \"dur\": ");
        out_.Us(e.dur);
        out_.Raw(", \"args\": {\"External id\": ");
        out_.Int(static_cast<int64_t>(e.external_id));
        out_.Raw(", \"cuda_sync_kind\": \"Stream Sync\", \"stream\": ");
        out_.Int(e.stream);
        out_.Raw(", \"correlation\": ");
        out_.Int(static_cast<int64_t>(e.correlation));
        out_.Raw(", \"device\": ");
        out_.Int(device_);
        out_.Raw(", \"context\": 1}}");
        return;  // no flow for syncs
    }
    Flow(false, e.correlation, pid, e.stream, e.ts);
  }

  void Metadata(std::string_view name, int64_t pid, int64_t tid, std::string_view key,
                std::string_view value, bool quoted) {
    Sep();
    out_.Raw("{\"name\": \"");
    out_.Raw(name);
    out_.Raw("\", \"ph\": \"M\", \"ts\": ");
    out_.Us(cpu_ns_);
    out_.Raw(", \"pid\": ");
    out_.Int(pid);
    out_.Raw(", \"tid\": ");
    out_.Int(tid);
    out_.Raw(", \"args\": {\"");
    out_.Raw(key);
    out_.Raw(quoted ? "\": \"" : "\": ");
    out_.Raw(value);
    out_.Raw(quoted ? "\"}}" : "}}");
  }

  void Header() {
    out_.Raw("{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [");
    for (int d = 0; d < 8; ++d) {
      out_.Raw(d == 0 ? "\n    " : ",\n    ");
      out_.Raw("{\"id\": ");
      out_.Int(d);
      out_.Raw(
          ", \"name\": \"NVIDIA A100-SXM4-80GB\", \"totalGlobalMem\": 85198045184, "
          "\"computeMajor\": 8, \"computeMinor\": 0, \"maxThreadsPerBlock\": 1024, "
          "\"maxThreadsPerMultiprocessor\": 2048, \"regsPerBlock\": 65536, "
          "\"regsPerMultiprocessor\": 65536, \"warpSize\": 32, \"sharedMemPerBlock\": 49152, "
          "\"sharedMemPerMultiprocessor\": 167936, \"numSms\": 108, "
          "\"sharedMemPerBlockOptin\": 166912}");
    }
    out_.Raw("\n  ],\n  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": ");
    out_.Int(rank_);
    out_.Raw(", \"world_size\": ");
    out_.Int(world_);
    out_.Raw(
        ", \"pg_count\": 1, \"pg_config\": [{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", "
        "\"backend_config\": \"cuda:nccl\", \"pg_size\": ");
    out_.Int(world_);
    out_.Raw(", \"ranks\": [");
    for (int r = 0; r < world_; ++r) {
      if (r > 0) out_.Raw(", ");
      out_.Int(r);
    }
    out_.Raw("]}], \"nccl_version\": \"2.18.3\"},\n  \"record_shapes\": 1,\n");
    out_.Raw("  \"with_stack\": 1,\n  \"profile_memory\": 1,\n");
    out_.Raw("  \"traceEvents\": [");
    Metadata("process_name", pid_, 0, "name", "python3", true);
    Metadata("process_labels", pid_, 0, "labels", "CPU", true);
    Metadata("process_sort_index", pid_, 0, "sort_index", std::to_string(pid_), false);
    Metadata("process_name", device_, 0, "name", "python3", true);
    Metadata("process_labels", device_, 0, "labels", "GPU " + std::to_string(device_), true);
    Metadata("process_sort_index", device_, 0, "sort_index", std::to_string(16777216 + device_),
             false);
    Metadata("thread_name", pid_, main_tid_, "name",
             "thread " + std::to_string(main_tid_) + " (python3)", true);
    Metadata("thread_name", pid_, backward_tid_, "name",
             "thread " + std::to_string(backward_tid_) + " (pt_autograd_0)", true);
    for (int stream : {kComputeStream, kCommStream}) {
      Metadata("thread_name", device_, stream, "name", "stream " + std::to_string(stream), true);
    }
  }

  void Footer(int64_t start) {
    Sep();
    out_.Raw("{\"ph\": \"X\", \"cat\": \"Trace\", \"ts\": ");
    out_.Us(start);
    out_.Raw(", \"dur\": ");
    out_.Us(cpu_ns_ - start);
    out_.Raw(
        ", \"pid\": \"Spans\", \"tid\": \"PyTorch Profiler\", \"name\": \"PyTorch Profiler "
        "(0)\", \"args\": {\"Op count\": 0}}");
    Sep();
    out_.Raw(
        "{\"name\": \"Iteration Start: PyTorch Profiler\", \"ph\": \"i\", \"s\": \"g\", "
        "\"pid\": \"Traces\", \"tid\": \"Trace PyTorch Profiler\", \"ts\": ");
    out_.Us(start);
    out_.Raw("}");
    out_.Raw("\n  ],\n  \"traceName\": \"synthetic_rank");
    out_.Int(rank_);
    out_.Raw(
        ".json\",\n  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": "
        "1700000000000000000\n}\n");
  }

  static constexpr std::string_view kModuleNames[] = {"nn.Module: Linear_0", "nn.Module: Linear_1",
                                                      "nn.Module: Linear_2", "nn.Module: Linear_3"};
  static constexpr std::string_view kInputArgs[] = {
      ", \"Input Dims\": [[64, 4096], [4096, 4096], [4096]], \"Input type\": [\"float\", "
      "\"float\", \"float\"], \"Concrete Inputs\": [\"\", \"\", \"\"]",
      ", \"Input Dims\": [[64, 4096]], \"Input type\": [\"float\"], \"Concrete Inputs\": [\"\"]",
      ", \"Input Dims\": [[64, 4096], [4096, 4096]], \"Input type\": [\"float\", \"float\"], "
      "\"Concrete Inputs\": [\"\", \"\"]",
      ", \"Input Dims\": [[], [], [], [], [], [], []], \"Input type\": [\"TensorList\", "
      "\"Scalar\", \"Scalar\", \"Scalar\", \"\", \"\", \"\"], \"Concrete Inputs\": [\"\", \"0\", "
      "\"0\", \"1\", \"\", \"\", \"\"]",
  };

  Writer& out_;
  Rng rng_;
  int rank_, world_;
  int64_t pid_, main_tid_, backward_tid_, device_;
  int64_t cpu_ns_ = 5'000'000'000 + 1234;  // ts are relative to baseTimeNanoseconds
  int64_t compute_free_ = 0, comm_free_ = 0;
  uint64_t external_id_ = 0, correlation_ = 0, ev_idx_ = 0;
  int64_t python_id_ = 0;
  int64_t allocated_ = int64_t{2} << 30, reserved_ = int64_t{4} << 30;
  uint64_t next_addr_ = 0x7f0000000000ULL;
  uint64_t step_number_ = 1;
  std::string step_name_;  // of the step being built (its event holds a view)
  std::vector<CpuEvent> cpu_;
  std::vector<GpuEvent> gpu_;
  bool first_ = true;
};

// "1G" = 1e9 bytes, "512M", "64K", "1Gi" = 2^30, plain bytes.
bool ParseSize(std::string_view text, uint64_t& out) {
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data()) return false;
  std::string_view unit(end, static_cast<size_t>(text.data() + text.size() - end));
  const bool binary = unit.size() == 2 && (unit[1] == 'i' || unit[1] == 'I');
  if (!unit.empty() && unit.size() != 1 && !binary) return false;
  uint64_t multiplier = 1;
  if (!unit.empty()) {
    const int power = unit[0] == 'K' || unit[0] == 'k'   ? 1
                      : unit[0] == 'M' || unit[0] == 'm' ? 2
                      : unit[0] == 'G' || unit[0] == 'g' ? 3
                      : unit[0] == 'T' || unit[0] == 't' ? 4
                                                         : 0;
    if (power == 0) return false;
    for (int i = 0; i < power; ++i) multiplier *= binary ? 1024 : 1000;
  }
  out = value * multiplier;
  return out > 0;
}

int Usage(const char* message) {
  std::fprintf(stderr,
               "generate_synthetic_trace: %s\nusage: generate_synthetic_trace --size SIZE "
               "(e.g. 1G = 1e9 bytes, 64Mi) [--ranks N] [--seed S] --out FILE|DIR\n",
               message);
  return 2;
}

int WriteRank(const Options& options, int rank, const std::string& path) {
  const std::string temp = path + ".tmp";
  std::FILE* file = std::fopen(temp.c_str(), "wb");
  if (file == nullptr) {
    std::fprintf(stderr, "generate_synthetic_trace: cannot create %s: %s\n", temp.c_str(),
                 std::strerror(errno));
    return 1;
  }
  Writer writer(file);
  TraceGenerator(writer, options.seed, rank, options.ranks).Write(options.size);
  const bool ok = writer.Finish();
  if (std::fclose(file) != 0 || !ok || std::rename(temp.c_str(), path.c_str()) != 0) {
    std::fprintf(stderr, "generate_synthetic_trace: cannot write %s: %s\n", path.c_str(),
                 std::strerror(errno));
    std::remove(temp.c_str());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (i + 1 >= argc) return Usage(("missing value after " + std::string(arg)).c_str());
    const std::string_view value = argv[++i];
    if (arg == "--size") {
      if (!ParseSize(value, options.size)) return Usage("bad --size");
    } else if (arg == "--ranks") {
      uint64_t ranks = 0;
      if (std::from_chars(value.data(), value.data() + value.size(), ranks).ec != std::errc() ||
          ranks == 0 || ranks > 4096) {
        return Usage("bad --ranks (1..4096)");
      }
      options.ranks = static_cast<int>(ranks);
    } else if (arg == "--seed") {
      if (std::from_chars(value.data(), value.data() + value.size(), options.seed).ec !=
          std::errc()) {
        return Usage("bad --seed");
      }
    } else if (arg == "--out") {
      options.out = value;
    } else {
      return Usage(("unknown option " + std::string(arg)).c_str());
    }
  }
  if (options.size == 0 || options.out.empty()) return Usage("--size and --out are required");
  if (options.ranks == 1) return WriteRank(options, 0, options.out);
  std::error_code error;
  std::filesystem::create_directories(options.out, error);
  if (error) {
    std::fprintf(stderr, "generate_synthetic_trace: cannot create %s: %s\n", options.out.c_str(),
                 error.message().c_str());
    return 1;
  }
  for (int rank = 0; rank < options.ranks; ++rank) {
    const std::string path =
        (std::filesystem::path(options.out) / ("rank-" + std::to_string(rank) + ".json")).string();
    if (const int rc = WriteRank(options, rank, path); rc != 0) return rc;
  }
  return 0;
}
