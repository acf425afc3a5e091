#pragma once
// Shared by the search tests: the real rmsnorm spec loaded from the repository, a scratch
// workspace (task, kernels, config copied), and a synthetic but realistic tuning landscape
// written as a tuning database, so every strategy can be replayed without a GPU.
//
// The landscape models a memory-bound row reduction on an H100-like device (132 SMs, 3 TB/s):
// narrower vectors cost bandwidth, idle lanes (row width not a multiple of the threads'
// reach) and rows longer than the register-resident reach (two-pass path) cost time, tail
// waves of blocks and heavy register use cost time, and every point gets a deterministic
// +-0.5% "noise". Several parameters interact, the optimum differs by shape, and large
// plateaus make ties (as on the real device).
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include "search/space.hpp"
#include "search/tuning_db.hpp"
#include "task/spec.hpp"

namespace ako::search::testing {

namespace fs = std::filesystem;

inline task::TaskSpec real_spec(const fs::path& root = AKO_SOURCE_DIR) { return task::load_task(root, "rmsnorm"); }

inline uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  return x ^ (x >> 33);
}

inline double model_us(const Params& p, const task::ShapeSpec& s, uint64_t salt = 0) {
  const double B = p.at("BLOCK"), V = p.at("VEC"), R = p.at("ROWS_PER_BLOCK"), C = p.at("CHUNKS");
  const double rows = s.dims.at("rows"), cols = s.dims.at("cols");
  const double bytes = rows * cols * 2 * 2 * 2;  // read + write, two dtypes
  const double tpr = B / R, reach = tpr * V;
  const double vec_eff = V == 8 ? 1.0 : V == 4 ? 0.92 : V == 2 ? 0.74 : 0.5;
  const double util = cols / (std::ceil(cols / reach) * reach);
  const double two_pass = C * reach < cols ? 1.0 + 0.5 * std::min(1.0, (cols - C * reach) / cols + 0.3) : 1.0;
  const double blocks = std::ceil(rows / R);
  const double resident = std::min(2048.0 / B, 32.0) * 132;
  const double waves = blocks / resident;
  const double tail = std::ceil(waves) / waves;
  const double tail_factor = 1.0 + 0.15 * (tail - 1.0) / tail;
  const double regs = 24 + 4 * C * V / 2;
  const double spill = regs > 128 ? 1.0 + (regs - 128) / 256 : 1.0;
  const double sync = tpr > 32 ? 1.0 + 0.02 * std::log2(tpr / 32) : 1.0;
  const double small_block = B < 128 ? 1.0 + 0.1 * (128 / B - 1) / 3 : 1.0;
  const double noise = 1.0 + 0.005 * ((static_cast<double>(mix(std::hash<std::string>{}(params_text(p) + s.name) + salt) % 2001) - 1000) / 1000);
  return 2.0 * 4 + bytes / (3.0e3 * vec_eff * std::sqrt(util)) / 1e3 * two_pass * tail_factor * spill * sync * small_block * noise;
}

inline int model_registers(const Params& p) { return 24 + static_cast<int>(2 * p.at("CHUNKS") * p.at("VEC")); }

inline DbContext synthetic_context(const std::string& hash = "synthetic-source") {
  DbContext c;
  c.task = "rmsnorm";
  c.source_hash = hash;
  c.device = "Synthetic H100";
  c.driver = 13000;
  c.nvrtc = "13.0 synthetic";
  c.arch = "sm_90a";
  c.dtypes = {"bf16", "fp16"};
  return c;
}

// A database with a record for every point valid on each shape of the spec.
inline void write_landscape(const task::TaskSpec& spec, const fs::path& file, const DbContext& ctx = synthetic_context()) {
  fs::remove(file);
  TuningDb db(file, ctx);
  const Space space(spec);
  for (const auto& s : spec.shapes) {
    const Enumeration e = enumerate(space, {&s});
    for (const auto& pt : e.valid) {
      DbRecord r;
      r.shape = s.name;
      r.params = space.params_of(pt);
      r.time_us = model_us(r.params, s);
      r.ci_rel = 0.003;
      r.registers = model_registers(r.params);
      db.append(std::move(r));
    }
  }
}

class ScratchDir {
 public:
  explicit ScratchDir(const std::string& tag) {
    static std::atomic<int> counter{0};
    path_ = fs::temp_directory_path() / ("ako-search-test-" + tag + "-" + std::to_string(::getpid()) + "-" +
                                         std::to_string(counter++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~ScratchDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

  // A workspace copy of the real task, input and solution.
  fs::path workspace() const {
    for (const char* d : {"tasks/rmsnorm", "input/rmsnorm", "solution/rmsnorm"}) {
      fs::create_directories(path_ / d);
      fs::copy(fs::path(AKO_SOURCE_DIR) / d, path_ / d, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
    }
    return path_;
  }

 private:
  fs::path path_;
};

// The real rmsnorm spec and its synthetic landscape file (write_landscape), written once per
// test process and only read by the tests (replays).
struct Landscape {
  ScratchDir dir{"landscape"};
  task::TaskSpec spec = real_spec();
  fs::path file = dir.path() / "landscape.jsonl";
  Landscape() { write_landscape(spec, file); }
};

inline Landscape& landscape() {
  static Landscape l;
  return l;
}

inline std::vector<const task::ShapeSpec*> all_shapes(const task::TaskSpec& spec) {
  std::vector<const task::ShapeSpec*> out;
  for (const auto& s : spec.shapes) out.push_back(&s);
  return out;
}

}  // namespace ako::search::testing
