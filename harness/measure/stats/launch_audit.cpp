#include "measure/stats/launch_audit.hpp"

#include <fmt/format.h>

namespace ako::measure {

namespace {
std::string dims(const std::array<int, 3>& d) { return fmt::format("({},{},{})", d[0], d[1], d[2]); }
std::string dims(const std::array<uint32_t, 3>& d) { return fmt::format("({},{},{})", d[0], d[1], d[2]); }

bool same(const std::array<int, 3>& seen, const std::array<uint32_t, 3>& declared) {
  for (int i = 0; i < 3; ++i)
    if (seen[i] < 0 || static_cast<uint32_t>(seen[i]) != declared[i]) return false;
  return true;
}
}  // namespace

std::string audit_sample(const std::vector<ActivityRecord>& records, const DeclaredLaunch& d) {
  std::vector<std::string> problems;
  int kernels = 0, memcpys = 0, memsets = 0;
  uint64_t copy_bytes = 0, set_bytes = 0;
  for (const ActivityRecord& r : records) {
    switch (r.kind) {
      case ActivityRecord::Kind::kernel:
        ++kernels;
        if (!same(r.grid, d.grid) || !same(r.block, d.block))
          problems.push_back(fmt::format("kernel '{}' ran with grid {} block {}, declared grid {} block {}", r.name,
                                         dims(r.grid), dims(r.block), dims(d.grid), dims(d.block)));
        break;
      case ActivityRecord::Kind::memcpy: ++memcpys; copy_bytes += r.bytes; break;
      case ActivityRecord::Kind::memset: ++memsets; set_bytes += r.bytes; break;
    }
  }
  if (kernels != d.count)
    problems.insert(problems.begin(), fmt::format("{} kernel{} where {} {} declared", kernels, kernels == 1 ? "" : "s",
                                                  d.count, d.count == 1 ? "is" : "are"));
  if (memcpys) problems.push_back(fmt::format("{} memcpy ({} bytes) inside the timed region", memcpys, copy_bytes));
  if (memsets) problems.push_back(fmt::format("{} memset ({} bytes) inside the timed region", memsets, set_bytes));
  std::string out;
  for (const auto& p : problems) out += (out.empty() ? "" : "; ") + p;
  return out;
}

void LaunchAudit::add(const std::vector<ActivityRecord>& sample_records, const DeclaredLaunch& declared) {
  ++samples_;
  std::string problem = audit_sample(sample_records, declared);
  if (problem.empty()) return;
  if (bad_++ == 0) first_ = std::move(problem);
}

std::string LaunchAudit::summary() const {
  if (clean()) return {};
  return fmt::format("in {} of {} timed samples: {} (all of it charged to the solution)", bad_, samples_, first_);
}

}  // namespace ako::measure
