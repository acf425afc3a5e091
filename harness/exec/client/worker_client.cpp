#include "exec/client/worker_client.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <utility>

#include <fmt/format.h>

#include "common/error.hpp"
#include "exec/client/child_process.hpp"
#include "exec/protocol/baseline_blame.hpp"
#include "exec/protocol/device_report.hpp"

namespace ako::exec {
namespace {

using Clock = ChildProcess::Clock;
constexpr int kStderrTailLines = 8;
constexpr std::size_t kStderrTailBytes = 8192;
constexpr std::size_t kMaxDiagnostics = 500;
constexpr int kMaxFruitlessStarts = 2;   // workers in a row that settle no case

Clock::time_point after(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

// The last non-empty lines of a worker's stderr log, joined with " | " (for one-line reasons).
std::string stderr_tail(const std::filesystem::path& log, const char* separator = " | ") {
  std::ifstream in(log, std::ios::binary);
  if (!in) return {};
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  const std::streamoff from = std::max<std::streamoff>(0, size - static_cast<std::streamoff>(kStderrTailBytes));
  in.seekg(from);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> lines;
  std::istringstream split(text);
  for (std::string line; std::getline(split, line);)
    if (line.find_first_not_of(" \t\r") != std::string::npos) lines.push_back(line);
  if (from > 0 && !lines.empty()) lines.erase(lines.begin());   // probably cut mid-line
  const std::size_t first = lines.size() > kStderrTailLines ? lines.size() - kStderrTailLines : 0;
  std::string out;
  for (std::size_t i = first; i < lines.size(); ++i) out += (out.empty() ? "" : separator) + lines[i];
  return out;
}

std::string with_stderr(std::string message, const std::filesystem::path& log) {
  const std::string tail = stderr_tail(log);
  if (!tail.empty()) message += "; worker stderr: " + tail;
  return message;
}

// Which cases are settled, across all workers of one run.
class Ledger {
 public:
  Ledger(const WorkerJob& job, const ClientCallbacks& cb) : job_(job), cb_(cb), done_(job.cases.size()) {
    for (std::size_t i = 0; i < job.cases.size(); ++i)
      if (!position_.emplace(job.cases[i].index, i).second)
        throw Error(fmt::format("worker job: case index {} appears twice", job.cases[i].index));
  }

  bool pending(int index) const {
    const auto it = position_.find(index);
    return it != position_.end() && !done_[it->second];
  }

  // The record of a case as far as the job knows it.
  CaseResult from_job(int index) const {
    const CaseJob& c = job_.cases[position_.at(index)];
    CaseResult r;
    r.index = c.index;
    r.kind = c.kind;
    r.dims = c.dims;
    r.bytes = c.bytes;
    r.seed = c.seed;   // so a case the watchdog failed can still be reproduced
    if (auto it = blamed_.find(index); it != blamed_.end()) r.baselines = it->second;
    return r;
  }

  // A baseline the worker blamed in a pending case: recorded with the case, and left out when
  // the case runs again (exec/protocol/baseline_blame.hpp). False, and nothing recorded, when the
  // case does not run that baseline (any more): each blame takes one away, so blames end.
  bool blame_baseline(int index, BaselineResult b) {
    const CaseJob& c = job_.cases[position_.at(index)];
    std::vector<BaselineResult>& blamed = blamed_[index];
    const auto named = [&](const auto& x) { return x.name == b.name; };
    if (std::none_of(c.baselines.begin(), c.baselines.end(), named) || std::any_of(blamed.begin(), blamed.end(), named))
      return false;
    blamed.push_back(std::move(b));
    return true;
  }

  void settle(CaseResult r) {
    done_[position_.at(r.index)] = r;
    if (cb_.on_result) cb_.on_result(r);
  }

  void fail(int index, const std::string& fault, const std::string& reason) {
    CaseResult r = from_job(index);
    r.verdict = Verdict::failed;
    r.fault = fault;
    r.reason = reason;
    settle(std::move(r));
  }

  WorkerJob remaining() const {
    WorkerJob part = job_;
    part.cases.clear();
    for (std::size_t i = 0; i < job_.cases.size(); ++i) {
      if (done_[i]) continue;
      CaseJob c = job_.cases[i];
      if (auto it = blamed_.find(c.index); it != blamed_.end())
        for (const BaselineResult& b : it->second) c = without_baseline(c, b.name);
      part.cases.push_back(std::move(c));
    }
    return part;
  }

  // Every case in job order; the unsettled ones become skipped with `reason`.
  std::vector<CaseResult> finish(const std::string& reason) {
    std::vector<CaseResult> out;
    for (std::size_t i = 0; i < job_.cases.size(); ++i) {
      if (!done_[i]) {
        CaseResult r = from_job(job_.cases[i].index);
        r.verdict = Verdict::skipped;
        r.reason = reason;
        settle(std::move(r));
      }
      out.push_back(*done_[i]);
    }
    return out;
  }

 private:
  const WorkerJob& job_;
  const ClientCallbacks& cb_;
  std::vector<std::optional<CaseResult>> done_;
  std::map<int, std::size_t> position_;
  std::map<int, std::vector<BaselineResult>> blamed_;   // per case index
};

// How one worker's life ended.
struct SessionEnd {
  int settled = 0;         // cases this worker (or its watchdog) settled, and baselines it blamed:
                           // progress (a case with two faulting baselines takes three workers)
  std::string fatal;       // set: stop the run
  std::string how;         // in words, for the message when workers keep settling nothing
};

// One worker process, from spawn to reaped.
class Session {
 public:
  Session(int number, const ClientOptions& opt, const ClientCallbacks& cb, Ledger& ledger, WorkerRun& run)
      : number_(number), opt_(opt), cb_(cb), ledger_(ledger), run_(run) {}

  // `prestarted`: a worker already started (and waiting for its job); else one is spawned.
  SessionEnd run(const WorkerJob& part, std::optional<PrestartedWorker> prestarted = std::nullopt) {
    std::optional<ChildProcess> child;
    std::filesystem::path log;
    if (prestarted) {
      log = prestarted->stderr_log;
      run_.stderr_logs.push_back(log);
      // Renamed into place: the waiting worker must never read half a file.
      const auto tmp = prestarted->job_file.string() + ".tmp";
      if (std::string error = write_job(part, tmp); !error.empty()) return {0, error, error};
      std::error_code ec;
      std::filesystem::rename(tmp, prestarted->job_file, ec);
      if (ec) {
        const std::string error = fmt::format("cannot write the worker job file {}: {}", prestarted->job_file.string(),
                                              ec.message());
        return {0, error, error};
      }
      child.emplace(std::move(prestarted->child));
    } else {
      const auto job_file = opt_.scratch_dir / fmt::format("job-{}.json", number_);
      log = opt_.scratch_dir / fmt::format("worker-{}.stderr.log", number_);
      run_.stderr_logs.push_back(log);
      if (std::string error = write_job(part, job_file); !error.empty()) return {0, error, error};
      std::error_code ignored;
      std::filesystem::remove(log, ignored);   // a log from an earlier run in the same folder
      try {
        child.emplace(ChildProcess::spawn({opt_.worker_exe.string(), job_file.string()}, opt_.extra_env, log));
      } catch (const Error& e) {
        return {0, e.what(), e.what()};
      }
    }

    auto deadline = after(startup_window());
    for (std::string line;;) {
      const ChildProcess::Read got = child->read_line(line, deadline);
      if (got == ChildProcess::Read::line) {
        if (handle_line(line)) deadline = after(begun_ ? opt_.case_timeout_s : startup_window());
        if (!fatal_.empty()) {
          child->wait(after(opt_.exit_grace_s));   // let it finish its stderr and exit
          return {settled_, with_stderr(fatal_, log), fatal_};
        }
        if (Clock::now() < deadline) continue;   // lines that are not events do not count as progress
      }
      if (got == ChildProcess::Read::closed) return ended(*child, log);
      return timed_out(*child, log);
    }
  }

 private:
  double startup_window() const { return std::max(opt_.case_timeout_s, opt_.startup_timeout_s); }

  // Protocol noise, kept in the run and in scratch_dir/client.log (bounded: a worker that
  // floods stdout must not flood memory or disk).
  void note(const std::string& what) {
    if (run_.diagnostics.size() > kMaxDiagnostics) return;
    const std::string entry = run_.diagnostics.size() == kMaxDiagnostics
                                  ? "further diagnostics dropped"
                                  : fmt::format("worker {}: {}", number_, what);
    run_.diagnostics.push_back(entry);
    std::ofstream(opt_.scratch_dir / "client.log", std::ios::app) << entry << '\n';
  }

  static std::string write_job(const WorkerJob& part, const std::filesystem::path& file) {
    std::ofstream out(file, std::ios::trunc);
    out << nlohmann::json(part).dump() << '\n';
    out.close();
    if (!out) return fmt::format("cannot write the worker job file {}", file.string());
    return {};
  }

  // Returns true when the line was a protocol event (which restarts the watchdog).
  bool handle_line(const std::string& line) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) {
      note("blank line on stdout");
      return false;
    }
    WorkerEvent ev;
    try {
      ev = nlohmann::json::parse(line).get<WorkerEvent>();
    } catch (const std::exception& e) {
      note(fmt::format("not a protocol line ({}): {}", e.what(), line.substr(0, 200)));
      return false;
    }
    if (ev.event == "device") return on_device(ev);
    if (ev.event == "begin") return on_begin(ev);
    if (ev.event == "phase") return on_phase(ev);
    if (ev.event == "result") return on_result(ev);
    if (ev.event == kBaselineFailedEvent) return on_baseline_failed(ev);
    if (ev.event == "fatal") {
      fatal_ = "worker fatal error: " + (ev.message.empty() ? std::string("(no message)") : ev.message);
      return true;
    }
    note("unknown event '" + ev.event + "'");
    return false;
  }

