// Process start-up before the command line is read: settings that only take effect when libraries
// are loaded, so main applies them by running the program again once.
#pragma once

#include <functional>
#include <map>
#include <string>

namespace attnviz {

// The OpenBLAS environment variables (name → value) attnviz adds, given the current environment:
// OPENBLAS_THREAD_TIMEOUT=4 unless the user set it (theirs always wins).
std::map<std::string, std::string> openblas_settings(
    const std::function<const char*(const char*)>& get_env);

// Sets glibc malloc to keep freed buffers in the process (no mmap / munmap per buffer below
// 32 MiB, no trimming of the heap), so buffers freed by one layer or head are reused by the next.
void keep_freed_memory();

// Applies openblas_settings to this process and, when it added any, executes /proc/self/exe again
// with the same arguments (OpenBLAS reads them only when it is loaded, before main). Returns when
// nothing was added — always so in the re-executed process — or when the exec failed.
void tune_openblas(char** argv);

}  // namespace attnviz
