#pragma once
// A small line diff (longest common subsequence) printed as unified hunks: what drift
// refusals and `ako port --dry-run` show. Files here are kernels and wrappers of a few
// hundred lines, so the quadratic table is cheap and the code stays obvious.
#include <string>
#include <vector>

namespace ako::port {

std::vector<std::string> split_lines(const std::string& text);

// "--- a\n+++ b\n@@ -l,n +l,n @@\n ..." with `context` lines around each change; empty when
// the texts are equal. A side that does not exist is named /dev/null by the caller.
std::string unified_diff(const std::string& before, const std::string& after, const std::string& before_name,
                         const std::string& after_name, int context = 3);

// Lines changed between the two texts (added + removed), for summaries.
int changed_line_count(const std::string& before, const std::string& after);

}  // namespace ako::port
