// libFuzzer target for the trace reader: any bytes must give a Trace or an error, never a crash; a
// trace that parses is also run through every analysis. Small chunks exercise the chunk cutter.
// On valid JSON (simdjson's DOM parser validates all of it) the guessed chunk ends must give what
// the exact scan gives: the same events, or the same error. Malformed JSON may be read leniently
// by either (simdjson's on-demand parser skips unread values by counting brackets).
#include <simdjson.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "inflating_text.h"
#include "xpuperf/core/input_file.h"
#include "xpuperf/trace/hta_analyses.h"
#include "xpuperf/trace/hta_convention.h"
#include "xpuperf/trace/memory_timeline.h"
#include "xpuperf/trace/model_flops.h"
#include "xpuperf/trace/reader.h"
#include "xpuperf/trace/report.h"
#include "xpuperf/trace/trace_wire.h"

// The MPI transport's encoding (trace_wire.h): what parses encodes, decodes and encodes again to
// the same bytes; the raw input read as a message is an error or a trace, never a crash.
static void CheckWire(const xpuperf::trace::Trace& trace) {
  const std::string bytes = xpuperf::trace::EncodeTrace(trace);
  auto decoded = xpuperf::trace::DecodeTrace(bytes);
  if (!decoded.ok() || xpuperf::trace::EncodeTrace(*decoded) != bytes) std::abort();
}

static void RunAnalyses(xpuperf::trace::Trace trace) {
  CheckWire(trace);
  // As HTA reads it with include_last_profiler_step=True (the filter that keeps the last step),
  // on a copy (a Trace is move-only: the copy is its wire form decoded).
  auto copy = xpuperf::trace::DecodeTrace(xpuperf::trace::EncodeTrace(trace));
  if (!copy.ok()) std::abort();
  xpuperf::trace::TraceRun included;
  included.ranks.push_back(std::move(*copy));
  (void)xpuperf::trace::ApplyHtaConvention(included, xpuperf::trace::HtaLastStep::kInclude);
  CheckWire(included.ranks[0]);
  xpuperf::trace::TraceRun run;
  run.ranks.push_back(std::move(trace));
  // With peaks, so that the MFU arithmetic runs too (model_flops.h).
  xpuperf::trace::PeakFlops peaks;
  peaks.source = "fuzz";
  peaks.per_precision = {{"fp32", 19.5e12}, {"tf32", 156e12}, {"bf16", 312e12}, {"fp64", 9.7e12}};
  auto report = xpuperf::trace::AnalyzeRun(run, 5, {}, {}, &peaks);
  (void)xpuperf::trace::ToJson(report).dump();
  // Then as HTA reads it (row selection, rounding, index_correlation, the last step's drop).
  (void)xpuperf::trace::ApplyHtaConvention(run);
  const xpuperf::trace::Trace& hta = run.ranks[0];
  CheckWire(hta);  // with HTA's frame columns (iterations, symbols, ranges)
  (void)xpuperf::trace::ComputeHtaTemporalBreakdown(hta);
  // HTA's own tables (hta_analyses.h).
  (void)xpuperf::trace::ComputeHtaCommCompOverlap(hta);
  (void)xpuperf::trace::ComputeHtaKernelTypes(hta);
  (void)xpuperf::trace::ComputeHtaKernels(hta, 3, 0.8);
  (void)xpuperf::trace::ComputeHtaIdleTime(hta);
  (void)xpuperf::trace::ComputeHtaLaunchStats(hta);
  (void)xpuperf::trace::ComputeHtaQueueLength(hta);
  (void)xpuperf::trace::ComputeHtaMemoryBandwidth(hta);
}

// A gzip input that inflated is also read the way a large .json.gz file is, inflated on a second
// thread while it is parsed (inflating_text.h; a small window so the reader waits and releases):
// it gives the trace the whole text gives, or the same failure, or nullopt (text not the size
// the trailer states: the whole read then decides).
static void CheckStreamed(std::string_view gz, std::string_view text) {
  char path[] = "/tmp/xpuperf-fuzz-XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) return;
  const bool written = write(fd, gz.data(), gz.size()) == static_cast<ssize_t>(gz.size());
  close(fd);
  if (written) {
    auto streamed = xpuperf::trace::internal::ReadStreamedGzip(path, {0, 4096});
    xpuperf::trace::ParseOptions options;
    auto whole = xpuperf::trace::ParseTrace(text, path, options);
    if (streamed.ok() && streamed->has_value()) {
      if (!whole.ok() || (*streamed)->events.size() != whole->events.size()) std::abort();
    } else if (!streamed.ok() && whole.ok()) {
      std::abort();  // the inflater failed where InflateBothWays succeeded, or the parse did
    }
  }
  unlink(path);
}

