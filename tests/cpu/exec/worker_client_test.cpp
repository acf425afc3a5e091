// exec/client/worker_client: the watchdog and respawn logic against a scripted fake worker
// (fake_worker/fake_worker.sh) that succeeds, hangs, crashes, exits after a sticky fault,
// reports a fatal error or prints noise, as each case's label tells it.
#include "exec/client/worker_client.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "common/error.hpp"
#include "exec/client/worker_device.hpp"
#include "exec/protocol/baseline_blame.hpp"
#include "exec/protocol/device_report.hpp"
#include "exec/protocol/reference_blame.hpp"

namespace ako::exec {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

class WorkerClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    root_ = fs::path(AKO_BINARY_DIR) / "test-scratch" / "worker_client" / info->name();
    fs::remove_all(root_);
    fs::create_directories(root_ / "fake");
    // A private, executable copy: the checkout's file mode is not something to rely on.
    worker_ = root_ / "fake_worker.sh";
    fs::copy_file(fs::path(AKO_TEST_DIR) / "cpu/exec/fake_worker/fake_worker.sh", worker_);
    fs::permissions(worker_, fs::perms::owner_all, fs::perm_options::add);

    DeviceInfo device;
    device.name = "Fake GPU";
    device.arch = "sm_90a";
    device.copy_bandwidth_gbs = 3000;
    WorkerEvent ev;
    ev.event = "device";
    ev.device = device;
    write_line(root_ / "fake/device.json", nlohmann::json(ev));

    opt_.worker_exe = worker_;
    opt_.scratch_dir = root_ / "scratch";
    opt_.case_timeout_s = 1;
    opt_.startup_timeout_s = 5;   // bash start-up on a loaded CI machine; the hang test lowers it
    opt_.exit_grace_s = 1;
    opt_.extra_env = {"FAKE_WORKER_DIR=" + (root_ / "fake").string()};
  }

  void TearDown() override {
    if (!HasFailure()) fs::remove_all(root_);
  }

  static void write_line(const fs::path& p, const nlohmann::json& j) {
    std::ofstream(p) << j.dump() << '\n';
  }

  // The result the fake worker reports for a case: correct, with recognisable numbers.
  static CaseResult worker_result(int index) {
    CaseResult r;
    r.index = index;
    r.verdict = Verdict::correct;
    r.trials = 3;
    r.seed = 1000 + index;
    r.error.max_abs = 0.001 * index;
    r.error.checked = 4096;
    TimingStats t;
    t.method = "cupti";
    t.samples = 20;
    t.iqm_us = t.median_us = 10.0 + index;
    r.solution_time = t;
    r.reference_time = t;
    return r;
  }

  // Cases with the given (index, label); the fake gets a result line for each.
  WorkerJob make_job(const std::vector<std::pair<int, std::string>>& cases,
                     const std::map<int, CaseResult>& custom = {}) {
    WorkerJob job;
    for (const auto& [index, label] : cases) {
      CaseJob c;
      c.index = index;
      c.label = label;
      c.dims = {{"rows", 100 + index}, {"hidden", 3072}};
      c.bytes = 1e6 * (index + 1);
      c.seed = 77;
      c.reference.module = "ref.cubin";
      c.reference.function = "ref_kernel";
      job.cases.push_back(c);

      WorkerEvent ev;
      ev.event = "result";
      ev.index = index;
      ev.result = custom.count(index) ? custom.at(index) : worker_result(index);
      write_line(root_ / "fake" / fmt::format("result-{}.json", index), nlohmann::json(ev));
    }
    return job;
  }

  void start_plan(const std::string& plan) { opt_.extra_env.push_back("FAKE_WORKER_START=" + plan); }

  // The case indices each worker start received, one line per start.
  std::vector<std::string> starts() const {
    std::vector<std::string> lines;
    std::istringstream in(read_text(root_ / "fake/starts.log"));
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  }

  static void expect_correct_from_worker(const CaseResult& r, int index) {
    EXPECT_EQ(r.index, index);
    EXPECT_EQ(r.verdict, Verdict::correct) << r.reason;
    EXPECT_EQ(r.seed, 1000u + index);
    EXPECT_EQ(r.trials, 3);
    ASSERT_TRUE(r.solution_time.has_value());
    EXPECT_EQ(r.solution_time->iqm_us, 10.0 + index);
    EXPECT_EQ(r.dims.at("rows"), 100 + index);   // from the job
    EXPECT_EQ(r.bytes, 1e6 * (index + 1));
  }

  fs::path root_, worker_;
  ClientOptions opt_;
};

