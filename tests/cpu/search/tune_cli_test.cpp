// `ako tune --replay` as a user runs it, through the real binary and without a GPU: the
// report, the exit codes, determinism, and --write-config feeding the task stage.
#include <gtest/gtest.h>

#include "cpu/ako_cli_support.hpp"

#include <cstdio>
#include <fstream>
#include <sys/wait.h>

#include "search/tuner.hpp"
#include "search_fixture.hpp"
#include "task/cases.hpp"
#include "task/device_config.hpp"

namespace ako::search {
namespace {

using namespace testing;

using ako::testsupport::has;
using ako::testsupport::Ran;

Ran ako(const std::string& args, const fs::path& cwd) { return ako::testsupport::run_ako(args, cwd); }

std::string read_text(const fs::path& f) {
  std::ifstream in(f);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string without_wall(std::string s) {
  const auto w = s.find(", wall ");
  return w == std::string::npos ? s : s.substr(0, w);
}

TEST(TuneCli, ReplayExhaustiveReportsWinnersCoverageAndWritesAConfigRunUses) {
  ScratchDir dir("cli");
  const fs::path ws = dir.workspace();
  const task::TaskSpec spec = real_spec(ws);
  write_landscape(spec, dir.path() / "db.jsonl");

  const std::string default_before = read_text(ws / "solution/rmsnorm/configs/default.json");
  const std::string h100_before = read_text(ws / "solution/rmsnorm/configs/device_name=NVIDIA_H100_80GB_HBM3.json");
  const Ran r = ako("tune task rmsnorm --replay db.jsonl --strategy exhaustive --write-config --no-progress", dir.path());
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* w : {"replaying db.jsonl", "Synthetic H100", "cols-3072", "coverage", "own best", "loss",
                        "rejected points", "constraint \"(CHUNKS - 1) * (BLOCK / ROWS_PER_BLOCK) * VEC < cols\"",
                        "untuned classes", "TUNE: 6/6 classes tuned", "0 not in the replay file",
                        // The recorded device has no config yet: the search starts from default.json's classes.
                        "config: no tuned config for Synthetic H100 in solution/rmsnorm/configs/ (device files: NVIDIA "
                        "H100 80GB HBM3, NVIDIA H200); using default.json",
                        "wrote ", "solution/rmsnorm/configs/device_name=Synthetic_H100.json (15 classes) for Synthetic "
                        "H100; default.json and other devices' files unchanged"})
    EXPECT_TRUE(has(r.out, w)) << w << "\n" << r.out;
  // Only the tuned device's file is written: never default.json, never another device's.
  EXPECT_EQ(read_text(ws / "solution/rmsnorm/configs/default.json"), default_before);
  EXPECT_EQ(read_text(ws / "solution/rmsnorm/configs/device_name=NVIDIA_H100_80GB_HBM3.json"), h100_before);

  task::TaskSpec tuned = task::load_task(ws, "rmsnorm");
  EXPECT_EQ(tuned.config_file, "solution/rmsnorm/configs/default.json");  // another device still gets default.json
  const ConfigUsed used = task::use_device_config(tuned, "Synthetic H100", task::kDeviceFromGpu);
  EXPECT_FALSE(used.fallback);
  EXPECT_EQ(used.file, "solution/rmsnorm/configs/device_name=Synthetic_H100.json");
  EXPECT_TRUE(has(tuned.config_source, "ako tune --strategy exhaustive --replay db.jsonl (recorded on Synthetic H100"))
      << tuned.config_source;
  // Each case now runs the best point of its class on the landscape (exhaustive: the tie
  // rule's choice among points within 1% of the class's best).
  const auto cases = task::expand_cases(tuned, {}, {}, false);
  for (const auto& c : cases) {
    double best = 1e300;
    std::vector<const task::ShapeSpec*> cls_shapes;
    for (const auto& c2 : cases)
      if (c2.config_class == c.config_class && std::find(cls_shapes.begin(), cls_shapes.end(), c2.shape) == cls_shapes.end())
        cls_shapes.push_back(c2.shape);
    const Space space(tuned);
    for (const auto& p : enumerate(space, cls_shapes).valid) {
      double log_sum = 0;
      for (const auto* s : cls_shapes) log_sum += std::log(model_us(space.params_of(p), *s));
      best = std::min(best, std::exp(log_sum / cls_shapes.size()));
    }
    double mine = 0;
    for (const auto* s : cls_shapes) mine += std::log(model_us(c.params, *s));
    EXPECT_LE(std::exp(mine / cls_shapes.size()), best * (1 + kTieRel) + 1e-9) << c.label();
  }
}

TEST(TuneCli, EvolveWithABudgetIsDeterministicAndCheaper) {
  ScratchDir dir("cli-evolve");
  const fs::path ws = dir.workspace();
  write_landscape(real_spec(ws), dir.path() / "db.jsonl");
  const std::string args = "tune task rmsnorm --replay db.jsonl --strategy evolve --budget 25% --seed 5 --no-progress";
  const Ran a = ako(args, dir.path()), b = ako(args, dir.path());
  ASSERT_EQ(a.status, 0) << a.out;
  EXPECT_EQ(without_wall(a.out), without_wall(b.out));
  EXPECT_TRUE(has(a.out, "strategy evolve (seed 5), budget 25% per class")) << a.out;
  const Ran ex = ako("tune task rmsnorm --replay db.jsonl --strategy exhaustive --no-progress --json summary.json", dir.path());
  // A replay measures nothing: its summary has no drift sentinels' readings to give.
  const std::string summary = read_text(dir.path() / "summary.json");
  EXPECT_TRUE(has(summary, "\"remeasured_cases\": 0")) << summary;
  EXPECT_FALSE(has(summary, "\"sentinels\"")) << summary;
  auto evaluated = [](const std::string& out) {
    const auto p = out.find("classes tuned, ");
    return std::stoul(out.substr(p + 15));
  };
  EXPECT_LE(evaluated(a.out) * 4, evaluated(ex.out) + 6) << a.out;  // a quarter, rounded up per class
}

TEST(TuneCli, WhereTunesThoseCasesInClassesNamedByIt) {
  ScratchDir dir("cli-where");
  const fs::path ws = dir.workspace();
  write_landscape(real_spec(ws), dir.path() / "db.jsonl");
  const Ran r = ako("tune task rmsnorm --replay db.jsonl --strategy exhaustive --classes shape --shapes flux1-single "
                    "--where '!weight' --write-config --no-progress",
                    dir.path());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, "shape-flux1-single-not-weight")) << r.out;
  const std::string written = read_text(ws / "solution/rmsnorm/configs/device_name=Synthetic_H100.json");
  EXPECT_TRUE(has(written, "\"when\": \"(cols == 3072 && rows == 4608) && (!weight)\"")) << written;

