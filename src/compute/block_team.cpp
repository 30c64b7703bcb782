// The block team: helper threads waiting for a head's blocks, a turn counter for the emit order.
#include "attnviz/compute/block_team.hpp"

#include <cblas.h>  // OpenBLAS: openblas_get_num_threads / openblas_set_num_threads

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace attnviz {

namespace {
thread_local bool t_in_team = false;  // this thread is running a member's share of a job

struct MemberMark {
  MemberMark() { t_in_team = true; }
  ~MemberMark() { t_in_team = false; }
};
}  // namespace

struct BlockTeam::State {
  int size = 1;
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<std::thread> helpers;
  // The current job (generation counts jobs, so a helper runs each once).
  long generation = 0;
  int n_blocks = 0;
  const std::function<void(int, int)>* compute = nullptr;
  const std::function<void(int, int)>* emit = nullptr;
  int next_claim = 0;    // the next block a member may take
  int next_emit = 0;     // the block whose emit may run now
  int members_done = 0;  // members finished with the current job
  std::exception_ptr failure;
  bool stopping = false;

  // A member's share of the job: the next unclaimed block while there is one (so a causal head's
  // growing blocks spread evenly), each emitted in its turn.
  void work(int member) {
    const MemberMark mark;
    for (;;) {
      int b = 0;
      {
        std::lock_guard lock(mutex);
        if (failure || next_claim == n_blocks) break;
        b = next_claim++;
      }
      std::exception_ptr failed;
      try {
        (*compute)(b, member);
      } catch (...) {
        failed = std::current_exception();
      }
      std::unique_lock lock(mutex);
      changed.wait(lock, [&] { return next_emit == b || failure; });
      if (failed && !failure) failure = failed;
      if (failure) break;
      lock.unlock();
      try {
        (*emit)(b, member);  // alone: every other member waits for its own turn
      } catch (...) {
        failed = std::current_exception();
      }
      lock.lock();
      if (failed && !failure) failure = failed;
      ++next_emit;
      lock.unlock();
      changed.notify_all();
    }
    {
      std::lock_guard lock(mutex);
      ++members_done;
    }
    changed.notify_all();
  }

  void helper(int member) {
    long seen = 0;
    for (;;) {
      {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return stopping || generation != seen; });
        if (stopping) return;
        seen = generation;
      }
      work(member);
    }
  }
};

BlockTeam::BlockTeam(int size) : state_(new State) {
  state_->size = size < 1 ? 1 : size;
  for (int m = 1; m < state_->size; ++m)
    state_->helpers.emplace_back([this, m] { state_->helper(m); });
}

BlockTeam::~BlockTeam() {
  {
    std::lock_guard lock(state_->mutex);
    state_->stopping = true;
  }
  state_->changed.notify_all();
  for (auto& t : state_->helpers) t.join();
  delete state_;
}

BlockTeam& BlockTeam::shared() {
  static BlockTeam team(openblas_get_num_threads());
  return team;
}

int BlockTeam::size() const {
  return state_->size;
}

void BlockTeam::run(int n_blocks, const std::function<void(int, int)>& compute,
                    const std::function<void(int, int)>& emit) {
  State& s = *state_;
  if (s.size == 1 || n_blocks < 2 || t_in_team) {  // nothing to share (or nested): the caller alone
    for (int b = 0; b < n_blocks; ++b) compute(b, 0), emit(b, 0);
    return;
  }
  const int blas_threads = openblas_get_num_threads();
  openblas_set_num_threads(1);
  {
    std::lock_guard lock(s.mutex);
    s.n_blocks = n_blocks;
    s.compute = &compute, s.emit = &emit;
    s.next_claim = 0, s.next_emit = 0, s.members_done = 0;
    s.failure = nullptr;
    ++s.generation;
  }
  s.changed.notify_all();
  s.work(0);
  std::exception_ptr failure;
  {
    std::unique_lock lock(s.mutex);
    s.changed.wait(lock, [&] { return s.members_done == s.size; });
    failure = std::exchange(s.failure, nullptr);
    s.compute = s.emit = nullptr;
  }
  openblas_set_num_threads(blas_threads);
  if (failure) std::rethrow_exception(failure);
}

void for_row_chunks(int n_rows, int min_rows, const std::function<void(int, int)>& f) {
  BlockTeam& team = BlockTeam::shared();
  // Two chunks per member, so a member slowed by the system still leaves the other work to take.
  const int chunks = std::clamp(n_rows / std::max(1, min_rows), 1, 2 * team.size());
  if (chunks < 2) {
    if (n_rows > 0) f(0, n_rows);
    return;
  }
  const auto bound = [&](int c) {
    return static_cast<int>(static_cast<long long>(n_rows) * c / chunks);
  };
  team.run(
      chunks, [&](int c, int) { f(bound(c), bound(c + 1)); }, [](int, int) {});
}

}  // namespace attnviz