TEST_F(WorkerClientTest, AllCasesSucceedInOneWorker) {
  const WorkerJob job = make_job({{0, "ok"}, {1, "ok"}, {2, "ok"}});
  std::vector<std::string> seen;
  ClientCallbacks cb;
  cb.on_device = [&](const DeviceInfo& d) { seen.push_back("device " + d.name); };
  cb.on_begin = [&](int i) { seen.push_back(fmt::format("begin {}", i)); };
  cb.on_phase = [&](int i, const std::string& p) { seen.push_back(fmt::format("phase {} {}", i, p)); };
  cb.on_result = [&](const CaseResult& r) { seen.push_back(fmt::format("result {} {}", r.index, verdict_name(r.verdict))); };

  const WorkerRun run = run_worker(job, opt_, cb);

  EXPECT_EQ(run.fatal, "");
  EXPECT_EQ(run.worker_starts, 1);
  ASSERT_TRUE(run.device.has_value());
  EXPECT_EQ(run.device->name, "Fake GPU");
  EXPECT_EQ(run.device->copy_bandwidth_gbs, 3000);
  ASSERT_EQ(run.results.size(), 3u);
  for (int i = 0; i < 3; ++i) expect_correct_from_worker(run.results[i], i);
  EXPECT_EQ(starts(), (std::vector<std::string>{"0 1 2"}));
  const std::vector<std::string> expected = {
      "device Fake GPU",
      "begin 0", "phase 0 validate", "phase 0 time_reference", "result 0 correct",
      "begin 1", "phase 1 validate", "phase 1 time_reference", "result 1 correct",
      "begin 2", "phase 2 validate", "phase 2 time_reference", "result 2 correct"};
  EXPECT_EQ(seen, expected);
  EXPECT_TRUE(run.diagnostics.empty()) << run.diagnostics.front();
}

// A worker started before its job exists (`--await`) runs the job it is handed as worker 1.
TEST_F(WorkerClientTest, PrestartedWorkerRunsTheJobWrittenLater) {
  const WorkerJob job = make_job({{0, "ok"}, {1, "ok"}});
  std::optional<PrestartedWorker> pre = prestart_worker(opt_);
  ASSERT_TRUE(pre.has_value());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));   // it waits: no job yet
  EXPECT_FALSE(fs::exists(opt_.scratch_dir / "job-1.json"));

  const WorkerRun run = run_worker(job, opt_, {}, std::move(pre));

  EXPECT_EQ(run.fatal, "");
  EXPECT_EQ(run.worker_starts, 1);
  ASSERT_EQ(run.results.size(), 2u);
  for (int i = 0; i < 2; ++i) expect_correct_from_worker(run.results[i], i);
  EXPECT_EQ(starts(), (std::vector<std::string>{"0 1"}));
  EXPECT_EQ(read_text(root_ / "fake/awaited.log"), (opt_.scratch_dir / "job-1.json").string() + "\n");
  EXPECT_TRUE(run.diagnostics.empty()) << run.diagnostics.front();
}

