#pragma once
// Shared by the GPU tests: run the real ako binary as a user would and read its JSON result.
// Tests skip (visibly, with the probe's reason) when there is no GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "common/atomic_file.hpp"
#include "exec/client/gpu_probe.hpp"

namespace ako::gputest {

#define AKO_REQUIRE_GPU()                                                          \
  do {                                                                             \
    static const ::ako::exec::GpuProbe probe = ::ako::exec::probe_gpu();           \
    if (!probe.available) GTEST_SKIP() << "no GPU: " << probe.reason;              \
  } while (0)

struct Ran {
  int status = -1;
  std::string output;  // stdout and stderr together
  double wall_s = 0;
};

// The ako binary next to this test (the build tree or the bundle's bin/).
inline std::filesystem::path ako_binary() {
  if (const char* env = std::getenv("AKO_BIN"); env && *env) return env;
  const auto self = std::filesystem::read_symlink("/proc/self/exe").parent_path();
  for (auto p : {self / "ako", self.parent_path() / "ako"})
    if (std::filesystem::exists(p)) return p;
  return "ako";
}

// The workspace (repository root) holding tasks/, input/, solution/.
inline std::filesystem::path workspace() {
  if (const char* env = std::getenv("AKO_ROOT"); env && *env) return env;
  return AKO_TEST_DIR "/..";
}

// `color`: append --color never (the commands that colour their output; `ako tune` has no such option).
inline Ran run_ako(const std::string& args, bool color = true) {
  const std::string cmd = "cd '" + workspace().string() + "' && '" + ako_binary().string() + "' " + args +
                          (color ? " --color never" : "") + " 2>&1";
  Ran r;
  const auto t0 = std::chrono::steady_clock::now();
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  const int st = pclose(p);
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return r;
}

inline nlohmann::json read_json(const std::filesystem::path& f) {
  return nlohmann::json::parse(ako::read_file(f));
}

// The running test's name as a folder name: Suite.Name (parameterised: Suite_Test.Name_param).
inline std::string current_test_folder_name() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = std::string(info->test_suite_name()) + "." + info->name();
  std::replace(name.begin(), name.end(), '/', '_');
  return name;
}

// An empty folder for one test's scratch copy of the workspace, at a path fixed by the test's name:
// ako's kernel cache keys on the absolute paths of a kernel's source and headers, so on a
// path that is the same in every run and on every machine the kernels compiled ahead of a device
// call (scripts/warm-gpu-test-cache.sh) are hits. A random folder made every kernel of the tests
// below compile on the GPU machine (session 39: the token-group tests 240 s and over 340 s, six
// processes side by side). Emptied first: nothing of an earlier run is left in it.
inline std::filesystem::path test_workspace() {
  const auto dir = std::filesystem::temp_directory_path() / "ako-gpu-ws" / current_test_folder_name();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// A JSON file of the running test, in a folder of its own: scripts/gpu-tests.sh runs the tests
// side by side, and a name shared by tests (the token-group tests' "<task>-tokens") once let one
// test read another's results (session 40: three residual tests saw each other's TOKENS).
inline std::filesystem::path temp_json(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / "ako-gpu-tests" / current_test_folder_name();
  std::filesystem::create_directories(dir);
  return dir / (name + ".json");
}

}  // namespace ako::gputest
