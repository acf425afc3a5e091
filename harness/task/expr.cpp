// The task-spec expression language: a recursive-descent parser into a small tree, then an
// exact int64 evaluator over it. Parsing and evaluating are separate so that spec validation
// can check an expression's syntax and identifiers without values (expr_identifiers), and so
// that && and || short-circuit ("VEC != 0 && cols % VEC == 0" never divides by zero).
#include "task/expr.hpp"

#include <numeric>

#include <cctype>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "common/error.hpp"

namespace ako::task {
namespace {

enum class Op { literal, string, ident, call, cond, neg, lnot, mul, div, mod, add, sub, lt, le, gt, ge, eq, ne, land, lor };

struct Node {
  Op op = Op::literal;
  int64_t value = 0;            // literal
  std::string name;             // ident, call
  size_t pos = 0;               // 0-based offset of the token, for messages
  std::vector<std::unique_ptr<Node>> kids;
};
using NodePtr = std::unique_ptr<Node>;

struct Function {
  std::string_view name;
  size_t arity;
};
constexpr Function kFunctions[] = {{"ceil_div", 2}, {"min", 2}, {"max", 2}, {"gcd", 2}, {"pow2", 1}};

[[noreturn]] void fail(std::string_view expr, size_t pos, const std::string& what) {
  throw Error(fmt::format("expression \"{}\": {} at column {}", expr, what, pos + 1));
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  NodePtr parse() {
    NodePtr root = parse_conditional();
    skip_space();
    if (at_ < text_.size()) fail(text_, at_, fmt::format("unexpected '{}'", text_[at_]));
    return root;
  }

 private:
  std::string_view text_;
  size_t at_ = 0;

  void skip_space() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
  }
  // Consumes `tok` when it comes next; `not_followed_by` keeps "<" from eating "<=".
  bool accept(std::string_view tok, char not_followed_by = 0) {
    skip_space();
    if (text_.substr(at_, tok.size()) != tok) return false;
    if (not_followed_by && at_ + tok.size() < text_.size() && text_[at_ + tok.size()] == not_followed_by)
      return false;
    at_ += tok.size();
    return true;
  }
  void expect(char c) {
    skip_space();
    if (at_ >= text_.size()) fail(text_, at_, fmt::format("expected '{}', got the end", c));
    if (text_[at_] != c) fail(text_, at_, fmt::format("expected '{}', got '{}'", c, text_[at_]));
    ++at_;
  }
  static NodePtr binary(Op op, size_t pos, NodePtr a, NodePtr b) {
    auto n = std::make_unique<Node>();
    n->op = op;
    n->pos = pos;
    n->kids.push_back(std::move(a));
    n->kids.push_back(std::move(b));
    return n;
  }