// One that is never handed a job (the run stopped before the GPU) is killed, not waited for.
TEST_F(WorkerClientTest, UnusedPrestartedWorkerIsKilled) {
  const auto t0 = std::chrono::steady_clock::now();
  {
    std::optional<PrestartedWorker> pre = prestart_worker(opt_);
    ASSERT_TRUE(pre.has_value());
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
  EXPECT_FALSE(fs::exists(root_ / "fake/starts.log"));   // it never read a job
}

// The prestarted worker's early device report stands in for ako's own probe (no second cuInit).
TEST_F(WorkerClientTest, PrestartedWorkerReportsItsDeviceEarly) {
  DeviceReport report;
  report.ok = true;
  report.count = 1;
  report.major = 9;
  report.minor = 0;
  report.name = "NVIDIA H200";
  report.driver_version = 13000;
  write_device_report(root_ / "fake/early-report.json", report);
  std::optional<PrestartedWorker> pre = prestart_worker(opt_);
  ASSERT_TRUE(pre.has_value());
  const std::optional<GpuProbe> g = probe_from_worker(*pre, std::chrono::seconds(10));
  ASSERT_TRUE(g.has_value());
  EXPECT_TRUE(g->available);
  EXPECT_EQ(g->name, "NVIDIA H200");
  EXPECT_EQ(arch_for(g->major, g->minor), "sm_90a");
  EXPECT_EQ(g->count, 1);
  EXPECT_EQ(g->driver_version, 13000);
}

// A worker whose driver failed says so in its report: ako then probes itself, for its reason.
TEST_F(WorkerClientTest, AFailedEarlyReportIsNotTrusted) {
  DeviceReport report;
  report.error = "cuInit: CUDA_ERROR_NO_DEVICE";
  write_device_report(root_ / "fake/early-report.json", report);
  std::optional<PrestartedWorker> pre = prestart_worker(opt_);
  ASSERT_TRUE(pre.has_value());
  EXPECT_FALSE(probe_from_worker(*pre, std::chrono::seconds(10)).has_value());
}

// No report by the deadline, or a worker that ended without one: not waited for any longer.
TEST_F(WorkerClientTest, NoEarlyReportIsWaitedForOnlyUntilTheDeadlineOrTheWorkersEnd) {
  std::optional<PrestartedWorker> pre = prestart_worker(opt_);
  ASSERT_TRUE(pre.has_value());
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(probe_from_worker(*pre, std::chrono::milliseconds(200)).has_value());
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(200));

  pre->child.kill_group();
  t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(probe_from_worker(*pre, std::chrono::seconds(30)).has_value());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
}

// A report that is not one is an error the caller turns into its own probe.
TEST(DeviceReport, RoundTripsAndRefusesGarbage) {
  const fs::path dir = fs::path(AKO_BINARY_DIR) / "test-scratch" / "device_report";
  fs::remove_all(dir);
  fs::create_directories(dir);
  EXPECT_FALSE(read_device_report(dir / "none.json").has_value());
  DeviceReport r;
  r.ok = true;
  r.count = 2;
  r.major = 10;
  r.minor = 3;
  r.name = "NVIDIA B300";
  write_device_report(dir / "r.json", r);
  const auto back = read_device_report(dir / "r.json");
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->name, "NVIDIA B300");
  EXPECT_EQ(back->major, 10);
  EXPECT_EQ(back->count, 2);
  std::ofstream(dir / "bad.json") << "{\"ok\": true}\n";
  EXPECT_THROW(read_device_report(dir / "bad.json"), Error);
  EXPECT_EQ(device_report_path("/tmp/x/job-1.json"), fs::path("/tmp/x/job-1.json.device"));
}

// A prestarted worker that dies while waiting costs one start: the next one runs the cases.
TEST_F(WorkerClientTest, PrestartedWorkerThatDiedIsReplaced) {
  const WorkerJob job = make_job({{0, "ok"}});
  std::optional<PrestartedWorker> pre = prestart_worker(opt_);
  ASSERT_TRUE(pre.has_value());
  pre->child.kill_group();
  const WorkerRun run = run_worker(job, opt_, {}, std::move(pre));
  EXPECT_EQ(run.fatal, "");
  EXPECT_EQ(run.worker_starts, 2);
  ASSERT_EQ(run.results.size(), 1u);
  expect_correct_from_worker(run.results[0], 0);
}

