#include "xpuperf/collectives/collective.h"

#include <fmt/format.h>

#include <algorithm>

namespace xpuperf::collectives {

std::string_view CollectiveName(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::kAllReduce:
      return "all_reduce";
    case CollectiveOp::kAllGather:
      return "all_gather";
    case CollectiveOp::kReduceScatter:
      return "reduce_scatter";
    case CollectiveOp::kAllToAll:
      return "all_to_all";
    case CollectiveOp::kBroadcast:
      return "broadcast";
    case CollectiveOp::kSendRecv:
      return "send_recv";
  }
  return "unknown";
}

const std::vector<CollectiveOp>& AllCollectives() {
  static const std::vector<CollectiveOp> all = {
      CollectiveOp::kAllReduce, CollectiveOp::kAllGather, CollectiveOp::kReduceScatter,
      CollectiveOp::kAllToAll,  CollectiveOp::kBroadcast, CollectiveOp::kSendRecv};
  return all;
}

std::string CollectiveNames() {
  std::string names;
  for (CollectiveOp op : AllCollectives()) {
    names += (names.empty() ? "" : ", ") + std::string(CollectiveName(op));
  }
  return names;
}

Result<CollectiveOp> ParseCollective(std::string_view name) {
  for (CollectiveOp op : AllCollectives()) {
    if (CollectiveName(op) == name) return op;
  }
  return MakeError(ErrorCode::kInvalidArgument,
                   fmt::format("unknown collective '{}' (known: {})", name, CollectiveNames()));
}

double BusBandwidthFactor(CollectiveOp op, int ranks) {
  const double n = std::max(ranks, 1);
  switch (op) {
    case CollectiveOp::kAllReduce:
      return 2 * (n - 1) / n;
    case CollectiveOp::kAllGather:
    case CollectiveOp::kReduceScatter:
    case CollectiveOp::kAllToAll:
      return (n - 1) / n;
    case CollectiveOp::kBroadcast:
    case CollectiveOp::kSendRecv:
      return 1;
  }
  return 1;
}

double AlgorithmBandwidth(double bytes, double seconds) {
  return seconds > 0 ? bytes / seconds : 0;
}

Result<CollectiveShape> ShapeFor(CollectiveOp op, int64_t bytes, int ranks, int type_size) {
  if (bytes < 1 || ranks < 1 || type_size < 1) {
    return MakeError(ErrorCode::kInvalidArgument,
                     fmt::format("collective shape needs bytes, ranks and type size >= 1 (got {}, "
                                 "{}, {})",
                                 bytes, ranks, type_size));
  }
  CollectiveShape shape;
  switch (op) {
    case CollectiveOp::kAllReduce:
    case CollectiveOp::kBroadcast:
    case CollectiveOp::kSendRecv:
      shape.count = std::max<int64_t>(bytes / type_size, 1);
      shape.block = shape.count;
      shape.send_elements = op == CollectiveOp::kBroadcast ? 0 : shape.count;
      shape.recv_elements = shape.count;
      shape.bytes = shape.count * type_size;
      break;
    case CollectiveOp::kAllGather:
      shape.block = std::max<int64_t>(bytes / type_size / ranks, 1);
      shape.count = shape.block;
      shape.send_elements = shape.block;
      shape.recv_elements = shape.block * ranks;
      shape.bytes = shape.recv_elements * type_size;
      break;
    case CollectiveOp::kReduceScatter:
      shape.block = std::max<int64_t>(bytes / type_size / ranks, 1);
      shape.count = shape.block;
      shape.send_elements = shape.block * ranks;
      shape.recv_elements = shape.block;
      shape.bytes = shape.send_elements * type_size;
      break;
    case CollectiveOp::kAllToAll:
      shape.block = std::max<int64_t>(bytes / type_size / ranks, 1);
      shape.count = shape.block;
      shape.send_elements = shape.block * ranks;
      shape.recv_elements = shape.block * ranks;
      shape.bytes = shape.send_elements * type_size;
      break;
  }
  return shape;
}

}  // namespace xpuperf::collectives
