// oneDNN's matmul primitive (the CPU GEMM PyTorch uses), with libdnnl opened at run time: C = A B,
// row-major, fp32 x fp32 -> fp32, bf16 x bf16 -> fp32 or u8 x s8 -> s32. One object per shape and
// precision; Execute is not thread-safe (oneDNN runs its own OpenMP team inside it).
#pragma once

#include <memory>
#include <string>

#include "xpuperf/bench/fma_kernels.h"
#include "xpuperf/bench/gemm.h"
#include "xpuperf/core/status.h"

namespace xpuperf::bench {

class OneDnnMatmul {
 public:
  // kUnsupported when libdnnl.so.2 is missing, this build has no oneDNN headers, the precision
  // has no oneDNN matmul, or oneDNN has no implementation for this CPU ("unsupported: oneDNN has
  // no bf16 matmul for this CPU").
  static Result<std::unique_ptr<OneDnnMatmul>> Create(Precision precision, const GemmShape& shape);
  virtual ~OneDnnMatmul() = default;
  // Runs the primitive on the buffers (A m x k, B k x n, C m x n of the precision's element types)
  // and waits for it. kInternal with oneDNN's status on failure.
  virtual Status Execute(const void* a, const void* b, void* c) = 0;
  // oneDNN's name for the implementation it chose ("brg:avx512_core_bf16", "gemm:jit").
  virtual std::string implementation() const = 0;
};

// "oneDNN 2.6.3 (libdnnl.so.2, cpu runtime OpenMP)", or why it is unavailable.
std::string OneDnnVersion();

}  // namespace xpuperf::bench