  const Ran typo = ako("tune task rmsnorm --replay db.jsonl --where 'wieght' --no-progress", dir.path());
  EXPECT_EQ(typo.status, 2) << typo.out;
  EXPECT_TRUE(has(typo.out, "--where 'wieght'")) << typo.out;
  const Ran none = ako("tune task rmsnorm --replay db.jsonl --where \"dtype == 'fp32'\" --no-progress", dir.path());
  EXPECT_EQ(none.status, 2) << none.out;
  EXPECT_TRUE(has(none.out, "holds for no case")) << none.out;
}

TEST(TuneCli, UsageErrorsAndMissingData) {
  ScratchDir dir("cli-errors");
  const fs::path ws = dir.workspace();
  EXPECT_EQ(ako("tune task rmsnorm --strategy annealing", ws).status, 2);
  const Ran b = ako("tune task rmsnorm --replay db.jsonl --budget lots", ws);
  EXPECT_EQ(b.status, 2);
  const Ran nofile = ako("tune task rmsnorm --replay nope.jsonl", ws);
  EXPECT_EQ(nofile.status, 2);
  EXPECT_TRUE(has(nofile.out, "no such tuning database")) << nofile.out;
  const Ran shape = ako("tune task rmsnorm --replay nope.jsonl --shapes flux9", ws);
  EXPECT_EQ(shape.status, 2);
  EXPECT_TRUE(has(shape.out, "flux9")) << shape.out;

  // A replay file that lacks a class's points entirely: that class has no winner, exit 1.
  const task::TaskSpec spec = real_spec(ws);
  {
    TuningDb db(ws / "partial.jsonl", synthetic_context());
    DbRecord r;
    r.shape = "text-512";
    r.params = {{"BLOCK", 256}, {"CHUNKS", 2}, {"ROWS_PER_BLOCK", 1}, {"VEC", 8}};
    r.time_us = 10;
    db.append(r);
  }
  const Ran part = ako("tune task rmsnorm --replay partial.jsonl --strategy exhaustive --shapes text-512,qknorm-flux", ws);
  EXPECT_EQ(part.status, 1) << part.out;
  EXPECT_TRUE(has(part.out, "TUNE: 1/2 classes tuned")) << part.out;
  EXPECT_TRUE(has(part.out, "(none)")) << part.out;
}

