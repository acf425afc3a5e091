// compile(): NVRTC to cubin, lowered names, resources, errors and the disk cache.
#include <gtest/gtest.h>

#include "jit/include_scan.hpp"
#include "jit/nvrtc_program.hpp"
#include "jit_test_support.hpp"

namespace ako::jit {
namespace {

using namespace ako::jit::testing;

TEST(Compile, TemplatedHalfKernelsGiveCubinLoweredNamesAndResources) {
  TempDir tmp;
  const auto m = compile(scale_request(), cached_in(tmp.path()));
  EXPECT_FALSE(m.cache_hit);
  EXPECT_GT(m.compile_ms, 0);
  ASSERT_TRUE(fs::exists(m.cubin));
  EXPECT_GT(fs::file_size(m.cubin), 0u);
  EXPECT_TRUE(has_elf_magic(m.cubin));
  EXPECT_EQ(m.key, cache_key(scale_request(), cached_in(tmp.path())));

  ASSERT_EQ(m.lowered.size(), 2u);
  const auto& bf16 = m.lowered.at("scale_kernel<__nv_bfloat16, 256>");
  const auto& half = m.lowered.at("scale_kernel<__half, 128>");
  EXPECT_EQ(bf16.rfind("_Z", 0), 0u) << bf16;
  EXPECT_NE(bf16.find("13__nv_bfloat16"), std::string::npos) << bf16;
  EXPECT_NE(half.find("6__half"), std::string::npos) << half;

  // Resources parsed from the live ptxas log, one record per lowered name.
  ASSERT_TRUE(m.resources.contains(bf16)) << m.log;
  ASSERT_TRUE(m.resources.contains(half)) << m.log;
  EXPECT_GE(m.resources.at(bf16).registers, 1);
  EXPECT_EQ(m.resources.at(bf16).spill_stores, 0);
  EXPECT_GE(m.resources.at(half).registers, 1);
  EXPECT_NE(m.log.find("Compiling entry function '" + bf16 + "' for 'sm_90a'"), std::string::npos);
}

TEST(Compile, SecondCompileIsACacheHitWithoutNvrtc) {
  TempDir tmp;
  const auto opt = cached_in(tmp.path());
  const auto first = compile(scale_request(), opt);
  const long calls = detail::nvrtc_compile_calls();
  const auto second = compile(scale_request(), opt);
  EXPECT_EQ(detail::nvrtc_compile_calls(), calls);
  EXPECT_TRUE(second.cache_hit);
  EXPECT_EQ(second.compile_ms, 0);
  EXPECT_EQ(second.cubin, first.cubin);
  EXPECT_EQ(second.lowered, first.lowered);
  EXPECT_EQ(second.resources.size(), first.resources.size());
  for (const auto& [name, r] : first.resources) EXPECT_EQ(second.resources.at(name).registers, r.registers);
  EXPECT_EQ(second.log, first.log);

  const auto entry = entry_json(opt, first.key);
  EXPECT_EQ(entry.at("arch"), "sm_90a");
  EXPECT_EQ(entry.at("nvrtc"), nvrtc_version_string());
  EXPECT_EQ(entry.at("cubin_bytes").get<std::uintmax_t>(), fs::file_size(first.cubin));
}

TEST(Compile, ChangingAnIncludedLocalHeaderChangesTheKeyAndRecompiles) {
  TempDir tmp;
  const fs::path src = tmp.path() / "src";
  fs::create_directories(src);
  fs::copy_file(kernel_dir() / "scale.cuh", src / "scale.cuh");
  fs::copy_file(kernel_dir() / "scale_math.cuh", src / "scale_math.cuh");
  const auto opt = cached_in(tmp.path());
  const auto before = compile(scale_request(src), opt);

  write_text(src / "scale_math.cuh",
             read_text(src / "scale_math.cuh") + "__device__ float ako_unused_helper() { return 2.f; }\n");
  const std::string changed_key = cache_key(scale_request(src), opt);
  EXPECT_NE(changed_key, before.key);
  const long calls = detail::nvrtc_compile_calls();
  const auto after = compile(scale_request(src), opt);
  EXPECT_EQ(detail::nvrtc_compile_calls(), calls + 1);
  EXPECT_FALSE(after.cache_hit);
  EXPECT_EQ(after.key, changed_key);
}

// NVRTC looks for the main file's quoted includes next to the program's name, read from the
// current folder. A display name that leads elsewhere from there (the current folder holds a
// shadow copy of the kernel's folder) must not pull the shadow header in: NVRTC gets the
// absolute path then, and the key and the log are those of the real header.
TEST(Compile, AShadowHeaderNextToTheDisplayNameIsNeverRead) {
  TempDir tmp;
  const auto opt = cached_in(tmp.path());
  const std::string usual_key = cache_key(scale_request(), opt);
  const fs::path old_cwd = fs::current_path();
  fs::create_directories(tmp.path() / "kernels");
  write_text(tmp.path() / "kernels" / "scale_math.cuh",
             read_text(kernel_dir() / "scale_math.cuh") + "#error shadow header used\n");
  fs::current_path(tmp.path());
  std::string shadow_key, log, error;
  try {
    shadow_key = cache_key(scale_request(), opt);
    log = compile(scale_request(), opt).log;
  } catch (const std::exception& e) {
    error = e.what();
  }
  fs::current_path(old_cwd);
  EXPECT_EQ(error, "");
  EXPECT_EQ(shadow_key, usual_key);
  EXPECT_EQ(log.find("shadow header used"), std::string::npos) << log;
}

TEST(Compile, KeyCoversOptionsArchAndNameExpressions) {
  TempDir tmp;
  const auto opt = cached_in(tmp.path());
  const auto base = scale_request();
  const std::string key = cache_key(base, opt);
  EXPECT_EQ(key.size(), 64u);
  EXPECT_EQ(cache_key(base, opt), key);  // stable

  auto with_define = base;
  with_define.extra_options = {"-DAKO_TEST_FLAG=1"};
  EXPECT_NE(cache_key(with_define, opt), key);

  auto other_arch = base;
  other_arch.arch = "sm_90";
  EXPECT_NE(cache_key(other_arch, opt), key);

  auto fewer_names = base;
  fewer_names.name_expressions.pop_back();
  EXPECT_NE(cache_key(fewer_names, opt), key);

  auto reordered = base;
  std::swap(reordered.name_expressions[0], reordered.name_expressions[1]);
  EXPECT_EQ(cache_key(reordered, opt), key);  // the set of names matters, not their order

  auto padded = with_define;
  padded.extra_options = {"  -DAKO_TEST_FLAG=1 ", ""};
  EXPECT_EQ(cache_key(padded, opt), cache_key(with_define, opt));  // normalised
}

TEST(Compile, SyntaxErrorNamesTheFileAndLine) {
  TempDir tmp;
  try {
    compile(broken_request(), cached_in(tmp.path()));
    FAIL() << "broken.cuh compiled";
  } catch (const CompileError& e) {
    EXPECT_EQ(e.file, "kernels/broken.cuh");
    EXPECT_NE(std::string(e.what()).find("kernels/broken.cuh(5): error"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(tmp.path() / "cache" / cache_key(broken_request(), cached_in(tmp.path())).substr(0, 2)));
}

TEST(Compile, VirtualArchIsRejectedClearly) {
  TempDir tmp;
  auto req = scale_request();
  req.arch = "compute_90";
  const long calls = detail::nvrtc_compile_calls();
  try {
    compile(req, cached_in(tmp.path()));
    FAIL() << "compute_90 accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("virtual"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("sm_90"), std::string::npos) << e.what();
  }
  EXPECT_EQ(detail::nvrtc_compile_calls(), calls);
}

TEST(Compile, MissingCudaHeadersAreNamed) {
  TempDir tmp;
  auto opt = cached_in(tmp.path());
  opt.cuda_home = tmp.path() / "no-cuda-here";
  try {
    compile(scale_request(), opt);
    FAIL() << "compiled without CUDA headers";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cuda_bf16.h"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("no-cuda-here"), std::string::npos) << e.what();
  }
}

TEST(Compile, CudaHomeComesFromTheEnvironmentWhenNotGiven) {
  TempDir tmp;
  const char* old = std::getenv("AKO_CUDA_HOME");
  const std::string saved = old ? old : "";
  setenv("AKO_CUDA_HOME", (tmp.path() / "env-cuda").c_str(), 1);
  std::string message;
  try {
    compile(scale_request(), cached_in(tmp.path()));
  } catch (const Error& e) {
    message = e.what();
  }
  if (old) setenv("AKO_CUDA_HOME", saved.c_str(), 1); else unsetenv("AKO_CUDA_HOME");
  EXPECT_NE(message.find("env-cuda"), std::string::npos) << message;
  EXPECT_NE(message.find("$AKO_CUDA_HOME"), std::string::npos) << message;
}

TEST(Compile, CorruptEntriesAreMissesAndGetRewritten) {
  TempDir tmp;
  const auto opt = cached_in(tmp.path());
  const auto good = compile(local_array_request(), opt);
  const std::string cubin = read_text(good.cubin);
  const fs::path json = opt.cache_dir / good.key.substr(0, 2) / (good.key + ".json");

  const auto expect_recompiled = [&](const char* what) {
    const long calls = detail::nvrtc_compile_calls();
    const auto m = compile(local_array_request(), opt);
    EXPECT_EQ(detail::nvrtc_compile_calls(), calls + 1) << what;
    EXPECT_FALSE(m.cache_hit) << what;
    EXPECT_EQ(read_text(m.cubin), cubin) << what;
    EXPECT_TRUE(compile(local_array_request(), opt).cache_hit) << what << ": not rewritten";
  };

  write_text(good.cubin, cubin.substr(0, cubin.size() / 2));
  expect_recompiled("truncated cubin");
  write_text(good.cubin, "\x7f" "ELX" + cubin.substr(4));
  expect_recompiled("cubin without ELF magic");
  fs::remove(json);
  expect_recompiled("missing json");
  write_text(json, read_text(json).substr(0, 40));
  expect_recompiled("truncated json");
  fs::remove(good.cubin);
  expect_recompiled("missing cubin");
}

TEST(Compile, LargeLocalArrayReportsStack) {
  TempDir tmp;
  const auto m = compile(local_array_request(), cached_in(tmp.path()));
  ASSERT_TRUE(m.resources.contains("local_array_kernel")) << m.log;
  const auto& r = m.resources.at("local_array_kernel");
  EXPECT_GE(r.stack_bytes, 1024) << m.log;  // float[256]
  EXPECT_GE(r.registers, 1);
}

TEST(Compile, WithoutCacheEveryCompileRunsNvrtc) {
  TempDir tmp;
  auto opt = cached_in(tmp.path());
  opt.use_cache = false;
  const long calls = detail::nvrtc_compile_calls();
  const auto a = compile(local_array_request(), opt);
  const auto b = compile(local_array_request(), opt);
  EXPECT_EQ(detail::nvrtc_compile_calls(), calls + 2);
  EXPECT_FALSE(b.cache_hit);
  EXPECT_TRUE(has_elf_magic(b.cubin));
  EXPECT_FALSE(fs::exists(opt.cache_dir));
}

TEST(Compile, VersionStringNamesMajorMinorAndBuild) {
  const std::string v = nvrtc_version_string();
  EXPECT_NE(v.find("build-id "), std::string::npos) << v;
  EXPECT_TRUE(std::isdigit(static_cast<unsigned char>(v[0]))) << v;
}

TEST(Compile, DefaultCacheDirFollowsTheEnvironment) {
  const char* old = std::getenv("AKO_CACHE_DIR");
  const std::string saved = old ? old : "";
  setenv("AKO_CACHE_DIR", "/tmp/ako-cache-test", 1);
  EXPECT_EQ(default_cache_dir(), fs::path("/tmp/ako-cache-test"));
  if (old) setenv("AKO_CACHE_DIR", saved.c_str(), 1); else unsetenv("AKO_CACHE_DIR");
}

}  // namespace
}  // namespace ako::jit
