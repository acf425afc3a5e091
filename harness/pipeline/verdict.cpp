#include "pipeline/verdict.hpp"

#include "exec/client/worker_client.hpp"
#include "pipeline/run_plan.hpp"

namespace ako::pipeline {

void settle_case(CaseResult& into, const CaseResult& from_worker, double copy_bandwidth_gbs) {
  exec::merge_worker_fields(into, from_worker);
  derive_rates(into, copy_bandwidth_gbs);
  refuse_implausible(into, copy_bandwidth_gbs);
}

}  // namespace ako::pipeline
