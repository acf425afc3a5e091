#include "exec/client/sanitizer.hpp"

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "exec/client/child_process.hpp"

namespace ako::exec {

namespace fs = std::filesystem;

fs::path find_compute_sanitizer() {
  std::vector<fs::path> candidates;
  if (const char* e = std::getenv("AKO_COMPUTE_SANITIZER"); e && *e) return e;
  if (const char* h = std::getenv("CUDA_HOME"); h && *h) candidates.push_back(fs::path(h) / "bin/compute-sanitizer");
  candidates.push_back(fs::path(AKO_DEFAULT_CUDA_HOME) / "bin/compute-sanitizer");
  candidates.push_back("/usr/local/cuda/bin/compute-sanitizer");
  if (const char* path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    for (std::string d; std::getline(dirs, d, ':');)
      if (!d.empty()) candidates.push_back(fs::path(d) / "compute-sanitizer");
  }
  std::error_code ec;
  for (const auto& c : candidates)
    if (fs::is_regular_file(c, ec)) return c;
  return {};
}

std::vector<std::string> sanitizer_argv(const fs::path& sanitizer, const std::string& tool, const fs::path& report,
                                        const fs::path& worker, const fs::path& job_file) {
  return {sanitizer.string(),
          "--tool", tool,
          "--error-exitcode", std::to_string(kSanitizerErrorExit),
          "--log-file", report.string(),
          "--print-limit", "100",
          worker.string(), job_file.string()};
}

WorkerJob sanitize_job(const WorkerJob& job, int index, double launch_limit_s) {
  WorkerJob out = job;
  out.cases.clear();
  for (const CaseJob& c : job.cases)
    if (c.index == index) out.cases.push_back(c);
  if (out.cases.empty()) throw Error(fmt::format("sanitize: the job has no case {}", index));
  for (CaseJob& c : out.cases) c.time = false;   // no timer, so no CUPTI under the sanitizer
  out.timing.use_cupti = false;
  out.remeasure_bandwidth = false;
  out.launch_limit.min_s = out.launch_limit.max_s = launch_limit_s;
  return out;
}

bool worth_sanitizing(const CaseResult& c) {
  if (c.kind != "compare") return false;
  if (c.verdict == Verdict::incorrect) return true;
  if (c.verdict != Verdict::failed) return false;
  return c.fault != "static_check" && c.fault != "implausible" && c.fault != "timeout" && c.fault != "job_error";
}

int sanitizer_error_count(const std::string& text) {
  static const std::regex summary(R"(ERROR SUMMARY:\s*([0-9]+) error)");
  std::smatch m;
  if (!std::regex_search(text, m, summary)) return -1;
  return std::stoi(m[1].str());
}

std::string sanitizer_excerpt(const std::string& text, int lines) {
  std::stringstream in(text);
  std::string out;
  int kept = 0;
  for (std::string line; kept < lines && std::getline(in, line);) {
    if (line.find("COMPUTE-SANITIZER") != std::string::npos) continue;
    if (line.find_first_not_of("= \t\r") == std::string::npos) continue;   // blank or a bare "========="
    out += line + "\n";
    ++kept;
  }
  return out;
}

namespace {

SanitizerReport run_tool(const fs::path& sanitizer, const std::string& tool, const fs::path& job_file,
                         const SanitizeOptions& opt, int index) {
  SanitizerReport r;
  r.tool = tool;
  const fs::path report = opt.out_dir / fmt::format("case-{}-{}.txt", index, tool);
  const fs::path events = opt.out_dir / fmt::format("case-{}-{}.stderr.log", index, tool);
  r.report = report.string();
  std::error_code ec;
  fs::remove(report, ec);
  try {
    ChildProcess child = ChildProcess::spawn(sanitizer_argv(sanitizer, tool, report, opt.worker_exe, job_file), {}, events);
    const auto deadline = ChildProcess::Clock::now() +
                          std::chrono::duration_cast<ChildProcess::Clock::duration>(std::chrono::duration<double>(opt.timeout_s));
    // The worker's event lines come on stdout; the report goes to its own file.
    std::string line;
    ChildProcess::Read got;
    while ((got = child.read_line(line, deadline)) == ChildProcess::Read::line) {}
    if (got == ChildProcess::Read::timeout) {
      child.kill_group();
      child.wait(ChildProcess::Clock::now());
      r.excerpt = fmt::format("compute-sanitizer --tool {} did not finish within {:g} s and was killed\n", tool, opt.timeout_s);
    } else {
      const ExitStatus st = child.wait(ChildProcess::Clock::now() + std::chrono::seconds(10));
      r.exit_code = st.exited ? st.code : 128 + st.signal;
    }
  } catch (const std::exception& e) {
    r.excerpt = fmt::format("compute-sanitizer could not be started: {}\n", e.what());
    return r;
  }
  if (fs::exists(report, ec)) {
    const std::string text = read_file(report);
    r.errors = sanitizer_error_count(text);
    r.excerpt += sanitizer_excerpt(text);
  }
  return r;
}

}  // namespace

std::vector<SanitizerReport> sanitize_case(const WorkerJob& job, int index, const SanitizeOptions& opt) {
  std::vector<SanitizerReport> out;
  const fs::path sanitizer = opt.sanitizer.empty() ? find_compute_sanitizer() : opt.sanitizer;
  std::error_code ec;
  fs::create_directories(opt.out_dir, ec);
  const fs::path job_file = opt.out_dir / fmt::format("case-{}.job.json", index);
  std::string setup_error;
  if (sanitizer.empty())
    setup_error = "compute-sanitizer not found (set AKO_COMPUTE_SANITIZER or CUDA_HOME)";
  else if (ec)
    setup_error = fmt::format("cannot create {}: {}", opt.out_dir.string(), ec.message());
  else {
    try {
      write_file_atomically(job_file, nlohmann::json(sanitize_job(job, index, opt.launch_limit_s)).dump() + "\n");
    } catch (const std::exception& e) {
      setup_error = e.what();
    }
  }
  for (const std::string& tool : kSanitizerTools) {
    if (!setup_error.empty()) {
      SanitizerReport r;
      r.tool = tool;
      r.excerpt = setup_error + "\n";
      out.push_back(r);
      continue;
    }
    out.push_back(run_tool(sanitizer, tool, job_file, opt, index));
  }
  return out;
}

}  // namespace ako::exec
