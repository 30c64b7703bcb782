// Removal of temporary outputs when SIGINT / SIGTERM / SIGHUP ends the process: a fixed registry of
// paths and a handler that uses only async-signal-safe calls. SIGKILL cannot be caught: what it
// leaves behind is named `*.tmp-XXXXXX` (files and figure folders), so it can be recognised.
#pragma once

#include <string>

namespace attnviz {

enum class CleanupKind { file, directory };

// Installs the handler for SIGINT, SIGTERM and SIGHUP (once; later calls do nothing). The handler
// removes every registered path, then re-raises the signal with its default action so the exit
// status says which signal ended the process.
void install_signal_cleanup();

// Registers a path to remove if a signal arrives; returns a slot id for unregister_cleanup, or -1
// when the path is too long or every slot is taken (then the path is simply not cleaned up).
// A directory is removed with the files directly inside it (no subfolders).
int register_cleanup(const std::string& path, CleanupKind kind);
void unregister_cleanup(int slot);

// Creates a temp file (mkstemp: fd open) or folder (mkdtemp) from `pattern`, which ends in
// "XXXXXX", registered from the instant it exists. On failure path is empty (errno says why).
struct RegisteredTemp {
  std::string path;
  int fd = -1;    // files only
  int slot = -1;  // for unregister_cleanup; -1 when the registry was full (then not registered)
};
RegisteredTemp create_registered_temp(const std::string& pattern, CleanupKind kind);

// What the handler does, callable outside a handler for tests: removes every registered path.
void remove_registered_paths();

}  // namespace attnviz
