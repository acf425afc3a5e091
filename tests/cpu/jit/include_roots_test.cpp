// #include outside the folders a kernel may include from is refused before NVRTC reads it
// (jit/include_scan.hpp): absolute paths, ../ escapes, links, angle brackets, every spelling of
// the directive, computed includes. What stays inside the workspace's input/ and solution/ (or
// the program's own folder, its -I folders, the toolkit) compiles as before.
#include <gtest/gtest.h>

#include "jit/include_scan.hpp"
#include "jit/nvrtc_program.hpp"
#include "jit_test_support.hpp"

namespace ako::jit {
namespace {

using namespace ako::jit::testing;

// tmp/ws/{input,solution}/t/ and a secret beside the workspace, at tmp/secret.cuh.
struct Workspace {
  TempDir tmp;
  fs::path ws = tmp.path() / "ws";
  fs::path solution = ws / "solution" / "t";
  Workspace() {
    fs::create_directories(solution);
    fs::create_directories(ws / "input" / "t");
    write_text(tmp.path() / "secret.cuh", "#error the secret was read\n");
    write_text(ws / "input" / "t" / "shared.cuh", "__device__ float shared_value() { return 2.f; }\n");
  }
  CompileRequest request(const std::string& text) {
    write_text(solution / "k.cuh", text);
    CompileRequest r;
    r.source = solution / "k.cuh";
    r.display_name = "solution/t/k.cuh";
    r.include_roots = {ws / "input", ws / "solution"};
    return r;
  }
  CompileOptions options() const {
    CompileOptions o;
    o.cache_dir = tmp.path() / "cache";
    return o;
  }
};

const char* kKernel = "\n__global__ void k(float* o) { *o = 1.f; }\n";

// The refusal's text; fails the test when the program compiled or NVRTC was called.
std::string refusal(Workspace& w, const std::string& text) {
  const long calls = detail::nvrtc_compile_calls();
  try {
    compile(w.request(text + kKernel), w.options());
  } catch (const IncludeRefused& e) {
    EXPECT_EQ(detail::nvrtc_compile_calls(), calls) << "NVRTC ran before the refusal";
    return e.what();
  }
  ADD_FAILURE() << "compiled: " << text;
  return {};
}

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

TEST(IncludeRoots, AnAbsolutePathIsRefusedNamingTheFileLineAndPath) {
  Workspace w;
  const std::string e = refusal(w, "// a comment\n#include \"/etc/passwd\"");
  EXPECT_TRUE(has(e, "solution/t/k.cuh:2: #include \"/etc/passwd\" refused before NVRTC read it")) << e;
  EXPECT_TRUE(has(e, "it reads /etc/passwd")) << e;
  EXPECT_TRUE(has(e, (w.ws / "solution").string())) << e;  // the allowed folders are listed
  EXPECT_TRUE(has(refusal(w, "#include \"/nonexistent/ako/x.h\""), "an absolute path outside the allowed folders"));
}

TEST(IncludeRoots, AnEscapeByDotDotIsRefused) {
  Workspace w;
  const std::string e = refusal(w, "#include \"../../../secret.cuh\"");
  EXPECT_TRUE(has(e, "it reads " + fs::weakly_canonical(w.tmp.path() / "secret.cuh").string())) << e;
  EXPECT_TRUE(has(refusal(w, "#include <../../../../../../../../etc/passwd>"), "it reads /etc/passwd"));
}

TEST(IncludeRoots, ALinkToAFileOutsideIsRefused) {
  Workspace w;
  fs::create_symlink(w.tmp.path() / "secret.cuh", w.solution / "innocent.cuh");
  EXPECT_TRUE(has(refusal(w, "#include \"innocent.cuh\""), "secret.cuh"));
  fs::create_directory_symlink("/etc", w.solution / "etc");
  EXPECT_TRUE(has(refusal(w, "#include \"etc/passwd\""), "it reads /etc/passwd"));
}

TEST(IncludeRoots, ASolutionFileThatIsALinkOutsideIsRefused) {
  Workspace w;
  fs::create_symlink(w.tmp.path() / "secret.cuh", w.solution / "linked.cuh");
  CompileRequest r = w.request(kKernel);
  r.source = w.solution / "linked.cuh";
  r.display_name = "solution/t/linked.cuh";
  try {
    compile(r, w.options());
    FAIL() << "compiled through the link";
  } catch (const IncludeRefused& e) {
    EXPECT_TRUE(has(e.what(), "solution/t/linked.cuh: refused before NVRTC read anything: the file is a link to")) << e.what();
  }
}

TEST(IncludeRoots, EverySpellingOfTheDirectiveIsSeen) {
  Workspace w;
  for (const char* text : {"#/* hidden */include \"/etc/passwd\"", "%:include \"/etc/passwd\"", "#inc\\\nlude \"/etc/passwd\"",
                           "  #  include_next </etc/passwd>", "#import \"/etc/passwd\"", "?\?=include \"/etc/passwd\"",
                           "/* a comment\n spanning lines */ #include \"/etc/passwd\"",
                           "int x = 1'000; // a digit separator, not a character literal\n#include \"/etc/passwd\"",
                           "#if 0\ndon't be fooled by an apostrophe\n#endif\n#include \"/etc/passwd\""})
    EXPECT_TRUE(has(refusal(w, text), "/etc/passwd")) << text;
  EXPECT_TRUE(has(refusal(w, "#define SECRET \"/etc/passwd\"\n#include SECRET"), "a computed #include")) << "macro";
}

// A header inside the allowed folders, even another task's under input/, compiles as before;
// so does a directive that only looks like one inside a comment or a string.
TEST(IncludeRoots, IncludesInsideTheWorkspaceCompile) {
  Workspace w;
  write_text(w.solution / "local.cuh", "#include \"../../input/t/shared.cuh\"\n");
  const auto m = compile(w.request("#include \"local.cuh\"\n#include <cuda_bf16.h>\n"
                                   "// #include \"/etc/passwd\" in a comment\n"
                                   "__device__ const char* s = \"#include \\\"/etc/passwd\\\"\";\n"
                                   "__global__ void k(float* o) { *o = shared_value(); }\n"),
                         w.options());
  EXPECT_TRUE(has_elf_magic(m.cubin));
}

// A workspace elsewhere than the current folder (`ako gate --root WS` run from a checkout that
// has the same tree): a quoted include relative to the file reads the workspace's header, not
// the current folder's copy at the same relative path (NVRTC looks next to the program's name).
TEST(IncludeRoots, ARelativeIncludeReadsTheWorkspaceNotTheCurrentFolder) {
  Workspace w;
  const fs::path decoy = w.tmp.path() / "cwd";
  fs::create_directories(decoy / "input" / "t");
  fs::create_directories(decoy / "solution" / "t");
  write_text(decoy / "input" / "t" / "shared.cuh", "#error the current folder's copy was read\n");
  const fs::path before = fs::current_path();
  fs::current_path(decoy);
  try {
    const auto m = compile(w.request("#include \"../../input/t/shared.cuh\"\n"
                                     "__global__ void k(float* o) { *o = shared_value(); }\n"),
                           w.options());
    EXPECT_TRUE(has_elf_magic(m.cubin));
  } catch (const std::exception& e) {
    ADD_FAILURE() << e.what();
  }
  fs::current_path(before);
}

TEST(IncludeDirectives, LexesLikeThePreprocessor) {
  const auto d = include_directives(
      "#include \"a.h\"\n"
      "// #include \"comment.h\"\n"
      "/* #include \"block.h\" */\n"
      "__device__ const char* s = \"#include \\\"string.h\\\"\";\n"
      "auto r = R\"x(\n#include \"raw.h\"\n)x\";\n"
      "#include <b.h>\n"
      "#include NAME\n");
  ASSERT_GE(d.size(), 3u);
  EXPECT_EQ(d[0].name, "a.h");
  EXPECT_EQ(d[0].line, 1);
  // The raw string's line is kept too: before C++11, R"x( is no raw string and the line is a directive.
  std::vector<std::string> names;
  for (const auto& x : d) names.push_back(x.name);
  EXPECT_EQ(names, (std::vector<std::string>{"a.h", "raw.h", "b.h", "NAME"}));
  EXPECT_TRUE(d[2].angle);
  EXPECT_EQ(d[2].line, 8);
  EXPECT_TRUE(d[3].computed);
}

}  // namespace
}  // namespace ako::jit