  bool on_device(const WorkerEvent& ev) {
    if (!ev.device) {
      note("device event without device");
      return false;
    }
    if (!run_.device) {
      run_.device = ev.device;
      run_.worker_setup_s = ev.setup_s;
      if (cb_.on_device) cb_.on_device(*ev.device);
    }
    return true;
  }

  bool on_begin(const WorkerEvent& ev) {
    if (!ledger_.pending(ev.index)) {
      note(fmt::format("begin of case {}, which is not pending", ev.index));
      return false;
    }
    if (running_) note(fmt::format("begin of case {} while case {} has no result", ev.index, *running_));
    begun_ = true;
    running_ = ev.index;
    phase_ = "begin";
    if (cb_.on_begin) cb_.on_begin(ev.index);
    return true;
  }

  bool on_phase(const WorkerEvent& ev) {
    if (!running_ || *running_ != ev.index) {
      note(fmt::format("phase '{}' of case {}, which is not running", ev.phase, ev.index));
      return false;
    }
    phase_ = ev.phase;
    if (cb_.on_phase) cb_.on_phase(ev.index, ev.phase);
    return true;
  }

  bool on_result(const WorkerEvent& ev) {
    const int index = ev.index >= 0 ? ev.index : (ev.result ? ev.result->index : -1);
    if (!ev.result || !ledger_.pending(index)) {
      note(fmt::format("result for case {}, which is not pending", index));
      return false;
    }
    CaseResult r = ledger_.from_job(index);
    merge_worker_fields(r, *ev.result);
    ledger_.settle(std::move(r));
    ++settled_;
    if (running_ == index) running_.reset();
    return true;
  }

