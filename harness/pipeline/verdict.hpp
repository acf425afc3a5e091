#pragma once
// The one path from what the worker reported for a case to the case's verdict, shared by
// `ako run`, `ako gate` and `ako iterate` (through execute_run) and `ako tune` (GpuEvaluator),
// so a timing one of them refuses is refused by all:
//   1. the worker's fields into the parent's record of the case (exec::merge_worker_fields)
//   2. the rates: speedup, GB/s and % of the device's copy bandwidth (derive_rates)
//   3. the rules that can overturn the worker's "correct": a cold-L2 time faster than the copy
//      bandwidth allows for the case's bytes is failed, fault "implausible" (refuse_implausible)
#include "result/run_result.hpp"

namespace ako::pipeline {

// `into`: the parent's record of the case (case_result_skeleton: shape, dtype, bytes, ...).
// copy_bandwidth_gbs: the device's measured copy bandwidth (DeviceInfo); 0 when unknown, which
// exempts the case from the bandwidth rule.
void settle_case(CaseResult& into, const CaseResult& from_worker, double copy_bandwidth_gbs);

}  // namespace ako::pipeline
