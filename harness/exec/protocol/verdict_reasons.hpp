#pragma once
// Reasons (and the decisions behind them) for the verdicts the trustworthy-verdict defences add:
// constant output, nondeterminism, timed-output re-checks and timed input sets. Pure functions,
// so the CPU tests cover them; the worker feeds them what its GPU checks counted.
#include <cstdint>
#include <string>

namespace ako::exec {

// A value inside a verdict reason: "%.6g" (enough to tell two bf16 values apart, short to read).
std::string reason_number(double v);

// A buffer's output is "constant" when every element the candidate wrote is bitwise the same
// while the reference's elements vary: all zeros, or one value broadcast (work skipped).
// got_varying / want_varying count elements that differ from element 0.
bool is_constant_output(uint64_t checked, uint64_t got_varying, uint64_t want_varying);
std::string constant_output_reason(const std::string& buffer, uint64_t checked, double value);

// Two runs of the solution on the same inputs (candidate, reference, candidate) whose outputs
// differ bitwise: a race or a read of uninitialised (shared) memory.
std::string nondeterministic_reason(const std::string& buffer, uint64_t differing, uint64_t checked,
                                    int64_t index, double first, double second);

// How many input sets to rotate through while timing: enough that together they exceed the L2
// (so no sample finds its inputs cached by an earlier one), at least 2 (at least 4 while four
// sets take at most 4 GiB: each set is another placement in DRAM), at most max_sets, and never
// more than half the free device memory allows (then fewer, at least 1).
int timed_input_sets(uint64_t set_bytes, uint64_t l2_bytes, uint64_t free_bytes, int max_sets = 8);

}  // namespace ako::exec
