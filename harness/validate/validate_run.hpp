#pragma once
// Running bench/validate (the torch side of `ako validate`) as a child process: the Python
// interpreter ($AKO_PYTHON, else python3 on PATH), `python3 -m validate ...` with the
// workspace's bench/ on PYTHONPATH, its stdout lines handed to `progress` as they come, its
// stderr kept in a log whose tail is returned, then its JSON read back.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "validate/validate_result.hpp"

namespace ako::validate {

struct ValidateRequest {
  std::filesystem::path root;      // the workspace (holds bench/validate)
  std::string model;
  int steps = 5;
  int warmup = 2;
  int blocks = 2;                  // per block kind; 0: the model's real count
  bool graph = false;
  std::filesystem::path json;      // where the result goes; empty: a temp file, removed after
  std::filesystem::path payload;   // the ported kernels; empty: <root>/.sgl-proof
  std::filesystem::path deps;      // --deps for the CuTe DSL packages; empty: none
  std::string backends;            // empty: all three
  int micro_samples = -1;          // < 0: the Python default
  bool tiny = false;
  std::string device = "cuda";
  double timeout_s = 3600;
};

// Exit statuses of `python3 -m validate` (bench/validate/__main__.py).
inline constexpr int kPyPass = 0, kPyFail = 1, kPyUsage = 2, kPyNoGpu = 3;

struct ValidateRun {
  int exit_code = -1;              // the child's exit status; -1 when it died on a signal or timed out
  std::string ended;               // "exit status 3", "signal SIGKILL", "timed out after N s"
  std::optional<ValidateResult> result;
  std::string stderr_tail;         // the last lines of the child's stderr
  std::vector<std::string> last_lines;  // the last lines of its stdout (progress)
};

// $AKO_PYTHON when set, else python3 found on PATH. Throws ako::Error when neither is there.
std::filesystem::path find_python();
// The child's argv after the interpreter: -m validate and the request's options.
std::vector<std::string> validate_args(const ValidateRequest& req, const std::filesystem::path& json);
// Throws ako::Error when the package is missing or the interpreter cannot be started.
ValidateRun run_validate(const ValidateRequest& req, const std::function<void(const std::string&)>& progress);

}  // namespace ako::validate
