#pragma once
// Synthetic run results and baselines for the gate tests: one task "rmsnorm" with two compare
// cases and one reference check, timed on an "H100", one reference and one solution kernel.
#include <string>

#include "gate/baseline.hpp"
#include "gate/case_key.hpp"
#include "gate/evaluate.hpp"
#include "result/run_result.hpp"

namespace ako::gate::testing {

inline const char* kH100 = "NVIDIA H100 80GB HBM3";
inline const char* kSolutionKernel = "rmsnorm_kernel<__nv_bfloat16, true, 256, 8, 2, 3>";
inline const char* kReferenceKernel = "rmsnorm_reference<__nv_bfloat16, true>";

inline TimingStats timing(double median_us, double ci_rel = 0.002, int samples = 200) {
  TimingStats t;
  t.method = "cupti";
  t.cold_l2 = true;
  t.samples = samples;
  t.iqm_us = t.median_us = median_us;
  t.ci_rel = ci_rel;
  return t;
}

inline CaseResult compare_case(const std::string& shape, bool weight, double sol_us, double ref_us) {
  CaseResult c;
  c.kind = "compare";
  c.shape = shape;
  c.dtype = "bf16";
  c.flags = {{"weight", weight}};
  c.verdict = Verdict::correct;
  c.solution_time = timing(sol_us);
  c.reference_time = timing(ref_us);
  return c;
}

inline CaseResult reference_check(const std::string& shape) {
  CaseResult c;
  c.kind = "reference_check";
  c.shape = shape;
  c.dtype = "bf16";
  c.flags = {{"weight", true}};
  c.verdict = Verdict::correct;
  return c;
}

inline KernelBuild build(const std::string& role, const std::string& expr, int regs, int spills = 0,
                         int shared = 0) {
  KernelBuild b;
  b.role = role;
  b.name_expression = expr;
  b.file = role == "solution" ? "solution/rmsnorm/rmsnorm.cuh" : "input/rmsnorm/rmsnorm.cuh";
  b.arch = "sm_90a";
  b.resources.registers = regs;
  b.resources.spill_stores = spills;
  b.resources.spill_loads = spills;
  b.resources.stack_bytes = spills;
  b.resources.shared_bytes = shared;
  return b;
}

inline DeviceInfo h100() {
  DeviceInfo d;
  d.name = kH100;
  d.arch = "sm_90a";
  d.driver_version = 13000;
  d.sm_count = 132;
  d.copy_bandwidth_gbs = 3000;
  return d;
}

// The task as run on the GPU: solution 10 us and 20 us, references 15 and 30 us.
inline TaskOutcome gpu_outcome(double sol_a = 10.0, double sol_b = 20.0) {
  TaskOutcome o;
  o.task = "rmsnorm";
  o.ran_on_gpu = true;
  o.result.task = "rmsnorm";
  o.result.device = h100();
  o.result.cases = {compare_case("flux1-single", true, sol_a, 15.0), compare_case("flux1-single", false, sol_b, 30.0),
                    reference_check("check-7x3072")};
  o.result.builds = {build("reference", kReferenceKernel, 24), build("solution", kSolutionKernel, 40, 0, 8)};
  for (const auto& c : o.result.cases) o.defined_cases.insert(case_key(c));
  return o;
}

// The same task compiled only (no GPU): builds, no cases.
inline TaskOutcome cpu_outcome() {
  TaskOutcome o = gpu_outcome();
  o.ran_on_gpu = false;
  o.not_run_reason = "no GPU (libcuda.so.1 not found)";
  o.result.cases.clear();
  o.result.device = DeviceInfo{};
  o.result.device.arch = "sm_90a";
  return o;
}

// A baseline made from gpu_outcome() (the numbers the tests then perturb).
inline Baseline baseline_from(const TaskOutcome& o) {
  Baseline b;
  b.arch = "sm_90a";
  b.nvrtc_version = "13.0";
  b.device = BaselineDevice{o.result.device.name, o.result.device.arch, 13000, 132, 3000};
  BaselineTask& t = b.tasks["rmsnorm"];
  for (const auto& c : o.result.cases) {
    BaselineCase bc;
    bc.kind = c.kind;
    if (c.solution_time)
      bc.solution = BaselineTiming{c.solution_time->median_us, c.solution_time->ci_rel, c.solution_time->samples,
                                   "cupti", true, c.solution_time->iqm_us};
    if (c.reference_time)
      bc.reference = BaselineTiming{c.reference_time->median_us, c.reference_time->ci_rel,
                                    c.reference_time->samples, "cupti", true, c.reference_time->iqm_us};
    t.cases[case_key(c)] = bc;
  }
  for (const auto& k : o.result.builds)
    t.kernels[k.role][k.name_expression] = {k.file, {k.resources.registers, k.resources.spill_stores,
                                                     k.resources.spill_loads, k.resources.stack_bytes,
                                                     k.resources.shared_bytes}};
  return b;
}

inline GateOptions options() {
  GateOptions o;
  o.baseline_file = "bench/baseline.json";
  o.workspace_tasks = {"rmsnorm"};
  return o;
}

}  // namespace ako::gate::testing
