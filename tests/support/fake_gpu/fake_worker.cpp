// ako_fake_worker [--await] JOB.json: speaks ako-worker's protocol (exec/protocol/job.hpp)
// without a GPU, for the CPU tests that kill ako at random points (tests/cpu/kill_support.hpp):
// it reads the job ako wrote, reports a device, and for every case begin, validate, (time) and a
// correct result whose times follow the case's bytes at a plausible bandwidth (and, when the job
// asks, a size copy 0.9x the solution's time), so `ako run`,
// `ako tune` and `ako iterate` go their whole real way to their files.
//   AKO_FAKE_WORKER_CASE_MS  milliseconds each case takes (default 20): a worker busy on the GPU
//   AKO_FAKE_WORKER_DIE_ON   a GPU UUID: a worker pinned to it (CUDA_VISIBLE_DEVICES, as ako tune
//                            --gpus pins its workers) SIGKILLs itself inside a case, after
//   AKO_FAKE_WORKER_DIE_AFTER  cases finished (default 0), in the batch's first worker; the
//                            workers started again for the rest find no GPU and exit before
//                            any case, as a real worker does on a GPU that fell off the bus:
//                            the watchdog gives up on it (two workers in a row finish no case)
//   AKO_FAKE_WORKER_SLOW_JOB=FILE:N  the N-th job run (counted in FILE over every worker of the
//                            test, from 1) times every kernel 5.5 us slower, as a shared H200 did
//                            for a minute (pipeline/drift_sentinel.hpp)
// Like a real worker deep in a long kernel, it does not notice its parent going away: SIGPIPE
// is ignored, and once orphaned it stays alive for 3 more seconds before it leaves, so a worker
// that outlives ako is there for the tests to see, unless ako's PR_SET_PDEATHSIG (or its signal
// handler) kills it first, or, started through a tool (a grandchild of ako), the real worker's
// watch of the ako that started it (exec/protocol/ancestor_watch.hpp), which it runs as well.
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include <sys/stat.h>
#include <unistd.h>

#include "exec/protocol/ancestor_watch.hpp"
#include "exec/protocol/job.hpp"

namespace {

using namespace ako;
using namespace ako::exec;

void emit(const WorkerEvent& e) {
  const std::string line = nlohmann::json(e).dump() + "\n";
  (void)!::write(STDOUT_FILENO, line.data(), line.size());
}

constexpr auto kOrphanLinger = std::chrono::seconds(3);

// Sleeps `ms`; an orphan (its parent gone) lingers, then exits.
void busy(int ms, pid_t parent) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  do {
    if (::getppid() != parent) {
      std::this_thread::sleep_for(kOrphanLinger);
      std::_Exit(0);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  } while (std::chrono::steady_clock::now() < until);
}

// AKO_FAKE_WORKER_SLOW_JOB: the microseconds this job adds to every kernel (0 or 5.5).
double slow_window_us() {
  const char* v = std::getenv("AKO_FAKE_WORKER_SLOW_JOB");
  if (!v) return 0;
  const std::string spec(v);
  const size_t colon = spec.rfind(':');
  if (colon == std::string::npos) return 0;
  const std::string counter = spec.substr(0, colon);
  int jobs = 0;
  {
    std::ifstream in(counter);
    in >> jobs;
  }
  std::ofstream(counter) << ++jobs;
  return jobs == std::atoi(spec.c_str() + colon + 1) ? 5.5 : 0;
}

TimingStats timing(double us) {
  TimingStats t;
  t.method = "cupti";
  t.l2_flush = "memset";
  t.samples = 10;
  t.warmup = 3;
  t.iqm_us = t.median_us = t.min_us = t.max_us = t.mean_us = us;
  t.ci_rel = 0.001;
  t.stable = true;
  t.kernels_per_sample = 1;
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  ako::exec::exit_with_ancestor("ako_fake_worker", 128 + SIGKILL, false);   // as worker_main.cpp
  std::signal(SIGPIPE, SIG_IGN);
  const pid_t parent = ::getppid();
  int arg = 1;
  const bool await = argc > 2 && std::string(argv[1]) == "--await";
  if (await) ++arg;
  if (arg >= argc) return 2;
  const char* job_file = argv[arg];
  struct stat st {};
  while (await && ::stat(job_file, &st) != 0) busy(1, parent);
  WorkerJob job;
  try {
    std::ifstream in(job_file);
    job = nlohmann::json::parse(in).get<WorkerJob>();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fake worker: %s\n", e.what());
    return 2;
  }
  const char* ms_env = std::getenv("AKO_FAKE_WORKER_CASE_MS");
  const int case_ms = ms_env ? std::atoi(ms_env) : 20;

  DeviceInfo d;
  d.name = "ako fake GPU";
  d.arch = "sm_90a";
  d.sm_count = 132;
  d.rated_sm_clock_mhz = 1980;
  d.l2_bytes = 50 << 20;
  d.driver_version = 13000;
  d.copy_bandwidth_gbs = 4000;
  d.copy_bandwidth_source = "measured";
  WorkerEvent dev{"device"};
  dev.device = d;
  emit(dev);

  const char* die_on = std::getenv("AKO_FAKE_WORKER_DIE_ON");
  const char* pinned = std::getenv("CUDA_VISIBLE_DEVICES");
  const bool dies = die_on && pinned && std::string(die_on) == pinned;
  const char* die_after_env = std::getenv("AKO_FAKE_WORKER_DIE_AFTER");
  const bool first_worker = !job.cases.empty() && job.cases.front().index == 0;
  const int die_after = die_after_env ? std::atoi(die_after_env) : 0;
  if (dies && !first_worker) {
    std::fprintf(stderr, "fake worker: the GPU %s is gone (cuInit: CUDA_ERROR_NO_DEVICE)\n", pinned);
    return 1;
  }
  const double slow_us = slow_window_us();
  int finished = 0;
  for (const CaseJob& c : job.cases) {
    emit({"begin", c.index});
    if (dies && finished == die_after) std::raise(SIGKILL);
    ++finished;
    WorkerEvent phase{"phase", c.index};
    phase.phase = "validate";
    emit(phase);
    busy(case_ms, parent);
    CaseResult r;
    r.index = c.index;
    r.kind = c.kind;
    r.verdict = Verdict::correct;
    r.trials = c.trials;
    r.seed = c.seed;
    r.bytes = c.bytes;
    if (c.kind == "compare" && c.time) {
      phase.phase = "time";
      emit(phase);
      // 2 TB/s for the solution, 1.6 TB/s for the reference: under the copy bandwidth above.
      const double us = std::max(1.0, c.bytes / 2e6);
      r.solution_time = timing(us + slow_us);
      if (c.time_reference) r.reference_time = timing(us * 1.25 + slow_us);
      if (c.time_size_copy) {   // --size-copy: a copy of the case's own bytes, a little faster
        r.size_copy_time = timing(us * 0.9);
        r.size_copy_bytes = c.bytes;
      }
      r.input_sets = 2;
    }
    WorkerEvent result{"result", c.index};
    result.result = r;
    emit(result);
  }
  return 0;
}
