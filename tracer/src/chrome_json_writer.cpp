#include "chrome_json_writer.h"

#include <bit>
#include <charconv>
#include <cmath>

#include "name_text.h"
#include "xpuperf/core/version.h"
#include "xpuperf/tracer/tracer.h"

namespace xpuperf::tracer::detail {
namespace {

constexpr size_t kSpillBytes = size_t{1} << 20;
// "cpu_op", as PyTorch names CPU operators: `xpuperf analyze` (like HTA) gives per-operator CPU
// time for that category.
constexpr std::string_view kDefaultCategory = "cpu_op";

int KindIndex(EventKind kind) {
  switch (kind) {
    case EventKind::kCounter:
    case EventKind::kCounterDynamic:
      return 1;
    case EventKind::kInstant:
    case EventKind::kInstantDynamic:
      return 2;
    default:
      return 0;
  }
}

char PhaseOf(EventKind kind) {
  switch (kind) {
    case EventKind::kCounter:
    case EventKind::kCounterDynamic:
      return 'C';
    case EventKind::kInstant:
    case EventKind::kInstantDynamic:
      return 'i';
    default:
      return 'X';
  }
}

std::string_view CategoryOf(const char* category) {
  return category == nullptr ? kDefaultCategory : std::string_view(category);
}

}  // namespace

int64_t TickConversion::ToNs(uint64_t ticks) const {
  if (ticks <= start_ticks) return 0;
  return std::llround(static_cast<double>(ticks - start_ticks) * ns_per_tick);
}

ChromeJsonWriter::ChromeJsonWriter(std::FILE* file, uint32_t pid, TickConversion conversion)
    : file_(file), pid_(pid), conversion_(conversion) {
  buffer_.reserve(kSpillBytes + size_t{64} * 1024);
  buffer_ += "{\"traceEvents\":[\n";
}

void ChromeJsonWriter::AppendUint(uint64_t value) {
  char text[24];
  const auto end = std::to_chars(text, text + sizeof text, value).ptr;
  buffer_.append(text, end);
}

void ChromeJsonWriter::AppendTimestamp(int64_t ns) {
  const auto u = static_cast<uint64_t>(ns < 0 ? 0 : ns);
  AppendUint(u / 1000);
  const auto frac = static_cast<unsigned>(u % 1000);
  const char digits[4] = {'.', static_cast<char>('0' + frac / 100),
                          static_cast<char>('0' + frac / 10 % 10),
                          static_cast<char>('0' + frac % 10)};
  buffer_.append(digits, 4);
}

void ChromeJsonWriter::AppendPrefix(std::string& out, char phase, std::string_view category,
                                    std::string_view name) {
  out += "{\"ph\":\"";
  out += phase;
  out += "\",";
  if (phase == 'i') out += "\"s\":\"t\",";
  if (phase != 'C') {
    out += "\"cat\":\"";
    AppendJsonEscaped(out, category);
    out += "\",";
  }
  out += "\"name\":\"";
  AppendJsonEscaped(out, name);
  out += "\",\"pid\":";
  out += std::to_string(pid_);
  out += ",\"tid\":";
}

const std::string& ChromeJsonWriter::SitePrefix(const void* ref, EventKind kind) {
  auto& cache = prefixes_[KindIndex(kind)];
  auto [it, inserted] = cache.try_emplace(ref);
  if (inserted) {
    const auto* site = static_cast<const Site*>(ref);
    AppendPrefix(it->second, PhaseOf(kind), CategoryOf(site->category), site->name);
  }
  return it->second;
}

void ChromeJsonWriter::StartEvent() {
  if (!first_event_) buffer_ += ",\n";
  first_event_ = false;
  ++events_written_;
}

void ChromeJsonWriter::WriteEvents(uint32_t tid, const Event* events, uint32_t from, uint32_t to) {
  if (from < to) tids_.insert(tid);
  std::string dynamic_prefix;
  for (uint32_t i = from; i < to;) {
    const Event& e = events[i];
    const uint32_t name_slots = NameSlots(e.name_bytes);
    StartEvent();
    if (e.kind == EventKind::kCompleteDynamic || e.kind == EventKind::kInstantDynamic ||
        e.kind == EventKind::kCounterDynamic) {
      const std::string_view name(reinterpret_cast<const char*>(&events[i + 1]), e.name_bytes);
      dynamic_prefix.clear();
      const auto* category =
          e.kind == EventKind::kCounterDynamic ? nullptr : static_cast<const char*>(e.ref);
      AppendPrefix(dynamic_prefix, PhaseOf(e.kind), CategoryOf(category), name);
      buffer_ += dynamic_prefix;
    } else {
      buffer_ += SitePrefix(e.ref, e.kind);
    }
    AppendUint(tid);
    buffer_ += ",\"ts\":";
    const int64_t begin_ns = conversion_.ToNs(e.begin_ticks);
    AppendTimestamp(begin_ns);
    switch (e.kind) {
      case EventKind::kComplete:
      case EventKind::kCompleteDynamic:
        buffer_ += ",\"dur\":";
        AppendTimestamp(conversion_.ToNs(e.end_ticks_or_value) - begin_ns);
        buffer_ += '}';
        break;
      case EventKind::kCounter:
      case EventKind::kCounterDynamic: {
        buffer_ += ",\"args\":{\"value\":";
        char text[32];
        const double value = std::bit_cast<double>(e.end_ticks_or_value);
        buffer_.append(text, std::to_chars(text, text + sizeof text, value).ptr);
        buffer_ += "}}";
        break;
      }
      default:
        buffer_ += '}';
    }
    i += 1 + name_slots;
    MaybeSpill();
  }
}

void ChromeJsonWriter::WriteTail(const TraceTail& tail) {
  std::string line;
  const auto metadata = [&](std::string_view what, uint32_t tid, std::string_view name) {
    if (!first_event_) buffer_ += ",\n";
    first_event_ = false;
    buffer_ += "{\"ph\":\"M\",\"name\":\"";
    buffer_ += what;
    buffer_ += "\",\"pid\":";
    AppendUint(pid_);
    buffer_ += ",\"tid\":";
    AppendUint(tid);
    buffer_ += ",\"args\":{\"name\":\"";
    AppendJsonEscaped(buffer_, name);
    buffer_ += "\"}}";
  };
  metadata("process_name", 0, tail.process_name);
  for (const auto& [tid, name] : tail.thread_names) {
    if (tids_.count(tid) != 0) metadata("thread_name", tid, name);
  }
  buffer_ += "\n],\n\"displayTimeUnit\":\"ns\",\n\"baseTimeNanoseconds\":";
  AppendUint(static_cast<uint64_t>(tail.base_time_ns));
  buffer_ += ",\n\"traceName\":\"";
  AppendJsonEscaped(buffer_, tail.trace_name);
  buffer_ += "\",\n\"metadata\":{\"producer\":\"xpuperf ";
  buffer_ += kVersion;
  buffer_ += "\",\"clock\":\"";
  buffer_ += tail.clock;
  buffer_ += "\",\"ns_per_tick\":";
  char text[32];
  buffer_.append(text, std::to_chars(text, text + sizeof text, tail.ns_per_tick).ptr);
  buffer_ += ",\"events_written\":";
  AppendUint(events_written_);
  buffer_ += ",\"dropped_events\":";
  AppendUint(tail.dropped_events);
  buffer_ += "}\n}\n";
}

void ChromeJsonWriter::MaybeSpill() {
  if (buffer_.size() >= kSpillBytes) {
    if (ok_ && std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) ok_ = false;
    buffer_.clear();
  }
}

bool ChromeJsonWriter::Flush() {
  if (ok_ && !buffer_.empty() &&
      std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) {
    ok_ = false;
  }
  buffer_.clear();
  if (ok_ && std::fflush(file_) != 0) ok_ = false;
  return ok_;
}

}  // namespace xpuperf::tracer::detail
