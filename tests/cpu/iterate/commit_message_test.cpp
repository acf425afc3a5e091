// The commit message: a subject for people, "key: value" lines for scripts, read back by ako.
#include <gtest/gtest.h>

#include "iterate/commit_message.hpp"

namespace ako::iterate {
namespace {

CommitFacts facts() {
  CommitFacts f;
  f.task = "rmsnorm";
  f.iter = 3;
  f.title = "wider vectors\nsecond line";
  f.gpu = "NVIDIA H100 80GB HBM3";
  f.correctness = "correct";
  f.status = "improved";
  f.speedup_vs_baseline = 1.04123;
  f.speedup_vs_reference = 1.3391;
  f.runtime_us = 3606.123;
  f.best = 3;
  f.cases = "40 correct, 0 incorrect, 0 failed, 0 skipped";
  f.hypothesis = "16-byte loads halve the load instructions";
  return f;
}

TEST(CommitMessage, IterationSubjectAndKeys) {
  const std::string m = commit_message(facts());
  EXPECT_TRUE(m.starts_with("[iter 3] wider vectors second line\n\n")) << m;
  for (const char* want : {"task: rmsnorm\n", "iter: 3\n", "gpu: NVIDIA H100 80GB HBM3\n", "correctness: correct\n",
                           "status: improved\n", "speedup_vs_baseline: 1.0412\n", "speedup_vs_reference: 1.3391\n",
                           "runtime_us: 3606.12\n", "best: 3\n", "ncu: not profiled\n",
                           "hypothesis: 16-byte loads halve the load instructions\n"})
    EXPECT_NE(m.find(want), std::string::npos) << want << "\n" << m;
}

TEST(CommitMessage, BaselineRestoreAndUnmeasured) {
  CommitFacts f = facts();
  f.kind = CommitKind::baseline;
  f.iter = 0;
  f.title = "[baseline] as mirrored";
  EXPECT_TRUE(commit_message(f).starts_with("[baseline] as mirrored\n\n")) << commit_message(f);
  f.title = "as mirrored";
  EXPECT_TRUE(commit_message(f).starts_with("[baseline] as mirrored\n\n"));

  f.kind = CommitKind::restore;
  f.iter = 7;
  f.restored_from = 3;
  EXPECT_TRUE(commit_message(f).starts_with("[final] Restore iter-3 (1.04x vs baseline)\n\n")) << commit_message(f);
  EXPECT_NE(commit_message(f).find("restored: 3\n"), std::string::npos);

  f.kind = CommitKind::iteration;
  f.speedup_vs_baseline.reset();
  f.runtime_us.reset();
  f.correctness = "failed";
  f.gpu = "";
  const std::string m = commit_message(f);
  EXPECT_NE(m.find("speedup_vs_baseline: null\n"), std::string::npos) << m;
  EXPECT_NE(m.find("runtime_us: null\n"), std::string::npos) << m;
  EXPECT_NE(m.find("gpu: none\n"), std::string::npos) << m;
}

TEST(CommitMessage, KeysReadBack) {
  const CommitKeys k = parse_commit_keys(commit_message(facts()));
  EXPECT_EQ(k.task, "rmsnorm");
  EXPECT_EQ(k.iter, 3);
  EXPECT_EQ(k.keys.at("status"), "improved");
  EXPECT_EQ(k.keys.at("runtime_us"), "3606.12");
  EXPECT_EQ(parse_commit_keys("first commit\n").iter, -1);
  EXPECT_EQ(parse_commit_keys("Fix: a bug\n\nSee: issue 3\n").task, "");
}

}  // namespace
}  // namespace ako::iterate
