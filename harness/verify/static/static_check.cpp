#include "verify/static/static_check.hpp"

#include <algorithm>
#include <sstream>

#include <fmt/format.h>

namespace ako::verify {

namespace {

bool ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

// Position of `word` in `line` as a whole identifier (not part of a longer one), or npos.
size_t find_word(const std::string& line, const std::string& word, size_t from = 0) {
  for (size_t p = line.find(word, from); p != std::string::npos; p = line.find(word, p + 1)) {
    const bool left = p == 0 || !ident_char(line[p - 1]);
    const bool right = p + word.size() >= line.size() || !ident_char(line[p + word.size()]);
    if (left && right) return p;
  }
  return std::string::npos;
}

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return {};
  const size_t b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

// The instruction's mnemonic with its suffixes ("ld.global.nc.f32"), after any predicate guard.
std::string mnemonic(const std::string& stmt) {
  std::string s = stmt;
  if (!s.empty() && s[0] == '@') {
    const size_t sp = s.find_first_of(" \t");
    s = sp == std::string::npos ? "" : trim(s.substr(sp));
  }
  const size_t end = s.find_first_of(" \t;");
  return s.substr(0, end);
}

struct Function {
  std::string name;
  bool entry = false;
  std::vector<std::string> body;  // statements, comments stripped
};

struct Global {
  std::string name;
  std::string decl;
};

struct Ptx {
  std::vector<Function> functions;
  std::vector<Global> globals;
};

// Name of a .global declaration: the first token after the directives that is not one.
std::string global_name(const std::string& decl) {
  std::istringstream in(decl);
  std::string tok;
  bool seen_global = false;
  while (in >> tok) {
    if (tok == ".global") { seen_global = true; continue; }
    if (!seen_global || tok[0] == '.') continue;
    if (std::all_of(tok.begin(), tok.end(), [](char c) { return c >= '0' && c <= '9'; })) continue;  // .align N
    std::string name;
    for (char c : tok) {
      if (!ident_char(c)) break;
      name += c;
    }
    return name;
  }
  return {};
}

bool is_global_decl(const std::string& stmt) {
  // ".global .align 4 .b8 cache[64];" or ".visible .global ..." (never "ld.global ...").
  std::istringstream in(stmt);
  std::string tok;
  while (in >> tok) {
    if (tok == ".visible" || tok == ".extern" || tok == ".weak" || tok == ".common") continue;
    return tok == ".global";
  }
  return false;
}

Ptx parse(const std::string& text) {
  Ptx out;
  std::istringstream in(text);
  std::string raw;
  int depth = 0;
  Function* current = nullptr;
  std::string stmt;    // a statement may span lines (call sequences) until its ';'
  while (std::getline(in, raw)) {
    const size_t comment = raw.find("//");
    std::string line = trim(comment == std::string::npos ? raw : raw.substr(0, comment));
    if (line.empty()) continue;
    if (is_global_decl(line)) {
      out.globals.push_back({global_name(line), line});
      continue;
    }
    if (depth == 0) {
      const bool is_entry = find_word(line, ".entry") != std::string::npos;
      const bool is_func = find_word(line, ".func") != std::string::npos;
      if ((is_entry || is_func) && find_word(line, ".extern") == std::string::npos) {
        // ".visible .entry name(" or ".func (.param .b32 r) name(": the name precedes the
        // parameter list's "(" that follows the keyword and any return list.
        size_t p = line.find(is_entry ? ".entry" : ".func") + (is_entry ? 6 : 5);
        std::string rest = trim(line.substr(p));
        if (!rest.empty() && rest[0] == '(') rest = trim(rest.substr(rest.find(')') + 1));
        std::string name;
        for (char c : rest) {
          if (!ident_char(c)) break;
          name += c;
        }
        out.functions.push_back({name, is_entry, {}});
        current = &out.functions.back();
      }
    }
    for (char c : line) {
      if (c == '{' || c == '}' || c == ';') {
        // A statement ends at ';' and at a brace (call sequences open blocks of their own).
        if (current && depth > 0 && !trim(stmt).empty()) current->body.push_back(trim(stmt));
        stmt.clear();
        if (c == '{') ++depth;
        if (c == '}') --depth;
        // The function ends with its body, or with ';' when it was only a prototype.
        if (depth == 0 && c != '{') current = nullptr;
      } else {
        stmt += c;
      }
    }
    stmt += ' ';
  }
  return out;
}

struct Finder {
  const StaticCheckInput& in;
  std::vector<StaticFinding> found;

  std::string kernel_name(const Function& f) const {
    if (!f.entry) return "device function " + f.name;
    auto it = in.display_names.find(f.name);
    return it != in.display_names.end() ? it->second : f.name;
  }