TEST_F(WorkerClientTest, HungCaseTimesOutAndTheRestRunInANewWorker) {
  // Sparse indices: the replacement worker must get the remaining cases under their own indices.
  const WorkerJob job = make_job({{3, "ok"}, {5, "ok"}, {8, "hang"}, {13, "ok"}});
  const auto t0 = std::chrono::steady_clock::now();
  const WorkerRun run = run_worker(job, opt_);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  EXPECT_EQ(run.fatal, "");
  EXPECT_EQ(run.worker_starts, 2);
  ASSERT_EQ(run.results.size(), 4u);
  expect_correct_from_worker(run.results[0], 3);
  expect_correct_from_worker(run.results[1], 5);
  EXPECT_EQ(run.results[2].index, 8);
  EXPECT_EQ(run.results[2].verdict, Verdict::failed);
  EXPECT_EQ(run.results[2].fault, "timeout");
  EXPECT_EQ(run.results[2].reason, "no progress for 1 s (phase validate)");
  EXPECT_EQ(run.results[2].seed, 77u);   // from the job, to reproduce it
  expect_correct_from_worker(run.results[3], 13);
  EXPECT_EQ(starts(), (std::vector<std::string>{"3 5 8 13", "13"}));
  EXPECT_LT(took, 10.0);   // the hung worker's 30 s sleep was killed with its group
}

TEST_F(WorkerClientTest, CrashIsAWorkerCrashNamingTheSignalAndStderr) {
  const WorkerJob job = make_job({{0, "ok"}, {1, "crash"}, {2, "ok"}});
  const WorkerRun run = run_worker(job, opt_);

  EXPECT_EQ(run.fatal, "");
  EXPECT_EQ(run.worker_starts, 2);
  ASSERT_EQ(run.results.size(), 3u);
  expect_correct_from_worker(run.results[0], 0);
  const CaseResult& crashed = run.results[1];
  EXPECT_EQ(crashed.verdict, Verdict::failed);
  EXPECT_EQ(crashed.fault, "worker_crash");
  EXPECT_TRUE(contains(crashed.reason, "signal SIGSEGV")) << crashed.reason;
  EXPECT_TRUE(contains(crashed.reason, "phase validate")) << crashed.reason;
  EXPECT_TRUE(contains(crashed.reason, "illegal memory access in case 1")) << crashed.reason;
  expect_correct_from_worker(run.results[2], 2);
  EXPECT_EQ(starts(), (std::vector<std::string>{"0 1 2", "2"}));
}

TEST_F(WorkerClientTest, StickyFaultExitContinuesWithTheRest) {
  CaseResult sticky;
  sticky.index = 0;
  sticky.verdict = Verdict::failed;
  sticky.fault = "illegal_address";
  sticky.reason = "CUDA_ERROR_ILLEGAL_ADDRESS in cuStreamSynchronize(solution)";
  sticky.trials = 1;
  sticky.seed = 42;
  const WorkerJob job = make_job({{0, "sticky"}, {1, "ok"}}, {{0, sticky}});
  const WorkerRun run = run_worker(job, opt_);

  EXPECT_EQ(run.fatal, "");
  EXPECT_EQ(run.worker_starts, 2);
  ASSERT_EQ(run.results.size(), 2u);
  EXPECT_EQ(run.results[0].verdict, Verdict::failed);
  EXPECT_EQ(run.results[0].fault, "illegal_address");
  EXPECT_EQ(run.results[0].reason, sticky.reason);
  EXPECT_EQ(run.results[0].seed, 42u);
  expect_correct_from_worker(run.results[1], 1);
  EXPECT_EQ(starts(), (std::vector<std::string>{"0 1", "1"}));
  ASSERT_EQ(run.diagnostics.size(), 1u);
  EXPECT_EQ(run.diagnostics[0], "worker 1: exited with exit status 3");
}

TEST_F(WorkerClientTest, SilentExitMidCaseIsAWorkerCrash) {
  const WorkerJob job = make_job({{0, "silent_exit"}, {1, "ok"}});
  const WorkerRun run = run_worker(job, opt_);

  EXPECT_EQ(run.worker_starts, 2);
  EXPECT_EQ(run.results[0].verdict, Verdict::failed);
  EXPECT_EQ(run.results[0].fault, "worker_crash");
  EXPECT_TRUE(contains(run.results[0].reason, "exit status 0")) << run.results[0].reason;
  expect_correct_from_worker(run.results[1], 1);
}

