#pragma once
// Where each timed launch of a case writes its outputs (exec/worker/case_timing.cpp).
//
// An input set holds one copy of each `in` storage and two copies of every written storage,
// `out` and `inout` (exec/protocol/buffer_plan.hpp, exec/worker/case_buffers.hpp): copy 0, the
// reference side's, which the reference writes while validating, and copy 1, the solution
// side's (views point into the copy of their storage). Had each kernel kept one side while
// timed, the copies' placement in DRAM would be timed with the role: the reference timed
// against itself as the solution came out 1.0-1.5% apart on the H200, on the same case
// (ltx-video, noweight) run after run, the solution role slower. So every timed kernel writes
// both copies of every set in turn, and in every round the solution writes the other copy than
// the reference and the baselines. Before every launch the copy it is about to write is
// prepared (out storages and views poisoned, inout storages restored from the set's pristine
// copy, exec/worker/case_inputs.hpp), so either copy starts every launch from the same contents.
//
// The solution's last timed output of every set is re-checked against the reference; the
// ledger says where it is and whether another kernel wrote over it since.
#include <cstdint>
#include <vector>

namespace ako::exec {

struct OutputSlot {
  int set = 0;
  int copy = 0;   // 0 or 1
};

// Launch n (0-based, counted per kernel, warm-up included) of a kernel timed over `sets` input
// sets: set n mod sets, copy (n / sets + (solution ? 1 : 0)) mod 2. The kernels of a case take
// one launch each per round while they all sample, so their counters stay in step: each writes
// both copies of each set equally often, and the solution never the copy the others write in
// the same round.
OutputSlot timed_output_slot(uint64_t n, int sets, bool solution);

// Who wrote each output copy of each set last (the solution or another kernel).
class OutputLedger {
 public:
  explicit OutputLedger(int sets);

  void wrote(OutputSlot slot, bool solution);

  enum class State { never_written, intact, overwritten };
  struct SolutionOutput {
    State state = State::never_written;
    int copy = 1;   // the copy its last timed launch on the set wrote (intact, overwritten)
  };
  // The solution's last timed output of `set`.
  SolutionOutput solution_output(int set) const;

 private:
  struct Set {
    int solution_copy = -1;        // the copy of the solution's last launch; -1: none yet
    bool solution_last[2] = {false, false};   // the solution wrote that copy last
  };
  std::vector<Set> sets_;
};

}  // namespace ako::exec
