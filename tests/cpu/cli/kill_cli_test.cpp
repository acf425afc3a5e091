// A killed ako leaves nothing behind (README, "Trustworthy verdicts"): `ako tune` and `ako run`
// stopped by SIGINT, SIGTERM or SIGKILL at random moments, 50 times each, on this machine
// without a GPU. The real binary runs its real path (task, NVRTC through the kernel cache,
// probe, worker job, worker, verdicts, files); only the GPU side is a stand-in: a libcuda.so.1
// with the probe's calls and a worker that speaks the protocol (tests/support/fake_gpu/), which,
// like a real worker inside a kernel, does not notice its parent dying. After every kill: no
// process that ako started is left (worker included), every tuning-database line is a whole
// record, the run's JSON is absent or whole, no temporary file is left; the next call resumes
// (tune reuses what was recorded) and a last uninterrupted call completes.
#include <gtest/gtest.h>

#include "cpu/cli/inplace_scale_workspace.hpp"
#include "cpu/kill_support.hpp"

#include <stdlib.h>

#include <filesystem>
#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/atomic_file.hpp"
#include "exec/protocol/ancestor_watch.hpp"
#include "search/tuning_db.hpp"

namespace fs = std::filesystem;

namespace {

using ako::testsupport::Ended;
using ako::testsupport::KilledProcess;

constexpr int kKills = 50;
constexpr int kVariants = 6;   // BLOCK values below
constexpr int kShapes = 2;     // inplace_scale's shapes

// What every line of a tuning database holds: whole records only (a line cut by a kill could
// only be the last, unterminated one).
struct DbLines {
  std::set<std::string> keys;   // shape|params of every record
  int records = 0;
  std::vector<std::string> broken;   // terminated lines that are no record
  bool torn_tail = false;            // an unterminated last line
};

DbLines read_db(const fs::path& db) {
  DbLines out;
  if (!fs::exists(db)) return out;
  const std::string text = ako::read_file(db);
  size_t at = 0;
  while (at < text.size()) {
    const size_t nl = text.find('\n', at);
    if (nl == std::string::npos) {
      out.torn_tail = true;
      break;
    }
    const std::string line = text.substr(at, nl - at);
    at = nl + 1;
    try {
      const auto r = ako::search::record_from_json(nlohmann::json::parse(line));
      out.keys.insert(ako::search::record_key(r.shape, r.params));
      ++out.records;
    } catch (const std::exception& e) {
      out.broken.push_back(line.substr(0, 200) + " (" + e.what() + ")");
    }
  }
  return out;
}

// Files a kill could have left half-written or as temporaries, anywhere under `dir`.
std::vector<std::string> temporaries_under(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.find(".tmp") != std::string::npos || name.starts_with(".ako-tmp-")) out.push_back(e.path().string());
  }
  return out;
}

class KillCli : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "ako-kill-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    ws_ = dir_ / "ws";
    ako::testsupport::copy_inplace_scale(ws_, {32, 64, 128, 256, 512, 1024});
    fs::create_directories(dir_ / "tmp");
    token_ = fmt::format("AKO_KILL_TEST_TOKEN={}-{}", ::getpid(), std::random_device{}());
  }
  void TearDown() override {
    std::error_code ec;
    if (!HasFailure()) fs::remove_all(dir_, ec);
  }

  std::vector<std::string> env() const {
    const char* ld = std::getenv("LD_LIBRARY_PATH");
    return {std::string("LD_LIBRARY_PATH=") + AKO_FAKE_CUDA_DIR + (ld && *ld ? std::string(":") + ld : ""),
            std::string("AKO_WORKER=") + AKO_FAKE_WORKER,
            "AKO_FAKE_WORKER_CASE_MS=15",
            "AKO_CACHE_DIR=" + (dir_ / "cache").string(),
            "TMPDIR=" + (dir_ / "tmp").string(),   // the scratch folders of the runs
            token_};
  }

  // `extra` ("KEY=VALUE") replaces env()'s entry of the same key, or adds one.
  KilledProcess start(const std::vector<std::string>& args, const fs::path& log,
                      const std::vector<std::string>& extra = {}) const {
    std::vector<std::string> argv{AKO_BINARY_DIR "/ako"};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<std::string> vars = extra;
    const auto key = [](const std::string& v) { return v.substr(0, v.find('=')); };
    for (const std::string& v : env())
      if (std::none_of(extra.begin(), extra.end(), [&](const std::string& e) { return key(e) == key(v); }))
        vars.push_back(v);
    return KilledProcess(argv, ws_, vars, log);
  }

  // The whole command, uninterrupted: its exit status and output.
  std::pair<int, std::string> complete(const std::vector<std::string>& args,
                                       const std::vector<std::string>& extra = {}) const {
    const fs::path log = dir_ / "complete.log";
    KilledProcess p = start(args, log, extra);
    const Ended e = p.stop_after(120000, SIGKILL);
    return {e.signalled ? -1 : e.code, ako::read_file(log)};
  }

  // Seconds the whole command takes (warm kernel cache).
  double timed(const std::vector<std::string>& args) const {
    const auto t0 = std::chrono::steady_clock::now();
    const auto [status, out] = complete(args);
    EXPECT_EQ(status, 0) << out;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  std::string describe(int i, int sig, const Ended& e, const fs::path& log) const {
    return fmt::format("kill {} ({} after {:.3f} s, {}):\n{}", i, ako::testsupport::signal_name(sig), e.after_s,
                       e.signalled ? "killed" : fmt::format("had exited with {}", e.code), ako::read_file(log));
  }

  fs::path dir_, ws_;
  std::string token_;
};

