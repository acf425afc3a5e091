// `ako tune --gpus` on a machine without GPUs: the fake driver (tests/support/fake_gpu/) shows
// several GPUs with UUIDs, and the fake worker stands in for ako-worker on each (pinned by
// CUDA_VISIBLE_DEVICES=<uuid>, as the real one is). The search is split over the GPUs, every
// (variant, shape) is evaluated once and tagged with the GPU that did it, a GPU lost in the
// middle of a batch (its worker SIGKILLs itself, and again when restarted) has its unfinished
// variants taken over by the others, mixed models are refused, and --compile-only (with or
// without a GPU) records "compiled" lines that a measuring run never takes for measurements.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "../ako_cli_support.hpp"
#include "inplace_scale_workspace.hpp"
#include "common/atomic_file.hpp"
#include "common/error.hpp"

namespace {

namespace fs = std::filesystem;
using ako::testsupport::has;
using ako::testsupport::Ran;
using ako::testsupport::run_shell;
using nlohmann::json;

constexpr int kVariants = 10;  // BLOCK values below, on 2 shapes: 20 (variant, shape) pairs

std::string fake_uuid(int rank, int gpu) {
  return fmt::format("GPU-fa4e0000-0000-0000-0000-00000000{:02x}{:02x}", rank, gpu);
}

class MultiGpuCli : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "ako-gpus-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    ws_ = dir_ / "ws";
    ako::testsupport::copy_inplace_scale(ws_, {32, 64, 96, 128, 160, 192, 224, 256, 512, 1024});
  }
  void TearDown() override {
    std::error_code ec;
    if (!HasFailure()) fs::remove_all(dir_, ec);
  }

  // `ako ARGS` in the workspace with the fake driver (unless `fake_driver` is false) and worker.
  Ran ako(const std::string& args, const std::string& env = "", bool fake_driver = true) const {
    const char* ld = std::getenv("LD_LIBRARY_PATH");
    std::string vars = fmt::format("AKO_CACHE_DIR='{}' TMPDIR='{}' AKO_WORKER='{}' AKO_FAKE_WORKER_CASE_MS=5 ",
                                   (dir_ / "cache").string(), dir_.string(), AKO_FAKE_WORKER);
    if (fake_driver)
      vars += fmt::format("LD_LIBRARY_PATH='{}{}' ", AKO_FAKE_CUDA_DIR, ld && *ld ? std::string(":") + ld : "");
    return run_shell("cd '" + ws_.string() + "' && " + vars + env + " '" AKO_BINARY_DIR "/ako' tune task inplace_scale --db '" +
                     db().string() + "' --no-progress " + args);
  }
  fs::path db() const { return dir_ / "tune.jsonl"; }

  std::vector<json> lines() const {
    std::vector<json> out;
    std::istringstream in(ako::read_file(db()));
    for (std::string l; std::getline(in, l);)
      if (!l.empty()) out.push_back(json::parse(l));
    return out;
  }

  // Every (variant, shape) pair exactly once; returns the records per GPU UUID.
  std::map<std::string, int> expect_each_pair_once(const std::string& verdict) const {
    std::set<std::string> keys;
    std::map<std::string, int> per_gpu;
    const auto all = lines();
    for (const auto& l : all) {
      EXPECT_TRUE(keys.insert(l["shape"].get<std::string>() + l["params"].dump()).second) << "twice: " << l.dump();
      EXPECT_EQ(l["verdict"], verdict) << l.dump();
      ++per_gpu[l.value("gpu_uuid", "")];
    }
    EXPECT_EQ(keys.size(), 2u * kVariants);
    EXPECT_EQ(all.size(), 2u * kVariants);
    return per_gpu;
  }

  fs::path dir_, ws_;
};

