// The inflaters side by side on one gzip file (default: the largest real trace in
// XPUPERF_TRACE_DIR; XPUPERF_INFLATE_FILE=PATH picks another): zlib (what InflateGzip uses today),
// libdeflate on the whole member, and ISA-L's streaming isal_inflate with a bounded output window.
// Each iteration inflates the whole file into a buffer allocated once; bytes_per_second counts
// decompressed bytes. The output of each is checked against zlib's before timing.
#include <benchmark/benchmark.h>
#include <isa-l/igzip_lib.h>
#include <libdeflate.h>
#include <zlib.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

const std::string& Compressed() {
  static const std::string data = [] {
    const char* chosen = std::getenv("XPUPERF_INFLATE_FILE");
    return ReadAll(chosen ? chosen : XPUPERF_TRACE_DIR "/trace_filter__sampled_rank-0.json.gz");
  }();
  return data;
}

// zlib, as core/input_file.cpp calls it (gzip wrapper, multi-member); returns bytes produced.
size_t InflateZlib(const std::string& in, std::string& out) {
  z_stream zs{};
  inflateInit2(&zs, 15 + 32);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  const int rc = inflate(&zs, Z_FINISH);
  const size_t produced = zs.total_out;
  inflateEnd(&zs);
  return rc == Z_STREAM_END ? produced : 0;
}

size_t InflateLibdeflate(libdeflate_decompressor* d, const std::string& in, std::string& out) {
  size_t used = 0, produced = 0;
  const auto rc = libdeflate_gzip_decompress_ex(d, in.data(), in.size(), out.data(), out.size(),
                                                &used, &produced);
  return rc == LIBDEFLATE_SUCCESS ? produced : 0;
}

// ISA-L streaming, at most `window` bytes of output per call (the cancellation granularity).
size_t InflateIsal(inflate_state& state, const std::string& in, std::string& out, size_t window) {
  isal_inflate_init(&state);
  state.crc_flag = ISAL_GZIP;
  state.next_in = reinterpret_cast<uint8_t*>(const_cast<char*>(in.data()));
  state.avail_in = static_cast<uint32_t>(in.size());
  size_t produced = 0;
  while (state.block_state != ISAL_BLOCK_FINISH) {
    const size_t room = std::min(out.size() - produced, window);
    if (room == 0) return 0;
    state.next_out = reinterpret_cast<uint8_t*>(out.data() + produced);
    state.avail_out = static_cast<uint32_t>(room);
    if (isal_inflate(&state) != ISAL_DECOMP_OK) return 0;
    produced += room - state.avail_out;
    if (state.avail_in == 0 && state.block_state != ISAL_BLOCK_FINISH && state.avail_out != 0) {
      return 0;  // truncated
    }
  }
  return produced;
}

template <typename Inflate>
void Run(benchmark::State& state, Inflate inflate) {
  const std::string& in = Compressed();
  std::string reference(in.size() * 64 + 1024, '\0');
  const size_t size = InflateZlib(in, reference);
  if (in.empty() || size == 0) {
    state.SkipWithError("cannot read or inflate the input (set XPUPERF_INFLATE_FILE)");
    return;
  }
  reference.resize(size);
  std::string out(size + 1024, '\0');
  if (inflate(in, out) != size || out.compare(0, size, reference) != 0) {
    state.SkipWithError("output differs from zlib's");
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(inflate(in, out));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * size));
  state.counters["ratio"] = static_cast<double>(size) / static_cast<double>(in.size());
}

void BM_InflateZlib(benchmark::State& state) { Run(state, InflateZlib); }

void BM_InflateLibdeflate(benchmark::State& state) {
  libdeflate_decompressor* d = libdeflate_alloc_decompressor();
  Run(state,
      [d](const std::string& in, std::string& out) { return InflateLibdeflate(d, in, out); });
  libdeflate_free_decompressor(d);
}

void BM_InflateIsal(benchmark::State& state) {
  auto* s = new inflate_state;
  const size_t window = static_cast<size_t>(state.range(0));
  Run(state,
      [&](const std::string& in, std::string& out) { return InflateIsal(*s, in, out, window); });
  delete s;
}

BENCHMARK(BM_InflateZlib)->MinTime(2);
BENCHMARK(BM_InflateLibdeflate)->MinTime(2);
BENCHMARK(BM_InflateIsal)->ArgName("window")->Arg(1 << 20)->Arg(64 << 20)->MinTime(2);

}  // namespace
