#pragma once
// `ako compile`'s kernel table read back in the task tests: one row a kernel (role, name,
// registers, spill bytes, stack bytes), and the check that none of them uses local memory.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace ako::task::testing {

struct Row {
  std::string role, kernel;
  int regs = 0, spill = 0, stack = 0;
};

inline std::vector<Row> compile_rows(const std::string& out) {
  static const std::regex line(R"(^(solution|reference|oracle|baseline \w+)\s+(\S.*>)\s+(\d+)\s+(\d+)\s+(\d+)\s+\d+\s)");
  std::vector<Row> rows;
  std::istringstream in(out);
  std::string l;
  std::smatch m;
  while (std::getline(in, l))
    if (std::regex_search(l, m, line)) rows.push_back({m[1], m[2], std::stoi(m[3]), std::stoi(m[4]), std::stoi(m[5])});
  return rows;
}

inline void expect_no_spills(const std::vector<Row>& rows) {
  for (const auto& r : rows) {
    EXPECT_EQ(r.spill, 0) << r.role << " " << r.kernel;
    EXPECT_EQ(r.stack, 0) << r.role << " " << r.kernel << ": local memory (a register array indexed at run time?)";
    EXPECT_GT(r.regs, 0) << r.role << " " << r.kernel;
  }
}

}  // namespace ako::task::testing
