#include "iterate/commit_message.hpp"

#include <sstream>

#include <fmt/format.h>

namespace ako::iterate {

namespace {

std::string one_line(const std::string& s) {
  std::string out;
  for (char c : s) out += (c == '\n' || c == '\r') ? ' ' : c;
  return out;
}

std::string number(const std::optional<double>& v, const char* format) {
  return v ? fmt::format(fmt::runtime(format), *v) : "null";
}

bool is_key(const std::string& k) {
  if (k.empty()) return false;
  for (char c : k)
    if (!((c >= 'a' && c <= 'z') || c == '_')) return false;
  return true;
}

}  // namespace

std::string commit_message(const CommitFacts& f) {
  std::string subject;
  switch (f.kind) {
    case CommitKind::baseline:  // a title written as "[baseline] ..." by hand keeps one tag
      subject = one_line(f.title).starts_with("[baseline]") ? one_line(f.title) : "[baseline] " + one_line(f.title);
      break;
    case CommitKind::iteration: subject = fmt::format("[iter {}] {}", f.iter, one_line(f.title)); break;
    case CommitKind::restore:
      subject = fmt::format("[final] Restore iter-{} ({} vs baseline)", f.restored_from,
                            f.speedup_vs_baseline ? fmt::format("{:.2f}x", *f.speedup_vs_baseline) : "not measured");
      break;
  }
  std::string body;
  auto key = [&](const char* k, const std::string& v) { body += fmt::format("{}: {}\n", k, one_line(v)); };
  key("task", f.task);
  key("iter", std::to_string(f.iter));
  if (f.kind == CommitKind::restore) key("restored", std::to_string(f.restored_from));
  key("gpu", f.gpu.empty() ? "none" : f.gpu);
  key("correctness", f.correctness);
  key("status", f.status);
  key("speedup_vs_baseline", number(f.speedup_vs_baseline, "{:.4f}"));
  key("speedup_vs_reference", number(f.speedup_vs_reference, "{:.4f}"));
  key("runtime_us", number(f.runtime_us, "{:.2f}"));
  key("best", std::to_string(f.best));
  key("cases", f.cases);
  key("ncu", f.ncu.empty() ? "not profiled" : f.ncu);
  key("hypothesis", f.hypothesis);
  return subject + "\n\n" + body;
}

CommitKeys parse_commit_keys(const std::string& message) {
  CommitKeys k;
  const size_t body = message.find("\n\n");
  if (body == std::string::npos) return k;
  std::istringstream in(message.substr(body + 2));
  std::string line;
  while (std::getline(in, line)) {
    const size_t colon = line.find(": ");
    if (colon == std::string::npos || !is_key(line.substr(0, colon))) continue;
    k.keys[line.substr(0, colon)] = line.substr(colon + 2);
  }
  if (k.keys.count("task")) k.task = k.keys["task"];
  if (k.keys.count("iter")) {
    try {
      k.iter = std::stoi(k.keys["iter"]);
    } catch (const std::exception&) {
      k.iter = -1;
    }
  }
  return k;
}

}  // namespace ako::iterate
