// Notes on stderr ("attnviz: note: …"): what a user may want to know but need not act on; --quiet
// turns them off. Warnings and errors are not notes: they always print.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace attnviz {

// --quiet on a subcommand: its notes are not printed.
void add_quiet_flag(CLI::App& cmd);

// Whether --quiet was given.
bool notes_quiet();

// "attnviz: note: {note}" on stderr, unless --quiet.
void print_note(const std::string& note);

}  // namespace attnviz
