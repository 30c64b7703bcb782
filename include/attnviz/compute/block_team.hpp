// A team of threads that compute one head's row blocks side by side and hand them to the sinks in
// order: the caller's thread plus helpers, each with a single-threaded BLAS while the team runs.
#pragma once

#include <functional>

namespace attnviz {

// Runs compute(b, m) for the row blocks b = 0 … n_blocks − 1, each on the first member m free to
// take the next block (the caller is member 0, helpers 1 … size() − 1), and emit(b, m) for each
// block strictly in the order 0, 1, 2, …, one at a time, on the member that computed it, after its
// compute; a member takes its next block only after emitting its last, so each member needs one
// block of memory (indexed by m, owned by the caller). While the team runs, OpenBLAS uses one
// thread per call (the team is the parallelism) and is restored after. The first exception of any
// member is rethrown in the caller once every member has stopped; blocks after it are skipped.
class BlockTeam {
 public:
  // The process's team: as many members as OpenBLAS has threads (OPENBLAS_NUM_THREADS, else the
  // cores), helpers started on first use.
  static BlockTeam& shared();

  int size() const;
  void run(int n_blocks, const std::function<void(int block, int member)>& compute,
           const std::function<void(int block, int member)>& emit);

  BlockTeam(const BlockTeam&) = delete;
  BlockTeam& operator=(const BlockTeam&) = delete;
  ~BlockTeam();

 private:
  explicit BlockTeam(int size);
  struct State;
  State* state_;
};

}  // namespace attnviz
