#include "port/engine_profile.hpp"

#include <cctype>
#include <fstream>

#include <nlohmann/json.hpp>

#include "common/atomic_file.hpp"
#include "common/error.hpp"

namespace ako::port {

namespace {

using nlohmann::json;

struct Reader {
  const json& doc;
  std::string file;

  const json& at(const json& obj, const std::string& key, const std::string& path) const {
    if (!obj.is_object() || !obj.contains(key)) throw SpecError(file, path, "missing (required)");
    return obj.at(key);
  }
  std::string str(const json& obj, const std::string& key, const std::string& path, bool required = true) const {
    if (!obj.contains(key)) {
      if (required) throw SpecError(file, path, "missing (required string)");
      return {};
    }
    const json& v = obj.at(key);
    if (!v.is_string()) throw SpecError(file, path, "expected a string, got " + v.dump());
    return v.get<std::string>();
  }
  std::vector<std::string> strings(const json& obj, const std::string& key, const std::string& path) const {
    std::vector<std::string> out;
    if (!obj.contains(key)) return out;
    const json& v = obj.at(key);
    if (!v.is_array()) throw SpecError(file, path, "expected an array of strings, got " + v.dump());
    for (size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_string()) throw SpecError(file, path + "[" + std::to_string(i) + "]", "expected a string");
      out.push_back(v[i].get<std::string>());
    }
    return out;
  }
};

}  // namespace

std::string expand_op(const std::string& pattern, const std::string& op) {
  std::string camel;
  bool up = true;
  for (char c : op) {
    if (c == '_' || c == '-') { up = true; continue; }
    camel += up ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    up = false;
  }
  std::string out;
  for (size_t i = 0; i < pattern.size();) {
    if (pattern.compare(i, 4, "{op}") == 0) out += op, i += 4;
    else if (pattern.compare(i, 4, "{Op}") == 0) out += camel, i += 4;
    else out += pattern[i++];
  }
  return out;
}

std::string default_kernel_path(const EngineProfile& p, const std::string& op) {
  return p.layout.kernel_root + "/" + expand_op(p.kernel_file, op);
}

void check_engine_layout(const EngineProfile& p, const std::filesystem::path& engine, const std::string& option) {
  std::string missing;
  for (const auto& [key, rel] : {std::pair{"kernel_root", p.layout.kernel_root}, std::pair{"include_root", p.layout.include_root},
                                 std::pair{"python_root", p.layout.python_root}})
    if (!std::filesystem::is_directory(engine / rel)) missing += (missing.empty() ? "" : ", ") + rel + " (" + key + ")";
  if (missing.empty()) return;
  throw Error(option + " " + engine.string() + ": not an engine checkout of profile " + p.name + " (" + p.file.string() +
              "): it has no " + missing + "; pass " + option +
              " <the engine checkout's top folder>, or the profile of its layout with --engine-profile");
}

std::string default_wrapper_path(const EngineProfile& p, const std::string& op) {
  return p.layout.python_root + "/" + expand_op(p.wrapper_file, op);
}

std::vector<std::string> expand_nvrtc_flags(const EngineProfile& p, const std::string& arch) {
  // sm_90a -> 900, sm_100f -> 1000: the number the engine's JIT injects (major*100 + minor*10).
  std::string digits;
  for (char c : arch.substr(arch.rfind('_') + 1))
    if (std::isdigit(static_cast<unsigned char>(c))) digits += c;
  const std::string sm = digits.empty() ? "" : digits + "0";
  std::vector<std::string> out;
  for (std::string f : p.nvrtc_flags) {
    for (size_t at = f.find("{sm}"); at != std::string::npos; at = f.find("{sm}", at + sm.size())) f.replace(at, 4, sm);
    out.push_back(std::move(f));
  }
  return out;
}

EngineProfile load_engine_profile(const std::filesystem::path& workspace, const std::string& name_or_file) {
  std::filesystem::path file = name_or_file;
  if (file.extension() != ".json") file = workspace / "engines" / (name_or_file + ".json");
  if (!std::filesystem::exists(file))
    throw Error("engine profile '" + name_or_file + "' not found: " + file.string() +
                " does not exist (profiles live in engines/<name>.json; pass --engine-profile NAME or a .json path)");
  json doc;
  try {
    doc = json::parse(read_file(file));
  } catch (const json::parse_error& e) {
    throw SpecError(file.string(), "$", std::string("not valid JSON: ") + e.what());
  }
  const Reader r{doc, file.string()};
  if (!doc.is_object()) throw SpecError(file.string(), "$", "expected an object");
  if (r.str(doc, "schema", "schema") != kEngineSchema)
    throw SpecError(file.string(), "schema", std::string("expected \"") + kEngineSchema + "\"");

  EngineProfile p;
  p.file = file;
  p.name = r.str(doc, "name", "name");
  p.description = r.str(doc, "description", "description", false);
  const json& l = r.at(doc, "layout", "layout");
  p.layout.kernel_root = r.str(l, "kernel_root", "layout.kernel_root");
  p.layout.include_root = r.str(l, "include_root", "layout.include_root");
  p.layout.python_root = r.str(l, "python_root", "layout.python_root");
  p.layout.test_root = r.str(l, "test_root", "layout.test_root", false);
  p.layout.benchmark_root = r.str(l, "benchmark_root", "layout.benchmark_root", false);
  const json& po = r.at(doc, "port", "port");
  p.kernel_file = r.str(po, "kernel_file", "port.kernel_file");
  p.wrapper_file = r.str(po, "wrapper_file", "port.wrapper_file");
  p.python_utils_module = r.str(po, "python_utils_module", "port.python_utils_module");
  p.cpp_namespace = r.str(po, "cpp_namespace", "port.cpp_namespace", false);
  p.kernel_struct = r.str(po, "kernel_struct", "port.kernel_struct");
  p.includes = r.strings(po, "includes", "port.includes");
  p.jit_flags = r.strings(po, "jit_flags", "port.jit_flags");
  const json& m = r.at(doc, "mirror", "mirror");
  p.host_markers = r.strings(m, "host_markers", "mirror.host_markers");
  if (p.host_markers.empty()) throw SpecError(file.string(), "mirror.host_markers", "expected at least one marker");
  p.host_includes = r.strings(m, "host_includes", "mirror.host_includes");
  p.nvrtc_overlays = r.strings(m, "nvrtc_overlays", "mirror.nvrtc_overlays");
  for (const auto& o : p.nvrtc_overlays)
    if (!std::filesystem::is_directory(file.parent_path() / o))
      throw SpecError(file.string(), "mirror.nvrtc_overlays",
                      "names " + (file.parent_path() / o).string() + ", which is not a folder");
  p.nvrtc_flags = r.strings(m, "nvrtc_flags", "mirror.nvrtc_flags");
  for (const auto& [k, v] : doc.items())
    if (k != "schema" && k != "name" && k != "description" && k != "layout" && k != "port" && k != "mirror")
      throw SpecError(file.string(), k, "unknown field (known: schema, name, description, layout, port, mirror)");
  return p;
}

}  // namespace ako::port
