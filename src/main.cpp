// attnviz entry point: everything lives in the library, so the tests can call it too.
#include "attnviz/cli/app.hpp"

int main(int argc, char** argv) { return attnviz::run_cli(argc, argv); }
