// Byte messages between the ranks of MPI_COMM_WORLD for work split over processes (`analyze DIR`
// under mpirun): point to point and from rank 0, of any size (sent in pieces of at most 1 GiB, as
// MPI counts are ints). Waiting never spins: Open MPI's blocking calls poll a core at 100 % while
// they wait, which would take the core from the rank doing the work, so every wait for the other
// side tests its request and sleeps between tests (50 us growing to 5 ms), and stops with
// CheckCancelled()'s error on SIGINT/SIGTERM. Only the bytes of a point-to-point message move with
// blocking calls, once the receiver said it is ready (a handshake of two small messages), since a
// large message needs both sides calling into MPI for each of its fragments. Every function is
// called by one thread of each rank involved.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "xpuperf/collectives/mpi_collectives.h"
#include "xpuperf/core/status.h"

namespace xpuperf::collectives {

// `bytes` to rank `to`; it receives them with ReceiveBytes(mpi, this rank). Messages between two
// ranks arrive in the order they were sent.
Status SendBytes(const MpiSession& mpi, int to, std::string_view bytes);
Result<std::string> ReceiveBytes(const MpiSession& mpi, int from);

// Collective: rank 0's `bytes` on every rank (the argument is ignored on the others).
Result<std::string> BroadcastFromRankZero(const MpiSession& mpi, std::string_view bytes);

// Collective: the minimum of `value` over the ranks, on every rank.
Result<int64_t> MinimumOverRanks(const MpiSession& mpi, int64_t value);

}  // namespace xpuperf::collectives
