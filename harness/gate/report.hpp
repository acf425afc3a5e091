#pragma once
// The gate's verdict: one Check per thing compared, and per task and kind of check whether it
// ran or was skipped and why. Plain values: rendered as a table, markdown or JSON.
#include <string>
#include <vector>

namespace ako::gate {

// improved and warn pass; only fail fails. skipped says what was not checked (never silently).
enum class CheckStatus { pass, improved, warn, fail, skipped };
enum class CheckKind { build, correctness, coverage, timing, resources };

const char* status_name(CheckStatus s);
const char* kind_name(CheckKind k);

struct Check {
  std::string task;
  std::string entry;            // the baseline entry (device name) compared against; empty: none given
  CheckKind kind = CheckKind::correctness;
  std::string subject;          // case label, "solution rmsnorm_kernel<...>", or the task for task-wide checks
  CheckStatus status = CheckStatus::pass;
  std::string detail;           // in words: what was seen, against what, and why this status
  // Timing checks only (microseconds and percent; 0 elsewhere).
  double base_us = 0, new_us = 0, change_pct = 0, noise_pct = 0, threshold_pct = 0;
};

// Per task and kind: did this kind of check run, and if not, why.
struct Coverage {
  std::string task;
  std::string entry;            // as Check::entry
  CheckKind kind = CheckKind::correctness;
  bool ran = false;
  std::string why;              // ran: what (e.g. "46 cases on NVIDIA H100 80GB HBM3"); skipped: why not
};

struct GateReport {
  std::string baseline_file;
  std::string mode;             // "GPU: <device>" or "no GPU: <reason>"
  std::vector<std::string> notes;  // said once, plainly: device mismatch, compiler differs, resources-only baseline
  std::vector<Coverage> coverage;
  std::vector<Check> checks;

  int count(CheckStatus s) const;
  bool passed() const { return count(CheckStatus::fail) == 0; }
  // A kernel did not compile: the CLI exits 2 (a build error) rather than 1.
  bool build_failed() const;
};

}  // namespace ako::gate
