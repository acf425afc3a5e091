#pragma once
// From cases to binaries to worker jobs: the part of `ako run` between the task stage and
// the worker. Shared by run and compile (and later tune, gate).
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "exec/protocol/job.hpp"
#include "jit/compiler.hpp"
#include "result/run_result.hpp"
#include "task/cases.hpp"

namespace ako::pipeline {

// Every kernel instance the cases need, compiled: one NVRTC program per source file with all
// its name expressions, plus the harness's support kernels.
struct BuiltKernels {
  std::map<std::string, jit::CompiledModule> modules;  // by source path (absolute)
  jit::CompiledModule support;
  std::vector<KernelBuild> builds;                     // one per (role, name expression), for reports
  std::vector<std::string> errors;                     // compile errors, with file and line
  std::map<std::string, std::string> baseline_errors;  // baseline name -> its compile error (the run goes on)
  std::vector<StaticFinding> findings;                 // static checks on the solution's compiled code
  std::vector<std::string> cache_notes;                // the cache could not be written, an entry was damaged
  int cache_hits = 0, compiled = 0;
};

struct BuildOptions {
  std::string arch;
  jit::CompileOptions compile;
  std::filesystem::path root;                          // for display names
  std::vector<std::string> allow;                      // static checks the task permits (solution.allow)
};

// Compiles everything `cases` need. Never throws on a compile error: see errors.
BuiltKernels build_kernels(const std::vector<task::Case>& cases, const BuildOptions& opt);

// The folders a task's kernels may #include from besides their own folder, their -I folders
// and the toolkit's: the workspace's input/ and solution/ (a task may share another's
// reference, as residual_gate_norm_scale_shift shares norm_scale_shift's). Anything else,
// /etc/passwd or ../../secret, is refused before NVRTC reads it (jit/include_scan.hpp).
std::vector<std::filesystem::path> task_include_roots(const std::filesystem::path& root);

// Every case's buffers are ones the worker can carry out (exec/protocol/buffer_plan.hpp: views
// it can walk, at most kMaxViewsPerStorage writable views of one storage): checked before
// anything is built, so a view the worker could not check is a SpecError naming the case.
void check_buffer_plans(const task::TaskSpec& spec, const std::vector<task::Case>& cases);

// The support kernels' name expressions, keyed like SupportModule::functions ("poison:bf16").
std::map<std::string, std::string> support_name_expressions();
// The support kernels' source, materialised from the binary under cache_dir (under this
// process's scratch folder when cache_dir cannot be written).
std::filesystem::path support_source(const std::filesystem::path& cache_dir);

// The worker job for these cases (indices follow `cases`).
exec::WorkerJob make_worker_job(const std::vector<task::Case>& cases, const BuiltKernels& built,
                                int trials, uint64_t seed,
                                const exec::TimingOptions& timing, bool time,
                                const std::filesystem::path& cache_dir);

// The result skeleton for a case (what the parent knows before the worker runs).
CaseResult case_result_skeleton(const task::Case& c, int index);

// Every baseline entry whose program did not compile becomes failed (fault compile_error, or
// compile_timeout / compile_out_of_memory when it ran past the compile limits).
void mark_baseline_compile_errors(std::vector<CaseResult>& cases, const BuiltKernels& built);

// Fill speedup, GB/s and % of copy bandwidth from the timings (the solution's and each baseline's).
void derive_rates(CaseResult& r, double copy_bandwidth_gbs);

// A correct case timed with a flushed L2 whose solution moves the case's bytes faster than
// max_fraction x the device's measured copy bandwidth cannot have done the work: it becomes
// failed, fault "implausible", reason "implausible: ...", and loses its speedup (GB/s and % stay,
// to show why). Hot-L2 runs are exempt (data may come from L2). Returns true when refused.
inline constexpr double kPlausibleCopyFraction = 1.10;  // honest kernels reach ~1.01 on the H100
bool refuse_implausible(CaseResult& r, double copy_bandwidth_gbs, double max_fraction = kPlausibleCopyFraction);

// Marks every compare case failed (fault "static_check", reason naming the first refused
// finding and the count) and every other case skipped, for a candidate the static checks refuse.
// The static checks on one compiled candidate module: its PTX and ptxas report (what NVVM and
// ptxas made of it, not its source text), with the task's solution.allow. Every finding, allowed
// ones marked. `ako run` applies it to the solution, `ako tune` to every variant, so a
// configuration tune picks is one run accepts.
std::vector<StaticFinding> check_compiled_module(const jit::CompiledModule& module, const std::string& display_name,
                                                 const std::vector<std::string>& allow);

// "static check: local_memory k<...>: uses a 512 byte stack frame ... (and 1 more findings)" for
// the first finding not allowed (search::kStaticCheckReason first, which the tuning database
// recognises refusals by); "" when nothing is refused.
std::string static_refusal(const std::vector<StaticFinding>& findings);

void refuse_static(std::vector<CaseResult>& cases, const std::vector<StaticFinding>& findings);

}  // namespace ako::pipeline
