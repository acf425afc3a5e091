#include "port/line_diff.hpp"

#include <algorithm>

namespace ako::port {

namespace {

struct Op {
  char kind;   // ' ', '-', '+'
  int a, b;    // line index in before / after (the one that applies)
};

std::vector<Op> diff_ops(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<int>> lcs(n + 1, std::vector<int>(m + 1, 0));
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  std::vector<Op> ops;
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) ops.push_back({' ', int(i++), int(j++)});
    else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) ops.push_back({'-', int(i++), int(j)});
    else ops.push_back({'+', int(i), int(j++)});  // removals before additions, as diff prints them
  }
  return ops;
}

}  // namespace

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t at = 0;
  while (at < text.size()) {
    const size_t e = text.find('\n', at);
    if (e == std::string::npos) { lines.push_back(text.substr(at)); break; }
    lines.push_back(text.substr(at, e - at));
    at = e + 1;
  }
  return lines;
}

int changed_line_count(const std::string& before, const std::string& after) {
  const auto ops = diff_ops(split_lines(before), split_lines(after));
  return static_cast<int>(std::count_if(ops.begin(), ops.end(), [](const Op& o) { return o.kind != ' '; }));
}

std::string unified_diff(const std::string& before, const std::string& after, const std::string& before_name,
                         const std::string& after_name, int context) {
  const auto a = split_lines(before), b = split_lines(after);
  const auto ops = diff_ops(a, b);
  std::string out;
  size_t k = 0;
  while (k < ops.size()) {
    if (ops[k].kind == ' ') { ++k; continue; }
    // A hunk: from `context` lines before this change to `context` after the last change that
    // is within 2*context of the previous one.
    size_t start = k >= size_t(context) ? k - context : 0;
    while (start < k && ops[start].kind != ' ') ++start;
    size_t end = k;
    size_t last_change = k;
    while (end < ops.size()) {
      if (ops[end].kind != ' ') last_change = end;
      else if (end - last_change > size_t(2 * context)) break;
      ++end;
    }
    end = std::min(ops.size(), last_change + 1 + context);
    int a_start = -1, b_start = -1, a_len = 0, b_len = 0;
    std::string body;
    for (size_t x = start; x < end; ++x) {
      const Op& o = ops[x];
      if (o.kind != '+') { if (a_start < 0) a_start = o.a; ++a_len; }
      if (o.kind != '-') { if (b_start < 0) b_start = o.b; ++b_len; }
      body += o.kind;
      body += o.kind == '+' ? b[o.b] : a[o.a];
      body += '\n';
    }
    if (out.empty()) out = "--- " + before_name + "\n+++ " + after_name + "\n";
    auto range = [](int s, int len, int fallback) {
      return std::to_string(len == 0 ? fallback : s + 1) + "," + std::to_string(len);
    };
    out += "@@ -" + range(a_start, a_len, ops[start].a) + " +" + range(b_start, b_len, ops[start].b) + " @@\n" + body;
    k = end;
  }
  return out;
}

}  // namespace ako::port
