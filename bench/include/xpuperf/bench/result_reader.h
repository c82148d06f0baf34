// Reads a result directory written by `xpuperf bench run` (results.jsonl + environment.json) back
// into structs: the one model of a result directory, for the spec check, compare and the roofline
// (which records are a run's figures: figures.h).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "xpuperf/bench/benchmark.h"
#include "xpuperf/core/device.h"
#include "xpuperf/core/status.h"

namespace xpuperf::bench {

// One line of results.jsonl.
struct ResultRecord {
  int line = 0;             // 1-based line in results.jsonl
  Measurement measurement;  // benchmark, metric, value, unit, parameters, samples, statistics...
  std::string device_backend;
  std::string device_model;
  std::string device_id;
  std::string host;
  std::string run_id;
  std::string time;  // ISO 8601 UTC, as written
};

struct ResultDirectory {
  std::string path;
  std::vector<ResultRecord> records;  // in file order
  // environment.json as written (an empty object when the file is absent).
  nlohmann::json environment = nlohmann::json::object();
  // The run's device: environment.json's "device" when present, else backend/model/id of the
  // first record.
  Device device;
  std::string run_id;
  std::string host;
  std::string suite;
  std::vector<std::string> skipped;  // points that could not run, with the reason
  // A run a stop request ended before every point ran (environment.json "partial").
  bool partial = false;
  std::vector<std::string> points_done, points_pending;
};

// For a partial run: "<command>: note: DIR is a partial run: a stop request ended it after N points
// (M not run, first: …); its figures are what ran. `xpuperf bench run --resume DIR` runs the rest"
// and a newline; empty for a complete one. Every reader of result directories prints it.
std::string PartialRunNote(const ResultDirectory& run, std::string_view command);

// The newest results.jsonl schema this reader understands.
inline constexpr int kResultSchemaVersion = 1;

// Parses results.jsonl text. Blank lines are skipped. kParse "<file>:<line>: <what>" for a line
// that is not a JSON object, lacks benchmark, metric or unit (text) or value (a finite number), has
// a non-numeric sample, or a json_schema_version newer than kResultSchemaVersion.
Result<std::vector<ResultRecord>> ParseResultsJsonl(std::string_view text,
                                                    std::string_view file_name);

// Reads `directory`: kNotFound when it or its results.jsonl does not exist, kInvalidArgument when
// it is not a directory, kParse for a malformed results.jsonl line or environment.json (the file
// and line are named). environment.json is optional.
Result<ResultDirectory> ReadResultDirectory(const std::string& directory);
// The same from the two files' text (environment_json nullopt when the file is absent);
// `directory` names the files in error messages.
Result<ResultDirectory> ParseResultDirectory(std::string_view results_jsonl,
                                             const std::optional<std::string>& environment_json,
                                             const std::string& directory);

}  // namespace xpuperf::bench
