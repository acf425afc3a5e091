#pragma once
// `ako run --sanitize`: each failing case runs again, alone and untimed, in ako-worker under
// compute-sanitizer (memcheck, racecheck, initcheck), and the report is attached to the case.
// The job is the case's own worker job with timing off (no CUPTI: the sanitizer is the
// process's tool) and a per-launch limit loose enough for the sanitizer's slowdown.
#include <filesystem>
#include <string>
#include <vector>

#include "exec/protocol/job.hpp"
#include "result/run_result.hpp"

namespace ako::exec {

inline constexpr int kSanitizerErrorExit = 86;   // --error-exitcode: the tool found errors
inline const std::vector<std::string> kSanitizerTools = {"memcheck", "racecheck", "initcheck"};

// compute-sanitizer: $AKO_COMPUTE_SANITIZER, else $CUDA_HOME/bin, else the toolkit ako was
// built with, else PATH. Empty when none exists.
std::filesystem::path find_compute_sanitizer();

// The command line of one tool's run.
std::vector<std::string> sanitizer_argv(const std::filesystem::path& sanitizer, const std::string& tool,
                                        const std::filesystem::path& report, const std::filesystem::path& worker,
                                        const std::filesystem::path& job_file);

// `job` reduced to the case with this index, untimed, with a per-launch limit of `launch_limit_s`.
// Throws ako::Error when no such case.
WorkerJob sanitize_job(const WorkerJob& job, int index, double launch_limit_s);

// Whether a case is worth re-running: incorrect, or failed by something the GPU did (not a static
// refusal, an implausible timing or a hang, which would hang again under the sanitizer).
bool worth_sanitizing(const CaseResult& c);

// "ERROR SUMMARY: 3 errors" -> 3; -1 when the report has no summary line.
int sanitizer_error_count(const std::string& report_text);
// The report's first `lines` meaningful lines (the banner and blank "=========" lines dropped).
std::string sanitizer_excerpt(const std::string& report_text, int lines = 12);

struct SanitizeOptions {
  std::filesystem::path sanitizer;     // empty: find_compute_sanitizer()
  std::filesystem::path worker_exe;
  std::filesystem::path out_dir;       // reports and job files; created
  double timeout_s = 600;              // per tool run
  double launch_limit_s = 120;         // the worker's own per-launch limit under the sanitizer
};

// Runs every tool on case `index` of `job`; one report per tool (exit_code -1 and the reason in
// excerpt when it could not run). Never throws for what happens to the child.
std::vector<SanitizerReport> sanitize_case(const WorkerJob& job, int index, const SanitizeOptions& opt);

}  // namespace ako::exec
