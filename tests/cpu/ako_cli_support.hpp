#pragma once
// Runs the real ako binary as a user would, for the CLI tests of every stage.
#include <cstdio>
#include <filesystem>
#include <initializer_list>
#include <stdexcept>
#include <stdlib.h>
#include <string>
#include <vector>
#include <sys/wait.h>

namespace ako::testsupport {

struct Ran {
  int status = -1;
  std::string out;  // stdout and stderr together
};

// A shell command line (stdout and stderr together).
inline Ran run_shell(const std::string& cmd) {
  Ran r;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

// `ako ARGS` in `cwd`, with a kernel cache of the tests' own (never the user's).
inline Ran run_ako(const std::string& args, const std::filesystem::path& cwd) {
  return run_shell("cd '" + cwd.string() + "' && AKO_CACHE_DIR='" +
                   (std::filesystem::temp_directory_path() / "ako-cli-test-cache").string() + "' '" AKO_BINARY_DIR
                   "/ako' " + args);
}

inline bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

// Folders removed when the test process ends.
class RemovedAtExit {
 public:
  static void add(const std::filesystem::path& p) {
    static RemovedAtExit all;
    all.paths_.push_back(p);
  }
  ~RemovedAtExit() {
    std::error_code ec;
    for (const auto& p : paths_) std::filesystem::remove_all(p, ec);
  }

 private:
  std::vector<std::filesystem::path> paths_;
};

// A throw-away workspace of its own under the temp folder (unique: suites run concurrently), a
// fresh copy of these repository folders (default: the rmsnorm task, its input and its solution).
inline std::filesystem::path copy_workspace(const std::string& name,
                                            std::initializer_list<const char*> dirs = {"tasks/rmsnorm", "input/rmsnorm",
                                                                                        "solution/rmsnorm"}) {
  namespace fs = std::filesystem;
  std::string tmpl = (fs::temp_directory_path() / ("ako-cli-ws-" + name + "-XXXXXX")).string();
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp " + tmpl + " failed");
  const fs::path ws = tmpl;
  RemovedAtExit::add(ws);
  for (const char* d : dirs) {
    fs::create_directories(ws / d);
    fs::copy(fs::path(AKO_SOURCE_DIR) / d, ws / d, fs::copy_options::recursive);
  }
  return ws;
}

}  // namespace ako::testsupport
