// JSON for the worker protocol (job file and event lines).
#include "common/error.hpp"
#include "exec/protocol/job.hpp"

namespace ako::exec {

using nlohmann::json;

NLOHMANN_JSON_SERIALIZE_ENUM(BufferRole, {{BufferRole::input, "input"},
                                          {BufferRole::weight, "weight"},
                                          {BufferRole::output, "output"}})

NLOHMANN_JSON_SERIALIZE_ENUM(ArgJob::Kind, {{ArgJob::Kind::null, "null"},
                                            {ArgJob::Kind::buffer, "buffer"},
                                            {ArgJob::Kind::i32, "i32"},
                                            {ArgJob::Kind::i64, "i64"},
                                            {ArgJob::Kind::f32, "f32"}})

namespace {
template <typename T>
void opt(const json& j, const char* key, T& out) {
  auto it = j.find(key);
  if (it != j.end() && !it->is_null()) out = it->get<T>();
}

DType dtype_from(const json& j) {
  const auto s = j.get<std::string>();
  if (auto d = parse_dtype(s)) return *d;
  throw Error("worker protocol: unknown dtype '" + s + "'");
}
}  // namespace


void to_json(json& j, const BufferJob& v) {
  j = json{{"name", v.name},   {"role", v.role},       {"dtype", std::string(dtype_name(v.dtype))},
           {"count", v.count}, {"present", v.present}, {"init", v.init}};
}
void from_json(const json& j, BufferJob& v) {
  v.name = j.at("name").get<std::string>();
  v.role = j.at("role").get<BufferRole>();
  v.dtype = dtype_from(j.at("dtype"));
  v.count = j.at("count").get<uint64_t>();
  opt(j, "present", v.present);
  opt(j, "init", v.init);
}

void to_json(json& j, const ArgJob& v) {
  j = json{{"kind", v.kind}};
  switch (v.kind) {
    case ArgJob::Kind::buffer: j["buffer"] = v.buffer; break;
    case ArgJob::Kind::i32:
    case ArgJob::Kind::i64: j["value"] = v.i; break;
    case ArgJob::Kind::f32: j["value"] = v.f; break;
    case ArgJob::Kind::null: break;
  }
}
void from_json(const json& j, ArgJob& v) {
  v.kind = j.at("kind").get<ArgJob::Kind>();
  switch (v.kind) {
    case ArgJob::Kind::buffer: v.buffer = j.at("buffer").get<int>(); break;
    case ArgJob::Kind::i32:
    case ArgJob::Kind::i64: v.i = j.at("value").get<int64_t>(); break;
    case ArgJob::Kind::f32: v.f = j.at("value").get<double>(); break;
    case ArgJob::Kind::null: break;
  }
}

void to_json(json& j, const LaunchJob& v) {
  j = json{{"module", v.module}, {"function", v.function},         {"grid", v.grid},
           {"block", v.block},   {"shared_bytes", v.shared_bytes}, {"args", v.args}};
}
void from_json(const json& j, LaunchJob& v) {
  v.module = j.at("module").get<std::string>();
  v.function = j.at("function").get<std::string>();
  v.grid = j.at("grid").get<std::array<uint32_t, 3>>();
  v.block = j.at("block").get<std::array<uint32_t, 3>>();
  opt(j, "shared_bytes", v.shared_bytes);
  opt(j, "args", v.args);
}



void to_json(json& j, const BaselineJob& v) { j = json{{"name", v.name}, {"launch", v.launch}}; }
void from_json(const json& j, BaselineJob& v) {
  v.name = j.at("name").get<std::string>();
  v.launch = j.at("launch").get<LaunchJob>();
}

void to_json(json& j, const CaseJob& v) {
  j = json{{"index", v.index},   {"kind", v.kind},       {"op", v.op},
           {"label", v.label},   {"dims", v.dims},       {"scalars", v.scalars},
           {"buffers", v.buffers}, {"reference", v.reference},
           {"solution", v.solution ? json(*v.solution) : json(nullptr)},
           {"baselines", v.baselines},
           {"tolerance", v.tolerance}, {"trials", v.trials}, {"seed", v.seed},
           {"time", v.time},     {"time_reference", v.time_reference}, {"bytes", v.bytes}};
}
void from_json(const json& j, CaseJob& v) {
  v.index = j.at("index").get<int>();
  opt(j, "kind", v.kind);
  opt(j, "op", v.op);
  opt(j, "label", v.label);
  opt(j, "dims", v.dims);
  opt(j, "scalars", v.scalars);
  opt(j, "buffers", v.buffers);
  v.reference = j.at("reference").get<LaunchJob>();
  if (j.contains("solution") && !j["solution"].is_null()) v.solution = j["solution"].get<LaunchJob>();
  opt(j, "baselines", v.baselines);
  opt(j, "tolerance", v.tolerance);
  opt(j, "trials", v.trials);
  opt(j, "seed", v.seed);
  opt(j, "time", v.time);
  opt(j, "time_reference", v.time_reference);
  opt(j, "bytes", v.bytes);
}


void to_json(json& j, const WorkerJob& v) {
  j = json{{"protocol", v.protocol}, {"support", v.support},     {"timing", v.timing},
           {"cache_dir", v.cache_dir}, {"remeasure_bandwidth", v.remeasure_bandwidth},
           {"launch_limit", v.launch_limit}, {"max_input_sets", v.max_input_sets}, {"cases", v.cases}};
}
void from_json(const json& j, WorkerJob& v) {
  const std::string protocol = j.value("protocol", "");
  if (protocol != kWorkerProtocol)
    throw Error("worker job: protocol '" + protocol + "' is not '" + kWorkerProtocol +
                "' (ako and ako-worker come from different builds)");
  v.protocol = protocol;
  opt(j, "support", v.support);
  opt(j, "timing", v.timing);
  opt(j, "cache_dir", v.cache_dir);
  opt(j, "remeasure_bandwidth", v.remeasure_bandwidth);
  opt(j, "launch_limit", v.launch_limit);
  opt(j, "max_input_sets", v.max_input_sets);
  opt(j, "cases", v.cases);
}

void to_json(json& j, const WorkerEvent& v) {
  j = json{{"event", v.event}};
  if (v.index >= 0) j["index"] = v.index;
  if (!v.phase.empty()) j["phase"] = v.phase;
  if (v.device) j["device"] = *v.device;
  if (v.result) j["result"] = *v.result;
  if (!v.message.empty()) j["message"] = v.message;
  if (!v.setup_s.empty()) j["setup_s"] = v.setup_s;
}
void from_json(const json& j, WorkerEvent& v) {
  v.event = j.at("event").get<std::string>();
  opt(j, "index", v.index);
  opt(j, "phase", v.phase);
  if (j.contains("device")) v.device = j["device"].get<DeviceInfo>();
  if (j.contains("result")) v.result = j["result"].get<CaseResult>();
  opt(j, "message", v.message);
  opt(j, "setup_s", v.setup_s);
}

}  // namespace ako::exec
