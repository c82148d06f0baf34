#include "programs.h"

#include <fmt/format.h>

#include <cmath>
#include <vector>

namespace xpuperf::pjrt_bench {
namespace {

std::string Tensor(const std::vector<int64_t>& dims, ElementType type) {
  std::string text = "tensor<";
  for (int64_t d : dims) text += fmt::format("{}x", d);
  return text + std::string(pjrt::MlirName(type)) + ">";
}

std::string Scalar(ElementType type) { return Tensor({}, type); }

std::string_view Zero(ElementType type) { return pjrt::IsInteger(type) ? "0" : "0.0"; }

// The loop every program shares: state = (i, the given values..., n); `body` sees %i, the state
// names and %limit, and must define %next (the counter) and the values named in `updated`.
struct LoopValue {
  std::string name;  // without %
  std::string type;
  std::string init;  // an SSA value of the enclosing function
};

std::string WhileLoop(const std::vector<LoopValue>& values, std::string_view body,
                      const std::vector<std::string>& updated, int result_index) {
  std::string bindings = "%i = %zero";
  std::string types = "tensor<i64>";
  for (const LoopValue& v : values) {
    bindings += fmt::format(", %{} = {}", v.name, v.init);
    types += ", " + v.type;
  }
  bindings += ", %limit = %n";
  types += ", tensor<i64>";
  std::string returns = "%next";
  for (const std::string& u : updated) returns += ", " + u;
  returns += ", %limit";
  return fmt::format(
      "    %zero = stablehlo.constant dense<0> : tensor<i64>\n"
      "    %r:{count} = stablehlo.while({bindings}) : {types}\n"
      "     cond {{\n"
      "      %lt = stablehlo.compare LT, %i, %limit : (tensor<i64>, tensor<i64>) -> tensor<i1>\n"
      "      stablehlo.return %lt : tensor<i1>\n"
      "    }} do {{\n"
      "{body}"
      "      stablehlo.return {returns} : {types}\n"
      "    }}\n"
      "    return %r#{result} : {result_type}\n",
      fmt::arg("count", values.size() + 2), fmt::arg("bindings", bindings),
      fmt::arg("types", types), fmt::arg("body", body), fmt::arg("returns", returns),
      fmt::arg("result", result_index + 1), fmt::arg("result_type", values[result_index].type));
}

std::string Module(std::string_view name, std::string_view arguments, std::string_view result,
                   std::string_view body) {
  return fmt::format(
      "module @{} {{\n  func.func public @main({}, %n: tensor<i64>) -> {} {{\n{}  }}\n}}\n", name,
      arguments, result, body);
}

std::string ReplicaGroups(int replicas) {
  std::string ids;
  for (int r = 0; r < replicas; ++r) ids += fmt::format("{}{}", r ? ", " : "", r);
  return fmt::format("replica_groups = dense<[[{}]]> : tensor<1x{}xi64>", ids, replicas);
}

std::string AddRegion(ElementType type) {
  const std::string s = Scalar(type);
  return fmt::format(
      "({{\n      ^bb0(%p: {0}, %q: {0}):\n        %sum = stablehlo.add %p, %q : {0}\n"
      "        stablehlo.return %sum : {0}\n      }})",
      s);
}

}  // namespace

std::string GemmProgram(int64_t m, int64_t n, int64_t k, ElementType in, ElementType out) {
  const std::string a = Tensor({m, k}, in);
  const std::string b = Tensor({k, n}, in);
  const std::string c = Tensor({m, n}, out);
  std::string body = fmt::format(
      "      %opaque:2 = stablehlo.optimization_barrier %i, %x : tensor<i64>, {a}\n"
      "      %d = stablehlo.dot_general %opaque#1, %y, contracting_dims = [1] x [0] : ({a}, {b}) "
      "-> {c}\n",
      fmt::arg("a", a), fmt::arg("b", b), fmt::arg("c", c));
  body += "      %next = stablehlo.add %opaque#0, %one_early : tensor<i64>\n";
  body = "      %one_early = stablehlo.constant dense<1> : tensor<i64>\n" + body;
  std::string loop = fmt::format("    %init = stablehlo.constant dense<{}> : {}\n", Zero(out), c);
  loop += WhileLoop({{"x", a, "%a"}, {"y", b, "%b"}, {"c", c, "%init"}}, body,
                    {"%opaque#1", "%y", "%d"}, 2);
  return Module("xpuperf_gemm", fmt::format("%a: {}, %b: {}", a, b), c, loop);
}

int StreamArrays(StreamKernel kernel) {
  return kernel == StreamKernel::kCopy || kernel == StreamKernel::kScale ? 2 : 3;
}

std::string StreamProgram(StreamKernel kernel, int64_t elements, ElementType type) {
  const std::string v = Tensor({elements}, type);
  const std::string s = Scalar(type);
  std::string body = fmt::format(
      "      %one_early = stablehlo.constant dense<1> : tensor<i64>\n"
      "      %next = stablehlo.add %i, %one_early : tensor<i64>\n"
      "      %sb = stablehlo.broadcast_in_dim %s, dims = [] : ({s}) -> {v}\n",
      fmt::arg("s", s), fmt::arg("v", v));
  switch (kernel) {
    case StreamKernel::kCopy:
      body += fmt::format("      %out = stablehlo.add %x, %sb : {}\n", v);
      break;
    case StreamKernel::kScale:
      body += fmt::format("      %out = stablehlo.multiply %x, %sb : {}\n", v);
      break;
    case StreamKernel::kAdd:
      body += fmt::format("      %out = stablehlo.add %x, %y : {}\n", v);
      break;
    case StreamKernel::kTriad:
      body += fmt::format(
          "      %sy = stablehlo.multiply %sb, %y : {0}\n"
          "      %out = stablehlo.add %x, %sy : {0}\n",
          v);
      break;
  }
  const std::string loop =
      WhileLoop({{"x", v, "%xa"}, {"y", v, "%ya"}, {"s", s, "%sa"}}, body, {"%out", "%y", "%s"}, 0);
  return Module("xpuperf_stream", fmt::format("%xa: {0}, %ya: {0}, %sa: {1}", v, s), v, loop);
}

std::string_view CollectiveKindName(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllReduce:
      return "all_reduce";
    case CollectiveKind::kAllGather:
      return "all_gather";
    case CollectiveKind::kReduceScatter:
      return "reduce_scatter";
    case CollectiveKind::kAllToAll:
      return "all_to_all";
    case CollectiveKind::kCollectivePermute:
      return "collective_permute";
  }
  return "?";
}