const std::vector<int> kSignals{SIGINT, SIGTERM, SIGKILL};

TEST_F(KillCli, TuneKilledAtRandomMomentsLeavesNoWorkerAndWholeDbLinesAndResumes) {
  const fs::path db = dir_ / "tune.jsonl";
  const std::vector<std::string> args{"tune",  "task", "inplace_scale", "--db", db.string(), "--strategy", "exhaustive",
                                      "--batch", "2", "--no-progress", "--jobs", "2"};
  // Warm the kernel cache (the compile children are another test's subject), then learn how
  // long a whole tune takes: the kills fall anywhere inside that.
  const auto [warm_status, warm_out] = complete(args);
  ASSERT_EQ(warm_status, 0) << warm_out;
  ASSERT_EQ(read_db(db).keys.size(), size_t(kVariants * kShapes)) << warm_out;
  fs::remove(db);
  const double whole_s = timed(args);
  fs::remove(db);

  std::mt19937 rng(20261116);
  const int max_ms = static_cast<int>(whole_s * 1000 * 1.1);
  int killed = 0, completed = 0;
  for (int i = 0; i < kKills; ++i) {
    const int sig = kSignals[i % kSignals.size()];
    const int delay = std::uniform_int_distribution<int>(0, max_ms)(rng);
    const DbLines before = read_db(db);
    const fs::path log = dir_ / "kill.log";
    KilledProcess p = start(args, log);
    const Ended e = p.stop_after(delay, sig);
    const std::string what = describe(i, sig, e, log);

    const std::vector<std::string> left = ako::testsupport::left_after(token_, 500);
    EXPECT_TRUE(left.empty()) << "processes left: " << fmt::format("{}", fmt::join(left, "; ")) << "\n" << what;
    const DbLines now = read_db(db);
    EXPECT_TRUE(now.broken.empty()) << fmt::format("{}", fmt::join(now.broken, "\n")) << "\n" << what;
    EXPECT_GE(now.keys.size(), before.keys.size()) << "a record was lost\n" << what;
    EXPECT_TRUE(temporaries_under(ws_).empty()) << fmt::format("{}", fmt::join(temporaries_under(ws_), "\n")) << what;
    if (e.signalled) {
      EXPECT_EQ(e.signal, sig) << what;
      ++killed;
      continue;
    }
    // It finished before the signal: everything is recorded, and whatever was there before was
    // reused, not measured again.
    ASSERT_EQ(e.code, 0) << what;
    EXPECT_EQ(now.keys.size(), size_t(kVariants * kShapes)) << what;
    const std::string out = ako::read_file(log);
    EXPECT_NE(out.find(fmt::format("{} reused", before.keys.size())), std::string::npos) << what;
    ++completed;
    fs::remove(db);   // the next kills start a fresh database
  }
  EXPECT_GE(killed, kKills / 2) << "most kills must land while ako runs (completed: " << completed << ")";

  // The next call after the last kill repairs what needs it, resumes and completes.
  const DbLines before = read_db(db);
  const auto [status, out] = complete(args);
  EXPECT_EQ(status, 0) << out;
  const DbLines after = read_db(db);
  EXPECT_TRUE(after.broken.empty() && !after.torn_tail) << out;
  EXPECT_EQ(after.keys.size(), size_t(kVariants * kShapes)) << out;
  EXPECT_NE(out.find(fmt::format("{} usable records", before.keys.size())), std::string::npos) << out;
  EXPECT_NE(out.find(fmt::format("{} reused", before.keys.size())), std::string::npos) << out;
  EXPECT_TRUE(ako::testsupport::left_after(token_, 500).empty());
}

