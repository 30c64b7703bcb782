// Test runner entry point: doctest's own main, plus a refusal of any run that executes no test
// case. ctest runs one entry per test file (-sf=…); a filter that matched nothing would otherwise
// pass.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

namespace {

int g_cases_run = 0;

// Counts the test cases doctest starts (subcases re-enter a case; only the first entry counts).
struct CaseCounter : doctest::IReporter {
  explicit CaseCounter(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats&) override {}
  void test_case_start(const doctest::TestCaseData&) override { ++g_cases_run; }
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};

}  // namespace

DOCTEST_REGISTER_LISTENER("case_counter", 1, CaseCounter);

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  const int result = context.run();
  if (context.shouldExit()) return result;  // --help, --list-test-cases, --count, …
  if (g_cases_run == 0) {
    std::fprintf(stderr,
                 "attnviz_tests: no test case matched the filters: this run tested nothing\n");
    return 1;
  }
  return result;
}
