#pragma once
// Static checks on a candidate's compiled code: the PTX that NVVM produced (kept beside the
// cubin in the JIT cache) and the ptxas resource report, never the source text, so macros,
// templates and inline asm cannot hide anything. Only the solution's programs are checked;
// the reference and ako's support kernels are trusted.
//
// Checks (the name is what a task's "solution.allow" lists to permit it):
//   device_globals  a module-scope .global variable that is written, atomically updated, or
//                   whose address escapes into a register (a cache that survives across
//                   launches); one only ever read by ld.global [sym] is a read-only table
//   clock           reads of %globaltimer[_lo|_hi], %clock, %clock64, %clock_hi (phase detection:
//                   behave differently while being timed)
//   device_launch   calls to the device runtime's launch entry points (cudaLaunchDevice*,
//                   cudaGetParameterBuffer*, cudaGraphLaunch*): work outside the declared launch
//   device_heap     device-side malloc: heap memory survives launches like a global
//   l2_persist      L2::evict_last (loads, stores, prefetch, createpolicy), applypriority, and any
//                   L2::cache_hint operand (a runtime policy that may be evict_last): lines that
//                   survive ako's L2 flush make cold timings warm
//   l2_discard      discard.global.L2: drops lines without writing them back (outputs or the
//                   flush buffer lose data the timing relies on)
//   local_memory    spills, or a stack frame over the budget (ptxas report)
// Legitimate streaming hints stay allowed: L2::evict_first, L2::evict_unchanged, L2::no_allocate,
// L1::no_allocate, ld.global.nc, the .cs/.cg/.lu/.cv cache operators, prefetch sizes.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "result/run_result.hpp"

namespace ako::verify {

// The names solution.allow may list, in documentation order.
const std::vector<std::string>& static_check_names();

struct StaticCheckInput {
  std::string file;                                     // display name of the source
  std::string ptx;                                      // the program's PTX
  std::map<std::string, KernelResources> resources;     // lowered name -> ptxas report
  std::map<std::string, std::string> display_names;     // lowered name -> name expression
  std::set<std::string> allow;                          // checks the task permits
  int stack_budget_bytes = 256;                         // local_memory: stack frame limit
};

// Every finding, in PTX order (then resources); allowed ones have allowed = true.
std::vector<StaticFinding> check_program(const StaticCheckInput& in);

// True when some finding is not allowed (the candidate is refused).
bool any_refused(const std::vector<StaticFinding>& findings);

// "solution/rmsnorm/x.cuh: rmsnorm_kernel<...>: reads %globaltimer [clock]: why"
std::string describe(const StaticFinding& f);

}  // namespace ako::verify
