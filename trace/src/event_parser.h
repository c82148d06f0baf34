// Internal: turns chunks of the traceEvents array into TraceEvents with simdjson on-demand.
#pragma once

#include <simdjson.h>

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "xpuperf/core/status.h"
#include "xpuperf/trace/trace.h"

namespace xpuperf::trace::internal {

// Decimal microseconds ("1694039968933321", "12.345678", "1e3") to integer nanoseconds, exactly for
// plain decimals. False when the text is not a number. `written_fractional`, when given, is set
// when the text has a fraction or an exponent (HTA's pandas then reads the column as floats).
// `readable_past_end`: bytes past the text that may be read (a padded parse buffer), so that
// digits are read eight at a time up to its end.
bool MicrosTextToNanos(std::string_view text, int64_t* nanos, bool* written_fractional = nullptr,
                       size_t readable_past_end = 0);

// True for CPU ops whose inputs define a matrix product (their Input Dims are kept).
bool IsGemmOpName(std::string_view name);
// True for CPU ops whose input dtype is kept (the FLOP-counting ops of model_flops.h).
bool NeedsInputType(std::string_view name);

// Sorts by start time; at equal start the longer event first, then file order.
void SortEventsByStart(std::vector<TraceEvent>& events);

class EventParser {
 public:
  explicit EventParser(Trace& trace);

  // Parses the events of `chunk`, the text between two commas of the traceEvents array (whole
  // events only); `file_offset` is where the chunk starts in the file, for error messages.
  Status ParseChunk(std::string_view chunk, size_t file_offset);
  // The same without a copy: `chunk` lies in writable text whose bytes just before and just after
  // it are a ',' or '[' and a ',' or ']', followed by at least SIMDJSON_PADDING readable bytes.
  // Those two bytes become '[' and ']', and the padding spaces, while simdjson reads the chunk;
  // all are then restored.
  Status ParseChunkInPlace(char* chunk, size_t size, size_t file_offset);
  // What the events parsed so far added to the trace, to undo a chunk that turned out not to be
  // one (strings interned meanwhile stay; nothing refers to them). Process names are idempotent.
  struct Checkpoint {
    size_t events, memory, dims;
    int64_t flow_events, skipped_events, metadata_events, elements_without_ts;
    size_t memory_bandwidth, event_waits;
    std::unordered_map<uint64_t, std::vector<uint32_t>> open_begins;
    int64_t dropped_begins;
    uint64_t next_file_index;
  };
  Checkpoint Mark() const;
  void Rollback(const Checkpoint& mark);
  // After the last chunk: drops begin events never ended, sorts the events by start and settles
  // the format.
  void Finish();

 private:
  Status ParseEvent(simdjson::ondemand::object& object);
  // A legacy duration pair: 'B' events wait in trace_.events (phase 'B') on their thread's stack;
  // the 'E' of the same pid and tid closes the innermost one, which becomes a complete ('X') event.
  void BeginDuration(uint32_t index);
  void EndDuration(int32_t pid, int32_t tid, int64_t ts_ns);
  EventKind KindOfCategory(uint32_t category);
  int32_t InternId(std::string_view text);
  // Intern() behind a small direct-mapped cache: event names repeat millions of times, and a
  // cache hit costs one compare instead of hashing the whole (often 100-byte) kernel name.
  uint32_t InternName(std::string_view text);
  // Parses the document "[" chunk "]" at `document` (`capacity` readable bytes, padding included).
  Status ParseDocument(const char* document, size_t capacity, std::string_view chunk,
                       size_t file_offset);
  Error ChunkError(simdjson::error_code code, size_t file_offset, std::string_view chunk,
                   const char* location);

  Trace& trace_;
  simdjson::ondemand::parser parser_;
  std::vector<char> buffer_;           // "[" + chunk + "]" + padding (chunks parsed as copies)
  const char* document_ = nullptr;     // where the chunk being parsed starts, less its '['
  std::vector<int8_t> category_kind_;  // by category string id; -1 = not classified yet
  // What an operator name asks of its args, by name string id: its Input Dims (the FLOP-counting
  // ops of model_flops.h), its Input type, its Concrete Inputs (convolutions).
  enum NameFlag : uint8_t {
    kClassified = 1,
    kShapeName = 2,
    kInputTypeName = 4,
    kConcreteName = 8
  };
  uint8_t NameFlags(uint32_t name);
  std::vector<uint8_t> name_flags_;
  std::vector<int64_t> concrete_;  // the event being parsed's Concrete Inputs, in dims-pool form
  std::unordered_map<int32_t, int> device_pids_;  // JAX: pid of a /device: plane -> device index
  // Open 'B' events (indices into trace_.events) per (pid, tid), innermost last.
  std::unordered_map<uint64_t, std::vector<uint32_t>> open_begins_;
  int64_t dropped_begins_ = 0;  // 'B' events ended before they began (phase 'D' until Finish)
  uint64_t next_file_index_ =
      0;  // position in traceEvents of the next element (TraceEvent::file_index)
  struct CachedName {
    uint64_t tag = 0;
    uint32_t id = 0;
  };
  std::vector<CachedName> name_cache_;
  uint32_t memory_name_ = 0;
  uint32_t process_name_ = 0;
  bool saw_2021_categories_ = false;
};

}  // namespace xpuperf::trace::internal