TEST_F(WorkerClientTest, FatalAtStartUpStopsAndSkipsEverything) {
  start_plan("fatal");
  const WorkerJob job = make_job({{0, "ok"}, {1, "ok"}});
  int results_seen = 0;
  ClientCallbacks cb;
  cb.on_result = [&](const CaseResult&) { ++results_seen; };
  const WorkerRun run = run_worker(job, opt_, cb);

  EXPECT_EQ(run.worker_starts, 1);
  EXPECT_TRUE(contains(run.fatal, "worker fatal error: no CUDA device")) << run.fatal;
  EXPECT_TRUE(contains(run.fatal, "fake worker: giving up")) << run.fatal;
  EXPECT_FALSE(run.device.has_value());
  ASSERT_EQ(run.results.size(), 2u);
  for (const auto& r : run.results) {
    EXPECT_EQ(r.verdict, Verdict::skipped);
    EXPECT_EQ(r.reason, "not run: the worker stopped with a fatal error");
  }
  EXPECT_EQ(results_seen, 2);
}

TEST_F(WorkerClientTest, WorkerDyingBeforeItsFirstEventTwiceIsFatal) {
  start_plan("die");
  const WorkerJob job = make_job({{0, "ok"}, {1, "ok"}});
  const WorkerRun run = run_worker(job, opt_);

  EXPECT_EQ(run.worker_starts, 2);
  EXPECT_TRUE(contains(run.fatal, "2 workers in a row finished no case")) << run.fatal;
  EXPECT_TRUE(contains(run.fatal, "exit status 1")) << run.fatal;
  EXPECT_TRUE(contains(run.fatal, "cannot create a context (start 2)")) << run.fatal;
  for (const auto& r : run.results) EXPECT_EQ(r.verdict, Verdict::skipped);
  EXPECT_EQ(starts(), (std::vector<std::string>{"0 1", "0 1"}));
}

TEST_F(WorkerClientTest, OneFailedStartIsRetried) {
  start_plan("die,ok");
  const WorkerJob job = make_job({{0, "ok"}, {1, "ok"}});
  const WorkerRun run = run_worker(job, opt_);

  EXPECT_EQ(run.fatal, "");
  EXPECT_EQ(run.worker_starts, 2);
  expect_correct_from_worker(run.results[0], 0);
  expect_correct_from_worker(run.results[1], 1);
}

TEST_F(WorkerClientTest, WorkerSilentAtStartUpTwiceIsFatal) {
  start_plan("hang");
  opt_.startup_timeout_s = 1;
  const WorkerJob job = make_job({{0, "ok"}});
  const WorkerRun run = run_worker(job, opt_);

  EXPECT_EQ(run.worker_starts, 2);
  EXPECT_TRUE(contains(run.fatal, "sent nothing for 1 s at start-up")) << run.fatal;
  EXPECT_EQ(run.results[0].verdict, Verdict::skipped);
}

TEST_F(WorkerClientTest, NoiseOnStdoutIsLoggedAndIgnored) {
  const WorkerJob job = make_job({{0, "ok"}, {1, "garbage"}, {2, "ok"}});
  const WorkerRun run = run_worker(job, opt_);

  EXPECT_EQ(run.fatal, "");
  EXPECT_EQ(run.worker_starts, 1);
  for (int i = 0; i < 3; ++i) expect_correct_from_worker(run.results[i], i);
  ASSERT_EQ(run.diagnostics.size(), 4u);
  EXPECT_TRUE(contains(run.diagnostics[0], "not a protocol line")) << run.diagnostics[0];
  EXPECT_TRUE(contains(run.diagnostics[0], "not json at all")) << run.diagnostics[0];
  EXPECT_EQ(run.diagnostics[1], "worker 1: blank line on stdout");
  EXPECT_TRUE(contains(run.diagnostics[2], "not a protocol line")) << run.diagnostics[2];
  EXPECT_EQ(run.diagnostics[3], "worker 1: unknown event 'bogus'");
  std::string logged;
  for (const auto& d : run.diagnostics) logged += d + "\n";
  EXPECT_EQ(read_text(opt_.scratch_dir / "client.log"), logged);
}

