// The block team: every block computed once, emitted in order and only after its compute, on any
// number of blocks; an exception from any member (compute or emit) reaches the caller, and the
// team runs the next job normally afterwards.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "attnviz/compute/block_team.hpp"

using namespace attnviz;

TEST_CASE("block team: each block is computed once and emitted in order, after its compute") {
  BlockTeam& team = BlockTeam::shared();
  CHECK(team.size() >= 1);
  for (int n : {0, 1, 2, 3, 7, 64}) {
    std::vector<std::atomic<int>> computed(static_cast<size_t>(n));
    std::vector<int> emitted;
    std::vector<std::thread::id> computed_on(static_cast<size_t>(n));
    bool emitted_on_computing_thread = true;
    team.run(
        n,
        [&](int b, int member) {
          CHECK(member >= 0);
          CHECK(member < team.size());
          computed[static_cast<size_t>(b)]++;
          computed_on[static_cast<size_t>(b)] = std::this_thread::get_id();
        },
        [&](int b, int) {
          // emit runs alone: a plain vector is safe, and its block was computed before.
          CHECK(computed[static_cast<size_t>(b)] == 1);
          emitted_on_computing_thread &=
              computed_on[static_cast<size_t>(b)] == std::this_thread::get_id();
          emitted.push_back(b);
        });
    std::vector<int> in_order(static_cast<size_t>(n));
    for (int b = 0; b < n; ++b) in_order[static_cast<size_t>(b)] = b;
    CHECK(emitted == in_order);
    for (const auto& c : computed) CHECK(c == 1);
    CHECK(emitted_on_computing_thread);  // a member's buffers hold the block it emits
  }
}

TEST_CASE("block team: a failing compute or emit on any block is rethrown, and the team runs on") {
  BlockTeam& team = BlockTeam::shared();
  for (int failing = 0; failing < 6; ++failing) {
    for (bool in_emit : {false, true}) {
      std::vector<int> emitted;
      const auto fail_at = [&](int b) {
        if (b == failing) throw std::runtime_error("block " + std::to_string(b));
      };
      CHECK_THROWS_WITH(team.run(
                            6,
                            [&](int b, int) {
                              if (!in_emit) fail_at(b);
                            },
                            [&](int b, int) {
                              if (in_emit) fail_at(b);
                              emitted.push_back(b);
                            }),
                        ("block " + std::to_string(failing)).c_str());
      // Blocks before the failing one were emitted in order; none after it.
      for (size_t k = 0; k < emitted.size(); ++k) CHECK(emitted[k] == static_cast<int>(k));
      CHECK(static_cast<int>(emitted.size()) <= failing);
      std::vector<int> again;
      team.run(
          4, [](int, int) {}, [&](int b, int) { again.push_back(b); });
      CHECK(again == std::vector<int>{0, 1, 2, 3});
    }
  }
}

TEST_CASE("block team: for_row_chunks covers every row once, in chunks of at least min_rows") {
  for (int n_rows : {0, 1, 31, 32, 63, 64, 65, 1000, 1023}) {
    for (int min_rows : {1, 32, 100}) {
      std::vector<std::atomic<int>> seen(static_cast<size_t>(n_rows));
      std::mutex mutex;
      std::vector<std::pair<int, int>> chunks;
      for_row_chunks(n_rows, min_rows, [&](int r0, int r1) {
        for (int r = r0; r < r1; ++r) seen[static_cast<size_t>(r)]++;
        std::lock_guard lock(mutex);
        chunks.emplace_back(r0, r1);
      });
      CAPTURE(n_rows);
      CAPTURE(min_rows);
      for (const auto& s : seen) CHECK(s == 1);
      for (const auto& [r0, r1] : chunks) {
        CHECK(r0 < r1);
        if (chunks.size() > 1) CHECK(r1 - r0 >= min_rows);
      }
      CHECK(chunks.size() <= static_cast<size_t>(std::max(1, 2 * BlockTeam::shared().size())));
    }
  }
}

TEST_CASE("block team: a team job started inside a member's compute runs on that member alone") {
  BlockTeam& team = BlockTeam::shared();
  std::atomic<int> inner_rows{0};
  std::atomic<bool> inner_on_same_thread{true};
  team.run(
      4,
      [&](int, int) {
        const auto me = std::this_thread::get_id();
        // A norm inside attention's compute, say: no deadlock, every row on this thread.
        for_row_chunks(256, 1, [&](int r0, int r1) {
          inner_rows += r1 - r0;
          if (std::this_thread::get_id() != me) inner_on_same_thread = false;
        });
      },
      [](int, int) {});
  CHECK(inner_rows == 4 * 256);
  CHECK(inner_on_same_thread);
}