  // c ? a : b, right-associative, lowest precedence (as in C).
  NodePtr parse_conditional() {
    NodePtr cond = parse_or();
    skip_space();
    size_t pos = at_;
    if (!accept("?")) return cond;
    NodePtr then = parse_conditional();
    expect(':');
    NodePtr otherwise = parse_conditional();
    auto n = binary(Op::cond, pos, std::move(cond), std::move(then));
    n->kids.push_back(std::move(otherwise));
    return n;
  }
  NodePtr parse_or() {
    NodePtr left = parse_and();
    for (;;) {
      skip_space();
      size_t pos = at_;
      if (!accept("||")) return left;
      left = binary(Op::lor, pos, std::move(left), parse_and());
    }
  }
  NodePtr parse_and() {
    NodePtr left = parse_equality();
    for (;;) {
      skip_space();
      size_t pos = at_;
      if (!accept("&&")) return left;
      left = binary(Op::land, pos, std::move(left), parse_equality());
    }
  }
  NodePtr parse_equality() {
    NodePtr left = parse_relational();
    for (;;) {
      skip_space();
      size_t pos = at_;
      Op op;
      if (accept("==")) op = Op::eq;
      else if (accept("!=")) op = Op::ne;
      else return left;
      left = binary(op, pos, std::move(left), parse_relational());
    }
  }
  NodePtr parse_relational() {
    NodePtr left = parse_additive();
    for (;;) {
      skip_space();
      size_t pos = at_;
      Op op;
      if (accept("<=")) op = Op::le;
      else if (accept(">=")) op = Op::ge;
      else if (accept("<")) op = Op::lt;
      else if (accept(">")) op = Op::gt;
      else return left;
      left = binary(op, pos, std::move(left), parse_additive());
    }
  }
  NodePtr parse_additive() {
    NodePtr left = parse_multiplicative();
    for (;;) {
      skip_space();
      size_t pos = at_;
      Op op;
      if (accept("+")) op = Op::add;
      else if (accept("-")) op = Op::sub;
      else return left;
      left = binary(op, pos, std::move(left), parse_multiplicative());
    }
  }
  NodePtr parse_multiplicative() {
    NodePtr left = parse_unary();
    for (;;) {
      skip_space();
      size_t pos = at_;
      Op op;
      if (accept("*")) op = Op::mul;
      else if (accept("/")) op = Op::div;
      else if (accept("%")) op = Op::mod;
      else return left;
      left = binary(op, pos, std::move(left), parse_unary());
    }
  }
  NodePtr parse_unary() {
    skip_space();
    size_t pos = at_;
    Op op;
    if (accept("-")) op = Op::neg;
    else if (accept("!", '=')) op = Op::lnot;
    else return parse_primary();
    auto n = std::make_unique<Node>();
    n->op = op;
    n->pos = pos;
    n->kids.push_back(parse_unary());
    return n;
  }
  NodePtr parse_primary() {
    skip_space();
    size_t pos = at_;
    if (at_ >= text_.size()) fail(text_, at_, "expected a number, an identifier or '(', got the end");
    char c = text_[at_];
    if (c == '(') {
      ++at_;
      NodePtr inner = parse_conditional();
      expect(')');
      return inner;
    }
    auto n = std::make_unique<Node>();
    n->pos = pos;
    if (c == '\'') return parse_string(std::move(n));
    if (std::isdigit(static_cast<unsigned char>(c))) {
      n->op = Op::literal;
      while (at_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[at_]))) {
        int digit = text_[at_] - '0';
        if (__builtin_mul_overflow(n->value, 10, &n->value) ||
            __builtin_add_overflow(n->value, digit, &n->value))
          fail(text_, pos, "integer literal does not fit in 64 bits");
        ++at_;
      }
      if (at_ < text_.size() && (std::isalpha(static_cast<unsigned char>(text_[at_])) || text_[at_] == '.'))
        fail(text_, at_, "expected an integer literal (digits only)");
      return n;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      while (at_ < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[at_])) || text_[at_] == '_'))
        ++at_;
      n->name = std::string(text_.substr(pos, at_ - pos));
      skip_space();
      if (at_ < text_.size() && text_[at_] == '(') return parse_call(std::move(n));
      n->op = Op::ident;
      return n;
    }
    fail(text_, pos, fmt::format("expected a number, an identifier or '(', got '{}'", c));
  }
  // 'text': a value of a string axis, compared with == and != against the axis's name.
  NodePtr parse_string(NodePtr n) {
    const size_t end = text_.find('\'', at_ + 1);
    if (end == std::string_view::npos) fail(text_, at_, "unterminated string literal (expected a closing ')");
    n->op = Op::string;
    n->name = std::string(text_.substr(at_ + 1, end - at_ - 1));
    n->value = string_value(n->name);
    at_ = end + 1;
    return n;
  }
  NodePtr parse_call(NodePtr n) {
    const Function* fn = nullptr;
    for (const auto& f : kFunctions)
      if (f.name == n->name) fn = &f;
    if (!fn)
      fail(text_, n->pos, fmt::format("unknown function '{}'; known: ceil_div, min, max, gcd, pow2", n->name));
    n->op = Op::call;
    expect('(');
    n->kids.push_back(parse_conditional());
    while (accept(",")) n->kids.push_back(parse_conditional());
    expect(')');
    if (n->kids.size() != fn->arity)
      fail(text_, n->pos, fmt::format("{}() takes {} argument{}, got {}", fn->name, fn->arity,
                                      fn->arity == 1 ? "" : "s", n->kids.size()));
    return n;
  }
};

class Evaluator {
 public:
  Evaluator(std::string_view text, const ExprEnv& env) : text_(text), env_(env) {}

