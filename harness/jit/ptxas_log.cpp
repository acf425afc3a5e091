#include "jit/ptxas_log.hpp"

#include <optional>
#include <regex>
#include <set>
#include <sstream>

namespace ako::jit {

namespace {

std::optional<int> find_int(const std::string& line, const std::regex& re) {
  std::smatch m;
  if (!std::regex_search(line, m, re)) return std::nullopt;
  return std::stoi(m[1].str());
}

}  // namespace

std::map<std::string, KernelResources> parse_ptxas_log(std::string_view log) {
  static const std::regex entry_re(R"(Compiling entry function '([^']+)')");
  static const std::regex props_re(R"(Function properties for (\S+))");
  static const std::regex stack_re(R"((\d+) bytes stack frame)");
  static const std::regex spill_st_re(R"((\d+) bytes spill stores)");
  static const std::regex spill_ld_re(R"((\d+) bytes spill loads)");
  static const std::regex used_re(R"(Used (\d+) registers)");
  static const std::regex barriers_re(R"(used (\d+) barriers)");
  static const std::regex smem_re(R"((\d+) bytes smem)");
  static const std::regex cmem_re(R"((\d+) bytes cmem\[0\])");

  std::map<std::string, KernelResources> all;  // entries and device functions alike
  std::set<std::string> entries;
  std::string current_entry;     // the "Used N registers" line belongs to it
  std::string current_function;  // the "stack frame" line belongs to it

  std::istringstream in{std::string(log)};
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, entry_re)) {
      current_entry = current_function = m[1].str();
      entries.insert(current_entry);
      all[current_entry];
    } else if (std::regex_search(line, m, props_re)) {
      current_function = m[1].str();
    } else if (auto stack = find_int(line, stack_re); stack && !current_function.empty()) {
      auto& r = all[current_function];
      r.stack_bytes = *stack;
      r.spill_stores = find_int(line, spill_st_re).value_or(r.spill_stores);
      r.spill_loads = find_int(line, spill_ld_re).value_or(r.spill_loads);
    } else if (auto regs = find_int(line, used_re); regs && !current_entry.empty()) {
      auto& r = all[current_entry];
      r.registers = *regs;
      r.barriers = find_int(line, barriers_re).value_or(r.barriers);
      r.shared_bytes = find_int(line, smem_re).value_or(0);  // ptxas omits a zero
      r.constant_bytes = find_int(line, cmem_re).value_or(r.constant_bytes);
    }
  }

  std::map<std::string, KernelResources> kernels;
  for (const auto& name : entries) kernels[name] = all[name];
  return kernels;
}

}  // namespace ako::jit
