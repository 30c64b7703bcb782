// Renders and writes figure files on a small pool of threads, so that drawing and encoding the
// figure of head h overlaps the computation of head h + 1.
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace attnviz {

class FigureWriter {
 public:
  // threads = 0: std::thread::hardware_concurrency() (at least 1).
  explicit FigureWriter(int threads = 0);
  ~FigureWriter();  // waits for the queued jobs; failures then are dropped (call wait() to see
                    // them)
  FigureWriter(const FigureWriter&) = delete;
  FigureWriter& operator=(const FigureWriter&) = delete;

  // Queues render (drawing and encoding a figure: encode_figure, encode_png) →
  // write_file_atomically(path). Blocks while 2 × threads jobs are pending, so memory stays bounded
  // however fast maps arrive.
  void submit(std::filesystem::path path, std::function<std::string()> render);
  // Waits until every queued job is done; rethrows the first failure.
  void wait();
  int threads() const { return static_cast<int>(workers_.size()); }

 private:
  struct Job {
    std::filesystem::path path;
    std::function<std::string()> render;
  };
  void work();

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Job> queue_;
  int running_ = 0;
  bool stopping_ = false;
  std::exception_ptr failure_;
  std::vector<std::thread> workers_;
};

}  // namespace attnviz