  // The case stays pending, without the baseline: the worker runs it again, or, after a sticky
  // fault, exits and the next worker does.
  bool on_baseline_failed(const WorkerEvent& ev) {
    const std::optional<BaselineResult> b = baseline_of_event(ev);
    if (!b || !running_ || *running_ != ev.index || !ledger_.blame_baseline(ev.index, *b)) {
      note(fmt::format("baseline_failed event for case {}, which is not running or names no baseline it runs", ev.index));
      return false;
    }
    running_.reset();
    ++settled_;
    return true;
  }

  SessionEnd ended(ChildProcess& child, const std::filesystem::path& log) {
    const ExitStatus status = child.wait(after(opt_.exit_grace_s));
    if (running_) {
      ledger_.fail(*running_, "worker_crash",
                   with_stderr(fmt::format("worker died during the case (phase {}): {}", phase_, status.describe()), log));
      ++settled_;
      return {settled_, {}, "died during a case"};
    }
    if (!(status.exited && status.code == 0)) note("exited with " + status.describe());
    return {settled_, {}, with_stderr(fmt::format("worker ended ({}) {}", status.describe(),
                                                  begun_ ? "between cases" : "before its first case"), log)};
  }

  SessionEnd timed_out(ChildProcess& child, const std::filesystem::path& log) {
    child.kill_group();
    child.wait(Clock::now());
    if (running_) {
      ledger_.fail(*running_, "timeout",
                   fmt::format("no progress for {:g} s (phase {})", opt_.case_timeout_s, phase_));
      ++settled_;
      return {settled_, {}, "timed out during a case"};
    }
    const double waited = begun_ ? opt_.case_timeout_s : startup_window();
    return {settled_, {}, with_stderr(fmt::format("worker sent nothing for {:g} s {} and was killed", waited,
                                                  begun_ ? "between cases" : "at start-up"), log)};
  }

