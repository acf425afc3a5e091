#pragma once
// The tuning space of a task's solution: every combination of its declared parameters'
// allowed values (solution.params), filtered by the spec's constraints and the launch limits
// for the shapes a point would run on. Invalid points never reach a compiler or the GPU; the
// space says how many points each rule rejected.
//
// A point is a vector of value indices, one per param in the spec's (name) order, so that
// strategies can step to neighbouring values; params() turns it into NAME -> value.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "task/expr.hpp"
#include "task/spec.hpp"

namespace ako::search {

using Params = std::map<std::string, int64_t>;
using Point = std::vector<int>;  // index into each param's allowed values

class Space {
 public:
  explicit Space(const task::TaskSpec& spec);

  const std::vector<task::TunableParam>& params() const { return params_; }
  uint64_t size() const;                         // the full cartesian product
  Point point_at(uint64_t index) const;          // mixed radix, last param fastest
  Params params_of(const Point& p) const;
  std::optional<Point> point_of(const Params& params) const;  // nullopt: a value not allowed

  // Why `params` cannot run on `shape` (under any flag and axis combination the task runs on it:
  // those its `when` leaves out are no cases), or nullopt
  // when it can: the first failing constraint ("constraint \"cols % VEC == 0\"") or launch
  // limit ("block: 2048 threads > 1024"). Pure expression evaluation; no exceptions escape
  // for ordinary rejections.
  std::optional<std::string> rejection(const Params& params, const task::ShapeSpec& shape) const;

 private:
  const task::TaskSpec* spec_;
  std::vector<task::TunableParam> params_;
  std::vector<task::ExprEnv> variants_;   // every flag and axis combination (task::variant_envs), once
};

// The points valid on every shape of a set, in enumeration order, and what was rejected.
struct Enumeration {
  std::vector<Point> valid;
  uint64_t total = 0;
  std::map<std::string, uint64_t> rejected;      // reason -> points (first failing rule, first shape)
  uint64_t rejected_total() const;
};

Enumeration enumerate(const Space& space, const std::vector<const task::ShapeSpec*>& shapes);

// "BLOCK=256 VEC=8" in the params' name order: used in tables and as a DB key part.
std::string params_text(const Params& p);

}  // namespace ako::search
