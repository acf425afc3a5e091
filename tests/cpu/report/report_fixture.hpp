#pragma once
// The report tests' workspace: this repository's layernorm task (task, input, solution) with the
// recorded H200 data of tests/fixtures/report/layernorm/ (README there: where each file comes
// from) in the places `ako report` looks: trajectory/layernorm/, bench/tuning/layernorm.jsonl and
// the H200 config the tune wrote. Every test gets a folder of its own under the temp folder.
#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>

#include "cpu/ako_cli_support.hpp"

namespace ako::report::testing {

namespace fs = std::filesystem;

inline const fs::path kFixture = fs::path(AKO_TEST_DIR) / "fixtures" / "report" / "layernorm";

// A unique folder (mkdtemp), removed with everything in it at the end.
class TempDir {
 public:
  TempDir() {
    std::string t = (fs::temp_directory_path() / "ako-report-test-XXXXXX").string();
    if (!mkdtemp(t.data())) throw std::runtime_error("mkdtemp failed for " + t);
    path_ = t;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

struct Parts {
  bool trajectory = true;
  bool tuning = true;
};

inline void make_workspace(const fs::path& ws, Parts parts = {}) {
  // The task as it was when the data was recorded (its parameter space since grew).
  for (const char* d : {"tasks", "input", "solution"}) {
    fs::create_directories(ws / d / "layernorm");
    fs::copy(kFixture / "workspace" / d / "layernorm", ws / d / "layernorm", fs::copy_options::recursive);
  }
  fs::copy_file(kFixture / "device_name=NVIDIA_H200.json", ws / "solution/layernorm/configs/device_name=NVIDIA_H200.json",
                fs::copy_options::overwrite_existing);
  if (parts.trajectory) {
    fs::create_directories(ws / "trajectory");
    fs::copy(kFixture / "trajectory", ws / "trajectory", fs::copy_options::recursive);
  }
  if (parts.tuning) {
    fs::create_directories(ws / "bench/tuning");
    fs::copy_file(kFixture / "tuning.jsonl", ws / "bench/tuning/layernorm.jsonl");
  }
}

// `ako ARGS` run in `cwd` (stdout and stderr together).
inline testsupport::Ran ako(const std::string& args, const fs::path& cwd) {
  return testsupport::run_shell("cd '" + cwd.string() + "' && '" AKO_BINARY_DIR "/ako' " + args);
}

inline size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t i = text.find(what); i != std::string::npos; i = text.find(what, i + what.size())) ++n;
  return n;
}

}  // namespace ako::report::testing
