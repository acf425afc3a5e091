#include "jit/child_report.hpp"

#include <nlohmann/json.hpp>

#include "jit/resources_json.hpp"

using nlohmann::json;

namespace ako::jit {

namespace {

void put(std::string& out, const std::string& field) {
  out += std::to_string(field.size());
  out += '\n';
  out += field;
}

// The next field from `pos`; nullopt when the bytes end early or are malformed.
std::optional<std::string> take(const std::string& in, size_t& pos) {
  const size_t nl = in.find('\n', pos);
  if (nl == std::string::npos || nl == pos || nl - pos > 19) return std::nullopt;
  size_t size = 0;
  for (size_t i = pos; i < nl; ++i) {
    if (in[i] < '0' || in[i] > '9') return std::nullopt;
    size = size * 10 + static_cast<size_t>(in[i] - '0');
  }
  if (in.size() - (nl + 1) < size) return std::nullopt;
  pos = nl + 1 + size;
  return in.substr(nl + 1, size);
}

json meta_json(const BuiltProgram& b) {
  json resources = json::object();
  for (const auto& [name, r] : b.module.resources) resources[name] = resources_json(r);
  return {{"display_name", b.record.display_name},
          {"arch", b.record.arch},
          {"nvrtc", b.record.nvrtc},
          {"started", b.record.started_unix_ms},
          {"finished", b.record.finished_unix_ms},
          {"lowered", b.module.lowered},
          {"resources", resources},
          {"log", b.module.log},
          {"compile_ms", b.module.compile_ms}};
}

BuiltProgram program_from(std::string cubin, std::string ptx, const json& j) {
  BuiltProgram b;
  b.cubin = std::move(cubin);
  b.ptx = std::move(ptx);
  b.record = {j.at("display_name"), j.at("arch"), j.at("nvrtc"), j.at("started"), j.at("finished")};
  b.module.lowered = j.at("lowered").get<std::map<std::string, std::string>>();
  for (const auto& [name, r] : j.at("resources").items()) b.module.resources[name] = resources_from(r);
  b.module.log = j.at("log").get<std::string>();
  b.module.compile_ms = j.at("compile_ms").get<double>();
  return b;
}

}  // namespace

std::string encode(const ChildReport& r) {
  std::string out = "ako-compile-child/1\n";
  put(out, std::to_string(static_cast<int>(r.status)));
  put(out, r.text);
  if (r.status == ChildReport::Status::not_stored && r.program) {
    put(out, r.program->cubin);
    put(out, r.program->ptx);
    // A log quoting the source may hold bytes that are not UTF-8: replaced, never fatal.
    put(out, meta_json(*r.program).dump(-1, ' ', false, json::error_handler_t::replace));
  }
  put(out, "end");
  return out;
}

std::optional<ChildReport> decode(const std::string& bytes) {
  static const std::string magic = "ako-compile-child/1\n";
  if (bytes.rfind(magic, 0) != 0) return std::nullopt;
  size_t pos = magic.size();
  const auto status = take(bytes, pos);
  auto text = take(bytes, pos);
  if (!status || !text || status->size() != 1 || (*status)[0] < '0' || (*status)[0] > '3') return std::nullopt;
  ChildReport r;
  r.status = static_cast<ChildReport::Status>((*status)[0] - '0');
  r.text = std::move(*text);
  if (r.status == ChildReport::Status::not_stored) {
    auto cubin = take(bytes, pos), ptx = take(bytes, pos), meta = take(bytes, pos);
    if (!cubin || !ptx || !meta) return std::nullopt;
    try {
      r.program = program_from(std::move(*cubin), std::move(*ptx), json::parse(*meta));
    } catch (const json::exception&) {
      return std::nullopt;
    }
  }
  const auto end = take(bytes, pos);
  if (!end || *end != "end" || pos != bytes.size()) return std::nullopt;
  return r;
}

}  // namespace ako::jit
