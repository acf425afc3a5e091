#include "exec/protocol/output_slots.hpp"

#include <algorithm>

namespace ako::exec {

OutputSlot timed_output_slot(uint64_t n, int sets, bool solution) {
  const uint64_t s = static_cast<uint64_t>(std::max(1, sets));
  OutputSlot slot;
  slot.set = static_cast<int>(n % s);
  slot.copy = static_cast<int>((n / s + (solution ? 1 : 0)) % 2);
  return slot;
}

OutputLedger::OutputLedger(int sets) : sets_(static_cast<size_t>(std::max(1, sets))) {}

void OutputLedger::wrote(OutputSlot slot, bool solution) {
  Set& s = sets_.at(static_cast<size_t>(slot.set));
  s.solution_last[slot.copy] = solution;
  if (solution) s.solution_copy = slot.copy;
}

OutputLedger::SolutionOutput OutputLedger::solution_output(int set) const {
  const Set& s = sets_.at(static_cast<size_t>(set));
  if (s.solution_copy < 0) return {};
  return {s.solution_last[s.solution_copy] ? State::intact : State::overwritten, s.solution_copy};
}

}  // namespace ako::exec