TEST_F(WorkerClientTest, MissingWorkerExecutableIsFatalAtOnce) {
  opt_.worker_exe = root_ / "no-such-worker";
  const WorkerJob job = make_job({{0, "ok"}});
  const WorkerRun run = run_worker(job, opt_);

  EXPECT_EQ(run.worker_starts, 1);
  EXPECT_TRUE(contains(run.fatal, "cannot start")) << run.fatal;
  EXPECT_TRUE(contains(run.fatal, "No such file or directory")) << run.fatal;
  EXPECT_EQ(run.results[0].verdict, Verdict::skipped);
}

TEST_F(WorkerClientTest, DuplicateCaseIndicesAreRejected) {
  WorkerJob job = make_job({{0, "ok"}, {1, "ok"}});
  job.cases[1].index = 0;
  EXPECT_THROW(run_worker(job, opt_), Error);
}

TEST_F(WorkerClientTest, EmptyJobStartsNoWorker) {
  const WorkerRun run = run_worker(WorkerJob{}, opt_);
  EXPECT_EQ(run.worker_starts, 0);
  EXPECT_TRUE(run.results.empty());
  EXPECT_EQ(run.fatal, "");
}

TEST(MergeWorkerFields, CopiesOnlyTheWorkersFields) {
  CaseResult mine;
  mine.shape = "flux1-single";
  mine.dtype = "bf16";
  mine.params = {{"block", 256}};
  mine.speedup = 9;
  CaseResult worker;
  worker.shape = "ignored";
  worker.verdict = Verdict::incorrect;
  worker.reason = "max abs error 0.5 > tolerance";
  worker.error.mismatches = 12;
  worker.trials = 3;
  worker.seed = 5;
  worker.solution_time = TimingStats{};
  merge_worker_fields(mine, worker);
  EXPECT_EQ(mine.shape, "flux1-single");
  EXPECT_EQ(mine.dtype, "bf16");
  EXPECT_EQ(mine.params.at("block"), 256);
  EXPECT_EQ(mine.speedup, 9);
  EXPECT_EQ(mine.verdict, Verdict::incorrect);
  EXPECT_EQ(mine.reason, worker.reason);
  EXPECT_EQ(mine.error.mismatches, 12u);
  EXPECT_EQ(mine.trials, 3);
  EXPECT_EQ(mine.seed, 5u);
  EXPECT_TRUE(mine.solution_time.has_value());
  EXPECT_FALSE(mine.reference_time.has_value());
}

}  // namespace
}  // namespace ako::exec

