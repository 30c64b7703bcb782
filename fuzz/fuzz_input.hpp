// Shared by the fuzz targets: the input as a file, for parsers that read a path, in a folder of
// this process's own (libFuzzer's -jobs / -fork run several processes) removed at exit.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <string>

#include "attnviz/io/safetensors.hpp"

namespace attnviz::fuzz {

// The folder: under $ATTNVIZ_FUZZ_DIR when set (scripts/fuzz.sh gives one it removes afterwards,
// for the exits that run no handler: a crash, a -timeout or Ctrl-C end in _Exit), else /dev/shm.
inline const std::filesystem::path& work_dir() {
  // A pointer, never destroyed: a static path would be destroyed at exit before the handler below
  // (registered before the static's destructor, so run after it) reads it, and the folder stayed
  // behind after every run that -max_total_time ended.
  static const std::filesystem::path* const dir = [] {
    // In memory when possible: on disk, writing the input each run cut the speed tenfold.
    std::error_code ec;
    const char* given = std::getenv("ATTNVIZ_FUZZ_DIR");
    const auto base =
        given != nullptr && *given != '\0' ? std::filesystem::path(given)
        : std::filesystem::is_directory("/dev/shm", ec) && ::access("/dev/shm", W_OK) == 0
            ? std::filesystem::path("/dev/shm")
            : std::filesystem::temp_directory_path();
    auto* d = new std::filesystem::path(base / ("attnviz-fuzz-" + std::to_string(::getpid())));
    std::filesystem::create_directories(*d);
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(work_dir(), ec);
    });
    return d;
  }();
  return *dir;
}

// Writes the bytes to work_dir()/name (replacing the previous input) and returns its path.
inline std::filesystem::path write_input(const std::string& name, const uint8_t* data,
                                         size_t size) {
  const std::filesystem::path path = work_dir() / name;
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}

// A folder work_dir()/folder holding copies of `files` from the fixture folder `fixture` (a
// tokenizer's model beside which the input is written as another of its files).
inline std::filesystem::path folder_with_copies(const std::string& folder,
                                                const std::filesystem::path& fixture,
                                                std::initializer_list<const char*> files) {
  const std::filesystem::path d = work_dir() / folder;
  std::filesystem::create_directories(d);
  for (const char* f : files)
    std::filesystem::copy_file(fixture / f, d / f,
                               std::filesystem::copy_options::overwrite_existing);
  return d;
}

// A folder work_dir()/folder holding one small valid safetensors file `file` (a 2×2 tensor "w"),
// beside which the input is written as the file the target fuzzes.
inline std::filesystem::path folder_with_weights(
    const std::string& folder, const std::string& file,
    const std::map<std::string, std::string>& metadata) {
  const std::filesystem::path d = work_dir() / folder;
  std::filesystem::create_directories(d);
  const float w[4] = {1, 2, 3, 4};
  attnviz::write_safetensors(d / file, {{"w", {2, 2}, w}}, metadata);
  return d;
}

}  // namespace attnviz::fuzz