  int number_;
  const ClientOptions& opt_;
  const ClientCallbacks& cb_;
  Ledger& ledger_;
  WorkerRun& run_;
  bool begun_ = false;             // a case has begun in this worker (start-up is over)
  std::optional<int> running_;     // case begun without a result yet
  std::string phase_;
  int settled_ = 0;
  std::string fatal_;
};

}  // namespace

void merge_worker_fields(CaseResult& into, const CaseResult& w) {
  into.verdict = w.verdict;
  into.reason = w.reason;
  into.fault = w.fault;
  into.error = w.error;
  into.trials = w.trials;
  into.seed = w.seed;
  into.reference_time = w.reference_time;
  into.solution_time = w.solution_time;
  into.size_copy_time = w.size_copy_time;
  into.size_copy_bytes = w.size_copy_bytes;
  into.input_sets = w.input_sets;
  into.clock = w.clock;
  into.precision = w.precision;
  // The parent's entries say why a baseline did not run; the worker's replace those that ran.
  for (const BaselineResult& b : w.baselines) {
    auto it = std::find_if(into.baselines.begin(), into.baselines.end(),
                           [&](const BaselineResult& x) { return x.name == b.name; });
    if (it != into.baselines.end()) *it = b;
    else into.baselines.push_back(b);
  }
}

std::optional<PrestartedWorker> prestart_worker(const ClientOptions& opt) {
  if (opt.worker_exe.empty() || opt.scratch_dir.empty()) return std::nullopt;
  std::error_code ec;
  std::filesystem::create_directories(opt.scratch_dir, ec);
  if (ec) return std::nullopt;
  // The names of worker 1, the one it stands in for (Session::run).
  const auto job_file = opt.scratch_dir / "job-1.json";
  const auto log = opt.scratch_dir / "worker-1.stderr.log";
  std::filesystem::remove(job_file, ec);
  std::filesystem::remove(device_report_path(job_file), ec);
  std::filesystem::remove(log, ec);
  try {
    return PrestartedWorker{
        ChildProcess::spawn({opt.worker_exe.string(), "--await", job_file.string()}, opt.extra_env, log), job_file,
        log};
  } catch (const Error&) {
    return std::nullopt;   // run_worker starts one the usual way and reports what fails there
  }
}

WorkerRun run_worker(const WorkerJob& job, const ClientOptions& opt, const ClientCallbacks& cb,
                     std::optional<PrestartedWorker> prestarted) {
  if (opt.worker_exe.empty()) throw Error("run_worker: no worker executable given");
  if (opt.scratch_dir.empty()) throw Error("run_worker: no scratch directory given");
  std::error_code ec;
  std::filesystem::create_directories(opt.scratch_dir, ec);
  if (ec) throw Error(fmt::format("cannot create {}: {}", opt.scratch_dir.string(), ec.message()));

  WorkerRun run;
  Ledger ledger(job, cb);
  int fruitless = 0;
  std::string skip_reason = "not run";
  for (;;) {
    WorkerJob part = ledger.remaining();
    if (part.cases.empty()) break;
    // Once a worker has reported the device, its bandwidth is cached; replacements reuse it.
    if (run.device) part.remeasure_bandwidth = false;
    Session session(++run.worker_starts, opt, cb, ledger, run);
    const SessionEnd end = session.run(part, std::exchange(prestarted, std::nullopt));
    if (!end.fatal.empty()) {
      run.fatal = end.fatal;
      skip_reason = "not run: the worker stopped with a fatal error";
      break;
    }
    fruitless = end.settled > 0 ? 0 : fruitless + 1;
    if (fruitless >= kMaxFruitlessStarts) {
      run.fatal = fmt::format("{} workers in a row finished no case; the last: {}", fruitless, end.how);
      skip_reason = "not run: the worker could not run any case";
      break;
    }
  }
  run.results = ledger.finish(skip_reason);
  return run;
}

}  // namespace ako::exec
