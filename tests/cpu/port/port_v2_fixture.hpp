#pragma once
// Small synthetic ako.task/2 specs rendered by the port's renderers directly (no engine
// repository): a scratch root holds the kernel files a spec names, the engine profile is this
// repository's engines/sglang.json. The rendered kernel file is then compiled with nvcc for
// sm_90a against the stand-in SGLang / tvm-ffi headers in sgl_standin/ and a driver that calls
// the entry point on fake tensors: the stand-in LaunchKernel records what would be launched
// (pointers as byte offsets into the driver's arena), the stand-in RuntimeCheck throws.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "port/engine_profile.hpp"
#include "port/port_names.hpp"
#include "port/render_dispatch.hpp"
#include "port/render_kernel.hpp"
#include "port/render_wrapper.hpp"
#include "task/spec.hpp"

namespace ako::port::testing {

namespace fs = std::filesystem;
using nlohmann::json;

inline void write_file(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

// `command`'s exit status and its stdout and stderr together.
inline std::pair<int, std::string> run_command(const std::string& command) {
  std::string out;
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  if (!p) return {-1, "popen failed"};
  char buf[4096];
  while (fgets(buf, sizeof buf, p)) out += buf;
  const int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// A spec with one dim list, kernels taking `args`; the tests set buffers, scalars and the rest.
inline json base_doc(const std::string& name, const json& dims, const json& args) {
  const json kernel = {{"kernel", "k<{T}>"}, {"args", args}, {"grid", {"1"}}, {"block", {"32"}}};
  json d = {{"schema", "ako.task/2"}, {"name", name}, {"dims", dims}, {"dtypes", {"bf16", "fp16"}}};
  d["reference"] = kernel;
  d["reference"]["file"] = "input/" + name + "/ref.cuh";
  d["oracle"] = kernel;
  d["oracle"]["file"] = "input/" + name + "/oracle.cuh";
  d["solution"] = kernel;
  d["solution"]["file"] = "solution/" + name + "/" + name + ".cuh";
  return d;
}

struct Rendered {
  std::string kernel, wrapper, device_section;
};

class PortV2 : public ::testing::Test {
 protected:
  fs::path root;

  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "ako-port-v2-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    root = tmpl;
  }
  void TearDown() override {
    if (!std::getenv("AKO_KEEP_TEST_DIRS")) fs::remove_all(root);
  }

  // The spec, with its kernel files written (`solution` is the solution's device code) and,
  // when given, solution/<name>/configs/default.json.
  task::TaskSpec spec_of(json doc, const std::string& solution, const json& default_config = nullptr) {
    const std::string name = doc["name"];
    write_file(root / doc["reference"]["file"].get<std::string>(), "// not compiled here\n");
    write_file(root / doc["oracle"]["file"].get<std::string>(), "// not compiled here\n");
    write_file(root / doc["solution"]["file"].get<std::string>(), solution);
    if (!doc.contains("shapes")) {
      json shape = {{"name", "s"}};
      for (const auto& d : doc["dims"]) shape[d.get<std::string>()] = 8;
      doc["shapes"] = json::array({shape});
    }
    if (!default_config.is_null()) {
      doc["solution"]["config"] = "solution/" + name + "/configs";
      write_file(root / "solution" / name / "configs/default.json", default_config.dump(2));
    }
    return task::parse_task(doc, root / "tasks" / name / "task.json", root);
  }

  Rendered render(const task::TaskSpec& spec) {
    const EngineProfile profile = load_engine_profile(AKO_SOURCE_DIR, "sglang");
    const PortNames names = port_names(spec, profile, "");
    std::ifstream in(root / spec.solution.file);
    const std::string solution((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const RenderedKernel k = render_kernel(spec, solution, profile, names, "origin: a test", configs_to_bake(spec, {}));
    return {k.file_text, render_wrapper(spec, profile, names), k.device_section};
  }

  static std::string nvcc() {
    const std::string path = AKO_NVCC;
    return !path.empty() && access(path.c_str(), X_OK) == 0 ? path : "";
  }

  // Compiles the kernel file with `driver_body` as main()'s body (sm_90a, C++20, the stand-in
  // headers), runs it and returns its output; fails the test when either step fails.
  std::string compile_and_run(const std::string& kernel_file, const std::string& driver_body) {
    write_file(root / "build/kernel.cuh", kernel_file);
    write_file(root / "build/driver.cu", std::string(kDriverPrologue) + "int main() {\n  host::launch_base() = arena;\n" +
                                             driver_body + "  return 0;\n}\n");
    const std::string standin = std::string(AKO_TEST_DIR) + "/cpu/port/sgl_standin";
    const auto [status, out] = run_command(nvcc() + " -std=c++20 -O0 -arch=sm_90a --expt-relaxed-constexpr -I'" + standin +
                                           "' -o '" + (root / "build/driver").string() + "' '" +
                                           (root / "build/driver.cu").string() + "'");
    EXPECT_EQ(status, 0) << "nvcc failed:\n" << out << "\n--- kernel file ---\n" << kernel_file;
    if (status != 0) return "";
    const auto [rc, output] = run_command("'" + (root / "build/driver").string() + "'");
    EXPECT_EQ(rc, 0) << output;
    return output;
  }

  // The driver's helpers: an arena the tensors point into, tensor makers, and attempt(), which
  // prints each launch the call makes ("<what>: launch grid=.. block=.. smem=.. args=..") or the
  // error it throws ("<what>: error <message>").
  static constexpr const char* kDriverPrologue = R"(#include "kernel.cuh"
#include <cstdio>
#include <vector>
alignas(256) static char arena[1 << 20];
using tvm::ffi::TensorView;
constexpr DLDataType kBf16{kDLBfloat, 16, 1}, kF16{kDLFloat, 16, 1}, kF32{kDLFloat, 32, 1}, kI32{kDLInt, 32, 1},
    kI64{kDLInt, 64, 1};
static std::vector<int64_t> row_major(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t k = shape.size(); k-- > 1;) s[k - 1] = s[k] * shape[k];
  return s;
}
static TensorView T(size_t at, std::vector<int64_t> shape, DLDataType dt) { return TensorView(arena + at, shape, row_major(shape), dt); }
static TensorView S(size_t at, std::vector<int64_t> shape, std::vector<int64_t> strides, DLDataType dt) {
  return TensorView(arena + at, shape, strides, dt);
}
template <typename F>
static void attempt(const char* what, F f) {
  host::launches().clear();
  try {
    f();
    for (const auto& l : host::launches()) {
      std::printf("%s: launch grid=%u,%u,%u block=%u,%u,%u smem=%zu args=", what, l.grid.x, l.grid.y, l.grid.z, l.block.x,
                  l.block.y, l.block.z, l.smem);
      for (size_t i = 0; i < l.args.size(); ++i) std::printf("%s%s", i ? "," : "", l.args[i].c_str());
      std::printf("\n");
    }
    if (host::launches().empty()) std::printf("%s: no launch\n", what);
  } catch (const std::exception& e) {
    std::printf("%s: error %s\n", what, e.what());
  }
}
)";
};

inline bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace ako::port::testing
