#include "exec/worker/write_checks.hpp"

#include "exec/protocol/guard_layout.hpp"
#include "exec/protocol/reference_blame.hpp"

namespace ako::exec {

namespace {

std::string guard_damage(const std::vector<CaseBuffers::Guard>& guards, const ValidationContext& ctx,
                         const std::string& who) {
  std::vector<verify::SupportKernels::GuardRegion> regions;
  for (const auto& g : guards) regions.push_back(g.region);
  const auto counts = ctx.support.guard_check(regions, ctx.stream);
  std::string reason;
  for (size_t i = 0; i < guards.size(); ++i) {
    if (!counts[i].changed) continue;
    GuardDamage d{guards[i].buffer, guards[i].before, counts[i].changed, counts[i].first, counts[i].last,
                  guards[i].region.bytes};
    reason += (reason.empty() ? "" : "; ") + describe_guard_damage(who, d);
  }
  return reason;
}

// Inside the allocation but outside the views: the guards cannot see it, the pristine copy can.
std::string outside_damage(const CaseJob& job, const CaseBuffers& buffers, Side side, int set,
                           const ValidationContext& ctx, const std::string& who) {
  std::string reason;
  for (const OutsideCheck& c : buffers.plan().outside) {
    const BufferJob& storage = job.buffers[c.storage];
    const auto counts = ctx.support.check_outside(storage.dtype, buffers.args(side, set)[c.storage],
                                                  buffers.pristine(set)[c.storage], storage.count, c.views, ctx.stream);
    if (!counts.changed) continue;
    std::vector<std::string> views;
    for (int v : c.view_buffers) views.push_back(job.buffers[v].name);
    reason += (reason.empty() ? "" : "; ") +
              describe_outside_write(who, storage.name, counts.changed, counts.first, counts.last, views);
  }
  return reason;
}

std::optional<Finding> finding(const std::string& reason) {
  if (reason.empty()) return std::nullopt;
  return Finding{Verdict::failed, "out_of_bounds_write", "out-of-bounds write: " + reason};
}

}  // namespace

std::optional<Finding> check_solution_writes(const CaseJob& job, const CaseBuffers& buffers, int set,
                                             const ValidationContext& ctx, const std::string& who) {
  std::string reason = guard_damage(buffers.solution_guards(set), ctx, who);
  const std::string outside = outside_damage(job, buffers, Side::solution, set, ctx, who);
  if (!outside.empty()) reason += (reason.empty() ? "" : "; ") + outside;
  return finding(reason);
}

std::optional<Finding> check_reference_writes(const CaseJob& job, const CaseBuffers& buffers, int set,
                                             const ValidationContext& ctx) {
  const std::string who = "the reference";
  std::string reason = guard_damage(buffers.reference_guards(set), ctx, who);
  const std::string outside = outside_damage(job, buffers, Side::reference, set, ctx, who);
  if (!outside.empty()) reason += (reason.empty() ? "" : "; ") + outside;
  if (reason.empty()) return std::nullopt;
  const std::string what = "out-of-bounds write: " + reason;
  if (!charged_to_reference(job.kind, "reference")) return Finding{Verdict::failed, "out_of_bounds_write", what};
  return Finding{Verdict::skipped, reference_fault("out_of_bounds_write"), reference_blame_reason(what)};
}

std::optional<Finding> check_all_guards(const CaseBuffers& buffers, int set, const ValidationContext& ctx,
                                        const std::string& who) {
  return finding(guard_damage(buffers.all_guards(set), ctx, who));
}

std::optional<Finding> check_outside_views(const CaseJob& job, const CaseBuffers& buffers, Side side, int set,
                                           const ValidationContext& ctx, const std::string& who) {
  return finding(outside_damage(job, buffers, side, set, ctx, who));
}

}  // namespace ako::exec