// `ako tune --gpus all` on three fake GPUs, stopped by each signal in the middle of the search
// (three workers measuring at once): no worker of any GPU is left, every line is a whole record,
// no record appears twice, and the same command resumes (what was recorded is reused) and completes.
TEST_F(KillCli, TuneOnThreeGpusKilledLeavesNoWorkerAndResumes) {
  const fs::path db = dir_ / "tune.jsonl";
  const std::vector<std::string> args{"tune", "task", "inplace_scale", "--db", db.string(), "--strategy",
                                      "exhaustive", "--gpus", "all", "--batch", "3", "--no-progress"};
  const std::vector<std::string> gpus{"AKO_FAKE_GPU_COUNT=3", "AKO_FAKE_WORKER_CASE_MS=60"};
  const auto [warm_status, warm_out] = complete(args, gpus);  // warm the kernel cache
  ASSERT_EQ(warm_status, 0) << warm_out;
  ASSERT_EQ(read_db(db).keys.size(), size_t(kVariants * kShapes)) << warm_out;
  for (const int sig : kSignals) {
    fs::remove(db);
    const fs::path log = dir_ / "kill-gpus.log";
    KilledProcess p = start(args, log, gpus);
    // Once some records are in (the workers are busy with the next batch), stop it.
    for (int i = 0; i < 400 && read_db(db).keys.size() < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    const Ended e = p.stop_after(0, sig);
    const std::string what = describe(0, sig, e, log);
    ASSERT_TRUE(e.signalled) << "it finished before the signal\n" << what;
    EXPECT_TRUE(ako::testsupport::left_after(token_, 500).empty()) << what;
    const DbLines before = read_db(db);
    EXPECT_TRUE(before.broken.empty()) << what;
    EXPECT_EQ(static_cast<size_t>(before.records), before.keys.size()) << "a record twice\n" << what;
    EXPECT_LT(before.keys.size(), size_t(kVariants * kShapes)) << what;

    const auto [status, out] = complete(args, gpus);
    EXPECT_EQ(status, 0) << out;
    const DbLines after = read_db(db);
    EXPECT_EQ(after.keys.size(), size_t(kVariants * kShapes)) << out;
    EXPECT_EQ(static_cast<size_t>(after.records), after.keys.size()) << "a record twice\n" << out;
    EXPECT_NE(out.find(fmt::format("{} reused", before.keys.size())), std::string::npos) << out;
  }
}

TEST_F(KillCli, RunKilledAtRandomMomentsLeavesNoWorkerAndNoHalfWrittenJson) {
  const fs::path json = dir_ / "out" / "run.json";
  fs::create_directories(json.parent_path());
  const std::vector<std::string> args{"run", "task", "inplace_scale", "--json", json.string(), "--no-progress"};
  const auto [warm_status, warm_out] = complete(args);
  ASSERT_EQ(warm_status, 0) << warm_out;
  ASSERT_TRUE(fs::exists(json)) << warm_out;
  const double whole_s = timed(args);

  std::mt19937 rng(20261117);
  const int max_ms = static_cast<int>(whole_s * 1000 * 1.1);
  int killed = 0;
  std::set<std::string> left_by_sigkill;  // whole temporaries of earlier kills, until a write removes them
  for (int i = 0; i < kKills; ++i) {
    const int sig = kSignals[i % kSignals.size()];
    const int delay = std::uniform_int_distribution<int>(0, max_ms)(rng);
    fs::remove(json);
    const fs::path log = dir_ / "kill.log";
    KilledProcess p = start(args, log);
    const Ended e = p.stop_after(delay, sig);
    const std::string what = describe(i, sig, e, log);

    const std::vector<std::string> left = ako::testsupport::left_after(token_, 500);
    EXPECT_TRUE(left.empty()) << "processes left: " << fmt::format("{}", fmt::join(left, "; ")) << "\n" << what;
    // A SIGKILL between naming the temporary and renaming it (microseconds) leaves it, whole:
    // it is named only once its content is written. The next write of run.json removes it
    // (checked after the last run below); anything else is a half-written file.
    for (const auto& t : temporaries_under(json.parent_path())) {
      if (left_by_sigkill.insert(t).second) {
        EXPECT_EQ(sig, SIGKILL) << "a temporary left by a signal ako handles: " << t << "\n" << what;
      }
      EXPECT_EQ(fs::path(t).filename().string().rfind(".run.json.tmp.", 0), 0u) << t << "\n" << what;
      nlohmann::json doc;
      EXPECT_NO_THROW(doc = nlohmann::json::parse(ako::read_file(t))) << t << "\n" << what;
      EXPECT_EQ(doc.value("schema", ""), "ako.run/1") << t << "\n" << what;
    }
    if (fs::exists(json)) {
      nlohmann::json doc;
      EXPECT_NO_THROW(doc = nlohmann::json::parse(ako::read_file(json))) << what;
      EXPECT_EQ(doc.value("schema", ""), "ako.run/1") << what;
    }
    if (e.signalled) {
      EXPECT_EQ(e.signal, sig) << what;
      ++killed;
    } else {
      EXPECT_EQ(e.code, 0) << what;
      EXPECT_TRUE(fs::exists(json)) << what;
    }
  }
  EXPECT_GE(killed, kKills / 2);
  const auto [status, out] = complete(args);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("CORRECT: yes"), std::string::npos) << out;
  EXPECT_TRUE(temporaries_under(json.parent_path()).empty())
      << "a killed writer's temporary outlived the next write: "
      << fmt::format("{}", fmt::join(temporaries_under(json.parent_path()), "; "));
}