  int64_t eval(const Node& n) const {
    switch (n.op) {
      case Op::literal:
      case Op::string: return n.value;
      case Op::cond: return eval(*n.kids[0]) != 0 ? eval(*n.kids[1]) : eval(*n.kids[2]);
      case Op::ident: return lookup(n);
      case Op::call: return call(n);
      case Op::neg: {
        int64_t v = eval(*n.kids[0]);
        int64_t r;
        if (__builtin_sub_overflow(int64_t{0}, v, &r)) fail(text_, n.pos, "integer overflow in '-'");
        return r;
      }
      case Op::lnot: return eval(*n.kids[0]) == 0 ? 1 : 0;
      case Op::land: return eval(*n.kids[0]) != 0 && eval(*n.kids[1]) != 0 ? 1 : 0;
      case Op::lor: return eval(*n.kids[0]) != 0 || eval(*n.kids[1]) != 0 ? 1 : 0;
      default: break;
    }
    int64_t a = eval(*n.kids[0]);
    int64_t b = eval(*n.kids[1]);
    int64_t r = 0;
    switch (n.op) {
      case Op::add:
        if (__builtin_add_overflow(a, b, &r)) fail(text_, n.pos, "integer overflow in '+'");
        return r;
      case Op::sub:
        if (__builtin_sub_overflow(a, b, &r)) fail(text_, n.pos, "integer overflow in '-'");
        return r;
      case Op::mul:
        if (__builtin_mul_overflow(a, b, &r)) fail(text_, n.pos, "integer overflow in '*'");
        return r;
      case Op::div:
      case Op::mod:
        if (b == 0) fail(text_, n.pos, n.op == Op::div ? "division by zero" : "modulo by zero");
        if (a == INT64_MIN && b == -1) fail(text_, n.pos, "integer overflow in division");
        return n.op == Op::div ? a / b : a % b;  // C semantics: truncation toward zero
      case Op::lt: return a < b;
      case Op::le: return a <= b;
      case Op::gt: return a > b;
      case Op::ge: return a >= b;
      case Op::eq: return a == b;
      case Op::ne: return a != b;
      default: break;
    }
    fail(text_, n.pos, "internal error: unknown operator");
  }

 private:
  std::string_view text_;
  const ExprEnv& env_;

  int64_t lookup(const Node& n) const {
    auto it = env_.find(n.name);
    if (it != env_.end()) return it->second;
    std::string known;
    for (const auto& [name, value] : env_) known += (known.empty() ? "" : ", ") + name;
    fail(text_, n.pos, fmt::format("unknown identifier '{}'; known: {}", n.name,
                                   known.empty() ? "(none)" : known));
  }
  int64_t call(const Node& n) const {
    if (n.name == "pow2") {
      int64_t v = eval(*n.kids[0]);
      return v > 0 && (v & (v - 1)) == 0 ? 1 : 0;
    }
    int64_t a = eval(*n.kids[0]);
    int64_t b = eval(*n.kids[1]);
    if (n.name == "min") return std::min(a, b);
    if (n.name == "max") return std::max(a, b);
    if (n.name == "gcd") return std::gcd(a, b);  // FlashInfer's vector width: gcd(16 / elem_bytes, d)
    // ceil_div: launch geometry over positive sizes; defined for b > 0 only, so that a
    // negative or zero divisor in a spec is reported rather than silently rounded.
    if (b <= 0) fail(text_, n.pos, fmt::format("ceil_div divisor must be positive, got {}", b));
    int64_t q = a / b, r = a % b;
    return (r != 0 && a > 0) ? q + 1 : q;
  }
};

void collect(const Node& n, Op op, std::set<std::string>& out) {
  if (n.op == op) out.insert(n.name);
  for (const auto& k : n.kids) collect(*k, op, out);
}

}  // namespace

int64_t eval_int(std::string_view expr, const ExprEnv& env) {
  NodePtr root = Parser(expr).parse();
  return Evaluator(expr, env).eval(*root);
}

bool eval_bool(std::string_view expr, const ExprEnv& env) { return eval_int(expr, env) != 0; }

std::set<std::string> expr_identifiers(std::string_view expr) {
  NodePtr root = Parser(expr).parse();
  std::set<std::string> out;
  collect(*root, Op::ident, out);
  return out;
}

std::set<std::string> expr_strings(std::string_view expr) {
  NodePtr root = Parser(expr).parse();
  std::set<std::string> out;
  collect(*root, Op::string, out);
  return out;
}

int64_t string_value(std::string_view text) {
  // FNV-1a, then the sign bit set: far from every size a spec computes, equal only for equal text.
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return static_cast<int64_t>((h >> 1) | (uint64_t{1} << 63));
}

}  // namespace ako::task
