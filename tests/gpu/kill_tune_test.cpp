// A real `ako tune` on the GPU, stopped by SIGINT, SIGTERM and SIGKILL while a real ako-worker
// is measuring (README, "Trustworthy verdicts"): no ako-worker (nor anything else ako started) is
// left running, every line of the tuning database is a whole record, and the same command run
// again resumes (the records made before the kill are reused, not measured again) and completes.
// The CPU twin, with a stand-in worker and 50 random kill points, is tests/cpu/cli/kill_cli_test.cpp.
#include "gpu_test_support.hpp"

#include "../cpu/kill_support.hpp"

#include <stdlib.h>

#include <fstream>
#include <random>
#include <set>

#include <fmt/format.h>

#include "search/tuning_db.hpp"

namespace ako::gputest {
namespace {

namespace fs = std::filesystem;
using testsupport::Ended;
using testsupport::KilledProcess;

constexpr size_t kPairs = 6 * 2;   // BLOCK values x inplace_scale's shapes

struct DbState {
  std::set<std::string> keys;
  std::vector<std::string> broken;
};

DbState read_db(const fs::path& db) {
  DbState s;
  if (!fs::exists(db)) return s;
  std::ifstream in(db);
  for (std::string line; std::getline(in, line);) {
    try {
      const auto r = search::record_from_json(nlohmann::json::parse(line));
      s.keys.insert(search::record_key(r.shape, r.params));
    } catch (const std::exception& e) {
      s.broken.push_back(line.substr(0, 200));
    }
  }
  return s;
}

// Is an ako-worker carrying `token` running now?
bool worker_running(const std::string& token) {
  for (const auto& p : testsupport::processes_with(token))
    if (p.find("ako-worker") != std::string::npos) return true;
  return false;
}

class KillTune : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "ako-gpu-kill-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    ws_ = dir_ / "ws";
    for (const char* d : {"tasks/inplace_scale", "input/inplace_scale", "solution/inplace_scale"}) {
      fs::create_directories(ws_ / d);
      fs::copy(workspace() / "tests/tasks" / d, ws_ / d, fs::copy_options::recursive);
    }
    auto task = nlohmann::json::parse(read_file(ws_ / "tasks/inplace_scale/task.json"));
    task["solution"]["params"]["BLOCK"] = {32, 64, 128, 256, 512, 1024};
    write_file_atomically(ws_ / "tasks/inplace_scale/task.json", task.dump(2) + "\n");
    token_ = fmt::format("AKO_KILL_TEST_TOKEN={}-{}", ::getpid(), std::random_device{}());
  }
  void TearDown() override {
    std::error_code ec;
    if (!HasFailure()) fs::remove_all(dir_, ec);
  }

  KilledProcess start(const fs::path& log) const {
    // One variant per batch: a worker per batch, so the kills find one at work.
    return KilledProcess({ako_binary().string(), "tune", "task", "inplace_scale", "--db", db().string(), "--strategy",
                          "exhaustive", "--batch", "1", "--no-progress"},
                         ws_, {token_, "AKO_CACHE_DIR=" + (dir_ / "cache").string()}, log);
  }
  fs::path db() const { return dir_ / "tune.jsonl"; }

  fs::path dir_, ws_;
  std::string token_;
};

TEST_F(KillTune, KilledWhileAWorkerMeasuresNoWorkerIsLeftAndTheNextTuneResumes) {
  AKO_REQUIRE_GPU();
  const fs::path log = dir_ / "tune.log";
  {   // warm the kernel cache and the copy-bandwidth measurement
    KilledProcess warm = start(log);
    const Ended e = warm.stop_after(600000, SIGKILL);
    ASSERT_EQ(e.code, 0) << read_file(log);
    ASSERT_EQ(read_db(db()).keys.size(), kPairs) << read_file(log);
    fs::remove(db());
  }
  for (int sig : {SIGINT, SIGTERM, SIGKILL}) {
    SCOPED_TRACE(testsupport::signal_name(sig));
    KilledProcess p = start(log);
    // Until a real worker is measuring after at least one record is in: then the signal.
    const auto until = std::chrono::steady_clock::now() + std::chrono::minutes(2);
    while (std::chrono::steady_clock::now() < until && !(read_db(db()).keys.size() >= 1 && worker_running(token_)))
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    ASSERT_TRUE(worker_running(token_)) << "no worker to kill\n" << read_file(log);
    const Ended e = p.stop_after(0, sig);
    ASSERT_TRUE(e.signalled) << "it finished first\n" << read_file(log);
    EXPECT_EQ(e.signal, sig);

    const std::vector<std::string> left = testsupport::left_after(token_, 1000);
    EXPECT_TRUE(left.empty()) << "left running: " << fmt::format("{}", fmt::join(left, "; ")) << "\n" << read_file(log);
    const DbState killed = read_db(db());
    EXPECT_TRUE(killed.broken.empty()) << killed.broken.front();
    EXPECT_GE(killed.keys.size(), 1u);
    EXPECT_LT(killed.keys.size(), kPairs);

    KilledProcess next = start(log);
    const Ended done = next.stop_after(600000, SIGKILL);
    const std::string out = read_file(log);
    ASSERT_EQ(done.code, 0) << out;
    EXPECT_NE(out.find(fmt::format("{} usable records", killed.keys.size())), std::string::npos) << out;
    EXPECT_NE(out.find(fmt::format("{} reused", killed.keys.size())), std::string::npos) << out;
    const DbState after = read_db(db());
    EXPECT_TRUE(after.broken.empty());
    EXPECT_EQ(after.keys.size(), kPairs) << out;
    EXPECT_TRUE(testsupport::left_after(token_, 1000).empty());
    fs::remove(db());
  }
}

}  // namespace
}  // namespace ako::gputest