// The grandchildren of a SIGKILLed ako (exec/protocol/ancestor_watch.hpp): a worker that ako
// starts through a tool, as `ako run --sanitize` starts it under compute-sanitizer, is out of
// reach of PR_SET_PDEATHSIG (which kills only the tool); it watches the ako named in its
// environment and leaves within moments. The stand-in tool is a shell that runs the worker as
// its child; the fake worker, orphaned, would otherwise stay 3 s.
TEST_F(KillCli, AWorkerStartedThroughAToolDiesWithASigkilledAko) {
  const fs::path tool = dir_ / "tool.sh";
  ako::write_file_atomically(tool, std::string("#!/bin/sh\n# a tool that runs its program as a child, as compute-sanitizer does\n\"") +
                                       AKO_FAKE_WORKER + "\" \"$@\"\nstatus=$?\nexit $status\n");
  fs::permissions(tool, fs::perms::owner_all);
  const std::vector<std::string> args{"run", "task", "inplace_scale", "--no-progress"};
  const std::vector<std::string> extra{"AKO_WORKER=" + tool.string(), "AKO_FAKE_WORKER_CASE_MS=3000"};
  const auto [warm_status, warm_out] = complete(args, {"AKO_WORKER=" + tool.string()});   // warm cache, and the tool works
  ASSERT_EQ(warm_status, 0) << warm_out;
  for (int i = 0; i < 5; ++i) {
    const fs::path log = dir_ / "kill.log";
    KilledProcess p = start(args, log, extra);
    ASSERT_TRUE(ako::testsupport::appeared(token_, "ako_fake_worker", 20000)) << ako::read_file(log);
    const Ended e = p.stop_after(0, SIGKILL);
    ASSERT_TRUE(e.signalled) << ako::read_file(log);
    const std::vector<std::string> left = ako::testsupport::left_after(token_, 1000);
    EXPECT_TRUE(left.empty()) << "kill " << i << ": left: " << fmt::format("{}", fmt::join(left, "; "));
  }
}