TEST_F(MultiGpuCli, GpusAllSplitsTheSearchOverEveryGpuAndMeasuresEachVariantOnce) {
  const Ran r = ako("--gpus all --strategy exhaustive", "AKO_FAKE_GPU_COUNT=3");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, "GPUs: 3 (0 " + fake_uuid(0, 0))) << r.out;
  EXPECT_TRUE(has(r.out, "3 lanes (0 lost, 0 (variant, shape) pairs retried on another)")) << r.out;
  const auto per_gpu = expect_each_pair_once("correct");
  for (int g = 0; g < 3; ++g) EXPECT_GT(per_gpu.count(fake_uuid(0, g)) ? per_gpu.at(fake_uuid(0, g)) : 0, 0) << g;
  EXPECT_EQ(per_gpu.size(), 3u) << r.out;

  // The same command again resumes: everything is in the database, nothing is measured.
  const Ran again = ako("--gpus all --strategy exhaustive", "AKO_FAKE_GPU_COUNT=3");
  ASSERT_EQ(again.status, 0) << again.out;
  EXPECT_TRUE(has(again.out, "0 (variant, shape) pairs measured, 20 reused")) << again.out;
}

TEST_F(MultiGpuCli, LanesMeasuringAtOnceEachHaveAScratchFolderOfTheirOwn) {
  // Each lane's share of the batch takes its worker about 3.5 s (about 7 (variant, shape) pairs x
  // 2 cases x 250 ms): longer than a lane waits for a scratch folder another holds (2 s). With one folder for the
  // process, the first lane to measure held it and the second gave up ("cannot take the scratch
  // folder ...: another process holds it", seen on two H200s); each lane now has its own.
  const Ran r = ako("--gpus all --strategy exhaustive", "AKO_FAKE_GPU_COUNT=3 AKO_FAKE_WORKER_CASE_MS=250");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_FALSE(has(r.out, "cannot take the scratch folder")) << r.out;
  EXPECT_TRUE(has(r.out, "3 lanes (0 lost, 0 (variant, shape) pairs retried on another)")) << r.out;
  EXPECT_EQ(expect_each_pair_once("correct").size(), 3u);
  for (const auto& e : fs::directory_iterator(dir_))  // every lane's folder removed
    EXPECT_NE(e.path().filename().string().rfind("ako-tune-", 0), 0u) << e.path();
}

// A GPU slow for one batch (the fake worker's third job adds 5.5 us to every kernel, as a shared
// H200 did for a minute): the drift sentinels catch it, say so, and the batch's records hold the
// re-measured times (the fake's reference is always 1.25x its solution; a slow record would not
// be). Batches of 5 take the two classes in turn, so the third is the small class's second: its
// labels' references were timed in the first.
TEST_F(MultiGpuCli, ASlowWindowIsCaughtByTheDriftSentinelsAndMeasuredAgain) {
  const fs::path summary = dir_ / "tune.json";
  const Ran r = ako("--strategy exhaustive --batch 5 --json '" + summary.string() + "'",
                    "AKO_FAKE_GPU_COUNT=1 AKO_FAKE_WORKER_SLOW_JOB='" + (dir_ / "jobs").string() + ":3'");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, "drift: GPU-")) << r.out;
  EXPECT_TRUE(has(r.out, "the GPU was slower for a while;")) << r.out;
  EXPECT_TRUE(has(r.out, "cases measured again after 1 slow window(s)")) << r.out;
  const json s = json::parse(ako::read_file(summary));
  EXPECT_GT(s["remeasured_cases"].get<int>(), 0) << s.dump();
  EXPECT_EQ(s["drift_notes"].size(), 1u) << s.dump();
  // What the sentinels read: the window's reading is the highest (5.5 us over the reference).
  EXPECT_GT(s["sentinels"]["readings"].get<int>(), 0) << s.dump();
  EXPECT_GT(s["sentinels"]["highest"]["ratio"].get<double>(), 1.05) << s.dump();
  EXPECT_EQ(s["sentinels"]["highest"]["gpu"].get<std::string>().rfind("GPU-", 0), 0u) << s.dump();
  expect_each_pair_once("correct");
  for (const auto& l : lines())
    for (const auto& c : l["cases"])
      EXPECT_NEAR(c["reference_us"].get<double>() / c["iqm_us"].get<double>(), 1.25, 1e-6) << l.dump();

  // The second job is the wide class's first: its references are timed in the window, none of
  // its cases can be a sentinel; a probe (a case of the first batch, whose reference is recorded)
  // catches it, and its cases, references included, are measured again.
  fs::remove(db());
  fs::remove(dir_ / "jobs");
  const Ran first = ako("--strategy exhaustive --batch 5", "AKO_FAKE_GPU_COUNT=1 AKO_FAKE_WORKER_SLOW_JOB='" +
                                                                 (dir_ / "jobs").string() + ":2'");
  ASSERT_EQ(first.status, 0) << first.out;
  EXPECT_TRUE(has(first.out, "cases measured again after 1 slow window(s)")) << first.out;
  EXPECT_FALSE(has(first.out, "first timed in a slow window")) << first.out;
  for (const auto& l : lines())
    for (const auto& c : l["cases"])
      EXPECT_NEAR(c["reference_us"].get<double>() / c["iqm_us"].get<double>(), 1.25, 1e-6) << l.dump();

  // Without the slow job: no drift line, nothing measured again.
  fs::remove(db());
  const Ran steady = ako("--strategy exhaustive --batch 5 --json '" + summary.string() + "'", "AKO_FAKE_GPU_COUNT=1");
  ASSERT_EQ(steady.status, 0) << steady.out;
  EXPECT_FALSE(has(steady.out, "drift:")) << steady.out;
  const json steady_summary = json::parse(ako::read_file(summary));
  EXPECT_EQ(steady_summary["remeasured_cases"], 0);
  EXPECT_GT(steady_summary["sentinels"]["readings"].get<int>() + steady_summary["sentinels"]["probe_readings"].get<int>(), 0)
      << steady_summary.dump();
  EXPECT_EQ(steady_summary["sentinels"]["probes_unread"], 0) << steady_summary.dump();
}