namespace ako::exec {
namespace {

// A case the reference faulted on (the worker's report: skipped, reference_illegal_address, a
// sticky fault, so the worker exits) stays the reference's in the run: skipped with that reason,
// and the cases after it run in a fresh worker.
TEST_F(WorkerClientTest, AReferenceFaultIsPassedOnAsTheReferencesAndTheRunGoesOn) {
  CaseResult blamed;
  blamed.index = 0;
  blame_reference(blamed, "illegal_address", "illegal address, in validation trial 1/3, reference: ...");
  const WorkerJob job = make_job({{0, "sticky"}, {1, "ok"}}, {{0, blamed}});
  const WorkerRun run = run_worker(job, opt_);
  EXPECT_EQ(run.fatal, "");
  EXPECT_EQ(run.worker_starts, 2);
  ASSERT_EQ(run.results.size(), 2u);
  EXPECT_EQ(run.results[0].verdict, Verdict::skipped);
  EXPECT_EQ(run.results[0].fault, "reference_illegal_address");
  EXPECT_EQ(run.results[0].reason, blamed.reason);
  EXPECT_TRUE(blamed_on_reference(run.results[0]));
  expect_correct_from_worker(run.results[1], 1);
}

// Blame for a baseline (exec/protocol/baseline_blame.hpp): the worker says which baseline was at
// fault instead of sending a verdict; the case runs again without it and the solution keeps its
// verdict and times, the baseline alone failed.
class BaselineBlameClient : public WorkerClientTest {
 protected:
  // Case 0 has baselines "trapper" (at fault) and "plain"; the worker's final result has plain's.
  WorkerJob job_with_baselines(const std::string& label) {
    CaseResult done = worker_result(0);
    BaselineResult plain;
    plain.name = "plain";
    plain.verdict = Verdict::correct;
    plain.time = done.solution_time;
    done.baselines.push_back(plain);
    WorkerJob job = make_job({{0, label}, {1, "ok"}}, {{0, done}});
    for (const char* name : {"trapper", "plain"}) job.cases[0].baselines.push_back(BaselineJob{name, job.cases[0].reference});
    blamed_ = blamed_baseline("trapper", "trap", "trap (the kernel aborted: __trap, assert or another launch failure), "
                                                 "in validation trial 1/3, baseline trapper: CUDA_ERROR_LAUNCH_FAILED");
    write_line(root_ / "fake/baseline-0-trapper.json", nlohmann::json(baseline_failed_event(0, blamed_)));
    return job;
  }

  // Case 0: correct from the worker, trapper failed as blamed, plain timed.
  void expect_solution_judged_and_baseline_blamed(const WorkerRun& run) {
    EXPECT_EQ(run.fatal, "");
    ASSERT_EQ(run.results.size(), 2u);
    expect_correct_from_worker(run.results[0], 0);
    ASSERT_EQ(run.results[0].baselines.size(), 2u);
    const BaselineResult& t = run.results[0].baselines[0];
    EXPECT_EQ(t.name, "trapper");
    EXPECT_EQ(t.verdict, Verdict::failed);
    EXPECT_EQ(t.fault, "trap");
    EXPECT_EQ(t.reason, blamed_.reason);
    EXPECT_EQ(t.reason.rfind("baseline at fault: trap", 0), 0u) << t.reason;
    EXPECT_EQ(run.results[0].baselines[1].name, "plain");
    EXPECT_EQ(run.results[0].baselines[1].verdict, Verdict::correct);
    expect_correct_from_worker(run.results[1], 1);
  }