// An ako started through a tool by another ako (`ako iterate --ncu` runs `ako run` under ncu)
// ends, with its worker, when the ako named in its environment is gone. The stand-in for the
// first ako is a process of this test, killed mid-run.
TEST_F(KillCli, AnAkoStartedThroughAToolDiesWithTheAkoThatStartedIt) {
  const std::vector<std::string> args{"run", "task", "inplace_scale", "--no-progress"};
  const auto [warm_status, warm_out] = complete(args);
  ASSERT_EQ(warm_status, 0) << warm_out;
  const pid_t stand_in = fork();
  if (stand_in == 0) {
    ::pause();
    _exit(0);
  }
  ASSERT_GT(stand_in, 0);
  const auto identity = ako::exec::identity_of(stand_in);
  ASSERT_TRUE(identity.has_value());
  const fs::path log = dir_ / "nested.log";
  KilledProcess p = start(args, log, {"AKO_FAKE_WORKER_CASE_MS=3000", "AKO_ANCESTOR=" + ako::exec::identity_text(*identity)});
  const bool worker = ako::testsupport::appeared(token_, "ako_fake_worker", 20000);
  ::kill(stand_in, SIGKILL);
  ::waitpid(stand_in, nullptr, 0);
  ASSERT_TRUE(worker) << ako::read_file(log);
  const std::vector<std::string> left = ako::testsupport::left_after(token_, 1000);
  EXPECT_TRUE(left.empty()) << "left: " << fmt::format("{}", fmt::join(left, "; "));
  const Ended e = p.stop_after(0, SIGKILL);
  EXPECT_FALSE(e.signalled) << "ako was still running";
  EXPECT_EQ(e.code, 128 + SIGKILL);
  EXPECT_NE(ako::read_file(log).find("the ako that started it (pid " + std::to_string(stand_in) + ") is gone"),
            std::string::npos)
      << ako::read_file(log);

  // Named but already gone: it does not start at all.
  const auto [status, out] = complete(args, {"AKO_ANCESTOR=" + ako::exec::identity_text(*identity)});
  EXPECT_EQ(status, 128 + SIGKILL) << out;
}

// The scratch folders a SIGKILLed ako leaves under $TMPDIR (common/scratch_folder.hpp) go at
// the next call, which says so; a live run's folder stays.
TEST_F(KillCli, TheNextCallSweepsTheScratchFolderOfAKilledAkoAndKeepsALiveOnes) {
  const std::vector<std::string> args{"run", "task", "inplace_scale", "--no-progress"};
  const auto [warm_status, warm_out] = complete(args);
  ASSERT_EQ(warm_status, 0) << warm_out;
  const fs::path tmp = dir_ / "tmp";
  const std::vector<std::string> slow{"AKO_FAKE_WORKER_CASE_MS=800"};   // the live run lasts about 5 s

  KilledProcess live = start(args, dir_ / "live.log", slow);
  ASSERT_TRUE(ako::testsupport::appeared(token_, "ako_fake_worker", 20000)) << ako::read_file(dir_ / "live.log");
  const fs::path live_dir = tmp / fmt::format("ako-run-{}", live.pid());
  ASSERT_TRUE(fs::exists(live_dir / ".ako-owner"));

  // Each call sweeps the folder the kill before it left.
  std::optional<fs::path> left;
  for (int i = 0; i < 3; ++i) {
    const fs::path log = dir_ / fmt::format("kill-{}.log", i);
    KilledProcess p = start(args, log, slow);
    const fs::path dir = tmp / fmt::format("ako-run-{}", p.pid());
    for (int wait = 0; wait < 4000 && !fs::exists(dir / ".ako-owner"); ++wait)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_TRUE(fs::exists(dir / ".ako-owner")) << ako::read_file(log);
    ASSERT_TRUE(p.stop_after(0, SIGKILL).signalled);
    ASSERT_TRUE(fs::exists(dir)) << "SIGKILL leaves it";
    if (left) {
      EXPECT_FALSE(fs::exists(*left)) << *left;
      EXPECT_NE(ako::read_file(log).find("ako: removed 1 scratch folder left by a killed ako: " + left->string()),
                std::string::npos)
          << ako::read_file(log);
    }
    left = dir;
  }
  const auto [status, out] = complete(args);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("ako: removed 1 scratch folder left by a killed ako: " + left->string() + "\n"), std::string::npos)
      << out;
  EXPECT_FALSE(fs::exists(*left));
  EXPECT_TRUE(fs::exists(live_dir / ".ako-owner")) << "a live run's folder is never swept";
  EXPECT_EQ(out.find(live_dir.string()), std::string::npos) << out;

  const Ended e = live.stop_after(60000, SIGKILL);
  EXPECT_FALSE(e.signalled);
  EXPECT_FALSE(fs::exists(live_dir)) << "a finished run removes its own";
  const auto [again, again_out] = complete(args);
  EXPECT_EQ(again, 0) << again_out;
  EXPECT_EQ(again_out.find("scratch folder"), std::string::npos) << "nothing left to sweep:\n" << again_out;
}

}  // namespace
