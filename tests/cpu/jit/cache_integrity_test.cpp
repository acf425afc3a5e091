// A poisoned cache: an entry altered on disk (a flipped bit, a truncation, another kernel's
// cubin or a whole other entry under its key, a flipped bit in the PTX the static checks read)
// fails its sha256 check on load, is said, rebuilt from source and never handed out.
#include <gtest/gtest.h>

#include "jit/disk_cache.hpp"
#include "jit_test_support.hpp"

namespace ako::jit {
namespace {

using namespace ako::jit::testing;

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

struct Poisoned : ::testing::Test {
  TempDir tmp;
  CompileOptions opt = cached_in(tmp.path());
  CompiledModule good, other;
  std::string cubin, ptx;

  void SetUp() override {
    const auto batch = compile_all({scale_request(), local_array_request()}, opt);
    ASSERT_EQ(batch.errors, (std::vector<std::string>{"", ""}));
    good = batch.modules[0];
    other = batch.modules[1];
    cubin = read_text(good.cubin);
    ptx = read_text(good.ptx);
  }
  fs::path json() const { return entry_paths(opt.cache_dir, good.key).json; }

  // After the damage: detected (the note says why), rebuilt from source, intact again.
  void expect_rebuilt(const std::string& what, const std::string& reason) {
    EXPECT_NE(check_entry(opt.cache_dir, good.key), "") << what << ": the check passed a damaged entry";
    const auto again = compile_all({scale_request()}, opt);
    ASSERT_EQ(again.errors[0], "") << what;
    EXPECT_FALSE(again.modules[0].cache_hit) << what << ": the damaged entry was handed out";
    ASSERT_EQ(again.notes.size(), 1u) << what;
    EXPECT_TRUE(has(again.notes[0], "kernel cache: the entry of kernels/scale.cuh (" + json().string() +
                                        ") failed its check: " + reason))
        << what << ": " << again.notes[0];
    EXPECT_EQ(read_text(again.modules[0].cubin), cubin) << what;
    EXPECT_EQ(read_text(again.modules[0].ptx), ptx) << what;
    EXPECT_EQ(check_entry(opt.cache_dir, good.key), "") << what;
    EXPECT_TRUE(compile_all({scale_request()}, opt).modules[0].cache_hit) << what << ": not rewritten";
  }
};

TEST_F(Poisoned, AFlippedBitInTheCubin) {
  std::string flipped = cubin;
  flipped[flipped.size() / 2] ^= 0x10;  // same size, still ELF: only the hash can tell
  write_text(good.cubin, flipped);
  expect_rebuilt("bit flip", "cubin's sha256 differs from the one recorded when it was built");
}

TEST_F(Poisoned, ATruncatedCubin) {
  write_text(good.cubin, cubin.substr(0, cubin.size() / 3));
  expect_rebuilt("truncation", "cubin is " + std::to_string(cubin.size() / 3) + " bytes, the entry recorded " +
                                   std::to_string(cubin.size()));
}

TEST_F(Poisoned, AnotherKernelsCubinUnderTheKey) {
  fs::copy_file(other.cubin, good.cubin, fs::copy_options::overwrite_existing);
  expect_rebuilt("another cubin", "cubin is ");
  // The same, with the recorded size made to match: the hash still tells.
  fs::copy_file(other.cubin, good.cubin, fs::copy_options::overwrite_existing);
  auto entry = nlohmann::json::parse(read_text(json()));
  entry["cubin_bytes"] = fs::file_size(other.cubin);
  write_text(json(), entry.dump(1));
  expect_rebuilt("another cubin, size matched", "cubin's sha256 differs");
}

TEST_F(Poisoned, AnotherWholeEntryUnderTheKey) {
  const auto from = entry_paths(opt.cache_dir, other.key);
  fs::copy_file(from.json, json(), fs::copy_options::overwrite_existing);
  fs::copy_file(from.cubin, good.cubin, fs::copy_options::overwrite_existing);
  fs::copy_file(from.ptx, good.ptx, fs::copy_options::overwrite_existing);
  expect_rebuilt("another entry", "its JSON belongs to key " + other.key);
}

TEST_F(Poisoned, AFlippedBitInThePtx) {
  std::string flipped = ptx;
  flipped[flipped.size() / 2] ^= 0x01;
  write_text(good.ptx, flipped);
  expect_rebuilt("PTX bit flip", "PTX's sha256 differs");
}

TEST_F(Poisoned, EntriesOfTheUnhashedFormatAreRebuiltWithoutAlarm) {
  auto entry = nlohmann::json::parse(read_text(json()));
  entry["format"] = "ako.jit-cache/1";
  write_text(json(), entry.dump(1));
  const auto again = compile_all({scale_request()}, opt);
  EXPECT_FALSE(again.modules[0].cache_hit);
  EXPECT_TRUE(again.notes.empty()) << again.notes[0];
  EXPECT_EQ(check_entry(opt.cache_dir, good.key), "");
}

}  // namespace
}  // namespace ako::jit
