// Launchers of the device code (compiled by nvcc): plain C++ signatures, so the host code of the
// benchmarks is compiled by the C++ compiler. Each returns the launch's cudaError_t (the last error
// after the launch); none waits for the kernel.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace xpuperf::cuda_bench::kernels {

// ---- timing ----
// Spins until *flag != 0 or timeout_ns of device time have passed; writes 1 to *timed_out when
// the timeout ended it. flag and timed_out are mapped host memory (device pointers).
cudaError_t LaunchSpinWait(const volatile int* flag, int* timed_out, uint64_t timeout_ns,
                           cudaStream_t stream);

// ---- peak FMA ----
enum class FmaType { kFp64, kFp32, kFp16, kBf16 };
// Each of blocks x threads threads runs 8 chains x <- x * m + c for `iterations` steps (packed
// pairs for fp16/bf16) from x0 = 1 + 0.125 j + 0.0625 (thread mod 8), then writes the sum of its
// chains (and lanes) as a double to out[thread].
cudaError_t LaunchFmaChains(FmaType type, double* out, int blocks, int threads, int64_t iterations,
                            double m, double c, cudaStream_t stream);

// ---- memory ----
enum class StreamOp { kCopy, kScale, kAdd, kTriad };
// a[i] = 1 + (i mod 1000) / 1000, b[i] = 2 - (i mod 997) / 1000, c[i] = -1.
cudaError_t LaunchStreamInit(double* a, double* b, double* c, size_t n, cudaStream_t stream);
// copy c = a, scale c = s a, add c = a + b, triad c = a + s b; n even, arrays 16-byte aligned.
cudaError_t LaunchStream(StreamOp op, const double* a, const double* b, double* c, double s,
                         size_t n, int blocks, cudaStream_t stream);
// Adds to *wrong the number of c[i] further than 1e-12 relative from the formula (NaN is wrong).
cudaError_t LaunchStreamVerify(StreamOp op, const double* a, const double* b, const double* c,
                               double s, size_t n, unsigned long long* wrong, cudaStream_t stream);
// data[i] = PatternU32(seed, i).
cudaError_t LaunchFillU32(uint32_t* data, size_t n, uint32_t seed, cudaStream_t stream);
// Reads the n_vec 16-byte vectors `passes` times through the L2 (bypassing L1) and adds the 32-bit
// wrapping sum of every word read to *sum.
cudaError_t LaunchReadSum(const void* data, size_t n_vec, int passes, unsigned int* sum, int blocks,
                          cudaStream_t stream);
// dst = src with a kernel (16-byte accesses where both are aligned), grid-stride.
cudaError_t LaunchCopy(void* dst, const void* src, size_t bytes, int blocks, cudaStream_t stream);
// Two copies in one kernel, half of the blocks each.
cudaError_t LaunchDualCopy(void* dst1, const void* src1, void* dst2, const void* src2, size_t bytes,
                           int blocks, cudaStream_t stream);
// Byte i = PatternByte(seed, i).
cudaError_t LaunchFillBytes(void* data, size_t bytes, uint64_t seed, cudaStream_t stream);
// Adds to *wrong the number of 8-byte words holding a wrong byte, and lowers *first_wrong to the
// first such byte offset.
cudaError_t LaunchVerifyBytes(const void* data, size_t bytes, uint64_t seed,
                              unsigned long long* wrong, unsigned long long* first_wrong,
                              cudaStream_t stream);
// data[i] = a + b (((offset + i) mod 97) + 1) for i < count (the collectives' pattern).
cudaError_t LaunchFillPattern(float* data, uint64_t count, float a, float b, uint64_t offset,
                              cudaStream_t stream);
// Adds to *wrong the number of elements that differ from that pattern.
cudaError_t LaunchCheckPattern(const float* data, uint64_t count, float a, float b, uint64_t offset,
                               unsigned long long* wrong, cudaStream_t stream);

// ---- GEMM ----
enum class ElementType { kF64, kF32, kF16, kBf16, kFp8E4M3 };
// n values drawn uniformly from [-1, 1) by a hash of (seed, i).
cudaError_t LaunchFillUniform(ElementType type, void* data, size_t n, uint64_t seed,
                              cudaStream_t stream);
// Recomputes `samples` entries of D = A^T B in double (A stored k x m column-major, B k x n
// column-major, D m x n column-major) and counts those with
// |D - ref| > accumulation_tolerance x sum |a b| + output_tolerance x |ref| (NaN counts).
// *max_relative receives the largest |D - ref| / sum |a b| as a double bit pattern.
cudaError_t LaunchGemmCheck(ElementType in, ElementType out, const void* a, const void* b,
                            const void* d, int64_t m, int64_t n, int64_t k, int samples,
                            uint64_t seed, double accumulation_tolerance, double output_tolerance,
                            unsigned long long* wrong, unsigned long long* max_relative,
                            cudaStream_t stream);

// ---- attention ----
// Flash attention forward, bf16 Q, K, V, O of [batch_heads, seq, head_dim] (head_dim 64 or 128,
// seq a multiple of 64), fp32 softmax and accumulation, O = softmax(Q K^T scale [causal mask]) V.
cudaError_t LaunchFlashAttention(const void* q, const void* k, const void* v, void* o,
                                 int64_t batch_heads, int64_t seq, int head_dim, bool causal,
                                 float scale, cudaStream_t stream);
// The plain version: one block per query row, scores in shared memory, fp32 output.
cudaError_t LaunchAttentionReference(const void* q, const void* k, const void* v, float* o,
                                     int64_t batch_heads, int64_t seq, int head_dim, bool causal,
                                     float scale, cudaStream_t stream);

// ---- memory test (diag) ----
// data[i] = MemoryTestWord(pattern, i, seed) (xpuperf/cuda_bench/memory_test_patterns.h).
cudaError_t LaunchMemtestFill(uint64_t* data, size_t words, int pattern, uint64_t seed,
                              cudaStream_t stream);
// Adds to *wrong the number of words that differ from the pattern and lowers *first_wrong to the
// index of the first such word.
cudaError_t LaunchMemtestVerify(const uint64_t* data, size_t words, int pattern, uint64_t seed,
                                unsigned long long* wrong, unsigned long long* first_wrong,
                                cudaStream_t stream);

}  // namespace xpuperf::cuda_bench::kernels
