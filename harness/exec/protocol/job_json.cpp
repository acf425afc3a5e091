// JSON for the worker protocol (job file and event lines).
#include "common/error.hpp"
#include "exec/protocol/job.hpp"

namespace ako::exec {

using nlohmann::json;

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

}  // namespace ako::exec

namespace ako::model {

using nlohmann::json;
using exec::dtype_from;
using exec::opt;

NLOHMANN_JSON_SERIALIZE_ENUM(Role, {{Role::in, "in"}, {Role::out, "out"}, {Role::inout, "inout"}})

NLOHMANN_JSON_SERIALIZE_ENUM(Arg::Kind, {{Arg::Kind::null, "null"},
                                         {Arg::Kind::buffer, "buffer"},
                                         {Arg::Kind::i32, "i32"},
                                         {Arg::Kind::i64, "i64"},
                                         {Arg::Kind::f32, "f32"}})

void to_json(json& j, const Init& v) { j = json{{"dist", v.dist}, {"a", v.a}, {"b", v.b}, {"low", v.low}, {"high", v.high}}; }
void from_json(const json& j, Init& v) {
  opt(j, "dist", v.dist);
  opt(j, "a", v.a);
  opt(j, "b", v.b);
  opt(j, "low", v.low);
  opt(j, "high", v.high);
}

void to_json(json& j, const Tolerance& v) { j = json{{"atol", v.atol}, {"rtol", v.rtol}}; }
void from_json(const json& j, Tolerance& v) {
  opt(j, "atol", v.atol);
  opt(j, "rtol", v.rtol);
}

void to_json(json& j, const ErrorFactor& v) { j = json{{"rms", v.rms}, {"max", v.max}}; }
void from_json(const json& j, ErrorFactor& v) {
  opt(j, "rms", v.rms);
  opt(j, "max", v.max);
}

void to_json(json& j, const View& v) {
  j = json{{"of", v.of}, {"offset", v.offset}, {"extents", v.extents}, {"strides", v.strides}};
}
void from_json(const json& j, View& v) {
  v.of = j.at("of").get<int>();
  opt(j, "offset", v.offset);
  v.extents = j.at("extents").get<std::vector<int64_t>>();
  v.strides = j.at("strides").get<std::vector<int64_t>>();
  if (v.extents.size() != v.strides.size()) throw Error("worker protocol: a view needs one stride per extent");
}

void to_json(json& j, const Buffer& v) {
  j = json{{"name", v.name},       {"role", v.role},       {"dtype", std::string(dtype_name(v.dtype))},
           {"count", v.count},     {"extents", v.extents}, {"present", v.present},
           {"init", v.init},       {"tolerance", v.tolerance}, {"error_factor", v.error_factor}};
  if (v.view) j["view"] = *v.view;
}
void from_json(const json& j, Buffer& v) {
  v.name = j.at("name").get<std::string>();
  v.role = j.at("role").get<Role>();
  v.dtype = dtype_from(j.at("dtype"));
  v.count = j.at("count").get<uint64_t>();
  opt(j, "extents", v.extents);
  opt(j, "present", v.present);
  opt(j, "init", v.init);
  opt(j, "tolerance", v.tolerance);
  opt(j, "error_factor", v.error_factor);
  if (j.contains("view")) v.view = j.at("view").get<View>();
}

void to_json(json& j, const Arg& v) {
  j = json{{"kind", v.kind}};
  switch (v.kind) {
    case Arg::Kind::buffer: j["buffer"] = v.buffer; break;
    case Arg::Kind::i32:
    case Arg::Kind::i64: j["value"] = v.i; break;
    case Arg::Kind::f32: j["value"] = v.f; break;
    case Arg::Kind::null: break;
  }
}
void from_json(const json& j, Arg& v) {
  v.kind = j.at("kind").get<Arg::Kind>();
  switch (v.kind) {
    case Arg::Kind::buffer: v.buffer = j.at("buffer").get<int>(); break;
    case Arg::Kind::i32:
    case Arg::Kind::i64: v.i = j.at("value").get<int64_t>(); break;
    case Arg::Kind::f32: v.f = j.at("value").get<double>(); break;
    case Arg::Kind::null: break;
  }
}

}  // namespace ako::model

namespace ako::exec {

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
  j = json{{"index", v.index},   {"kind", v.kind},
           {"label", v.label},   {"dims", v.dims},
           {"buffers", v.buffers}, {"reference", v.reference},
           {"solution", v.solution ? json(*v.solution) : json(nullptr)},
           {"oracle", v.oracle ? json(*v.oracle) : json(nullptr)},
           {"baselines", v.baselines},
           {"trials", v.trials}, {"seed", v.seed},
           {"time", v.time},     {"time_reference", v.time_reference}, {"bytes", v.bytes},
           {"time_size_copy", v.time_size_copy}};
}
void from_json(const json& j, CaseJob& v) {
  v.index = j.at("index").get<int>();
  opt(j, "kind", v.kind);
  opt(j, "label", v.label);
  opt(j, "dims", v.dims);
  opt(j, "buffers", v.buffers);
  v.reference = j.at("reference").get<LaunchJob>();
  if (j.contains("solution") && !j["solution"].is_null()) v.solution = j["solution"].get<LaunchJob>();
  if (j.contains("oracle") && !j["oracle"].is_null()) v.oracle = j["oracle"].get<LaunchJob>();
  opt(j, "baselines", v.baselines);
  opt(j, "trials", v.trials);
  opt(j, "seed", v.seed);
  opt(j, "time", v.time);
  opt(j, "time_reference", v.time_reference);
  opt(j, "bytes", v.bytes);
  opt(j, "time_size_copy", v.time_size_copy);
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
