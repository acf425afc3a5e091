// ncu: the command line iterate runs, and the numbers read from a recorded --page raw CSV
// (fixture written from the metric names measured on the H100, cuda_tech.md §5).
#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include <algorithm>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "profile/ncu_csv.hpp"
#include "profile/ncu_profile.hpp"

namespace ako::profile {
namespace {

const std::string kFixture = AKO_TEST_DIR "/cpu/profile/fixtures/ncu_raw.csv";

TEST(NcuCsv, RecordedProfileGivesTheSummary) {
  const NcuRawTable t = parse_ncu_raw_csv(read_file(kFixture));
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_EQ(t.units[t.names.size() - 1], "inst");
  const NcuSummary s = summarize_ncu(t);
  EXPECT_NE(s.kernel.find("rmsnorm_kernel<__nv_bfloat16, true, 256, 8, 1, 2>"), std::string::npos);
  EXPECT_DOUBLE_EQ(*s.dram_throughput_pct, 91.53);
  EXPECT_DOUBLE_EQ(*s.achieved_occupancy_pct, 87.61);
  EXPECT_DOUBLE_EQ(*s.theoretical_occupancy_pct, 100);
  EXPECT_EQ(*s.registers_per_thread, 30);
  EXPECT_DOUBLE_EQ(*s.local_spill_requests, 0);
  EXPECT_EQ(s.spill_metric, "derived__local_spilling_requests");
  EXPECT_DOUBLE_EQ(*s.duration_us, 492.768);  // "492,768" ns: thousands separator stripped
  EXPECT_EQ(s.dominant_stall, "long_scoreboard");
  EXPECT_DOUBLE_EQ(*s.dominant_stall_cycles, 38.92);
}

TEST(NcuCsv, SummaryJsonRoundTrips) {
  const NcuSummary s = summarize_ncu(parse_ncu_raw_csv(read_file(kFixture)));
  const NcuSummary back = ncu_summary_from_json(to_json(s));
  EXPECT_EQ(to_json(back), to_json(s));
  EXPECT_TRUE(to_json(NcuSummary{})["dram_throughput_pct"].is_null());
}

TEST(NcuCsv, QuotedFieldsAndMissingMetrics) {
  EXPECT_EQ(split_csv_record(R"("a","b,c","say ""hi""","")"),
            (std::vector<std::string>{"a", "b,c", "say \"hi\"", ""}));
  const NcuSummary s = summarize_ncu(parse_ncu_raw_csv("\"ID\",\"Kernel Name\",\"launch__registers_per_thread\"\n"
                                                       "\"\",\"\",\"register/thread\"\n\"0\",\"k\",\"n/a\"\n"));
  EXPECT_FALSE(s.registers_per_thread);
  EXPECT_FALSE(s.dram_throughput_pct);
  EXPECT_EQ(s.dominant_stall, "");
}

TEST(NcuCsv, NoKernelProfiledIsSaidPlainly) {
  try {
    parse_ncu_raw_csv("==PROF== Disconnected from process 1\n==WARNING== No kernels were profiled.\n");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no CSV table"), std::string::npos) << e.what();
  }
  EXPECT_THROW(summarize_ncu(parse_ncu_raw_csv("\"ID\",\"Kernel Name\"\n\"\",\"\"\n")), Error);
  EXPECT_THROW(parse_ncu_raw_csv("\"Section Name\",\"Metric Name\"\n"), Error);
}

TEST(NcuCommand, ProfilesOneLaunchOfOneKernelWithClocksUnlocked) {
  NcuRequest r;
  r.ncu = "/opt/ncu";
  r.report = "/tmp/x/ncu.ncu-rep";
  r.log_file = "/tmp/x/ncu.log";
  r.kernel = "_Z14rmsnorm_kernelI13__nv_bfloat16Lb1ELi256ELi8ELi1ELi2EEvPT_PKS1_S4_iif";
  r.app = {"/bin/ako", "run", "task", "rmsnorm", "--no-cupti"};
  const auto argv = ncu_profile_argv(r);
  const std::string line = shell_words(argv);
  for (const char* want : {"/opt/ncu --clock-control none --target-processes all", "--section MemoryWorkloadAnalysis",
                           "--section SpeedOfLight", "--section Occupancy", "--section LaunchStats",
                           "--section WarpStateStats", "--kernel-name-base mangled --kernel-name _Z14rmsnorm_kernel",
                           "--launch-skip 1 --launch-count 1 -f -o /tmp/x/ncu.ncu-rep --log-file /tmp/x/ncu.log",
                           "/bin/ako run task rmsnorm --no-cupti"})
    EXPECT_NE(line.find(want), std::string::npos) << want << "\n" << line;
  EXPECT_EQ(argv.back(), "--no-cupti");

  r.kernel = "regex:^rmsnorm_kernel$";
  EXPECT_NE(shell_words(ncu_profile_argv(r)).find("--kernel-name-base function --kernel-name 'regex:^rmsnorm_kernel$'"),
            std::string::npos);
  EXPECT_EQ(ncu_import_argv("/opt/ncu", "/tmp/r.ncu-rep"),
            (std::vector<std::string>{"/opt/ncu", "--import", "/tmp/r.ncu-rep", "--csv", "--page", "raw"}));
}

TEST(NcuCommand, AMissingOrFailingNcuIsAnOutcomeNotACrash) {
  ::setenv("AKO_NCU", "/nonexistent/ncu", 1);
  std::string looked;
  EXPECT_FALSE(find_ncu(looked));
  EXPECT_NE(looked.find("/nonexistent/ncu"), std::string::npos);
  ::unsetenv("AKO_NCU");

  NcuRequest r;
  r.ncu = "/bin/false";  // exits 1 at once, writes no report
  const auto dir = std::filesystem::temp_directory_path() / "ako-ncu-test";
  r.report = dir / "r.ncu-rep";
  r.log_file = dir / "r.log";
  r.kernel = "k";
  const NcuOutcome o = run_ncu(r, 10);
  EXPECT_FALSE(o.ok);
  EXPECT_NE(o.error.find("ncu failed (exit status 1, no report written)"), std::string::npos) << o.error;
  std::filesystem::remove_all(dir);
}

}  // namespace
// The duration column's unit is the table's second row: ncu writes "us" for a 14 µs kernel (the H200).
TEST(NcuCsv, DurationFollowsTheUnitRow) {
  NcuRawTable t;
  t.names = {"Kernel Name", "gpu__time_duration.sum"};
  for (const auto& [unit, value, want] : std::vector<std::tuple<std::string, std::string, double>>{
           {"ns", "14,620", 14.62}, {"us", "14.62", 14.62}, {"usecond", "14.62", 14.62}, {"ms", "1.5", 1500.0}}) {
    t.units = {"", unit};
    t.rows = {{{"Kernel Name", "k"}, {"gpu__time_duration.sum", value}}};
    const NcuSummary s = summarize_ncu(t);
    ASSERT_TRUE(s.duration_us) << unit;
    EXPECT_NEAR(*s.duration_us, want, 1e-9) << unit;
  }
}

}  // namespace ako::profile
