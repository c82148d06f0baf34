// The oneDNN GEMM baseline: the matmul primitive xpuperf's gemm benchmark creates (plain row-major
// A m x k, B k x n, C m x n; fp32, bf16 -> fp32, u8 x s8 -> s32), executed directly in a timed
// loop with oneDNN linked normally, so `xpuperf bench` can be compared with it
// (scripts/bench-compare.sh). Usage: onednn_gemm_direct fp32|bf16|int8 M N K [SAMPLES].
// Prints the median GFLOP/s (GOP/s for int8), 2 m n k operations per call.
#include <oneapi/dnnl/dnnl.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "bare_loop_timing.h"

namespace {

// Bytes starting a page, zeroed, as xpuperf allocates its matrices
// (bench/src/page_aligned_array.h), so that neither side's timing depends on where the heap happens
// to put them.
class PageBuffer {
 public:
  explicit PageBuffer(size_t size)
      : size_(size),
        data_(static_cast<unsigned char*>(std::aligned_alloc(4096, (size + 4095) / 4096 * 4096))) {
    if (data_ == nullptr) {
      std::fprintf(stderr, "onednn_gemm_direct: out of memory\n");
      std::exit(1);
    }
    std::memset(data_, 0, size_);
  }
  ~PageBuffer() { std::free(data_); }
  PageBuffer(const PageBuffer&) = delete;
  PageBuffer& operator=(const PageBuffer&) = delete;
  size_t size() const { return size_; }
  unsigned char* data() { return data_; }
  unsigned char& operator[](size_t i) { return data_[i]; }

 private:
  size_t size_;
  unsigned char* data_;
};

void Check(dnnl_status_t status, const char* what) {
  if (status != dnnl_success) {
    std::fprintf(stderr, "onednn_gemm_direct: %s failed (status %d)\n", what, status);
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s fp32|bf16|int8 M N K [SAMPLES]\n", argv[0]);
    return 2;
  }
  const std::string precision = argv[1];
  const long m = std::atol(argv[2]), n = std::atol(argv[3]), k = std::atol(argv[4]);
  const int samples = argc > 5 ? std::atoi(argv[5]) : 10;
  if (m < 1 || n < 1 || k < 1 || m > 65536 || n > 65536 || k > 65536 || samples < 1 ||
      (precision != "fp32" && precision != "bf16" && precision != "int8")) {
    std::fprintf(stderr, "%s: bad arguments\n", argv[0]);
    return 2;
  }
  dnnl_data_type_t at = dnnl_f32, bt = dnnl_f32, ct = dnnl_f32;
  size_t ab_bytes = 4, c_bytes = 4;
  if (precision == "bf16") {
    at = bt = dnnl_bf16;
    ab_bytes = 2;
  } else if (precision == "int8") {
    at = dnnl_u8;
    bt = dnnl_s8;
    ct = dnnl_s32;
    ab_bytes = 1;
  }
  // Patterned data (small values: exact in every type); the benchmark verifies, this only times.
  PageBuffer a(m * k * ab_bytes), b(k * n * ab_bytes), c(m * n * c_bytes);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<unsigned char>((i * 7) % 61);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<unsigned char>((i * 5) % 59);
  if (precision != "int8") {
    // Valid floating-point values: bf16 0x3f80 (1.0) / fp32 1.0f scaled patterns.
    for (size_t i = 0; i + ab_bytes <= a.size(); i += ab_bytes) {
      if (ab_bytes == 2) {
        const unsigned short v = static_cast<unsigned short>(0x3f80 + (i / 2) % 64);
        std::memcpy(&a[i], &v, 2);
      } else {
        const float v = 1.0f + static_cast<float>((i / 4) % 64) / 64;
        std::memcpy(&a[i], &v, 4);
      }
    }
    for (size_t i = 0; i + ab_bytes <= b.size(); i += ab_bytes) {
      if (ab_bytes == 2) {
        const unsigned short v = static_cast<unsigned short>(0xbf80 + (i / 2) % 32);
        std::memcpy(&b[i], &v, 2);
      } else {
        const float v = -1.0f + static_cast<float>((i / 4) % 32) / 32;
        std::memcpy(&b[i], &v, 4);
      }
    }
  }
  dnnl_engine_t engine;
  dnnl_stream_t stream;
  Check(dnnl_engine_create(&engine, dnnl_cpu, 0), "engine");
  Check(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags), "stream");
  const dnnl_dims_t ad = {m, k}, bd = {k, n}, cd = {m, n};
  dnnl_memory_desc_t amd, bmd, cmd;
  Check(dnnl_memory_desc_init_by_tag(&amd, 2, ad, at, dnnl_ab), "md");
  Check(dnnl_memory_desc_init_by_tag(&bmd, 2, bd, bt, dnnl_ab), "md");
  Check(dnnl_memory_desc_init_by_tag(&cmd, 2, cd, ct, dnnl_ab), "md");
  dnnl_matmul_desc_t desc;
  Check(dnnl_matmul_desc_init(&desc, &amd, &bmd, nullptr, &cmd), "matmul desc");
  dnnl_primitive_desc_t pd;
  const dnnl_status_t created = dnnl_primitive_desc_create(&pd, &desc, nullptr, engine, nullptr);
  if (created == dnnl_unimplemented) {
    std::printf("onednn direct %s: unsupported: oneDNN has no %s matmul for this CPU\n",
                precision.c_str(), precision.c_str());
    return 0;
  }
  Check(created, "primitive desc");
  const char* impl = "";
  dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
  dnnl_primitive_t matmul;
  Check(dnnl_primitive_create(&matmul, pd), "primitive");
  dnnl_memory_t am, bm, cm;
  Check(dnnl_memory_create(&am, &amd, engine, a.data()), "memory");
  Check(dnnl_memory_create(&bm, &bmd, engine, b.data()), "memory");
  Check(dnnl_memory_create(&cm, &cmd, engine, c.data()), "memory");
  const dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}};
  const auto gemm = [&] {
    Check(dnnl_primitive_execute(matmul, stream, 3, args), "execute");
    Check(dnnl_stream_wait(stream), "wait");
  };
  const double median = MedianSecondsPerRepetition(gemm, samples);
  const double rate =
      2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) / median / 1e9;
  std::printf("onednn direct %s m=%ld n=%ld k=%ld: %.2f %s (median of %d, %s)\n", precision.c_str(),
              m, n, k, rate, precision == "int8" ? "GOP/s" : "GFLOP/s", samples, impl);
  dnnl_memory_destroy(am);
  dnnl_memory_destroy(bm);
  dnnl_memory_destroy(cm);
  dnnl_primitive_destroy(matmul);
  dnnl_primitive_desc_destroy(pd);
  dnnl_stream_destroy(stream);
  dnnl_engine_destroy(engine);
  return 0;
}
