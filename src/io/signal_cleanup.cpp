// The signal-time cleanup registry: fixed slots of pre-formatted C strings, so the handler needs no
// allocation, lock or C++ runtime — only open/getdents64/unlinkat/unlink/rmdir/close/raise.
#include "attnviz/io/signal_cleanup.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <mutex>
#include <utility>
#include <vector>

namespace attnviz {
namespace {

constexpr int k_slots = 256;           // live temp paths at once: one per PNG writer thread + a few
constexpr size_t k_path_bytes = 4096;  // PATH_MAX on Linux, terminating NUL included

enum SlotState : int { k_free = 0, k_writing = 1, k_file = 2, k_directory = 3 };

// A seqlock-like slot: `version` changes whenever the slot is claimed, so the handler can tell a
// path it copied from one being rewritten by another thread at the same moment.
struct Slot {
  std::atomic<int> state{k_free};
  std::atomic<unsigned> version{0};
  char path[k_path_bytes];
};
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<unsigned>::is_always_lock_free,
              "the signal handler may only use lock-free atomics");

Slot g_slots[k_slots];
// SIGPIPE too: `attnviz run --png DIR | head` ends by it, and must not leave DIR's staging folder.
constexpr int k_handled_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};

// Removes the files directly inside `dir`, then the folder. getdents64 is a plain system call, so
// unlike readdir it allocates nothing.
void empty_directory(const char* dir) {
  const int fd = ::open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    alignas(8) char buf[4096];
    for (;;) {
      const ssize_t n = ::getdents64(fd, buf, sizeof buf);
      if (n <= 0) break;
      for (ssize_t at = 0; at < n;) {
        unsigned short reclen = 0;  // struct linux_dirent64: ino 8, off 8, reclen 2, type 1, name
        std::memcpy(&reclen, buf + at + 16, sizeof reclen);
        const char* name = buf + at + 19;
        if (std::strcmp(name, ".") != 0 && std::strcmp(name, "..") != 0) ::unlinkat(fd, name, 0);
        at += reclen;
      }
    }
    ::close(fd);
  }
}

// The PNG writer threads run on while the handler does: one may rename a finished figure into the
// folder after it was listed, so the folder is emptied again until rmdir succeeds (a few tries).
void remove_directory(const char* dir) {
  for (int attempt = 0; attempt < 16; ++attempt) {
    empty_directory(dir);
    if (::rmdir(dir) == 0 || errno != ENOTEMPTY) return;
  }
}

void remove_slot(Slot& slot) {
  const unsigned before = slot.version.load();
  const int state = slot.state.load();
  if (state != k_file && state != k_directory) return;
  char path[k_path_bytes];
  std::memcpy(path, slot.path, k_path_bytes);
  path[k_path_bytes - 1] = '\0';
  if (slot.version.load() != before || slot.state.load() != state) return;  // rewritten meanwhile
  if (state == k_file) {
    ::unlink(path);
  } else {
    remove_directory(path);
  }
}

void on_signal(int sig) {
  const int saved_errno = errno;
  remove_registered_paths();
  errno = saved_errno;
  // SA_RESETHAND restored the default action; the raised signal stays pending until this handler
  // returns, then ends the process with the status a shell reports for `sig`.
  ::raise(sig);
}

}  // namespace

void install_signal_cleanup() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action {};
    action.sa_handler = on_signal;
    action.sa_flags = SA_RESETHAND;
    sigemptyset(&action.sa_mask);
    for (int sig : k_handled_signals) sigaddset(&action.sa_mask, sig);
    for (int sig : k_handled_signals) {
      struct sigaction previous {};
      // A signal the caller ignores (nohup, `trap '' TERM`) stays ignored.
      if (::sigaction(sig, nullptr, &previous) == 0 && previous.sa_handler == SIG_IGN) continue;
      ::sigaction(sig, &action, nullptr);
    }
  });
}

namespace {

// A free slot, claimed (state k_writing, new version), or -1 when every slot is taken.
int claim_slot() {
  for (int i = 0; i < k_slots; ++i) {
    int expected = k_free;
    if (!g_slots[i].state.compare_exchange_strong(expected, k_writing)) continue;
    g_slots[i].version.fetch_add(1);
    return i;
  }
  return -1;
}

int state_of(CleanupKind kind) {
  return kind == CleanupKind::file ? k_file : k_directory;
}

}  // namespace

int register_cleanup(const std::string& path, CleanupKind kind) {
  if (path.size() >= k_path_bytes) return -1;
  const int slot = claim_slot();
  if (slot < 0) return -1;
  std::memcpy(g_slots[slot].path, path.c_str(), path.size() + 1);
  g_slots[slot].state.store(state_of(kind));
  return slot;
}

RegisteredTemp create_registered_temp(const std::string& pattern, CleanupKind kind) {
  std::vector<char> own(pattern.begin(), pattern.end());
  own.push_back('\0');
  RegisteredTemp t;
  t.slot = pattern.size() < k_path_bytes ? claim_slot() : -1;
  char* name = own.data();
  if (t.slot >= 0) {
    // mkstemp / mkdtemp fill in the name inside the slot itself, so from the moment the file
    // exists the handler knows its name: no window in which a signal would leave it behind.
    name = g_slots[t.slot].path;
    std::memcpy(name, own.data(), own.size());
    g_slots[t.slot].state.store(state_of(kind));
  }
  const bool made =
      kind == CleanupKind::file ? (t.fd = ::mkstemp(name)) >= 0 : ::mkdtemp(name) != nullptr;
  if (!made) {
    const int err = errno;
    unregister_cleanup(std::exchange(t.slot, -1));
    errno = err;
    return t;
  }
  t.path = name;
  return t;
}

void unregister_cleanup(int slot) {
  if (slot < 0 || slot >= k_slots) return;
  g_slots[slot].state.store(k_free);
}

void remove_registered_paths() {
  // Files first: temp files inside a registered folder then go before the folder is emptied.
  for (Slot& slot : g_slots) {
    if (slot.state.load() == k_file) remove_slot(slot);
  }
  for (Slot& slot : g_slots) {
    if (slot.state.load() == k_directory) remove_slot(slot);
  }
}

}  // namespace attnviz
