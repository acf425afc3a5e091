// The port of the rmsnorm spec (the frozen tests/cpu/task/fixtures snapshot and its config, with a
// one-line stand-in for the solution's device code) against files rendered before format v2's
// buffer and axis kinds came to the port (fixtures/rmsnorm_port.{cuh,py}): a spec that uses none
// of them must port byte for byte as before. AKO_UPDATE_GOLDEN=1 rewrites the files, for a
// deliberate change.
#include <fstream>
#include <sstream>

#include "cpu/port/port_v2_fixture.hpp"

namespace ako::port {
namespace {

using testing::json;
using testing::PortV2;

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

json read_json(const std::filesystem::path& p) { return json::parse(read_text(p)); }

// Where two texts part: the line number and both lines.
std::string first_difference(const std::string& want, const std::string& got) {
  std::istringstream a(want), b(got);
  std::string la, lb;
  for (int line = 1;; ++line) {
    const bool more_a = static_cast<bool>(std::getline(a, la)), more_b = static_cast<bool>(std::getline(b, lb));
    if (!more_a && !more_b) return "identical";
    if (la != lb || more_a != more_b)
      return "line " + std::to_string(line) + ":\n  golden:   " + (more_a ? la : "<end>") + "\n  rendered: " + (more_b ? lb : "<end>");
  }
}

void expect_golden(const std::filesystem::path& file, const std::string& rendered) {
  if (std::getenv("AKO_UPDATE_GOLDEN")) testing::write_file(file, rendered);
  const std::string golden = read_text(file);
  EXPECT_TRUE(golden == rendered) << file.filename().string() << " differs at " << first_difference(golden, rendered);
}

TEST_F(PortV2, RmsnormPortsExactlyAsBeforeFormatV2Kinds) {
  const std::filesystem::path fixtures = std::filesystem::path(AKO_TEST_DIR) / "cpu";
  const auto spec = spec_of(read_json(fixtures / "task/fixtures/rmsnorm_task_snapshot.json"),
                            "// the solution's device code (not part of this snapshot)\n",
                            read_json(fixtures / "task/fixtures/rmsnorm_config.json"));
  const auto r = render(spec);
  expect_golden(fixtures / "port/fixtures/rmsnorm_port.cuh", r.kernel);
  expect_golden(fixtures / "port/fixtures/rmsnorm_port.py", r.wrapper);
}

}  // namespace
}  // namespace ako::port
