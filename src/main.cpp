// attnviz entry point: everything lives in the library, so the tests can call it too.
#include "attnviz/cli/app.hpp"
#include "attnviz/cli/startup.hpp"

int main(int argc, char** argv) {
  attnviz::tune_openblas(argv);  // may run the program again, once, with OpenBLAS's settings
  attnviz::keep_freed_memory();
  return attnviz::run_cli(argc, argv);
}
