#include "search/tuning_db.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <unistd.h>

#include <fmt/format.h>

#include "common/error.hpp"
#include "task/device_config.hpp"

namespace ako::search {

namespace fs = std::filesystem;
using nlohmann::json;

std::string DbContext::key() const {
  json j{{"task", task}, {"source_hash", source_hash}, {"device", device}, {"driver", driver},
         {"nvrtc", nvrtc}, {"arch", arch}, {"l2", l2}, {"dtypes", dtypes}};
  if (allow) j["allow"] = *allow;  // absent on records that predate the static checks: keys unchanged
  return j.dump();
}

std::string record_key(const std::string& shape, const Params& params) {
  return shape + "|" + params_text(params);
}

json to_json(const DbRecord& r) {
  json cases = json::array();
  for (const auto& c : r.cases)
    cases.push_back({{"label", c.label}, {"verdict", c.verdict}, {"median_us", c.median_us}, {"ci_rel", c.ci_rel},
                     {"reference_us", c.reference_us}});
  const DbContext& x = r.context;
  json j{{"schema", kTuneRecordSchema}, {"task", x.task}, {"source_hash", x.source_hash},
              {"device", x.device}, {"driver", x.driver}, {"nvrtc", x.nvrtc}, {"arch", x.arch},
              {"l2", x.l2}, {"dtypes", x.dtypes}, {"shape", r.shape}, {"params", r.params},
              {"verdict", r.verdict}, {"reason", r.reason}, {"median_us", r.median_us},
              {"ci_rel", r.ci_rel}, {"registers", r.registers}, {"reference_us", r.reference_us}, {"cases", cases},
              {"recorded_at", r.recorded_at}};
  if (x.allow) j["allow"] = *x.allow;
  return j;
}

DbRecord record_from_json(const json& j) {
  try {
    if (j.at("schema").get<std::string>() != kTuneRecordSchema)
      throw Error("schema is not " + std::string(kTuneRecordSchema));
    DbRecord r;
    DbContext& x = r.context;
    x.task = j.at("task").get<std::string>();
    x.source_hash = j.at("source_hash").get<std::string>();
    x.device = j.at("device").get<std::string>();
    x.driver = j.at("driver").get<int>();
    x.nvrtc = j.at("nvrtc").get<std::string>();
    x.arch = j.at("arch").get<std::string>();
    x.l2 = j.value("l2", "cold");
    x.dtypes = j.at("dtypes").get<std::vector<std::string>>();
    if (j.contains("allow")) x.allow = j.at("allow").get<std::vector<std::string>>();
    r.shape = j.at("shape").get<std::string>();
    r.params = j.at("params").get<Params>();
    r.verdict = j.at("verdict").get<std::string>();
    r.reason = j.value("reason", "");
    r.median_us = j.at("median_us").get<double>();
    r.ci_rel = j.value("ci_rel", 0.0);
    r.registers = j.value("registers", -1);
    r.reference_us = j.value("reference_us", 0.0);
    r.recorded_at = j.value("recorded_at", "");
    for (const auto& c : j.value("cases", json::array()))
      r.cases.push_back({c.at("label").get<std::string>(), c.at("verdict").get<std::string>(),
                         c.value("median_us", 0.0), c.value("ci_rel", 0.0), c.value("reference_us", 0.0)});
    return r;
  } catch (const json::exception& e) {
    throw Error(std::string("malformed tuning record: ") + e.what());
  }
}

namespace {

// Calls fn(record) for every well-formed line; returns the count of other lines.
template <typename Fn>
int for_each_record(const fs::path& file, Fn fn) {
  std::ifstream in(file);
  if (!in) return 0;
  int bad = 0;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    try {
      fn(record_from_json(json::parse(line)));
    } catch (const std::exception&) {
      ++bad;
    }
  }
  return bad;
}

}  // namespace

TuningDb::TuningDb(fs::path file, DbContext context) : file_(std::move(file)), context_(std::move(context)) {
  if (file_.empty()) return;
  skipped_lines = for_each_record(file_, [&](DbRecord r) {
    if (r.context == context_) {
      records_[record_key(r.shape, r.params)] = std::move(r);
      return;
    }
    ++other_context;
    DbContext same = r.context;
    same.source_hash = context_.source_hash;
    if (same == context_) ++other_source;
  });
}

std::optional<DbContext> TuningDb::last_context(const fs::path& file, const std::string& task,
                                                const std::string& device) {
  if (!fs::exists(file)) throw Error(fmt::format("{}: no such tuning database", file.string()));
  const std::string wanted = device.empty() ? std::string() : task::device_config_file_name(device);
  std::optional<DbContext> last;
  for_each_record(file, [&](const DbRecord& r) {
    if (!task.empty() && r.context.task != task) return;
    if (wanted.empty() || task::device_config_file_name(r.context.device) == wanted) last = r.context;
  });
  return last;
}

std::vector<std::string> TuningDb::recorded_devices(const fs::path& file, const std::string& task) {
  std::vector<std::string> out;
  for_each_record(file, [&](const DbRecord& r) {
    if ((task.empty() || r.context.task == task) &&
        std::find(out.begin(), out.end(), r.context.device) == out.end())
      out.push_back(r.context.device);
  });
  return out;
}

const DbRecord* TuningDb::find(const std::string& shape, const Params& params) const {
  auto it = records_.find(record_key(shape, params));
  return it == records_.end() ? nullptr : &it->second;
}

std::vector<const DbRecord*> TuningDb::records_for_shape(const std::string& shape) const {
  std::vector<const DbRecord*> out;
  for (const auto& [k, r] : records_)
    if (r.shape == shape) out.push_back(&r);
  return out;
}

void TuningDb::append(DbRecord r) {
  r.context = context_;
  if (!file_.empty()) {
    if (file_.has_parent_path()) fs::create_directories(file_.parent_path());
    const std::string line = to_json(r).dump() + "\n";
    const int fd = ::open(file_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) throw Error(fmt::format("{}: cannot open for appending: {}", file_.string(), std::strerror(errno)));
    // One write of the whole line: with O_APPEND, concurrent appenders never interleave
    // inside it on a local file system.
    const ssize_t n = ::write(fd, line.data(), line.size());
    const int err = errno;
    ::close(fd);
    if (n != static_cast<ssize_t>(line.size()))
      throw Error(fmt::format("{}: short write: {}", file_.string(), std::strerror(err)));
  }
  records_[record_key(r.shape, r.params)] = std::move(r);
}

}  // namespace ako::search
