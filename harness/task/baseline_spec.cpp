// The "baselines" array of a task spec (tasks/README.md, "Baselines"): named peer kernels,
// each a kernel entry plus what a peer needs beyond the solution's vocabulary: its own
// include folders, a file whose absence means "not installed here", a `when` over the
// variant axes, derived integers (`let`) and its own scalar arguments.
#include <algorithm>

#include <fmt/format.h>

#include "task/spec_checks.hpp"
#include "task/spec_parse.hpp"

namespace ako::task {
namespace {

// Names a baseline's expressions may use besides its lets: dims, flags, axes and elem_bytes
// (the size in bytes of the case's dtype).
std::vector<std::string> base_names(const TaskSpec& spec) {
  std::vector<std::string> known = expression_names(spec);
  known.push_back("elem_bytes");
  return known;
}

std::vector<std::pair<std::string, std::string>> parse_lets(const Field& f, std::vector<std::string>& known) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!f.present()) return out;
  // JSON objects are unordered; a let may only use names defined before it, so order matters.
  f.require_array();
  for (const Field& e : f.elements()) {
    e.only_keys({"name", "value"});
    const std::string name = e["name"].non_empty_string();
    if (!is_identifier(name) || contains(known, name))
      e["name"].fail(fmt::format("expected a new identifier (not one of {}), got \"{}\"", join_names(known), name));
    const std::string value = e["value"].expression();
    check_expression(e["value"], value, known, "an integer expression over " + join_names(identifiers_only(known)));
    known.push_back(name);
    out.emplace_back(name, value);
  }
  return out;
}

BaselineSpec parse_baseline(const Field& e, const TaskSpec& spec, const std::vector<std::string>& taken) {
  e.require_object();
  e.only_keys({"name", "description", "file", "include_dirs", "options", "requires", "requires_hint", "when", "let",
               "scalars", "kernel", "args", "grid", "block", "shared_bytes"});
  BaselineSpec b;
  b.name = e["name"].non_empty_string();
  if (!is_identifier(b.name) || contains(taken, b.name))
    e["name"].fail(fmt::format("expected an identifier naming no other baseline, \"reference\" or \"solution\", got \"{}\"",
                               b.name));
  if (e["description"].present()) b.description = e["description"].string();
  if (e["include_dirs"].present()) {
    e["include_dirs"].require_array();
    for (const Field& d : e["include_dirs"].elements()) b.include_dirs.emplace_back(d.non_empty_string());
  }
  if (e["options"].present()) {
    e["options"].require_array();
    for (const Field& o : e["options"].elements()) {
      const std::string opt = o.non_empty_string();
      // ako chooses the target for every program it compiles, and the language standard (c++17)
      // unless a peer is built in another one, as it is in its engine: SGLang's JIT kernels need
      // C++20 (concepts), so a baseline may say -std=c++20 (or c++17), nothing else.
      const bool is_std = opt.rfind("-std", 0) == 0 || opt.rfind("--std", 0) == 0;
      if (opt[0] != '-' || opt.rfind("-arch", 0) == 0 || opt.rfind("--gpu-architecture", 0) == 0 ||
          (is_std && opt != "-std=c++17" && opt != "-std=c++20"))
        o.fail(fmt::format("expected an NVRTC option other than -arch, with -std only as -std=c++17 or -std=c++20 "
                           "(ako sets the target; the standard defaults to c++17), got \"{}\"", opt));
      b.options.push_back(opt);
    }
  }
  if (e["requires"].present()) b.requires_file = e["requires"].non_empty_string();
  if (e["requires_hint"].present()) b.requires_hint = e["requires_hint"].string();

  std::vector<std::string> known = base_names(spec);
  if (e["when"].present()) {
    b.when = e["when"].non_empty_string();
    check_expression(e["when"], b.when, known, "a boolean expression over " + join_names(identifiers_only(known)));
  }
  b.lets = parse_lets(e["let"], known);
  b.scalars = parse_scalars(e["scalars"], spec, known);
  KernelScope scope;
  scope.known = std::vector<std::string>(known.begin() + static_cast<long>(expression_names(spec).size()), known.end());
  scope.scalars = b.scalars;
  b.kernel = parse_kernel(e, spec, KernelRole::baseline, scope);
  // Each source file is one NVRTC program with one set of options: a baseline's own includes
  // and options cannot share the reference's or the solution's program.
  if (b.kernel.file.lexically_normal() == spec.reference.file.lexically_normal() ||
      b.kernel.file.lexically_normal() == spec.oracle.file.lexically_normal() ||
      b.kernel.file.lexically_normal() == spec.solution.file.lexically_normal())
    e["file"].fail("expected a file of the baseline's own, not the reference's or the solution's (an adapter .cuh "
                   "that includes it will do)");
  return b;
}

}  // namespace

std::vector<BaselineSpec> parse_baselines(const Field& f, const TaskSpec& spec) {
  std::vector<BaselineSpec> out;
  if (!f.present()) return out;
  f.require_array();
  std::vector<std::string> taken = {"reference", "solution", "torch"};
  for (const Field& e : f.elements()) {
    out.push_back(parse_baseline(e, spec, taken));
    taken.push_back(out.back().name);
  }
  return out;
}

}  // namespace ako::task
