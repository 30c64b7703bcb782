// The figure writer pool: a bounded queue of render-and-write jobs and hardware_concurrency
// workers.
#include "attnviz/render/figure_writer.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

#include "attnviz/io/atomic_file.hpp"

namespace attnviz {

FigureWriter::FigureWriter(int threads) {
  // OpenBLAS keeps its own pool for the forward pass; encoding mostly runs while BLAS waits on the
  // next head's small products, so hardware_concurrency workers measured best (bench/).
  const int n =
      threads > 0 ? threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  for (int k = 0; k < n; ++k) workers_.emplace_back([this] { work(); });
}

FigureWriter::~FigureWriter() {
  {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return queue_.empty() && running_ == 0; });
    stopping_ = true;
  }
  changed_.notify_all();
  for (auto& w : workers_) w.join();
}

void FigureWriter::submit(std::filesystem::path path, std::function<std::string()> render) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return queue_.size() < 2 * workers_.size(); });
  if (failure_) std::rethrow_exception(failure_);
  queue_.push_back({std::move(path), std::move(render)});
  changed_.notify_all();
}

void FigureWriter::wait() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return queue_.empty() && running_ == 0; });
  if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
}

void FigureWriter::work() {
  // The lowest priority (nice 19, this thread only): figures fill the time the forward pass
  // leaves, and never delay an OpenBLAS thread its master is spinning for (sched_yield was 16 % of
  // a --png run's CPU at N = 2,048; measured 5.0 s instead of 5.8 s). Best effort.
  (void)::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), 19);
  for (;;) {
    Job job;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      job = std::move(queue_.front());
      queue_.pop_front();
      ++running_;
    }
    changed_.notify_all();  // a slot in the queue is free
    std::exception_ptr failed;
    try {
      write_file_atomically(job.path, job.render());
    } catch (...) {
      failed = std::current_exception();
    }
    {
      std::lock_guard lock(mutex_);
      --running_;
      if (failed && !failure_) failure_ = failed;
    }
    changed_.notify_all();
  }
}

}  // namespace attnviz