// Gzip input: both inflaters must agree (the same bytes, or both fail with the same error code),
// and what inflates is then read as a trace. The cap is small so bombs stay cheap.
static bool InflateBothWays(std::string_view gz, std::string& text) {
  constexpr uint64_t kCap = 1 << 20;
  auto zlib = xpuperf::InflateGzip(gz, "fuzz", kCap, xpuperf::InflateEngine::kZlib);
  if (xpuperf::HaveIsal()) {
    auto isal = xpuperf::InflateGzip(gz, "fuzz", kCap, xpuperf::InflateEngine::kIsal);
    if (zlib.ok() != isal.ok()) std::abort();
    if (zlib.ok() && *zlib != *isal) std::abort();
    if (!zlib.ok() && zlib.error().code != isal.error().code) std::abort();
  }
  if (!zlib.ok()) return false;
  text = std::move(zlib).value();
  return true;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)xpuperf::trace::DecodeTrace(text);
  std::string inflated;
  if (xpuperf::IsGzip(text)) {
    if (!InflateBothWays(text, inflated)) return 0;
    CheckStreamed(text, inflated);
    text = inflated;
  }
  if (xpuperf::trace::LooksLikeMemoryTimeline(text)) {
    (void)xpuperf::trace::ParseMemoryTimeline(text, "fuzz");
    return 0;
  }
  xpuperf::trace::ParseOptions options;
  options.chunk_bytes = 64;
  auto trace = xpuperf::trace::ParseTrace(text, "fuzz", options);
  options.guess_chunk_ends = false;
  auto exact = xpuperf::trace::ParseTrace(text, "fuzz", options);
  // Parsed in place, in a writable copy: the same outcome, and the text as it was.
  {
    std::string writable(text);
    xpuperf::trace::ParseOptions in_place;
    in_place.chunk_bytes = 64;
    in_place.writable_text = true;
    auto parsed = xpuperf::trace::ParseTrace(writable, "fuzz", in_place);
    if (writable != text || parsed.ok() != trace.ok()) std::abort();
    if (parsed.ok() && parsed->events.size() != trace->events.size()) std::abort();
    if (!parsed.ok() && parsed.error().message != trace.error().message) std::abort();
    // And with writable zeros past the end (a mapped file's), the last chunk in place too.
    std::string padded = std::string(text) + std::string(128, '\0');
    in_place.writable_padding = 128;
    auto last =
        xpuperf::trace::ParseTrace(std::string_view(padded.data(), text.size()), "fuzz", in_place);
    if (padded.compare(0, text.size(), text) != 0 ||
        padded.find_first_not_of('\0', text.size()) != std::string::npos) {
      std::abort();
    }
    if (last.ok() != trace.ok()) std::abort();
    if (last.ok() && last->events.size() != trace->events.size()) std::abort();
    if (!last.ok() && last.error().message != trace.error().message) std::abort();
  }
  simdjson::dom::parser validator;
  simdjson::dom::element root;
  bool valid_json = !validator.parse(simdjson::padded_string(text)).get(root);
  if (!valid_json) {
    if (trace.ok()) RunAnalyses(std::move(trace).value());
    if (exact.ok()) RunAnalyses(std::move(exact).value());
    return 0;
  }
  if (trace.ok() != exact.ok()) std::abort();
  if (!trace.ok()) {
    if (trace.error().message != exact.error().message) std::abort();
    return 0;
  }
  if (trace->events.size() != exact->events.size() ||
      trace->memory.size() != exact->memory.size() ||
      trace->skipped_events != exact->skipped_events || trace->flow_events != exact->flow_events ||
      trace->elements_without_ts != exact->elements_without_ts ||
      trace->memory_bandwidth_gbps != exact->memory_bandwidth_gbps ||
      trace->event_waits != exact->event_waits)
    std::abort();
  for (size_t i = 0; i < trace->events.size(); ++i) {
    const auto& a = trace->events[i];
    const auto& b = exact->events[i];
    if (a.ts_ns != b.ts_ns || a.dur_ns != b.dur_ns || a.file_index != b.file_index ||
        trace->Name(a) != exact->Name(b))
      std::abort();
  }
  RunAnalyses(std::move(trace).value());
  return 0;
}
