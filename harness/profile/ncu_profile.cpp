#include "profile/ncu_profile.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <deque>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "exec/client/child_process.hpp"
#include "profile/ncu_csv.hpp"

namespace ako::profile {

namespace fs = std::filesystem;

namespace {

bool executable(const fs::path& p) { return !p.empty() && ::access(p.c_str(), X_OK) == 0 && !fs::is_directory(p); }

struct Captured {
  exec::ExitStatus status;
  std::string out;                  // all of stdout (keep) or its last lines
  bool timed_out = false;
};

// Runs argv to the end, reading stdout; keeps all of it, or only the last lines when the
// output is the profiled program's chatter.
Captured run_to_end(const std::vector<std::string>& argv, const fs::path& stderr_log, double timeout_s, bool keep_all) {
  using Clock = exec::ChildProcess::Clock;
  const auto deadline = Clock::now() + std::chrono::milliseconds(static_cast<long>(timeout_s * 1000));
  exec::ChildProcess child = exec::ChildProcess::spawn(argv, {}, stderr_log);
  Captured c;
  std::deque<std::string> tail;
  std::string line;
  for (;;) {
    const auto r = child.read_line(line, deadline);
    if (r == exec::ChildProcess::Read::closed) break;
    if (r == exec::ChildProcess::Read::timeout) {
      c.timed_out = true;
      child.kill_group();
      break;
    }
    if (keep_all) {
      c.out += line + "\n";
    } else {
      tail.push_back(line);
      if (tail.size() > 15) tail.pop_front();
    }
  }
  c.status = child.wait(deadline);
  for (const auto& l : tail) c.out += l + "\n";
  return c;
}

std::string log_tail(const fs::path& log, size_t lines) {
  std::string text;
  try {
    text = read_file(log);
  } catch (const Error&) {
    return "";
  }
  size_t pos = text.size();
  for (size_t n = 0; n <= lines && pos > 0;) {
    pos = text.rfind('\n', pos - 1);
    if (pos == std::string::npos) return text;
    ++n;
  }
  return text.substr(pos + 1);
}

}  // namespace

std::vector<std::string> ncu_profile_argv(const NcuRequest& r) {
  std::vector<std::string> argv{r.ncu.string(), "--clock-control", "none", "--target-processes", "all"};
  for (const char* s : {"MemoryWorkloadAnalysis", "SpeedOfLight", "Occupancy", "LaunchStats", "WarpStateStats"}) {
    argv.push_back("--section");
    argv.push_back(s);
  }
  if (r.kernel.starts_with("regex:")) {
    argv.insert(argv.end(), {"--kernel-name-base", "function", "--kernel-name", r.kernel});
  } else {
    argv.insert(argv.end(), {"--kernel-name-base", "mangled", "--kernel-name", r.kernel});
  }
  argv.insert(argv.end(), {"--launch-skip", std::to_string(r.launch_skip), "--launch-count", "1", "-f", "-o",
                           r.report.string(), "--log-file", r.log_file.string()});
  argv.insert(argv.end(), r.app.begin(), r.app.end());
  return argv;
}

std::vector<std::string> ncu_import_argv(const fs::path& ncu, const fs::path& report) {
  return {ncu.string(), "--import", report.string(), "--csv", "--page", "raw"};
}

std::optional<fs::path> find_ncu(std::string& looked) {
  looked.clear();
  if (const char* env = std::getenv("AKO_NCU"); env && *env) {
    looked = std::string("$AKO_NCU=") + env;
    if (executable(env)) return fs::path(env);
    return std::nullopt;
  }
  if (const char* path = std::getenv("PATH")) {
    std::string dirs = path;
    for (size_t start = 0; start <= dirs.size();) {
      const size_t end = dirs.find(':', start);
      const std::string dir = dirs.substr(start, end == std::string::npos ? std::string::npos : end - start);
      if (!dir.empty() && executable(fs::path(dir) / "ncu")) return fs::path(dir) / "ncu";
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }
  looked = "$AKO_NCU (unset), PATH, /usr/local/cuda/bin/ncu";
  if (executable("/usr/local/cuda/bin/ncu")) return fs::path("/usr/local/cuda/bin/ncu");
  return std::nullopt;
}

std::string shell_words(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& w : argv) {
    const bool plain = !w.empty() && w.find_first_of(" \t\"'$`\\|&;<>()*?[]{}") == std::string::npos;
    s += (s.empty() ? "" : " ") + (plain ? w : "'" + w + "'");
  }
  return s;
}

NcuOutcome run_ncu(const NcuRequest& request, double timeout_s) {
  NcuOutcome o;
  const auto argv = ncu_profile_argv(request);
  o.command = shell_words(argv);
  std::error_code ec;
  fs::create_directories(request.report.parent_path(), ec);
  fs::remove(request.report, ec);
  try {
    // ncu's --log-file takes its own messages; the program's stderr goes to a log beside it.
    const fs::path app_log = fs::path(request.log_file).concat(".stderr");
    const Captured prof = run_to_end(argv, app_log, timeout_s, /*keep_all=*/false);
    if (prof.timed_out) {
      o.error = "ncu did not finish within " + std::to_string(static_cast<int>(timeout_s)) + " s (killed); log: " +
                request.log_file.string();
      return o;
    }
    if (!prof.status.exited || prof.status.code != 0 || !fs::exists(request.report)) {
      o.error = "ncu failed (" + prof.status.describe() + (fs::exists(request.report) ? "" : ", no report written") +
                "); its log " + request.log_file.string() + " ends with:\n" + log_tail(request.log_file, 8) +
                prof.out;
      return o;
    }
    const fs::path import_log = fs::path(request.report).concat(".import.log");
    const Captured imp = run_to_end(ncu_import_argv(request.ncu, request.report), import_log, timeout_s, true);
    if (imp.timed_out || !imp.status.exited || imp.status.code != 0) {
      o.error = "ncu --import of " + request.report.string() + " failed (" + imp.status.describe() + "); see " +
                import_log.string();
      return o;
    }
    fs::remove(import_log, ec);
    o.csv = fs::path(request.report).replace_extension(".csv");
    write_file_atomically(o.csv, imp.out);
    o.summary = summarize_ncu(parse_ncu_raw_csv(imp.out));
    o.ok = true;
  } catch (const Error& e) {
    o.error = std::string("ncu: ") + e.what();
  }
  return o;
}

}  // namespace ako::profile
