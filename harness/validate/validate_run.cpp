#include "validate/validate_run.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <deque>
#include <fmt/format.h>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "exec/client/child_process.hpp"

namespace ako::validate {

namespace fs = std::filesystem;

namespace {

bool executable(const fs::path& p) { return !p.empty() && ::access(p.c_str(), X_OK) == 0 && !fs::is_directory(p); }

// A folder of its own under the temp folder (several runs may go at once), removed at scope end.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "ako-validate-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw Error("cannot make a temp folder under " + fs::temp_directory_path().string());
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string tail_of(const fs::path& file, size_t lines) {
  std::string text;
  try {
    text = read_file(file);
  } catch (const Error&) {
    return "";
  }
  while (!text.empty() && text.back() == '\n') text.pop_back();
  size_t start = text.size();  // the start of the last `lines` lines
  for (size_t n = 0; n < lines; ++n) {
    const size_t nl = start == 0 ? std::string::npos : text.rfind('\n', start - 1);
    if (nl == std::string::npos) return text;
    start = nl;
  }
  return text.substr(start + 1);
}

}  // namespace

fs::path find_python() {
  if (const char* env = std::getenv("AKO_PYTHON"); env && *env) {
    if (!executable(env)) throw Error(std::string("$AKO_PYTHON=") + env + ": not an executable file");
    return env;
  }
  if (const char* path = std::getenv("PATH")) {
    const std::string dirs = path;
    for (size_t start = 0; start <= dirs.size();) {
      const size_t end = dirs.find(':', start);
      const std::string dir = dirs.substr(start, end == std::string::npos ? std::string::npos : end - start);
      if (!dir.empty() && executable(fs::path(dir) / "python3")) return fs::path(dir) / "python3";
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }
  throw Error("no python3 on PATH (ako validate runs bench/validate with it; set AKO_PYTHON to choose one)");
}

std::vector<std::string> validate_args(const ValidateRequest& req, const fs::path& json) {
  std::vector<std::string> a{"-m", "validate", "--model", req.model, "--steps", std::to_string(req.steps),
                             "--warmup", std::to_string(req.warmup), "--blocks", std::to_string(req.blocks),
                             "--json", json.string(), "--device", req.device,
                             "--payload", (req.payload.empty() ? req.root / ".sgl-proof" : req.payload).string()};
  if (req.graph) a.push_back("--graph");
  if (req.tiny) a.push_back("--tiny");
  if (!req.deps.empty()) a.insert(a.end(), {"--deps", req.deps.string()});
  if (!req.backends.empty()) a.insert(a.end(), {"--backends", req.backends});
  if (req.micro_samples >= 0) a.insert(a.end(), {"--micro-samples", std::to_string(req.micro_samples)});
  return a;
}

ValidateRun run_validate(const ValidateRequest& req, const std::function<void(const std::string&)>& progress) {
  const fs::path bench = req.root / "bench";
  if (!fs::is_regular_file(bench / "validate" / "__main__.py"))
    throw Error("no " + (bench / "validate" / "__main__.py").string() +
                ": ako validate runs the workspace's bench/validate package (run it inside the ako repository)");
  TempDir tmp;
  const fs::path json = req.json.empty() ? tmp.path / "validate.json" : fs::absolute(req.json);
  std::error_code ec;
  fs::remove(json, ec);  // a result left by an earlier run must not be read as this one's
  std::vector<std::string> argv{find_python().string()};
  for (auto& a : validate_args(req, json)) argv.push_back(std::move(a));
  std::string pythonpath = bench.string();
  if (const char* old = std::getenv("PYTHONPATH"); old && *old) pythonpath += std::string(":") + old;
  const fs::path log = tmp.path / "stderr.log";

  using Clock = exec::ChildProcess::Clock;
  const auto deadline = Clock::now() + std::chrono::milliseconds(static_cast<long>(req.timeout_s * 1000));
  exec::ChildProcess child = exec::ChildProcess::spawn(argv, {"PYTHONPATH=" + pythonpath, "PYTHONUNBUFFERED=1"}, log);
  ValidateRun run;
  std::deque<std::string> last;
  std::string line;
  bool timed_out = false;
  for (;;) {
    const auto r = child.read_line(line, deadline);
    if (r == exec::ChildProcess::Read::closed) break;
    if (r == exec::ChildProcess::Read::timeout) {
      timed_out = true;
      child.kill_group();
      break;
    }
    progress(line);
    last.push_back(line);
    if (last.size() > 8) last.pop_front();
  }
  const exec::ExitStatus st = child.wait(deadline);
  run.exit_code = st.exited ? st.code : -1;
  run.ended = timed_out ? fmt::format("timed out after {:.0f} s", req.timeout_s) : st.describe();
  run.stderr_tail = tail_of(log, 15);
  run.last_lines.assign(last.begin(), last.end());
  if (st.exited && (st.code == kPyPass || st.code == kPyFail) && fs::is_regular_file(json))
    run.result = read_validate_json(json);
  return run;
}

}  // namespace ako::validate
