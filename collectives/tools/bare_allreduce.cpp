// The baseline for xpuperf's all_reduce figures (scripts/bench-compare.sh): a bare timed
// MPI_Allreduce loop of floats, nothing else. Per sample: a barrier, `iters` back-to-back
// operations timed with MPI_Wtime, the maximum over the ranks; prints the median sample.
//   mpirun -np 4 bare_allreduce BYTES [ITERS] [SAMPLES] [WARMUP]
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const long bytes = argc > 1 ? std::atol(argv[1]) : 8L << 20;
  const int iters = argc > 2 ? std::atoi(argv[2]) : 20;
  const int samples = argc > 3 ? std::atoi(argv[3]) : 10;
  const int warmup = argc > 4 ? std::atoi(argv[4]) : 5;
  if (bytes < 4 || iters < 1 || samples < 1 || warmup < 0) {
    if (rank == 0) std::fprintf(stderr, "usage: bare_allreduce BYTES [ITERS] [SAMPLES] [WARMUP]\n");
    MPI_Finalize();
    return 2;
  }
  const int count = static_cast<int>(bytes / 4);
  std::vector<float> send(count), recv(count);
  for (int i = 0; i < count; ++i) send[i] = static_cast<float>((7 * rank + 3 * (i % 17)) % 17 + 1);
  for (int i = 0; i < warmup; ++i) {
    MPI_Allreduce(send.data(), recv.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  }
  std::vector<double> times;
  for (int s = 0; s < samples; ++s) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (int i = 0; i < iters; ++i) {
      MPI_Allreduce(send.data(), recv.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    }
    const double local = (MPI_Wtime() - start) / iters;
    double slowest = 0;
    MPI_Reduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    times.push_back(slowest);
  }
  if (rank == 0) {
    std::sort(times.begin(), times.end());
    const size_t n = times.size();
    const double median = n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
    const double algbw = 4.0 * count / median / 1e9;
    const double busbw = algbw * 2.0 * (ranks - 1) / ranks;
    std::printf(
        "bare MPI_Allreduce %d ranks, %ld bytes: median %.2f us, algbw %.3f GB/s, "
        "busbw %.3f GB/s\n",
        ranks, 4L * count, median * 1e6, algbw, busbw);
  }
  MPI_Finalize();
  return 0;
}
