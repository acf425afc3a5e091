// Host-side logic of the trustworthy-verdict defences: guard-band layout and damage reports,
// constant-output and nondeterminism reasons, the number of timed input sets, the per-launch
// watchdog's limit, and the --sanitize command line, job and report parsing.
#include <gtest/gtest.h>

#include <set>

#include "common/error.hpp"
#include "exec/client/sanitizer.hpp"
#include "exec/protocol/guard_layout.hpp"
#include "exec/protocol/launch_limit.hpp"
#include "exec/protocol/verdict_reasons.hpp"

namespace ako::exec {
namespace {

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

// --- guard bands ---------------------------------------------------------------------------

TEST(GuardLayout, InteriorsAreAlignedAndGuardsStartRightAfterTheData) {
  // 3 bf16 elements (6 bytes), 1000 bytes, an exact multiple of 256, and an empty buffer.
  const ArenaLayout a = layout_arena({6, 1000, 512, 0});
  ASSERT_EQ(a.slots.size(), 4u);
  uint64_t cursor = 0;
  for (const GuardedSlot& s : a.slots) {
    EXPECT_EQ(s.before_offset, cursor);
    EXPECT_EQ(s.interior_offset, s.before_offset + kGuardBytes);
    EXPECT_EQ(s.interior_offset % kGuardAlign, 0u);
    EXPECT_EQ(s.after_offset, s.interior_offset + s.bytes);     // no gap: padding is guarded
    EXPECT_EQ((s.after_offset + s.after_bytes) % kGuardAlign, 0u);
    EXPECT_GE(s.after_bytes, kGuardBytes);
    cursor = s.after_offset + s.after_bytes;
  }
  EXPECT_EQ(a.total_bytes, cursor);
  EXPECT_EQ(a.slots[0].after_bytes, kGuardBytes + 250);   // 6 bytes padded to 256
  EXPECT_EQ(a.slots[2].after_bytes, kGuardBytes);         // already a multiple of 256
  EXPECT_EQ(a.slots[3].after_bytes, kGuardBytes);
}

TEST(GuardLayout, RejectsAGuardThatBreaksAlignment) {
  EXPECT_THROW(layout_arena({16}, 100), Error);
  EXPECT_THROW(layout_arena({16}, 0), Error);
  EXPECT_EQ(layout_arena({16}, 256).slots[0].interior_offset, 256u);
}

TEST(GuardLayout, PatternIsNotAConstantAndDependsOnTheSalt) {
  std::set<int> values;
  int same_as_other_salt = 0;
  for (uint64_t i = 0; i < 4096; ++i) {
    values.insert(guard_byte(7, i));
    same_as_other_salt += guard_byte(7, i) == guard_byte(8, i);
  }
  EXPECT_GT(values.size(), 200u);        // a kernel writing one fixed value cannot match it
  EXPECT_LT(same_as_other_salt, 64);     // ~1/256 agree by chance
  EXPECT_EQ(guard_byte(7, 5), guard_byte(7, 5));
}

TEST(GuardDamage, NamesTheBufferTheSideAndTheDistance) {
  GuardDamage after{"out", false, 16, 0, 15, kGuardBytes + 250};
  EXPECT_EQ(describe_guard_damage("the solution", after),
            "the solution wrote past the end of buffer 'out' (16 bytes changed, from 1 to 16 bytes after its end)");
  GuardDamage one{"out", false, 1, 0, 0, kGuardBytes};
  EXPECT_EQ(describe_guard_damage("the solution", one),
            "the solution wrote past the end of buffer 'out' (1 byte changed, from 1 to 1 byte after its end)");
  // Offsets in the guard before count from its start: the last byte is 1 byte before the buffer.
  GuardDamage before{"x", true, 2, kGuardBytes - 2, kGuardBytes - 1, kGuardBytes};
  EXPECT_EQ(describe_guard_damage("the solution", before),
            "the solution wrote before the start of buffer 'x' (2 bytes changed, from 2 to 1 byte before its start)");
}

// --- constant output, nondeterminism ----------------------------------------------------------

TEST(ConstantOutput, OnlyWhenTheReferenceVaries) {
  EXPECT_TRUE(is_constant_output(1000, 0, 999));
  EXPECT_FALSE(is_constant_output(1000, 1, 999));   // one element differs: not constant
  EXPECT_FALSE(is_constant_output(1000, 0, 0));     // the reference is constant too (e.g. zeros)
  EXPECT_FALSE(is_constant_output(1, 0, 0));        // a single element is always "constant"
  EXPECT_EQ(constant_output_reason("out", 1572864, 0),
            "constant output: all 1572864 elements of 'out' are 0 while the reference's vary "
            "(unwritten or skipped work)");
}

TEST(Nondeterminism, ReasonSaysWhatDifferedAndWhy) {
  const std::string r = nondeterministic_reason("out", 3, 1000, 17, 0.5, 0.25);
  EXPECT_EQ(r.rfind("nondeterministic: two runs of the solution on the same inputs differ in 'out'", 0), 0u) << r;
  EXPECT_TRUE(has(r, "3 of 1000 elements; worst at index 17: 0.5 then 0.25")) << r;
  EXPECT_TRUE(has(r, "a race or a read of uninitialised shared memory")) << r;
}

// --- timed input sets ------------------------------------------------------------------------

TEST(TimedInputSets, TogetherExceedTheL2WithinMemory) {
  const uint64_t l2 = 50ull << 20, plenty = 80ull << 30;
  // Small sets: enough to exceed the L2 by a set, capped at 8.
  const int small = timed_input_sets(10ull << 20, l2, plenty);
  EXPECT_EQ(small, 7);
  EXPECT_GT(static_cast<uint64_t>(small - 1) * (10ull << 20), l2);
  EXPECT_EQ(timed_input_sets(1ull << 20, l2, plenty), 8);
  EXPECT_EQ(timed_input_sets(1ull << 20, l2, plenty, 4), 4);
  // Sets larger than the L2: at least 4 placements while they take at most 4 GiB, else 2.
  EXPECT_EQ(timed_input_sets(85ull << 20, l2, plenty), 4);
  EXPECT_EQ(timed_input_sets(1ull << 30, l2, plenty), 4);
  EXPECT_EQ(timed_input_sets(2ull << 30, l2, plenty), 2);
  // Memory: at most half the free memory, never fewer than 1.
  EXPECT_EQ(timed_input_sets(2ull << 30, l2, 6ull << 30), 1);
  EXPECT_EQ(timed_input_sets(1ull << 20, l2, 8ull << 20), 4);
  EXPECT_EQ(timed_input_sets(0, l2, plenty), 1);
}

// --- per-launch watchdog ---------------------------------------------------------------------

TEST(LaunchLimitTest, ScalesFromTheReferenceWithinBounds) {
  LaunchLimit l;   // max(2 s, 1000 x reference), at most 54 s
  EXPECT_DOUBLE_EQ(launch_limit_s(l, std::nullopt), 54.0);
  EXPECT_DOUBLE_EQ(launch_limit_s(l, 20e-6), 2.0);       // fast reference: the floor
  EXPECT_DOUBLE_EQ(launch_limit_s(l, 5e-3), 5.0);        // 1000 x 5 ms
  EXPECT_DOUBLE_EQ(launch_limit_s(l, 1.0), 54.0);        // capped below the parent's watchdog
  EXPECT_EQ(describe_launch_limit(l, 21e-6), "max(2 s, 1000 x the reference's 21 us), at most 54 s");
  EXPECT_EQ(describe_launch_limit(l, std::nullopt), "54 s (the reference has not run yet)");
}

TEST(LaunchLimitTest, FollowsTheCaseTimeout) {
  const LaunchLimit five = launch_limit_for_case_timeout(5);
  EXPECT_DOUBLE_EQ(five.max_s, 4.5);
  EXPECT_DOUBLE_EQ(five.min_s, 2.0);
  const LaunchLimit one = launch_limit_for_case_timeout(1);
  EXPECT_DOUBLE_EQ(one.max_s, 0.9);
  EXPECT_DOUBLE_EQ(one.min_s, 0.9);   // the floor never exceeds the cap
  EXPECT_DOUBLE_EQ(launch_limit_s(one, 1e-6), 0.9);
  // A long case timeout (the run under ncu) raises the floor: a replayed launch is slow.
  const LaunchLimit profiled = launch_limit_for_case_timeout(600);
  EXPECT_DOUBLE_EQ(profiled.min_s, 20.0);
  EXPECT_DOUBLE_EQ(launch_limit_s(profiled, 207e-6), 20.0);
  EXPECT_DOUBLE_EQ(launch_limit_for_case_timeout(60).min_s, 2.0);   // the default is unchanged
}

TEST(LaunchLimitTest, TravelsInTheWorkerJob) {
  WorkerJob job;
  job.launch_limit = launch_limit_for_case_timeout(10);
  job.max_input_sets = 3;
  const WorkerJob back = nlohmann::json(job).get<WorkerJob>();
  EXPECT_DOUBLE_EQ(back.launch_limit.max_s, 9.0);
  EXPECT_EQ(back.max_input_sets, 3);
  // A job written before these fields existed keeps the defaults.
  nlohmann::json old = job;
  old.erase("launch_limit");
  old.erase("max_input_sets");
  const WorkerJob defaults = old.get<WorkerJob>();
  EXPECT_DOUBLE_EQ(defaults.launch_limit.factor, 1000.0);
  EXPECT_EQ(defaults.max_input_sets, 8);
}

// --- --sanitize ------------------------------------------------------------------------------

TEST(Sanitize, CommandLine) {
  const auto argv = sanitizer_argv("/cuda/bin/compute-sanitizer", "racecheck", "/tmp/r.txt", "/b/ako-worker", "/tmp/j.json");
  const std::vector<std::string> want = {"/cuda/bin/compute-sanitizer", "--tool", "racecheck", "--error-exitcode", "86",
                                         "--log-file", "/tmp/r.txt", "--print-limit", "100", "/b/ako-worker",
                                         "/tmp/j.json"};
  EXPECT_EQ(argv, want);
}

TEST(Sanitize, JobHoldsTheOneCaseUntimed) {
  WorkerJob job;
  for (int i = 0; i < 3; ++i) {
    CaseJob c;
    c.index = i;
    c.time = true;
    job.cases.push_back(c);
  }
  job.remeasure_bandwidth = true;
  const WorkerJob one = sanitize_job(job, 1, 120);
  ASSERT_EQ(one.cases.size(), 1u);
  EXPECT_EQ(one.cases[0].index, 1);
  EXPECT_FALSE(one.cases[0].time);
  EXPECT_FALSE(one.timing.use_cupti);
  EXPECT_FALSE(one.remeasure_bandwidth);
  EXPECT_DOUBLE_EQ(launch_limit_s(one.launch_limit, 1e-6), 120.0);
  EXPECT_THROW(sanitize_job(job, 7, 120), Error);
}

TEST(Sanitize, WhichCasesAreReRun) {
  CaseResult c;
  c.kind = "compare";
  c.verdict = Verdict::incorrect;
  EXPECT_TRUE(worth_sanitizing(c));
  c.verdict = Verdict::failed;
  for (const char* f : {"illegal_address", "misaligned", "trap", "out_of_bounds_write", "worker_crash"}) {
    c.fault = f;
    EXPECT_TRUE(worth_sanitizing(c)) << f;
  }
  for (const char* f : {"static_check", "implausible", "timeout", "job_error"}) {
    c.fault = f;
    EXPECT_FALSE(worth_sanitizing(c)) << f;
  }
  c.verdict = Verdict::correct;
  EXPECT_FALSE(worth_sanitizing(c));
  c.verdict = Verdict::incorrect;
  c.kind = "reference_check";
  EXPECT_FALSE(worth_sanitizing(c));
}

TEST(Sanitize, ReportParsing) {
  const std::string report =
      "========= COMPUTE-SANITIZER\n"
      "========= Invalid __global__ read of size 16 bytes\n"
      "=========     at rmsnorm_kernel<...>+0x1a0\n"
      "=========     by thread (0,0,0) in block (3,0,0)\n"
      "=========     Address 0x7f0000000102 is misaligned\n"
      "========= \n"
      "========= ERROR SUMMARY: 4 errors\n";
  EXPECT_EQ(sanitizer_error_count(report), 4);
  EXPECT_EQ(sanitizer_error_count("========= ERROR SUMMARY: 0 errors\n"), 0);
  EXPECT_EQ(sanitizer_error_count("no summary"), -1);
  const std::string ex = sanitizer_excerpt(report, 2);
  EXPECT_EQ(ex, "========= Invalid __global__ read of size 16 bytes\n=========     at rmsnorm_kernel<...>+0x1a0\n");
  EXPECT_TRUE(has(sanitizer_excerpt(report), "ERROR SUMMARY: 4 errors"));
}

TEST(Sanitize, MissingSanitizerIsReportedPerTool) {
  WorkerJob job;
  CaseJob c;
  c.index = 0;
  job.cases.push_back(c);
  SanitizeOptions opt;
  opt.sanitizer = "";
  opt.worker_exe = "/nonexistent/ako-worker";
  opt.out_dir = std::filesystem::temp_directory_path() / "ako-sanitize-test";
  ::setenv("AKO_COMPUTE_SANITIZER", "/nonexistent/compute-sanitizer", 1);
  const auto reports = sanitize_case(job, 0, opt);
  ::unsetenv("AKO_COMPUTE_SANITIZER");
  ASSERT_EQ(reports.size(), 3u);
  EXPECT_EQ(reports[0].tool, "memcheck");
  EXPECT_EQ(reports[2].tool, "initcheck");
  for (const auto& r : reports) {
    EXPECT_EQ(r.exit_code, -1);
    EXPECT_TRUE(has(r.excerpt, "could not be started")) << r.excerpt;
  }
}

}  // namespace
}  // namespace ako::exec
