// Verdicts: for each workload point the lower bound on its time from every ceiling,
//   t >= max(F / P, B_level / BW_level, H / BW_host, C / BW_net),
// the term that names the bound, the arithmetic intensity, the attainable FLOP/s and how close
// the measured time came to its roof; and a whole-workload summary by bound.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/roofline/ceilings.h"
#include "xpuperf/roofline/workload.h"

namespace xpuperf::roofline {

enum class Bound { kCompute, kMemory, kHostLink, kNetwork };
std::string_view BoundName(Bound bound);  // "compute", "memory", "host_link", "network"

// One term of the lower bound: amount / ceiling.
struct BoundTerm {
  Bound bound = Bound::kCompute;
  std::string ceiling;       // the ceiling's label ("fp32 peak", "DRAM", "host h2d")
  std::string scope;         // precision, memory level, direction or collective
  double amount = 0;         // FLOPs or bytes
  double ceiling_value = 0;  // FLOP/s or bytes/s
  double seconds = 0;        // amount / ceiling_value
  bool stable = true;        // the ceiling's
  std::string unstable_reason;
};

struct PointVerdict {
  WorkloadPoint point;
  std::vector<BoundTerm> terms;  // compute, memory levels (inner to outer), host, network
  Bound bound = Bound::kCompute;
  std::string bound_scope;                 // the binding term's scope ("DRAM", "fp32", "h2d")
  std::vector<std::string> tied;           // other terms equal to the binding one (e.g. on a ridge)
  double roof_seconds = 0;                 // the largest term: the fastest this point can run
  std::optional<double> intensity;         // FLOP per main-memory byte
  std::optional<double> peak_flops;        // the compute ceiling used
  std::optional<double> attainable_flops;  // min(P, I x BW_main)
  std::optional<double> achieved_flops;    // F / t
  std::optional<double> fraction_of_roof;  // roof_seconds / t (1 = on the roof)
  std::optional<double> headroom_seconds;  // max(0, t - roof_seconds)
  bool above_roof = false;                 // t < roof_seconds: counts or ceilings are wrong
  std::vector<std::string> notes;          // fallbacks and ignored traffic
  bool ignored_traffic = false;  // some traffic had no ceiling: the bound may lie elsewhere
  // Set when the binding ceiling was measured unstable: the verdict is not judged (tables say
  // "unstable", no advice is given for the point) and this says why.
  std::optional<std::string> unstable;
};

struct BoundSummary {
  Bound bound = Bound::kCompute;
  int points = 0;
  double measured_seconds = 0;  // sum of measured times of the points with this bound
  double roof_seconds = 0;
  double headroom_seconds = 0;
};

struct Analysis {
  std::vector<PointVerdict> verdicts;  // in workload order
  std::vector<BoundSummary> by_bound;  // bounds that occur, in enum order
  double measured_seconds = 0;         // points with a time
  double headroom_seconds = 0;
  int untimed_points = 0;
};

// Two terms within this relative distance are tied (a point exactly on a ridge).
inline constexpr double kTieTolerance = 1e-9;

// A point's verdict. kInvalidArgument when no ceiling bounds any of its traffic (e.g. only
// collective bytes and no network result).
Result<PointVerdict> JudgePoint(const Ceilings& ceilings, const WorkloadPoint& point);
Result<Analysis> Analyze(const Ceilings& ceilings, const Workload& workload);

}  // namespace xpuperf::roofline
