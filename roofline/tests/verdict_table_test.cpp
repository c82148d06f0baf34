// The roofline's rules as a table: every precision x bound x (with / without a spec sheet) point,
// the compute roof its verdict uses (its own precision's, measured before spec; else the nearest
// at least as wide, named; never a narrower one) and whether lower_precision advises, with the
// caveat about the numerical result.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "xpuperf/roofline/advice.h"
#include "xpuperf/roofline/verdict.h"

namespace xpuperf::roofline {
namespace {

Ceiling Make(CeilingKind kind, CeilingSource source, std::string scope, std::string variant,
             double value) {
  Ceiling c;
  c.kind = kind;
  c.source = source;
  c.scope = std::move(scope);
  c.variant = std::move(variant);
  c.value = value;
  c.benchmark = source == CeilingSource::kSpec ? "spec" : "test";
  return c;
}

// Measured: fp64 peak 100 GFLOP/s, fp32 peak 200, int8 GEMM 400 GOP/s, DRAM 25 GB/s. The spec
// sheet adds fp64 110, fp32 250 and bf16 800.
Ceilings TableCeilings(bool spec) {
  Ceilings c;
  c.all = {Make(CeilingKind::kCompute, CeilingSource::kMeasured, "fp64", "peak", 100e9),
           Make(CeilingKind::kCompute, CeilingSource::kMeasured, "fp32", "peak", 200e9),
           Make(CeilingKind::kCompute, CeilingSource::kMeasured, "int8", "gemm", 400e9),
           Make(CeilingKind::kMemory, CeilingSource::kMeasured, "DRAM", "STREAM triad", 25e9)};
  if (spec) {
    c.all.push_back(Make(CeilingKind::kCompute, CeilingSource::kSpec, "fp64", "spec", 110e9));
    c.all.push_back(Make(CeilingKind::kCompute, CeilingSource::kSpec, "fp32", "spec", 250e9));
    c.all.push_back(Make(CeilingKind::kCompute, CeilingSource::kSpec, "bf16", "spec", 800e9));
  }
  return c;
}

struct Case {
  const char* dtype;
  bool compute_bound;
  bool spec;
  const char* roof;         // the compute term's ceiling label; "" when FLOPs are not bounded
  const char* lower;        // the precision lower_precision suggests; "" for none
  const char* note_prefix;  // a note the verdict must carry; "" for none
};

const Case kCases[] = {
    // fp64: its own measured peak; fp32 is 2x faster: advised, with the caveat.
    {"fp64", true, false, "fp64 peak", "fp32", ""},
    {"fp64", true, true, "fp64 peak", "fp32", ""},
    {"fp64", false, false, "fp64 peak", "", ""},
    {"fp64", false, true, "fp64 peak", "", ""},
    // fp32: no lower precision measured; the spec's bf16 is not compared with a measured roof.
    {"fp32", true, false, "fp32 peak", "", ""},
    {"fp32", true, true, "fp32 peak", "", ""},
    {"fp32", false, false, "fp32 peak", "", ""},
    // bf16: no measured roof. Without a sheet the nearest wider (fp32), named, never int8's; with
    // the sheet its own spec roof.
    {"bf16", true, false, "fp32 peak", "int8", "no bf16 compute ceiling: the nearest one at least"},
    {"bf16", true, true, "bf16 peak (spec)", "", ""},
    {"bf16", false, false, "fp32 peak", "", "no bf16 compute ceiling: the nearest one at least"},
    {"bf16", false, true, "bf16 peak (spec)", "", ""},
    // int8: its own measured GEMM roof.
    {"int8", true, false, "int8 GEMM", "", ""},
    {"int8", true, true, "int8 GEMM", "", ""},
    // A precision narrower than every roof but fp8: no wider-or-equal roof exists besides int8's
    // (same width): it is used, named.
    {"fp8", true, false, "int8 GEMM", "", "no fp8 compute ceiling: the nearest one at least"},
};

TEST(VerdictTable, EveryPrecisionBoundAndSheet) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(fmt::format("{} {} {}", c.dtype, c.compute_bound ? "compute" : "memory",
                             c.spec ? "spec" : "no spec"));
    const Ceilings ceilings = TableCeilings(c.spec);
    WorkloadPoint p;
    p.name = "p";
    p.op = "gemm";
    p.dtype = c.dtype;
    p.flops = c.compute_bound ? 1e12 : 1e6;
    p.bytes = c.compute_bound ? 1e6 : 1e11;
    Workload workload;
    workload.points = {p};
    auto analysis = Analyze(ceilings, workload);
    ASSERT_TRUE(analysis.ok()) << analysis.error().message;
    PointVerdict& v = analysis->verdicts[0];
    // Place it at 10% of its roof: timed, so every rule can look at it.
    v.point.time_seconds = 10 * v.roof_seconds;
    workload.points[0].time_seconds = v.point.time_seconds;
    analysis = Analyze(ceilings, workload);
    ASSERT_TRUE(analysis.ok());
    const PointVerdict& judged = analysis->verdicts[0];
    EXPECT_EQ(judged.bound, c.compute_bound ? Bound::kCompute : Bound::kMemory);
    std::string roof;
    for (const BoundTerm& term : judged.terms) {
      if (term.bound == Bound::kCompute) roof = term.ceiling;
    }
    EXPECT_EQ(roof, c.roof);
    if (*c.note_prefix) {
      ASSERT_FALSE(judged.notes.empty());
      EXPECT_EQ(judged.notes[0].rfind(c.note_prefix, 0), 0u) << judged.notes[0];
    }
    const AdviceContext context{&*analysis, &workload, &ceilings, 0};
    std::string lower_reason;
    for (const Advice& advice : Advise(context)) {
      if (advice.rule == "lower_precision") lower_reason = advice.reason;
    }
    if (*c.lower) {
      ASSERT_FALSE(lower_reason.empty());
      EXPECT_NE(lower_reason.find(std::string(c.lower) + " "), std::string::npos) << lower_reason;
      EXPECT_NE(lower_reason.find("this changes the numerical result"), std::string::npos)
          << lower_reason;
    } else {
      EXPECT_TRUE(lower_reason.empty()) << lower_reason;
    }
  }
}

TEST(VerdictTable, PrecisionAdviceKeepsTheKindOfNumber) {
  EXPECT_EQ(LowerPrecisionCandidates("fp64"), std::vector<std::string>{"fp32"});
  EXPECT_EQ(LowerPrecisionCandidates("int8"), std::vector<std::string>{});
  EXPECT_NE(PrecisionChangeCaveat("fp64", "fp32").find("about 16"), std::string::npos);
  EXPECT_NE(PrecisionChangeCaveat("bf16", "int8").find("quantisation"), std::string::npos);
}

}  // namespace
}  // namespace xpuperf::roofline