// Tuned on two shapes only: every other shape is reported with the class that serves it
// from the written config (its own class, tuned or not: a tune of two shapes changes nothing
// for the others), the summary JSON says the same, and the task stage picks those classes.
TEST(TuneCli, UnseenShapesKeepTheirOwnClassAndTheReportSaysSo) {
  ScratchDir dir("cli-nearest");
  const fs::path ws = dir.workspace();
  write_landscape(real_spec(ws), dir.path() / "db.jsonl");
  const Ran r = ako("tune task rmsnorm --replay db.jsonl --strategy exhaustive --shapes flux1-single,zimage "
                    "--write-config --json summary.json --no-progress",
                    dir.path());
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* w : {"shapes the tuning did not measure",
                        "class cols-6144 used for shape flux2-single (not tuned; the class has no tuned params)",
                        "class cols-1536 used for shape wan13b-480p (not tuned; the class has no tuned params)",
                        "class cols-3072 used for shape qwen-image (not tuned; the class was tuned on flux1-single)"})
    EXPECT_TRUE(has(r.out, w)) << w << "\n" << r.out;
  EXPECT_FALSE(has(r.out, "PIPELINE:")) << "replay measures nothing: no pipeline line";

  const auto summary = nlohmann::json::parse(read_text(dir.path() / "summary.json"));
  EXPECT_EQ(summary["schema"], "ako.tune-summary/1");
  EXPECT_EQ(summary["strategy"], "exhaustive");
  EXPECT_EQ(summary["unseen_shapes"].size(), 8u);
  EXPECT_FALSE(summary["stopped"].get<bool>());
  EXPECT_TRUE(summary["pipeline"].contains("hidden_fraction"));
  size_t tuned = 0;
  for (const auto& c : summary["classes"])
    if (c.contains("winner")) {
      ++tuned;
      EXPECT_TRUE(c["complete"].get<bool>());
      EXPECT_GT(c["score_us"].get<double>(), 0);
    }
  EXPECT_EQ(tuned, 2u);

  task::TaskSpec tuned_spec = task::load_task(ws, "rmsnorm");
  task::use_device_config(tuned_spec, "Synthetic H100", task::kDeviceFromGpu);
  for (const auto& c : task::expand_cases(tuned_spec, {{"flux2-single"}, {}}, {}, false)) {
    EXPECT_EQ(c.config_class, "cols-6144");
    EXPECT_TRUE(has(c.config_note, "class cols-6144 used for shape flux2-single (not tuned")) << c.config_note;
  }
}

