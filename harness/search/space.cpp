#include "search/space.hpp"

#include "task/cases.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "common/error.hpp"
#include "task/expr.hpp"

namespace ako::search {

Space::Space(const task::TaskSpec& spec)
    : spec_(&spec), params_(spec.solution.params), variants_(task::variant_envs(spec)) {}

uint64_t Space::size() const {
  uint64_t n = 1;
  for (const auto& p : params_) n *= p.values.size();
  return params_.empty() ? 1 : n;
}

Point Space::point_at(uint64_t index) const {
  Point p(params_.size());
  for (size_t i = params_.size(); i-- > 0;) {
    const uint64_t radix = params_[i].values.size();
    p[i] = static_cast<int>(index % radix);
    index /= radix;
  }
  return p;
}

Params Space::params_of(const Point& p) const {
  Params out;
  for (size_t i = 0; i < params_.size(); ++i) out[params_[i].name] = params_[i].values.at(p.at(i));
  return out;
}

std::optional<Point> Space::point_of(const Params& params) const {
  Point p(params_.size());
  for (size_t i = 0; i < params_.size(); ++i) {
    auto it = params.find(params_[i].name);
    if (it == params.end()) return std::nullopt;
    const auto& vals = params_[i].values;
    auto v = std::find(vals.begin(), vals.end(), it->second);
    if (v == vals.end()) return std::nullopt;
    p[i] = static_cast<int>(v - vals.begin());
  }
  return p;
}

namespace {

std::optional<std::string> launch_rejection(const std::vector<std::string>& exprs, bool grid,
                                            const task::ExprEnv& env) {
  int64_t product = 1;
  for (size_t i = 0; i < exprs.size(); ++i) {
    const int64_t v = task::eval_int(exprs[i], env);
    const int64_t limit = grid ? (i == 0 ? (int64_t{1} << 31) - 1 : 65535) : (i == 2 ? 64 : 1024);
    if (v <= 0 || v > limit)
      return fmt::format("{} {} \"{}\" outside 1..{}", grid ? "grid" : "block", "xyz"[i], exprs[i], limit);
    product *= v;
  }
  if (!grid && product > 1024) return std::string("block over 1024 threads");
  return std::nullopt;
}

}  // namespace

std::optional<std::string> Space::rejection(const Params& params, const task::ShapeSpec& shape) const {
  // Validity must hold for every variant that runs on the shape: a config class is chosen by
  // dims (tune refuses a choice that depends on flags or axes), and the tuner picks one point per
  // shape for all. A combination the spec's `when` leaves out is no case (qknorm's head_dim
  // axis runs only the shape's own D), so its constraints do not bind.
  for (const auto& flags : variants_) {
    task::ExprEnv env;
    for (const auto& [k, v] : shape.dims) env[k] = v;
    for (const auto& [k, v] : flags) env[k] = v;
    if (!spec_->when.empty() && !task::eval_bool(spec_->when, env)) continue;
    for (const auto& [k, v] : params) env[k] = v;
    try {
      for (const auto& c : spec_->solution.constraints)
        if (!task::eval_bool(c, env)) return fmt::format("constraint \"{}\"", c);
      if (auto r = launch_rejection(spec_->solution.block, false, env)) return r;
      if (auto r = launch_rejection(spec_->solution.grid, true, env)) return r;
      const int64_t shared = task::eval_int(spec_->solution.shared_bytes, env);
      if (shared < 0 || shared > int64_t{0xffffffff}) return std::string("shared_bytes outside 0..2^32-1");
    } catch (const Error& e) {
      // e.g. a division by zero in a constraint for this point: the point cannot run.
      return fmt::format("expression error: {}", e.what());
    }
  }
  return std::nullopt;
}

uint64_t Enumeration::rejected_total() const {
  uint64_t n = 0;
  for (const auto& [k, v] : rejected) n += v;
  return n;
}

Enumeration enumerate(const Space& space, const std::vector<const task::ShapeSpec*>& shapes) {
  Enumeration out;
  out.total = space.size();
  for (uint64_t i = 0; i < out.total; ++i) {
    Point p = space.point_at(i);
    const Params params = space.params_of(p);
    std::optional<std::string> why;
    for (const auto* s : shapes)
      if ((why = space.rejection(params, *s))) break;
    if (why)
      ++out.rejected[*why];
    else
      out.valid.push_back(std::move(p));
  }
  return out;
}

std::string params_text(const Params& p) {
  std::string s;
  for (const auto& [k, v] : p) s += fmt::format("{}{}={}", s.empty() ? "" : " ", k, v);
  return s;
}

}  // namespace ako::search
