#pragma once
// Which class of a solution's config serves a case, including shapes the tuning never saw.
//
// A config written by `ako tune` lists, per class, the shapes it was tuned on (`tuned_on`).
// The class a case takes is the first whose `when` holds, tuned or not: the config says which
// shapes a class serves, and tuning some shapes never changes what the others run. Only a
// shape that no class takes (a config without a catch-all class) borrows, when the config has
// tuned classes, the nearest one: the smallest distance from the case's dims to a shape the
// class was tuned on, |log2(a/b)| summed over the dims the config's `when` expressions select
// on (all dims when none does), among the tuned classes whose params are valid for the case
// (constraints and launch limits). A hand-written config (no class tuned) behaves as always.
#include <string>
#include <vector>

#include "task/expr.hpp"
#include "task/spec.hpp"

namespace ako::task {

struct ClassChoice {
  int index = -1;          // class whose params the case uses; -1: none (first allowed values)
  int matched = -1;        // first class whose `when` holds; -1: none
  bool nearest = false;    // no class matched; index is the nearest tuned class
  bool tuned_here = false; // the shape is one the chosen class was tuned on
  std::string note;        // for reports, empty when nothing is worth saying (see below)
};

// `env` holds the case's dims and flags. `shape` names the case's shape for the note:
//   "class cols-8192 used for shape s (not tuned; the class has no tuned params)"
//   "class cols-3072 used for shape s (not tuned; the class was tuned on a, b)"
//   "nearest class cols-6144 used for shape s (not tuned; no class takes it)"
// Throws ako::Error when a `when` expression fails on env.
ClassChoice choose_config_class(const TaskSpec& spec, const std::vector<ConfigClass>& classes, const ExprEnv& env,
                                const std::string& shape);

// Index of the first class whose `when` holds in env (dims, flags, axes); -1 for none. The rule
// choose_config_class starts from, and the one `ako tune` gives each case to a class by.
int first_matching_class(const std::vector<ConfigClass>& classes, const ExprEnv& env);

// Whether `params` can run on env (dims + flags): the solution's constraints hold and its
// launch geometry is within CUDA's limits.
bool params_valid(const TaskSpec& spec, const std::map<std::string, int64_t>& params, const ExprEnv& env);

}  // namespace ako::task