// `--time` also ends the compiles of a batch under way (a fresh machine's first batch once
// compiled for 260 s of a 200 s budget and recorded nothing): one compile at a time from a cold
// cache and a one-second budget leave most of the batch of 10 uncompiled. Nothing is recorded
// for those (no "failed" lines), and the resumed tune compiles and measures exactly them.
TEST_F(MultiGpuCli, TheTimeBudgetEndsABatchsCompilesAndTheResumeAsksTheRestAgain) {
  const Ran r = ako("--strategy exhaustive --batch 10 -j 1 --time 1", "AKO_FAKE_GPU_COUNT=1");
  EXPECT_NE(r.status, 2) << r.out;
  EXPECT_TRUE(has(r.out, "STOPPED: the time budget (1s) ran out")) << r.out;
  EXPECT_TRUE(has(r.out, "NOT COMPILED: ")) << r.out;
  EXPECT_TRUE(has(r.out, "a resumed tune asks them again")) << r.out;
  const size_t first = fs::exists(db()) ? lines().size() : 0;
  EXPECT_LT(first, 2u * kVariants) << r.out;
  if (first > 0) {
    for (const auto& l : lines()) EXPECT_EQ(l["verdict"], "correct") << l.dump();
  }

  const Ran resumed = ako("--strategy exhaustive", "AKO_FAKE_GPU_COUNT=1");
  ASSERT_EQ(resumed.status, 0) << resumed.out;
  EXPECT_TRUE(has(resumed.out, fmt::format("{} (variant, shape) pairs measured, {} reused", 2 * kVariants - first, first)))
      << resumed.out;
  EXPECT_FALSE(has(resumed.out, "NOT COMPILED")) << resumed.out;
  expect_each_pair_once("correct");
}

TEST_F(MultiGpuCli, AGpuLostMidBatchHasItsVariantsRetriedByAnother) {
  const std::string env = "AKO_FAKE_GPU_COUNT=3 AKO_FAKE_WORKER_DIE_ON=" + fake_uuid(0, 1) +
                          " AKO_FAKE_WORKER_DIE_AFTER=2";
  const Ran r = ako("--gpus all --strategy exhaustive", env);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, "lane " + fake_uuid(0, 1) + " lost: the worker on " + fake_uuid(0, 1) + " gave up")) << r.out;
  EXPECT_TRUE(has(r.out, "3 lanes (1 lost,")) << r.out;
  const auto per_gpu = expect_each_pair_once("correct");
  // Its worker finished the first variant (both dtypes' cases) before it died: that record stays.
  EXPECT_EQ(per_gpu.count(fake_uuid(0, 1)) ? per_gpu.at(fake_uuid(0, 1)) : 0, 1) << r.out;
}