int64_t CollectiveOutputElements(CollectiveKind kind, int64_t elements, int replicas) {
  switch (kind) {
    case CollectiveKind::kAllGather:
      return elements * replicas;
    case CollectiveKind::kReduceScatter:
      return elements / replicas;
    default:
      return elements;
  }
}

std::string CollectiveProgram(CollectiveKind kind, int64_t elements, ElementType type,
                              int replicas) {
  const std::string in = Tensor({elements}, type);
  const std::string out = Tensor({CollectiveOutputElements(kind, elements, replicas)}, type);
  const std::string groups = ReplicaGroups(replicas);
  std::string op;
  switch (kind) {
    case CollectiveKind::kAllReduce:
      op = fmt::format("\"stablehlo.all_reduce\"(%opaque#1) {} {{{}}}", AddRegion(type), groups);
      break;
    case CollectiveKind::kAllGather:
      op = fmt::format("\"stablehlo.all_gather\"(%opaque#1) {{all_gather_dim = 0 : i64, {}}}",
                       groups);
      break;
    case CollectiveKind::kReduceScatter:
      op = fmt::format(
          "\"stablehlo.reduce_scatter\"(%opaque#1) {} {{scatter_dimension = 0 : i64, {}}}",
          AddRegion(type), groups);
      break;
    case CollectiveKind::kAllToAll:
      op = fmt::format(
          "\"stablehlo.all_to_all\"(%opaque#1) {{split_dimension = 0 : i64, concat_dimension = 0 "
          ": i64, split_count = {} : i64, {}}}",
          replicas, groups);
      break;
    case CollectiveKind::kCollectivePermute: {
      std::string pairs;
      for (int r = 0; r < replicas; ++r) {
        pairs += fmt::format("{}[{}, {}]", r ? ", " : "", r, (r + 1) % replicas);
      }
      op = fmt::format(
          "\"stablehlo.collective_permute\"(%opaque#1) {{source_target_pairs = dense<[{}]> : "
          "tensor<{}x2xi64>}}",
          pairs, replicas);
      break;
    }
  }
  std::string body = fmt::format(
      "      %one_early = stablehlo.constant dense<1> : tensor<i64>\n"
      "      %opaque:2 = stablehlo.optimization_barrier %i, %x : tensor<i64>, {in}\n"
      "      %next = stablehlo.add %opaque#0, %one_early : tensor<i64>\n"
      "      %o = {op} : ({in}) -> {out}\n",
      fmt::arg("in", in), fmt::arg("out", out), fmt::arg("op", op));
  std::string loop =
      fmt::format("    %init = stablehlo.constant dense<{}> : {}\n", Zero(type), out);
  loop += WhileLoop({{"x", in, "%xa"}, {"acc", out, "%init"}}, body, {"%opaque#1", "%o"}, 1);
  return Module("xpuperf_collective", fmt::format("%xa: {}", in), out, loop);
}

