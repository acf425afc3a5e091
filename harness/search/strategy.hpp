#pragma once
// Search strategies over a list of valid points (ask/tell): the driver asks for a batch, has
// it evaluated (compiled and measured, or looked up in a recorded database) and tells each
// point's score (lower is better; nullopt = not usable: wrong, failed, or not evaluable).
// Strategies never see invalid points. Every strategy is deterministic for a given seed and
// sequence of scores.
//
//   exhaustive  every valid point, in enumeration order
//   random      a seeded permutation of the valid points (sampling without replacement)
//   evolve      a steady-state evolutionary local search: the seeded initial points (the
//               current config) and a random population; then each batch is filled from
//               rings around the best points (elites), nearest first: untried points that
//               differ from an elite in at most two params, by L1 distance in value steps
//               (two params moving together cross between the valid regions that coupled
//               params make, e.g. threads per row = BLOCK / ROWS_PER_BLOCK against CHUNKS);
//               then crossovers of two elites; then random immigrants once the rings are
//               used up (a restart away from an exhausted optimum).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "search/space.hpp"

namespace ako::search {

class Strategy {
 public:
  virtual ~Strategy() = default;
  // Up to max_n indices into the valid list, never one asked before; empty = nothing left.
  virtual std::vector<size_t> ask(size_t max_n) = 0;
  virtual void tell(size_t index, std::optional<double> score) = 0;
  // False when the scores never change what is asked next (so asking early is harmless).
  virtual bool uses_scores() const { return true; }
};

struct StrategyOptions {
  std::string name = "evolve";       // exhaustive, random, evolve
  uint64_t seed = 1;
  std::vector<size_t> initial;        // evolve: points to try first (e.g. the current config)
  size_t population = 8;              // evolve: random points before the local search starts
  size_t elites = 4;                  // evolve: how many of the best points breed
};

// `valid` are the points the strategy may propose (indices refer to it); `radix` is the
// number of allowed values per param (for neighbourhoods). Throws ako::Error on an unknown name.
std::unique_ptr<Strategy> make_strategy(const StrategyOptions& opt, const std::vector<Point>& valid,
                                        const std::vector<int>& radix);

const std::vector<std::string>& strategy_names();

}  // namespace ako::search