  void add(const std::string& check, const std::string& kernel, const std::string& what, const std::string& why) {
    for (const auto& f : found)
      if (f.check == check && f.kernel == kernel && f.what == what) return;  // once per kernel
    found.push_back({check, in.file, kernel, what, why, in.allow.count(check) > 0});
  }
};

const char* kClockRegs[] = {"%globaltimer_lo", "%globaltimer_hi", "%globaltimer", "%clock64", "%clock_hi", "%clock"};
const char* kLaunchPrefixes[] = {"cudaLaunchDevice", "cudaGetParameterBuffer", "cudaGraphLaunch",
                                 "cudaLaunchCooperativeKernel"};

void check_globals(const Ptx& ptx, Finder& f) {
  for (const auto& g : ptx.globals) {
    if (g.name.empty()) continue;
    for (const auto& fn : ptx.functions) {
      std::string how;
      for (const auto& stmt : fn.body) {
        if (find_word(stmt, g.name) == std::string::npos) continue;
        const std::string m = mnemonic(stmt);
        // A direct load from the symbol (ld.global [sym] or [sym+8]) cannot change it.
        const bool direct_load = m.rfind("ld.global", 0) == 0 &&
                                 (stmt.find("[" + g.name + "]") != std::string::npos ||
                                  stmt.find("[" + g.name + "+") != std::string::npos);
        if (direct_load) continue;
        if (m.rfind("st.", 0) == 0) how = "stores to it";
        else if (m.rfind("atom.", 0) == 0 || m.rfind("red.", 0) == 0) how = "updates it atomically";
        else how = "takes its address (" + m + "), so it may be written through a pointer";
        break;
      }
      if (how.empty()) continue;
      f.add("device_globals", f.kernel_name(fn),
            fmt::format("mutable __device__ global '{}' ({}): the kernel {}", g.name, g.decl, how),
            "device globals keep their contents between launches: a candidate can cache results "
            "across calls and skip the work when it sees the same inputs again; use __constant__ "
            "for read-only tables");
    }
  }
}

void check_instructions(const Ptx& ptx, Finder& f) {
  for (const auto& fn : ptx.functions) {
    const std::string k = f.kernel_name(fn);
    for (const auto& stmt : fn.body) {
      const std::string m = mnemonic(stmt);
      for (const char* reg : kClockRegs) {
        const std::string r = reg;
        bool hit = false;
        for (size_t p = stmt.find(r); p != std::string::npos && !hit; p = stmt.find(r, p + 1))
          hit = p + r.size() >= stmt.size() || !ident_char(stmt[p + r.size()]);
        if (!hit) continue;
        f.add("clock", k, fmt::format("reads {}", reg),
              "timer reads let a kernel tell warm-up, validation and timed samples apart and behave "
              "differently while it is being measured");
        break;
      }
      if (m.rfind("call", 0) == 0) {
        for (const char* prefix : kLaunchPrefixes) {
          const size_t p = stmt.find(prefix);
          if (p == std::string::npos || (p > 0 && ident_char(stmt[p - 1]))) continue;
          std::string name;
          for (size_t i = p; i < stmt.size() && ident_char(stmt[i]); ++i) name += stmt[i];
          f.add("device_launch", k, "calls " + name + " (a device-side launch)",
                "kernels launched from the device run outside the launch ako declares, checks and "
                "times (grid, block, count), and can do work after the timed kernel ends");
          break;
        }
        if (find_word(stmt, "malloc") != std::string::npos)
          f.add("device_heap", k, "calls malloc (device heap)",
                "device heap allocations outlive the launch, like a global: a cross-call cache");
      }
      if (m.rfind("discard.", 0) == 0)
        f.add("l2_discard", k, "executes " + m,
              "discard drops L2 lines without writing them back: data the harness relies on (outputs, "
              "the flush buffer) becomes undefined");
      if (m.rfind("applypriority", 0) == 0)
        f.add("l2_persist", k, "executes " + m,
              "L2 priorities keep lines resident across ako's L2 flush, so a cold-cache timing "
              "runs warm");
      else if (m.find("L2::evict_last") != std::string::npos || stmt.find("L2::evict_last") != std::string::npos)
        f.add("l2_persist", k, "uses L2::evict_last (" + m + ")",
              "evict_last lines survive ako's L2 flush between samples, so a cold-cache timing runs "
              "warm");
      else if (m.find("L2::cache_hint") != std::string::npos)
        f.add("l2_persist", k, "passes a runtime L2 cache policy (" + m + ")",
              "a policy operand may be evict_last, which survives ako's L2 flush; ako cannot prove "
              "it is not (use the evict_first/no_allocate qualifiers, or allow l2_persist)");
    }
  }
}

void check_resources(Finder& f) {
  for (const auto& [lowered, r] : f.in.resources) {
    auto it = f.in.display_names.find(lowered);
    const std::string k = it != f.in.display_names.end() ? it->second : lowered;
    const int spills = std::max(r.spill_stores, 0) + std::max(r.spill_loads, 0);
    if (spills > 0)
      f.add("local_memory", k,
            fmt::format("spills registers ({} bytes stores, {} bytes loads)", r.spill_stores, r.spill_loads),
            "spills put per-thread data in local memory (DRAM through L1/L2): slow, and over the budget "
            "of 0 bytes");
    if (r.stack_bytes > f.in.stack_budget_bytes)
      f.add("local_memory", k,
            fmt::format("uses a {} byte stack frame (budget {} bytes)", r.stack_bytes, f.in.stack_budget_bytes),
            "a large local array lives in local memory (DRAM through L1/L2), traffic the bytes-moved "
            "model and the roofline do not account for");
  }
}

}  // namespace

const std::vector<std::string>& static_check_names() {
  static const std::vector<std::string> names = {"device_globals", "clock",      "device_launch", "device_heap",
                                                 "l2_persist",     "l2_discard", "local_memory"};
  return names;
}

std::vector<StaticFinding> check_program(const StaticCheckInput& in) {
  const Ptx ptx = parse(in.ptx);
  Finder f{in, {}};
  check_globals(ptx, f);
  check_instructions(ptx, f);
  check_resources(f);
  return f.found;
}

bool any_refused(const std::vector<StaticFinding>& findings) {
  return std::any_of(findings.begin(), findings.end(), [](const StaticFinding& f) { return !f.allowed; });
}

std::string describe(const StaticFinding& f) {
  return fmt::format("{}: {}: {} [{}{}]: {}", f.file, f.kernel, f.what, f.check, f.allowed ? ", allowed by the task" : "",
                     f.why);
}

}  // namespace ako::verify
