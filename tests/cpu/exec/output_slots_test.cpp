// Where timed launches write (exec/protocol/output_slots.hpp): both output copies for every
// role, never the solution's copy in the solution's round, and the ledger that finds the
// solution's last timed output for its re-check.
#include <gtest/gtest.h>

#include <map>
#include <utility>

#include "exec/protocol/output_slots.hpp"

namespace ako::exec {
namespace {

TEST(OutputSlots, EveryRoleWritesBothCopiesOfEverySetEquallyOften) {
  for (int sets : {1, 2, 3, 4, 8}) {
    for (bool solution : {false, true}) {
      std::map<std::pair<int, int>, int> count;
      for (uint64_t n = 0; n < 6u * static_cast<uint64_t>(sets); ++n) {
        const OutputSlot s = timed_output_slot(n, sets, solution);
        ASSERT_GE(s.set, 0);
        ASSERT_LT(s.set, sets);
        ASSERT_TRUE(s.copy == 0 || s.copy == 1);
        ++count[{s.set, s.copy}];
      }
      EXPECT_EQ(count.size(), 2u * static_cast<size_t>(sets)) << sets << " sets";
      for (const auto& [slot, k] : count) EXPECT_EQ(k, 3) << sets << " sets, set " << slot.first;
    }
  }
}

TEST(OutputSlots, InOneRoundTheSolutionWritesTheOtherCopyOfTheSameSet) {
  for (int sets : {1, 2, 4, 8}) {
    for (uint64_t n = 0; n < 40; ++n) {
      const OutputSlot ref = timed_output_slot(n, sets, false), sol = timed_output_slot(n, sets, true);
      EXPECT_EQ(ref.set, sol.set);
      EXPECT_NE(ref.copy, sol.copy);
    }
  }
  // The first cycle keeps the validation's copies: the reference 0, the solution 1.
  EXPECT_EQ(timed_output_slot(0, 4, false).copy, 0);
  EXPECT_EQ(timed_output_slot(3, 4, true).copy, 1);
  EXPECT_EQ(timed_output_slot(4, 4, true).copy, 0);
}

TEST(OutputLedger, SaysWhereTheSolutionsLastOutputIsAndWhetherItWasOverwritten) {
  OutputLedger ledger(2);
  EXPECT_EQ(ledger.solution_output(0).state, OutputLedger::State::never_written);
  ledger.wrote({0, 1}, true);
  ledger.wrote({0, 0}, false);
  EXPECT_EQ(ledger.solution_output(0).state, OutputLedger::State::intact);
  EXPECT_EQ(ledger.solution_output(0).copy, 1);
  ledger.wrote({0, 0}, true);   // its next launch on the set: the other copy
  EXPECT_EQ(ledger.solution_output(0).copy, 0);
  EXPECT_EQ(ledger.solution_output(0).state, OutputLedger::State::intact);
  ledger.wrote({0, 0}, false);
  EXPECT_EQ(ledger.solution_output(0).state, OutputLedger::State::overwritten);
  EXPECT_EQ(ledger.solution_output(1).state, OutputLedger::State::never_written);
}

// Interleaved rounds (one launch per kernel, the order rotating as the CUPTI timer rotates it):
// when the solution takes its last sample, whichever round that is, its last output of every
// set is still in place; the other kernels may write over it only after that.
TEST(OutputLedger, TheSolutionsLastOutputsAreIntactWhenItStops) {
  for (int sets : {1, 2, 4, 5, 8}) {
    for (int kernels : {2, 3}) {
      for (int last_round = 0; last_round < 40; ++last_round) {
        OutputLedger ledger(sets);
        std::vector<uint64_t> next(static_cast<size_t>(kernels), 0);   // kernel 1 is the solution
        for (int round = 0; round <= last_round; ++round) {
          for (int j = 0; j < kernels; ++j) {
            const int k = (round + j) % kernels;
            const bool solution = k == 1;
            ledger.wrote(timed_output_slot(next[static_cast<size_t>(k)]++, sets, solution), solution);
          }
        }
        for (int s = 0; s < sets; ++s) {
          const auto out = ledger.solution_output(s);
          if (last_round + 1 < sets && s > last_round) {
            EXPECT_EQ(out.state, OutputLedger::State::never_written);
            continue;
          }
          EXPECT_EQ(out.state, OutputLedger::State::intact)
              << sets << " sets, " << kernels << " kernels, last round " << last_round << ", set " << s;
        }
      }
    }
  }
}

}  // namespace
}  // namespace ako::exec