TEST_F(MultiGpuCli, GpusOfDifferentModelsAreRefused) {
  const Ran r = ako("--gpus all", "AKO_FAKE_GPU_NAMES='NVIDIA H200,NVIDIA H100 80GB HBM3'");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(has(r.out, "different models (0: NVIDIA H200, 1: NVIDIA H100 80GB HBM3)")) << r.out;
  EXPECT_FALSE(fs::exists(db()));
  // One model of the two, by index, is fine.
  const Ran one = ako("--gpus 1, --compile-only", "AKO_FAKE_GPU_NAMES='NVIDIA H200,NVIDIA H100 80GB HBM3'");
  EXPECT_EQ(one.status, 0) << one.out;
  EXPECT_TRUE(has(one.out, "NVIDIA H100 80GB HBM3")) << one.out;
  const Ran bad = ako("--gpus 4", "AKO_FAKE_GPU_COUNT=2");
  EXPECT_EQ(bad.status, 2) << bad.out;
  EXPECT_TRUE(has(bad.out, "--gpus 4: this host has 2 visible GPU(s)")) << bad.out;
}

TEST_F(MultiGpuCli, CompileOnlyOnThreeGpusRecordsCompiledLinesNeverTakenForMeasurements) {
  const Ran r = ako("--gpus all --compile-only --strategy exhaustive", "AKO_FAKE_GPU_COUNT=3");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, "COMPILE-ONLY: 20 of 20 variants compiled and passed the static checks")) << r.out;
  const auto per_gpu = expect_each_pair_once("compiled");
  EXPECT_EQ(per_gpu.size(), 3u) << r.out;
  for (const auto& l : lines()) EXPECT_EQ(l["iqm_us"], 0.0) << l.dump();

  const Ran again = ako("--gpus all --compile-only --strategy exhaustive", "AKO_FAKE_GPU_COUNT=3");
  ASSERT_EQ(again.status, 0) << again.out;
  EXPECT_TRUE(has(again.out, "0 (variant, shape) pairs compiled, 20 reused")) << again.out;
  EXPECT_FALSE(has(r.out, "pairs measured")) << r.out;  // a compile-only run measures nothing
  EXPECT_TRUE(has(r.out, "20 (variant, shape) pairs compiled, 0 reused")) << r.out;
  // A measuring run measures every variant: a compiled line is no measurement.
  const Ran measured = ako("--strategy exhaustive", "AKO_FAKE_GPU_COUNT=3");
  ASSERT_EQ(measured.status, 0) << measured.out;
  EXPECT_TRUE(has(measured.out, "20 (variant, shape) pairs measured, 0 reused")) << measured.out;
  EXPECT_FALSE(has(measured.out, "lanes")) << measured.out;  // one GPU: the one-GPU path

  const Ran write = ako("--compile-only --write-config", "AKO_FAKE_GPU_COUNT=1");
  EXPECT_EQ(write.status, 2) << write.out;
  EXPECT_TRUE(has(write.out, "has no winners to write")) << write.out;
}

TEST_F(MultiGpuCli, CompileOnlyNeedsNoGpu) {
  // No fake driver: on this machine there is no libcuda at all (where there is one, its GPU's
  // context is used instead; the records are "compiled" either way).
  const Ran r = ako("--compile-only --strategy exhaustive --arch sm_90a", "", false);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, "COMPILE-ONLY: 20 of 20 variants compiled")) << r.out;
  expect_each_pair_once("compiled");
}

// A malformed --gpus is said as such, on a machine with no GPU too (it used to say "no GPU"
// first, which sent the user after the wrong problem).
TEST_F(MultiGpuCli, AMalformedGpusSpecIsSaidBeforeAnyGpuIsLookedFor) {
  for (const std::string spec : {"foo", "0", "1,1", "2,x"}) {
    const Ran r = ako("--gpus " + spec, "", /*fake_driver=*/false);
    EXPECT_EQ(r.status, 2) << spec << "\n" << r.out;
    EXPECT_TRUE(has(r.out, "--gpus " + spec + ":")) << r.out;
    EXPECT_FALSE(has(r.out, "no GPU")) << r.out;
  }
}

}  // namespace