TEST(TuneCli, TimeBudgetIsParsedAndReported) {
  ScratchDir dir("cli-time");
  const fs::path ws = dir.workspace();
  write_landscape(real_spec(ws), dir.path() / "db.jsonl");
  const Ran bad = ako("tune task rmsnorm --replay db.jsonl --time 5min", dir.path());
  EXPECT_EQ(bad.status, 2);
  EXPECT_TRUE(has(bad.out, "--time 5min: expected a positive duration")) << bad.out;
  const Ran ok = ako("tune task rmsnorm --replay db.jsonl --strategy random --budget 10 --time 5m --no-progress", dir.path());
  ASSERT_EQ(ok.status, 0) << ok.out;
  EXPECT_TRUE(has(ok.out, "time budget 5m00s")) << ok.out;
  EXPECT_FALSE(has(ok.out, "STOPPED")) << ok.out;
}

// A database holding two devices' records: --device picks whose are replayed, the search starts
// from that device's config, and --write-config writes that device's file only. Records of
// one device never enter another's ranking (the device is part of the database context).
TEST(TuneCli, DeviceOptionReplaysThatDevicesRecordsAndWritesItsFile) {
  ScratchDir dir("cli-device");
  const fs::path ws = dir.workspace();
  const task::TaskSpec spec = real_spec(ws);
  DbContext h100 = synthetic_context();
  h100.device = "NVIDIA H100 80GB HBM3";
  DbContext h200 = synthetic_context();
  h200.device = "NVIDIA GB200";
  write_landscape(spec, dir.path() / "h100.jsonl", h100);
  write_landscape(spec, dir.path() / "h200.jsonl", h200);
  {  // one file, the H200's records last
    std::ofstream both(dir.path() / "db.jsonl");
    both << read_text(dir.path() / "h100.jsonl") << read_text(dir.path() / "h200.jsonl");
  }
  const std::string h100_before = read_text(ws / "solution/rmsnorm/configs/device_name=NVIDIA_H100_80GB_HBM3.json");

  const Ran last = ako("tune task rmsnorm --replay db.jsonl --strategy random --budget 5 --no-progress", dir.path());
  ASSERT_EQ(last.status, 0) << last.out;
  EXPECT_TRUE(has(last.out, "(device NVIDIA GB200, arch sm_90a")) << last.out;  // the last record's device

  const Ran r = ako("tune task rmsnorm --replay db.jsonl --device NVIDIA_H100_80GB_HBM3 --strategy random --budget 5 "
                    "--write-config --no-progress",
                    dir.path());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, "(device NVIDIA H100 80GB HBM3, arch sm_90a")) << r.out;
  EXPECT_TRUE(has(r.out, "config: solution/rmsnorm/configs/device_name=NVIDIA_H100_80GB_HBM3.json (the config for "
                         "NVIDIA H100 80GB HBM3, the device the replayed records were measured on)"))
      << r.out;
  EXPECT_TRUE(has(r.out, "for NVIDIA H100 80GB HBM3, replacing its previous config")) << r.out;
  EXPECT_NE(read_text(ws / "solution/rmsnorm/configs/device_name=NVIDIA_H100_80GB_HBM3.json"), h100_before);
  EXPECT_FALSE(fs::exists(ws / "solution/rmsnorm/configs/device_name=NVIDIA_GB200.json"));

  const Ran unknown = ako("tune task rmsnorm --replay db.jsonl --device \"NVIDIA B200\" --no-progress", dir.path());
  EXPECT_EQ(unknown.status, 2) << unknown.out;
  EXPECT_TRUE(has(unknown.out, "--device NVIDIA B200: db.jsonl has no records of task rmsnorm measured on it (devices "
                               "there: NVIDIA H100 80GB HBM3, NVIDIA GB200)"))
      << unknown.out;
}

}  // namespace
}  // namespace ako::search
