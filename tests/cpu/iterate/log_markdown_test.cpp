// ITERATIONS.md: render and parse are inverse, the user's prose survives, malformed files are
// refused with the line, and the repository's own log (hand-written iteration 0) parses.
#include <gtest/gtest.h>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "iterate/log_markdown.hpp"

namespace ako::iterate {
namespace {

IterationLog sample() {
  IterationLog log{default_preamble(), {}};
  TaskLog& t = log.task("rmsnorm");
  LogEntry e0;
  e0.iter = 0;
  e0.title = "[baseline] register-cached rows | 16-byte vectors";
  e0.speedup = "1.339x";
  e0.runtime = "3755.14 us";
  e0.status = "baseline";
  e0.hypothesis = "Memory-bound: the floor is bytes / copy bandwidth.\n\nSecond paragraph.";
  e0.changes = "Baseline: `solution/rmsnorm/` as mirrored.";
  e0.bench = "H100.\n\n| case | verdict |\n| --- | --- |\n| s0 bf16 weight | correct |";
  e0.ncu = "Not profiled.";
  e0.analysis = "The prediction held.\n### not an entry heading";
  e0.next = "Tune BLOCK.";
  LogEntry e1 = e0;
  e1.iter = 1;
  e1.title = "wider vectors";
  e1.status = "improved";
  e1.ncu.clear();
  e1.analysis = kAnalysisPlaceholder;
  e1.next = "";
  t.entries = {e0, e1};
  log.task("layernorm").entries = {e0};
  return log;
}

TEST(LogMarkdown, RenderThenParseGivesTheSameLog) {
  const IterationLog log = sample();
  const std::string text = render_log(log);
  const IterationLog back = parse_log(text);
  EXPECT_EQ(back, log);
  EXPECT_EQ(render_log(back), text);
}

TEST(LogMarkdown, RenderedTextHasTheAkoLayout) {
  const std::string text = render_log(sample());
  for (const char* want : {"# Iterations\n", "## Task rmsnorm\n", "| Iter | Title | Speedup | Runtime | Status |",
                           "| 0 | [baseline] register-cached rows \\| 16-byte vectors | 1.339x | 3755.14 us | baseline |",
                           "### Iter 1 — wider vectors\n", "**Hypothesis.** Memory-bound", "**Analysis.** _(to fill in",
                           "**Next.**\n"})
    EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
  const std::string iter1 = text.substr(text.find("### Iter 1"), text.find("## Task layernorm") - text.find("### Iter 1"));
  EXPECT_EQ(iter1.find("**ncu.**"), std::string::npos) << "an empty optional section is left out:\n" << iter1;
}

TEST(LogMarkdown, AnalysisPlaceholderAndBlankCountAsEmpty) {
  LogEntry e;
  EXPECT_TRUE(analysis_is_empty(e));
  e.analysis = kAnalysisPlaceholder;
  EXPECT_TRUE(analysis_is_empty(e));
  e.analysis = "Slower: the extra barrier costs 2 us.";
  EXPECT_FALSE(analysis_is_empty(e));
}

TEST(LogMarkdown, UserEditsInsideSectionsSurvive) {
  std::string text = render_log(sample());
  const std::string placeholder = std::string("**Analysis.** ") + kAnalysisPlaceholder;
  text.replace(text.find(placeholder), placeholder.size(), "**Analysis.** 4% faster:\n\n- fewer loads\n- same registers");
  const IterationLog log = parse_log(text);
  EXPECT_EQ(log.find("rmsnorm")->find(1)->analysis, "4% faster:\n\n- fewer loads\n- same registers");
  EXPECT_FALSE(analysis_is_empty(*log.find("rmsnorm")->find(1)));
}

TEST(LogMarkdown, MalformedFilesAreRefusedWithTheLine) {
  try {
    parse_log("# Iterations\n\n## Task t\n\n| Iter | Title | Speedup | Runtime | Status |\n| x | a | b | c | d |\n");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("ITERATIONS.md:6: 'x' is not an iteration number"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_log("# Log\n"), Error);
  EXPECT_THROW(parse_log("# Iterations\n## Task t\n### Iter 1 — a\nloose text\n"), Error);
  EXPECT_THROW(parse_log("# Iterations\n## Task t\n### Iter 1 no dash\n"), Error);
  EXPECT_THROW(parse_log("# Iterations\n## Task t\n## Task t\n"), Error);
  EXPECT_EQ(parse_log("").tasks.size(), 0u);
}

TEST(LogMarkdown, TheRepositoryLogParsesAndKeepsIterationZero) {
  const std::string text = read_file(AKO_TEST_DIR "/../ITERATIONS.md");
  const IterationLog log = parse_log(text);
  const TaskLog* t = log.find("rmsnorm");
  ASSERT_NE(t, nullptr);
  const LogEntry* e = t->find(0);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->status, "baseline");
  EXPECT_NE(e->hypothesis.find("RMSNorm is memory-bound"), std::string::npos);
  EXPECT_NE(e->analysis.find("The prediction held where it was quantitative"), std::string::npos);
  EXPECT_NE(e->bench.find("hunyuan-720p 118800x3072 | 552.49 | 484.72"), std::string::npos);
  EXPECT_FALSE(analysis_is_empty(*e));
  EXPECT_EQ(render_log(log), text) << "ITERATIONS.md is not in the form ako iterate writes";
}

}  // namespace
}  // namespace ako::iterate
