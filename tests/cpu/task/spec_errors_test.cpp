// Each malformed spec (or config) is an ako::SpecError naming the file, the field and what is
// expected. Every row mutates the real rmsnorm document in memory.
#include <functional>

#include <gtest/gtest.h>

#include "common/error.hpp"
#include "task/spec.hpp"
#include "task_fixture.hpp"

namespace ako::task {
namespace {

using nlohmann::json;
using testing::ScratchRoot;

struct BadSpec {
  std::string what;
  std::function<void(json&)> mutate;
  std::string field;
  std::string expected;  // must appear in the message
};

void PrintTo(const BadSpec& b, std::ostream* os) { *os << b.what; }

// Asserts that parsing `doc` fails with a SpecError on `file` at `field` saying `expected`.
void expect_spec_error(const std::function<void()>& parse, const std::string& file, const std::string& field,
                       const std::string& expected) {
  try {
    parse();
    ADD_FAILURE() << "parsed without error; expected '" << field << "': " << expected;
  } catch (const SpecError& e) {
    std::string m = e.what();
    EXPECT_EQ(e.file, file);
    EXPECT_EQ(e.field, field) << m;
    EXPECT_EQ(m.find(file + ": field '" + field + "': "), 0u) << m;
    EXPECT_NE(m.find(expected), std::string::npos) << m << "\nexpected to contain: " << expected;
  }
}

class MalformedSpec : public ::testing::TestWithParam<BadSpec> {};

TEST_P(MalformedSpec, NamesFileFieldAndExpectation) {
  ScratchRoot root;
  json doc = testing::real_task_doc();
  GetParam().mutate(doc);
  std::string expected = GetParam().expected;
  // Messages that quote a resolved path are written relative to the scratch root.
  if (auto at = expected.find("<root>"); at != std::string::npos) expected.replace(at, 6, root.path().string());
  expect_spec_error([&] { root.parse(doc); }, root.task_file().string(), GetParam().field, expected);
}

const BadSpec kBadSpecs[] = {
    {"missing field", [](json& d) { d.erase("name"); }, "name", "required field is missing; expected a string"},
    {"missing oracle", [](json& d) { d.erase("oracle"); }, "oracle", "required: the task's fp64 oracle"},
    {"version 1 spec", [](json& d) { d["schema"] = "ako.task/1"; }, "schema", "got \"ako.task/1\". Convert: set \"schema\" to \"ako.task/2\""},
    {"missing buffers", [](json& d) { d.erase("buffers"); }, "buffers", "required field is missing; expected an array"},
    {"wrong type", [](json& d) { d["trials"] = "3"; }, "trials", "expected an integer, got \"3\""},
    {"wrong type: dims", [](json& d) { d["dims"] = "rows"; }, "dims", "expected an array, got \"rows\""},
    {"wrong schema", [](json& d) { d["schema"] = "ako.task/3"; }, "schema", "expected \"ako.task/2\", got \"ako.task/3\""},
    {"unknown top-level field", [](json& d) { d["shape"] = json::array(); }, "shape", "unknown field; expected one of schema, name"},
    {"unknown dtype", [](json& d) { d["dtypes"][1] = "bf8"; }, "dtypes[1]", "expected one of bf16, fp16, fp32, got \"bf8\""},
    {"duplicate dtype", [](json& d) { d["dtypes"][1] = "bf16"; }, "dtypes[1]", "expected each dtype once"},
    {"empty dtypes", [](json& d) { d["dtypes"] = json::array(); }, "dtypes", "expected a non-empty array of dtypes"},
    {"flag clashes with a dim", [](json& d) { d["flags"][0] = "rows"; }, "flags[0]", "not used by another dim, flag, axis or param, got \"rows\""},
    {"reserved dim name", [](json& d) { d["dims"][0] = "T"; }, "dims[0]", "other than the reserved"},
    {"trials zero", [](json& d) { d["trials"] = 0; }, "trials", "expected an integer from 1 to 1000, got 0"},
    {"negative tolerance", [](json& d) { d["tolerance"]["bf16"]["atol"] = -1; }, "tolerance.bf16.atol", "expected a finite number >= 0, got -1"},
    {"tolerance for an unknown dtype", [](json& d) { d["tolerance"]["bf8"] = {{"atol", 0.1}}; }, "tolerance.bf8", "unknown dtype"},
    {"tolerance typo", [](json& d) { d["tolerance"]["fp16"]["atl"] = 0.1; }, "tolerance.fp16.atl", "unknown field; expected one of atol, rtol"},
    {"error factor below 1", [](json& d) { d["error_factor"]["bf16"]["rms"] = 0.5; }, "error_factor.bf16.rms", "expected a finite factor >= 1 (the multiple of the reference's error the candidate may reach), got 0.5"},
    {"error factor not a number", [](json& d) { d["error_factor"]["fp16"]["max"] = "3"; }, "error_factor.fp16.max", "expected a number, got \"3\""},
    {"error factor for an integer dtype", [](json& d) { d["error_factor"]["i32"] = {{"rms", 2}}; }, "error_factor.i32", "unknown dtype; expected keys among bf16, fp16, fp32"},
    {"error factor typo", [](json& d) { d["error_factor"]["bf16"]["mean"] = 2; }, "error_factor.bf16.mean", "unknown field; expected one of rms, max"},
    {"error factor on an input", [](json& d) { d["buffers"][0]["error_factor"] = {{"bf16", {{"rms", 2}}}}; }, "buffers[0].error_factor", "an error factor applies to what is compared: role out or inout"},
    {"unknown role", [](json& d) { d["buffers"][0]["role"] = "scratch"; }, "buffers[0].role", "expected one of in, out, inout, got \"scratch\""},
    {"version 1 role", [](json& d) { d["buffers"][1]["role"] = "weight"; }, "buffers[1].role", "(ako.task/1's roles: input and weight are now \"in\""},
    {"unknown buffer dtype", [](json& d) { d["buffers"][2]["dtype"] = "int8"; }, "buffers[2].dtype", "expected \"$dtype\", a dtype (bf16, fp16, fp32, i32, i64) or \"$<string axis>\", got \"int8\""},
    {"dtype axis mixing integers and floats",
     [](json& d) {
       d["axes"] = json::array({{{"name", "idx_t"}, {"values", {"i32", "bf16"}}}});
       d["buffers"][1]["dtype"] = "$idx_t";
     },
     "buffers[1].dtype", "its values must be bf16, fp16, fp32 or same, or all of them i32 or i64; it has \"bf16\""},
    {"integer dtype axis on a buffer filled as floats",
     [](json& d) {
       d["axes"] = json::array({{{"name", "idx_t"}, {"values", {"i64", "i32"}}}});
       d["buffers"][1]["dtype"] = "$idx_t";
     },
     "buffers[1].init.dist", "expected \"range\" for an integer buffer, got \"normal\""},
    {"duplicate buffer name", [](json& d) { d["buffers"][2]["name"] = "x"; }, "buffers[2].name", "expected a unique buffer name, got \"x\" again"},
    {"no output buffer", [](json& d) { d["buffers"][2]["role"] = "in"; }, "buffers", "expected at least one buffer with role \"out\" or \"inout\""},
    {"dangling present_if", [](json& d) { d["buffers"][1]["present_if"] = "bias"; }, "buffers[1].present_if", "expression \"bias\" uses unknown identifier 'bias' (known: rows, cols, weight)"},
    {"undeclared dim in a buffer shape", [](json& d) { d["buffers"][0]["shape"][1] = "hidden"; }, "buffers[0].shape[1]", "uses unknown identifier 'hidden' (known: rows, cols, weight)"},
    {"bad expression in a buffer shape", [](json& d) { d["buffers"][0]["shape"][0] = "rows *"; }, "buffers[0].shape[0]", "expected a number, an identifier or '(', got the end at column 7"},
    {"unknown init distribution", [](json& d) { d["buffers"][0]["init"]["dist"] = "cauchy"; }, "buffers[0].init.dist", "expected one of normal, uniform, range, got \"cauchy\""},
    {"unknown scalar type", [](json& d) { d["scalars"][2]["type"] = "f64"; }, "scalars[2].type", "expected one of i32, i64, f32, got \"f64\""},
    {"f32 scalar given as a string", [](json& d) { d["scalars"][2]["value"] = "1e-6"; }, "scalars[2].value", "expected a number, got \"1e-6\""},
    {"int scalar over an undeclared dim", [](json& d) { d["scalars"][0]["value"] = "tokens"; }, "scalars[0].value", "uses unknown identifier 'tokens'"},
    {"scalar named like a buffer", [](json& d) { d["scalars"][0]["name"] = "out"; }, "scalars[0].name", "expected a name no other buffer or scalar has"},
    {"unknown kernel arg", [](json& d) { d["solution"]["args"][1] = "y"; }, "solution.args[1]", "expected the name of a buffer or scalar (x, weight, out, rows, cols, eps), got \"y\""},
    {"bad grid expression", [](json& d) { d["solution"]["grid"][0] = "ceil_div(rows, ROWS_PER_BLOCK"; }, "solution.grid[0]", "expected ')', got the end"},
    {"grid with four entries", [](json& d) { d["solution"]["block"] = {"1", "1", "1", "1"}; }, "solution.block", "expected 1 to 3 integer expressions (block x, y, z), got 4"},
    {"reference uses a solution param", [](json& d) { d["reference"]["grid"][0] = "ceil_div(rows, ROWS_PER_BLOCK)"; }, "reference.grid[0]", "uses unknown identifier 'ROWS_PER_BLOCK' (known: rows, cols, weight)"},
    {"reference declares params", [](json& d) { d["reference"]["params"] = {{"BLOCK", {256}}}; }, "reference.params", "unknown field; expected one of file, kernel"},
    {"unknown placeholder in kernel name", [](json& d) { d["reference"]["kernel"] = "rmsnorm_reference<{T}, {bias}>"; }, "reference.kernel", "got {bias}"},
    {"unterminated placeholder", [](json& d) { d["solution"]["kernel"] = "rmsnorm_kernel<{T, {BLOCK}>"; }, "solution.kernel", "unterminated '{' at column 16"},
    {"missing kernel file", [](json& d) { d["solution"]["file"] = "solution/rmsnorm/missing.cuh"; }, "solution.file", "expected an existing file relative to the repository root; <root>/solution/rmsnorm/missing.cuh does not exist"},
    {"missing reference file", [](json& d) { d["reference"]["file"] = "input/rmsnorm/nope.cuh"; }, "reference.file", "input/rmsnorm/nope.cuh does not exist"},
    {"empty param values", [](json& d) { d["solution"]["params"]["BLOCK"] = json::array(); }, "solution.params.BLOCK", "expected a non-empty array of allowed integer values"},
    {"non-integer param value", [](json& d) { d["solution"]["params"]["VEC"] = {8, "4"}; }, "solution.params.VEC[1]", "expected an integer, got \"4\""},
    {"param named like a dim", [](json& d) { d["solution"]["params"]["cols"] = {1}; }, "solution.params.cols", "not a dim, flag or reserved name"},
    {"constraint over an unknown name", [](json& d) { d["solution"]["constraints"][1] = "pow2(BLOCK / ROWS)"; }, "solution.constraints[1]", "uses unknown identifier 'ROWS'"},
    {"constraint with a syntax error", [](json& d) { d["solution"]["constraints"][0] = "BLOCK %% 2"; }, "solution.constraints[0]", "at column 8"},
    {"empty shapes", [](json& d) { d["shapes"] = json::array(); }, "shapes", "expected a non-empty array of shapes"},
    {"shape lacks a dim", [](json& d) { d["shapes"][3].erase("cols"); }, "shapes[3].cols", "required field is missing; expected a positive integer"},
    {"shape dim zero", [](json& d) { d["shapes"][0]["rows"] = 0; }, "shapes[0].rows", "expected a positive integer, got 0"},
    {"shape dim as a string", [](json& d) { d["shapes"][0]["rows"] = "512"; }, "shapes[0].rows", "expected a positive integer, got \"512\""},
    {"shape with an undeclared dim", [](json& d) { d["shapes"][2]["batch"] = 2; }, "shapes[2].batch", "unknown field; expected a declared dim (rows, cols) or name, source"},
    {"duplicate shape name", [](json& d) { d["shapes"][1]["name"] = "text-512"; }, "shapes[1].name", "unique across shapes and check_shapes, got \"text-512\" again"},
    {"check shape reuses a shape name", [](json& d) { d["check_shapes"][0]["name"] = "flux1-single"; }, "check_shapes[0].name", "got \"flux1-single\" again"},
    {"shape name with a space", [](json& d) { d["shapes"][0]["name"] = "text 512"; }, "shapes[0].name", "expected a name of letters, digits"},
    {"port not an object", [](json& d) { d["port"] = "sglang"; }, "port", "expected an object, got \"sglang\""},
};

INSTANTIATE_TEST_SUITE_P(Rows, MalformedSpec, ::testing::ValuesIn(kBadSpecs));

// Config errors name the config file (not the task file) and the class field.
class MalformedConfig : public ::testing::TestWithParam<BadSpec> {};

TEST_P(MalformedConfig, NamesConfigFileFieldAndExpectation) {
  ScratchRoot root;
  json config = testing::fixture_config_doc();
  GetParam().mutate(config);
  root.write_config(config);
  json doc = testing::real_task_doc();
  expect_spec_error([&] { root.parse(doc); }, root.config_file().string(), GetParam().field, GetParam().expected);
}

const BadSpec kBadConfigs[] = {
    {"param value not allowed", [](json& c) { c["classes"][0]["params"]["BLOCK"] = 48; }, "classes[0].params.BLOCK", "expected one of 32, 64, 128, 256, 512, 1024 (the allowed values in"},
    {"unknown param", [](json& c) { c["classes"][1]["params"]["WARPS"] = 4; }, "classes[1].params.WARPS", "unknown parameter; expected one of the solution's params (BLOCK, "},
    {"when over an unknown name", [](json& c) { c["classes"][0]["when"] = "heads > 2"; }, "classes[0].when", "uses unknown identifier 'heads' (known: rows, cols, weight, dtype)"},
    {"when with a syntax error", [](json& c) { c["classes"][0]["when"] = "cols <="; }, "classes[0].when", "got the end"},
    {"when uses a param", [](json& c) { c["classes"][0]["when"] = "BLOCK > 2"; }, "classes[0].when", "unknown identifier 'BLOCK'"},
    {"wrong schema", [](json& c) { c["schema"] = "ako.task/1"; }, "schema", "expected \"ako.config/1\", got \"ako.task/1\""},
    {"duplicate class", [](json& c) { c["classes"][2]["name"] = "wide"; }, "classes[2].name", "expected a unique class name, got \"wide\" again"},
    {"classes missing", [](json& c) { c.erase("classes"); }, "classes", "required field is missing; expected an array"},
    {"unknown class field", [](json& c) { c["classes"][0]["where"] = "cols < 2"; }, "classes[0].where", "unknown field; expected one of name, when, params"},
};

INSTANTIATE_TEST_SUITE_P(Rows, MalformedConfig, ::testing::ValuesIn(kBadConfigs));

TEST(MalformedConfigFile, InvalidJsonNamesTheConfig) {
  ScratchRoot root;
  testing::write_file(root.config_file(), "{\"schema\": ");
  expect_spec_error([&] { root.parse(testing::real_task_doc()); }, root.config_file().string(), "$",
                    "expected a valid JSON document");
}

}  // namespace
}  // namespace ako::task