std::string AttentionProgram(int64_t batch, int64_t heads, int64_t seq, int64_t head_dim,
                             ElementType type, bool causal) {
  const std::string qkv = Tensor({batch, heads, seq, head_dim}, type);
  const std::string scores = Tensor({batch, heads, seq, seq}, ElementType::kF32);
  const std::string scores_t = Tensor({batch, heads, seq, seq}, type);
  const std::string rows = Tensor({batch, heads, seq}, ElementType::kF32);
  const std::string out32 = Tensor({batch, heads, seq, head_dim}, ElementType::kF32);
  const std::string mask = Tensor({batch, heads, seq, seq}, pjrt::ElementType::kS32);
  std::string body = fmt::format(
      "      %one_early = stablehlo.constant dense<1> : tensor<i64>\n"
      "      %opaque:2 = stablehlo.optimization_barrier %i, %q : tensor<i64>, {qkv}\n"
      "      %next = stablehlo.add %opaque#0, %one_early : tensor<i64>\n"
      "      %s = stablehlo.dot_general %opaque#1, %k, batching_dims = [0, 1] x [0, 1], "
      "contracting_dims = [3] x [3] : ({qkv}, {qkv}) -> {scores}\n"
      "      %scale = stablehlo.constant dense<{scale:.9e}> : tensor<f32>\n"
      "      %scaleb = stablehlo.broadcast_in_dim %scale, dims = [] : (tensor<f32>) -> {scores}\n"
      "      %scaled = stablehlo.multiply %s, %scaleb : {scores}\n",
      fmt::arg("qkv", qkv), fmt::arg("scores", scores),
      fmt::arg("scale", 1.0 / std::sqrt(static_cast<double>(head_dim))));
  std::string logits = "%scaled";
  if (causal) {
    body += fmt::format(
        "      %row = stablehlo.iota dim = 2 : {mask}\n"
        "      %col = stablehlo.iota dim = 3 : {mask}\n"
        "      %keep = stablehlo.compare GE, %row, %col : ({mask}, {mask}) -> "
        "tensor<{b}x{h}x{s}x{s}xi1>\n"
        "      %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
        "      %ninfb = stablehlo.broadcast_in_dim %ninf, dims = [] : (tensor<f32>) -> {scores}\n"
        "      %masked = stablehlo.select %keep, %scaled, %ninfb : tensor<{b}x{h}x{s}x{s}xi1>, "
        "{scores}\n",
        fmt::arg("mask", mask), fmt::arg("scores", scores), fmt::arg("b", batch),
        fmt::arg("h", heads), fmt::arg("s", seq));
    logits = "%masked";
  }
  body += fmt::format(
      "      %lowest = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
      "      %max = stablehlo.reduce({logits} init: %lowest) applies stablehlo.maximum across "
      "dimensions = [3] : ({scores}, tensor<f32>) -> {rows}\n"
      "      %maxb = stablehlo.broadcast_in_dim %max, dims = [0, 1, 2] : ({rows}) -> {scores}\n"
      "      %shifted = stablehlo.subtract {logits}, %maxb : {scores}\n"
      "      %e = stablehlo.exponential %shifted : {scores}\n"
      "      %zero32 = stablehlo.constant dense<0.0> : tensor<f32>\n"
      "      %sum = stablehlo.reduce(%e init: %zero32) applies stablehlo.add across dimensions = "
      "[3] : ({scores}, tensor<f32>) -> {rows}\n"
      "      %sumb = stablehlo.broadcast_in_dim %sum, dims = [0, 1, 2] : ({rows}) -> {scores}\n"
      "      %p = stablehlo.divide %e, %sumb : {scores}\n"
      "      %pt = stablehlo.convert %p : ({scores}) -> {scores_t}\n"
      "      %o32 = stablehlo.dot_general %pt, %v, batching_dims = [0, 1] x [0, 1], "
      "contracting_dims = [3] x [2] : ({scores_t}, {qkv}) -> {out32}\n"
      "      %o = stablehlo.convert %o32 : ({out32}) -> {qkv}\n",
      fmt::arg("logits", logits), fmt::arg("scores", scores), fmt::arg("rows", rows),
      fmt::arg("scores_t", scores_t), fmt::arg("qkv", qkv), fmt::arg("out32", out32));
  std::string loop = fmt::format("    %init = stablehlo.constant dense<0.0> : {}\n", qkv);
  loop +=
      WhileLoop({{"q", qkv, "%qa"}, {"k", qkv, "%ka"}, {"v", qkv, "%va"}, {"acc", qkv, "%init"}},
                body, {"%opaque#1", "%k", "%v", "%o"}, 3);
  return Module("xpuperf_attention", fmt::format("%qa: {0}, %ka: {0}, %va: {0}", qkv), qkv, loop);
}

std::string DispatchProgram() {
  return "module @xpuperf_dispatch {\n"
         "  func.func public @main(%x: tensor<f32>, %n: tensor<i64>) -> tensor<f32> {\n"
         "    return %x : tensor<f32>\n"
         "  }\n"
         "}\n";
}

}  // namespace xpuperf::pjrt_bench
