// The first hour of a new user, outside the binary: scripts/test.sh says which tests were
// skipped and why (after ctest's own closing line, which CI reads, and with ctest's exit
// status), and `ako` can be installed where a shell finds it, as the README says.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/atomic_file.hpp"
#include "cpu/ako_cli_support.hpp"

namespace fs = std::filesystem;

namespace {

using ako::testsupport::has;
using ako::testsupport::Ran;
using ako::testsupport::run_shell;

// A ctest project of three tests written as GoogleTest writes them: one passes, one skips
// with GTEST_SKIP's "file:line: Skipped" and its reason, one skips or fails as asked.
fs::path make_ctest_build(const std::string& name, bool with_failure) {
  const fs::path dir = fs::temp_directory_path() / ("ako-test-sh-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir / "src");
  const std::string skip = "SKIP_REGULAR_EXPRESSION \"\\\\[  SKIPPED \\\\]\"";
  std::ofstream(dir / "src/CMakeLists.txt")
      << "cmake_minimum_required(VERSION 3.20)\nproject(t NONE)\nenable_testing()\n"
      << "add_test(NAME Gpu.Runs COMMAND sh -c \"printf '[ RUN      ] Gpu.Runs\\\\ntests/gpu/a.cpp:12: Skipped\\\\n"
         "no GPU: libcuda.so.1 not found\\\\n\\\\n[  SKIPPED ] Gpu.Runs (0 ms)\\\\n'\")\n"
      << "set_tests_properties(Gpu.Runs PROPERTIES " << skip << ")\n"
      << "add_test(NAME Cpu.Passes COMMAND sh -c \"echo '[       OK ] Cpu.Passes'\")\n"
      << (with_failure ? "add_test(NAME Cpu.Fails COMMAND sh -c \"echo 'expected 1, got 2'; exit 1\")\n"
                       : "add_test(NAME Cpu.ForGpuLess COMMAND sh -c \"printf 'tests/cpu/b.cpp:40: Skipped\\\\n"
                         "a GPU is present; this test is for GPU-less machines\\\\n[  SKIPPED ] x\\\\n'\")\n"
                         "set_tests_properties(Cpu.ForGpuLess PROPERTIES " + skip + ")\n");
  const Ran configured = run_shell("cmake -S '" + (dir / "src").string() + "' -B '" + (dir / "build").string() + "'");
  EXPECT_EQ(configured.status, 0) << configured.out;
  return dir / "build";
}

Ran test_sh(const fs::path& build) {
  return run_shell("AKO_BUILD_DIR='" + build.string() + "' '" AKO_SOURCE_DIR "/scripts/test.sh'");
}

TEST(TestScript, ListsEverySkippedTestWithItsReasonAfterCtestsSummary) {
  const Ran r = test_sh(make_ctest_build("skips", false));
  EXPECT_EQ(r.status, 0) << r.out;
  const size_t closing = r.out.find("100% tests passed, 0 tests failed out of 3");
  ASSERT_NE(closing, std::string::npos) << "ctest's closing line, as CI reads it:\n" << r.out;
  const size_t listed = r.out.find("Skipped tests (2), with their reasons:");
  ASSERT_NE(listed, std::string::npos) << r.out;
  EXPECT_GT(listed, closing) << r.out;
  EXPECT_TRUE(has(r.out, "\n  Gpu.Runs: no GPU: libcuda.so.1 not found\n")) << r.out;
  EXPECT_TRUE(has(r.out, "\n  Cpu.ForGpuLess: a GPU is present; this test is for GPU-less machines\n")) << r.out;
}

TEST(TestScript, AFailedTestStillFailsTheScript) {
  const Ran r = test_sh(make_ctest_build("failure", true));
  EXPECT_NE(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, "tests passed, 1 tests failed out of 3")) << r.out;
  EXPECT_TRUE(has(r.out, "expected 1, got 2")) << "--output-on-failure\n" << r.out;
  EXPECT_TRUE(has(r.out, "  Gpu.Runs: no GPU: libcuda.so.1 not found")) << r.out;
}

// `cmake --install build --prefix P` gives P/bin/ako, which finds its worker and NVRTC there.
TEST(Install, PutsAkoAndItsWorkerInThePrefixAndTheyRun) {
  const fs::path prefix = fs::temp_directory_path() / "ako-install-test";
  fs::remove_all(prefix);
  const Ran install = run_shell("cmake --install '" AKO_BINARY_DIR "' --prefix '" + prefix.string() + "'");
  ASSERT_EQ(install.status, 0) << install.out;
  EXPECT_TRUE(fs::exists(prefix / "bin/ako-worker")) << install.out;
  const Ran version = run_shell("'" + (prefix / "bin/ako").string() + "' version");
  EXPECT_EQ(version.status, 0) << version.out;
  EXPECT_TRUE(has(version.out, "NVRTC 1")) << version.out;
  const Ran compile = run_shell("cd '" AKO_SOURCE_DIR "' && AKO_CACHE_DIR='" + (prefix / "cache").string() + "' '" +
                                (prefix / "bin/ako").string() + "' compile task rmsnorm --arch sm_90a --shapes text-512");
  EXPECT_EQ(compile.status, 0) << compile.out;
  EXPECT_TRUE(has(compile.out, "COMPILED: yes")) << compile.out;
  fs::remove_all(prefix);
}

TEST(Install, TheReadmeSaysWhereAkoIsAndHowToPutItOnPath) {
  const std::string readme = ako::read_file(fs::path(AKO_SOURCE_DIR) / "README.md");
  for (const char* want : {"`ako` is `build/ako`", "export PATH=\"$PWD/build:$PATH\"",
                           "cmake --install build --prefix ~/.local"})
    EXPECT_TRUE(has(readme, want)) << want;
  const Ran setup = run_shell("grep -c 'cmake --install' '" AKO_SOURCE_DIR "/scripts/setup.sh'");
  EXPECT_EQ(setup.out, "1\n") << "setup.sh's last lines say it too";
}

// scripts/pack-bundle.sh and scripts/gpu-unpack-bundle.sh, on a stand-in bundle: what a device
// call carries (bundle-x/) must unpack to the programs that were packed, and a corrupted or
// missing one must stop the GPU scripts, not run something else.
struct BundleDir {
  fs::path dir = fs::temp_directory_path() / "ako-bundle-scripts";
  BundleDir() {
    fs::remove_all(dir);
    fs::create_directories(dir / "bundle/bin");
    fs::create_directories(dir / "bundle/lib");
    std::ofstream(dir / "bundle/bin/hello") << "#!/bin/sh\necho hello-from-the-bundle\n";
    fs::permissions(dir / "bundle/bin/hello", fs::perms::owner_all, fs::perm_options::add);
    std::ofstream(dir / "bundle/lib/libstandin.so.1") << "not really a library\n";
  }
  Ran pack() const {
    return run_shell("BUNDLE='" + (dir / "bundle").string() + "' BUNDLE_X='" + (dir / "bundle-x").string() + "' '" AKO_SOURCE_DIR
                     "/scripts/pack-bundle.sh'");
  }
  Ran unpack(const std::string& from = "bundle-x", const std::string& args = "") const {
    return run_shell("BUNDLE_X='" + (dir / from).string() + "' BUNDLE='" + (dir / "out").string() + "' '" AKO_SOURCE_DIR
                     "/scripts/gpu-unpack-bundle.sh' " + args);
  }
};

TEST(BundleScripts, TheCarriedBundleUnpacksToTheProgramsThatWerePacked) {
  const BundleDir b;
  const Ran packed = b.pack();
  ASSERT_EQ(packed.status, 0) << packed.out;
  EXPECT_TRUE(fs::exists(b.dir / "bundle-x/hello.xz"));
  EXPECT_FALSE(fs::exists(b.dir / "bundle-x/hello")) << "only the xz'd program travels";
  EXPECT_TRUE(has(ako::read_file(b.dir / "bundle-x/MANIFEST"), "  hello"));
  const Ran unpacked = b.unpack();
  ASSERT_EQ(unpacked.status, 0) << unpacked.out;
  EXPECT_EQ(run_shell("'" + (b.dir / "out/bin/hello").string() + "'").out, "hello-from-the-bundle\n");
  EXPECT_TRUE(fs::exists(b.dir / "out/lib/libstandin.so.1"));
}

TEST(BundleScripts, AProgramThatDiffersFromTheManifestIsRemovedAndFails) {
  const BundleDir b;
  ASSERT_EQ(b.pack().status, 0);
  const Ran swapped = run_shell("printf '#!/bin/sh\\necho another\\n' | xz -c > '" + (b.dir / "bundle-x/hello.xz").string() + "'");
  ASSERT_EQ(swapped.status, 0) << swapped.out;
  const Ran unpacked = b.unpack();
  EXPECT_EQ(unpacked.status, 1) << unpacked.out;
  EXPECT_TRUE(has(unpacked.out, "differs from")) << unpacked.out;
  EXPECT_FALSE(fs::exists(b.dir / "out")) << "nothing left for a GPU script to run";
}

TEST(BundleScripts, NothingCarriedExitsTwoAndSaysWhatToCarry) {
  const BundleDir b;
  const Ran unpacked = b.unpack("nothing-here");
  EXPECT_EQ(unpacked.status, 2) << unpacked.out;
  EXPECT_TRUE(has(unpacked.out, "carry bundle-x")) << unpacked.out;
  const Ran packed = run_shell("BUNDLE='" + (b.dir / "none").string() + "' BUNDLE_X='" + (b.dir / "x").string() + "' '" AKO_SOURCE_DIR
                               "/scripts/pack-bundle.sh'");
  EXPECT_EQ(packed.status, 2) << packed.out;
  EXPECT_TRUE(has(packed.out, "make-bundle.sh")) << packed.out;
}

TEST(BundleScripts, IfNeededLeavesAnUnpackedBundleAloneAndAWrongArgumentTouchesNothing) {
  const BundleDir b;
  ASSERT_EQ(b.pack().status, 0);
  fs::create_directories(b.dir / "out/bin");
  std::ofstream(b.dir / "out/bin/ako") << "#!/bin/sh\necho the-bundle-already-here\n";
  fs::permissions(b.dir / "out/bin/ako", fs::perms::owner_all, fs::perm_options::add);
  const Ran kept = b.unpack("bundle-x", "--if-needed");
  EXPECT_EQ(kept.status, 0) << kept.out;
  EXPECT_TRUE(fs::exists(b.dir / "out/bin/ako"));
  EXPECT_FALSE(fs::exists(b.dir / "out/bin/hello")) << "an unpacked bundle is not replaced";
  const Ran none = b.unpack("nothing-here", "--if-needed");
  EXPECT_EQ(none.status, 0) << "nothing carried, nothing to do: " << none.out;
  const Ran wrong = b.unpack("bundle-x", "--help");
  EXPECT_EQ(wrong.status, 2) << wrong.out;
  EXPECT_TRUE(has(wrong.out, "--if-needed")) << "prints its usage: " << wrong.out;
  EXPECT_TRUE(fs::exists(b.dir / "out/bin/ako")) << "a wrong argument removes nothing";
  const Ran unpacked = b.unpack();
  ASSERT_EQ(unpacked.status, 0) << unpacked.out;
  EXPECT_TRUE(fs::exists(b.dir / "out/bin/hello")) << "without --if-needed it unpacks over it";
  const Ran pack_wrong = run_shell("'" AKO_SOURCE_DIR "/scripts/pack-bundle.sh' --help");
  EXPECT_EQ(pack_wrong.status, 2) << pack_wrong.out;
  EXPECT_TRUE(has(pack_wrong.out, "pack bundle/ into bundle-x/")) << pack_wrong.out;
}

}  // namespace
