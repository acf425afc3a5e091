#include "search/tuning_db.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
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
  if (centre != kCentreMedian) j["centre"] = centre;  // absent on records that predate the IQM: keys unchanged
  return j.dump();
}

std::string record_key(const std::string& shape, const Params& params) {
  return shape + "|" + params_text(params);
}

namespace {
// The JSON key of the times: named after the centre they are ("iqm_us", "median_us").
std::string time_key(const DbContext& x) { return x.centre + "_us"; }
}  // namespace

json to_json(const DbRecord& r) {
  const std::string time = time_key(r.context);
  json cases = json::array();
  for (const auto& c : r.cases)
    cases.push_back({{"label", c.label}, {"verdict", c.verdict}, {time, c.time_us}, {"ci_rel", c.ci_rel},
                     {"reference_us", c.reference_us}});
  const DbContext& x = r.context;
  json j{{"schema", kTuneRecordSchema}, {"task", x.task}, {"source_hash", x.source_hash},
              {"device", x.device}, {"driver", x.driver}, {"nvrtc", x.nvrtc}, {"arch", x.arch},
              {"l2", x.l2}, {"dtypes", x.dtypes}, {"shape", r.shape}, {"params", r.params},
              {"verdict", r.verdict}, {"reason", r.reason}, {time, r.time_us},
              {"ci_rel", r.ci_rel}, {"registers", r.registers}, {"reference_us", r.reference_us}, {"cases", cases},
              {"recorded_at", r.recorded_at}};
  if (x.allow) j["allow"] = *x.allow;
  if (x.centre != kCentreMedian) j["centre"] = x.centre;
  if (!r.gpu_uuid.empty()) j["gpu_uuid"] = r.gpu_uuid;
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
    x.centre = j.value("centre", std::string(kCentreMedian));
    if (x.centre != kCentreIqm && x.centre != kCentreMedian) throw Error("unknown centre '" + x.centre + "'");
    const std::string time = time_key(x);
    r.shape = j.at("shape").get<std::string>();
    r.params = j.at("params").get<Params>();
    r.verdict = j.at("verdict").get<std::string>();
    r.reason = j.value("reason", "");
    r.time_us = j.at(time).get<double>();
    r.ci_rel = j.value("ci_rel", 0.0);
    r.registers = j.value("registers", -1);
    r.reference_us = j.value("reference_us", 0.0);
    r.recorded_at = j.value("recorded_at", "");
    r.gpu_uuid = j.value("gpu_uuid", "");
    for (const auto& c : j.value("cases", json::array()))
      r.cases.push_back({c.at("label").get<std::string>(), c.at("verdict").get<std::string>(),
                         c.value(time, 0.0), c.value("ci_rel", 0.0), c.value("reference_us", 0.0)});
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

// The database file opened for appending, under an exclusive flock(2) for as long as it is open:
// concurrent `ako tune` processes (and their repairs) take turns, line by line.
class LockedDb {
 public:
  explicit LockedDb(const fs::path& file) : file_(file) {
    fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ < 0) throw Error(fmt::format("{}: cannot open for appending: {}", file.string(), std::strerror(errno)));
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd_);
      throw Error(fmt::format("{}: cannot lock: {}", file.string(), std::strerror(err)));
    }
  }
  LockedDb(const LockedDb&) = delete;
  LockedDb& operator=(const LockedDb&) = delete;
  ~LockedDb() { ::close(fd_); }   // releases the lock

  // A last line without its newline is what a writer killed inside its write(2) (or stopped by
  // a full disk) leaves. A whole record there gets its newline; anything else is cut off, so
  // the next line never fuses with it (the measurement it held is made again). Returns what it
  // did, nullopt when the file ended cleanly.
  std::optional<std::string> repair_tail() {
    const off_t size = this->size();
    if (size == 0 || byte_at(size - 1) == '\n') return std::nullopt;
    // The tail after the last newline, read backwards in blocks.
    std::string tail;
    off_t start = size;
    while (start > 0) {
      const off_t from = std::max<off_t>(0, start - 65536);
      std::string block(static_cast<size_t>(start - from), '\0');
      if (::pread(fd_, block.data(), block.size(), from) != static_cast<ssize_t>(block.size()))
        throw Error(fmt::format("{}: cannot read its last line: {}", file_.string(), std::strerror(errno)));
      const size_t newline = block.rfind('\n');
      if (newline != std::string::npos) {
        tail = block.substr(newline + 1) + tail;
        start = from + static_cast<off_t>(newline) + 1;
        break;
      }
      tail = block + tail;
      start = from;
    }
    bool whole = false;
    try {
      record_from_json(json::parse(tail));
      whole = true;
    } catch (const std::exception&) {
    }
    if (whole) {
      write_all("\n", size);
      return fmt::format("{}: its last record lacked a newline; added it", file_.string());
    }
    if (::ftruncate(fd_, start) != 0)
      throw Error(fmt::format("{}: cannot cut its torn last line: {}", file_.string(), std::strerror(errno)));
    return fmt::format("{}: removed a torn last line ({} bytes) that an interrupted write left; that measurement "
                       "is made again", file_.string(), tail.size());
  }

  // One write(2) of the whole line; a short one (a full disk) is cut back off, so the file
  // never keeps part of a record.
  void append_line(const std::string& line) { write_all(line, size()); }

 private:
  off_t size() const {
    struct stat st {};
    if (::fstat(fd_, &st) != 0) throw Error(fmt::format("{}: cannot stat: {}", file_.string(), std::strerror(errno)));
    return st.st_size;
  }

  char byte_at(off_t at) const {
    char c = 0;
    if (::pread(fd_, &c, 1, at) != 1) throw Error(fmt::format("{}: cannot read: {}", file_.string(), std::strerror(errno)));
    return c;
  }

  void write_all(const std::string& text, off_t size_before) {
    ssize_t n;
    while ((n = ::write(fd_, text.data(), text.size())) < 0 && errno == EINTR) {}
    if (n == static_cast<ssize_t>(text.size())) return;
    const int err = n < 0 ? errno : ENOSPC;
    // Best effort: should the cut fail too, the next append cuts the torn tail (repair_tail).
    if (n > 0) (void)!::ftruncate(fd_, size_before);
    throw Error(fmt::format("{}: cannot append a record: {}", file_.string(), std::strerror(err)));
  }

  fs::path file_;
  int fd_ = -1;
};

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
    same = r.context;
    same.centre = context_.centre;
    if (same == context_) ++other_centre;
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
    LockedDb db(file_);
    db.repair_tail();
    db.append_line(to_json(r).dump() + "\n");
  }
  records_[record_key(r.shape, r.params)] = std::move(r);
}

std::optional<std::string> TuningDb::repair_interrupted_append(const fs::path& file) {
  if (file.empty() || !fs::exists(file)) return std::nullopt;
  return LockedDb(file).repair_tail();
}

}  // namespace ako::search