  BaselineResult blamed_;
};

TEST_F(BaselineBlameClient, AStickyBaselineFaultRunsTheCaseAgainWithoutItInTheNextWorker) {
  const WorkerJob job = job_with_baselines("baseline_sticky");
  std::vector<int> results;
  ClientCallbacks cb;
  cb.on_result = [&](const CaseResult& r) { results.push_back(r.index); };
  const WorkerRun run = run_worker(job, opt_, cb);
  expect_solution_judged_and_baseline_blamed(run);
  EXPECT_EQ(run.worker_starts, 2);
  EXPECT_EQ(starts(), (std::vector<std::string>{"0 1", "0 1"})) << "the blamed case first, again";
  EXPECT_EQ(results, (std::vector<int>{0, 1})) << "one result per case: the blame is no verdict";
  // The second worker's job: case 0 without trapper, with plain.
  const auto second = nlohmann::json::parse(read_text(opt_.scratch_dir / "job-2.json")).get<WorkerJob>();
  ASSERT_EQ(second.cases.size(), 2u);
  ASSERT_EQ(second.cases[0].baselines.size(), 1u);
  EXPECT_EQ(second.cases[0].baselines[0].name, "plain");
}

TEST_F(BaselineBlameClient, ABaselineBlamedInAUsableContextIsRunAgainInTheSameWorker) {
  const WorkerJob job = job_with_baselines("baseline_oob");
  const WorkerRun run = run_worker(job, opt_);
  expect_solution_judged_and_baseline_blamed(run);
  EXPECT_EQ(run.worker_starts, 1);
}

TEST_F(BaselineBlameClient, TwoBaselinesAtFaultInTurnAreBothRecordedAndDoNotStopTheRun) {
  // Two workers in a row that settle no case stop a run; blaming a baseline is progress.
  WorkerJob job = job_with_baselines("baseline_sticky");
  job.cases[0].baselines.insert(job.cases[0].baselines.begin() + 1, BaselineJob{"trapper2", job.cases[0].reference});
  const BaselineResult second = blamed_baseline("trapper2", "illegal_address", "illegal address, in ...");
  write_line(root_ / "fake/baseline-0-trapper2.json", nlohmann::json(baseline_failed_event(0, second)));
  const WorkerRun run = run_worker(job, opt_);
  EXPECT_EQ(run.fatal, "");
  EXPECT_EQ(run.worker_starts, 3);
  ASSERT_EQ(run.results.size(), 2u);
  expect_correct_from_worker(run.results[0], 0);
  std::map<std::string, std::string> faults;
  for (const BaselineResult& b : run.results[0].baselines) faults[b.name] = b.fault;
  EXPECT_EQ(faults, (std::map<std::string, std::string>{{"plain", ""}, {"trapper", "trap"}, {"trapper2", "illegal_address"}}));
  expect_correct_from_worker(run.results[1], 1);
}

TEST_F(BaselineBlameClient, ABlameOfABaselineTheCaseDoesNotRunIsNoise) {
  WorkerJob job = job_with_baselines("baseline_oob");
  job.cases[0].baselines.erase(job.cases[0].baselines.begin());   // no trapper in the job
  const WorkerRun run = run_worker(job, opt_);
  EXPECT_EQ(run.fatal, "");
  ASSERT_EQ(run.results.size(), 2u);
  expect_correct_from_worker(run.results[0], 0);
  ASSERT_EQ(run.results[0].baselines.size(), 1u);
  EXPECT_EQ(run.results[0].baselines[0].name, "plain");
  ASSERT_FALSE(run.diagnostics.empty());
  EXPECT_TRUE(contains(run.diagnostics[0], "baseline_failed event for case 0")) << run.diagnostics[0];
}

TEST(BaselineBlame, RolesEventsAndTheCaseWithoutIt) {
  EXPECT_EQ(baseline_role("flashinfer"), "baseline flashinfer");
  EXPECT_EQ(baseline_of_role("baseline flashinfer"), std::optional<std::string>("flashinfer"));
  for (const char* other : {"reference", "solution", "oracle", "", "baseline ", "baselines x"})
    EXPECT_EQ(baseline_of_role(other), std::nullopt) << other;

  const BaselineResult b = blamed_baseline("flashinfer", "out_of_bounds_write", "out-of-bounds write: ...");
  EXPECT_EQ(b.verdict, Verdict::failed);
  EXPECT_EQ(b.fault, "out_of_bounds_write");
  EXPECT_EQ(b.reason, "baseline at fault: out-of-bounds write: ...; the case ran again without it");
  const WorkerEvent ev = nlohmann::json::parse(nlohmann::json(baseline_failed_event(3, b)).dump()).get<WorkerEvent>();
  EXPECT_EQ(ev.event, "baseline_failed");
  EXPECT_EQ(ev.index, 3);
  ASSERT_TRUE(baseline_of_event(ev).has_value());
  EXPECT_EQ(baseline_of_event(ev)->reason, b.reason);
  WorkerEvent result;
  result.event = "result";
  result.result = CaseResult{};
  result.result->baselines.push_back(b);
  EXPECT_EQ(baseline_of_event(result), std::nullopt) << "a result is a verdict, not a blame";

  CaseJob c;
  c.baselines = {BaselineJob{"a", {}}, BaselineJob{"b", {}}, BaselineJob{"c", {}}};
  const CaseJob less = without_baseline(c, "b");
  ASSERT_EQ(less.baselines.size(), 2u);
  EXPECT_EQ(less.baselines[0].name, "a");
  EXPECT_EQ(less.baselines[1].name, "c");
}

}  // namespace
}  // namespace ako::exec
