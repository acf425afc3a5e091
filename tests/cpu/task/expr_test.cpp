#include <gtest/gtest.h>

#include "common/error.hpp"
#include "task/expr.hpp"
#include "task/name_expression.hpp"

namespace ako::task {
namespace {

// Expects eval_int to throw ako::Error whose message contains every fragment.
void expect_error(std::string_view expr, const ExprEnv& env, std::initializer_list<std::string> fragments) {
  try {
    int64_t v = eval_int(expr, env);
    ADD_FAILURE() << "\"" << expr << "\" evaluated to " << v << " instead of failing";
  } catch (const Error& e) {
    for (const auto& f : fragments) EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << e.what() << "\nmissing: " << f;
  }
}

TEST(Expr, PrecedenceAndAssociativityFollowC) {
  const ExprEnv none;
  EXPECT_EQ(eval_int("1 + 2 * 3", none), 7);
  EXPECT_EQ(eval_int("(1 + 2) * 3", none), 9);
  EXPECT_EQ(eval_int("10 - 4 - 3", none), 3);
  EXPECT_EQ(eval_int("64 / 4 / 2", none), 8);
  EXPECT_EQ(eval_int("7 / 2", none), 3);
  EXPECT_EQ(eval_int("-7 / 2", none), -3);   // truncation toward zero
  EXPECT_EQ(eval_int("-7 % 3", none), -1);
  EXPECT_EQ(eval_int("- -3", none), 3);
  EXPECT_EQ(eval_int("!0 + 1", none), 2);    // unary binds tighter than +
  EXPECT_EQ(eval_int("1 < 2 == 1", none), 1); // relational before equality
  EXPECT_EQ(eval_int("1 || 0 && 0", none), 1); // && before ||
  EXPECT_EQ(eval_int("(1 || 0) && 0", none), 0);
  EXPECT_EQ(eval_int("2 + 3 == 5 && 4 >= 4 && 3 <= 2 == 0 && 5 > 4 && 1 != 2", none), 1);
  EXPECT_EQ(eval_int("  12\t*\n2 ", none), 24);
}

TEST(Expr, FunctionsAndIdentifiers) {
  const ExprEnv env{{"rows", 4608}, {"cols", 3072}, {"ROWS", 8}, {"VEC", 8}};
  EXPECT_EQ(eval_int("ceil_div(rows, ROWS)", env), 576);
  EXPECT_EQ(eval_int("ceil_div(10, 3)", env), 4);
  EXPECT_EQ(eval_int("ceil_div(9, 3)", env), 3);
  EXPECT_EQ(eval_int("ceil_div(0, 4)", env), 0);
  EXPECT_EQ(eval_int("min(rows, cols)", env), 3072);
  EXPECT_EQ(eval_int("max(rows, cols) * 2", env), 9216);
  EXPECT_EQ(eval_int("min(max(1, 2), 3)", env), 2);
  EXPECT_EQ(eval_int("gcd(16 / 2, cols)", env), 8);   // FlashInfer's vector width
  EXPECT_EQ(eval_int("gcd(8, 100)", {}), 4);
  EXPECT_EQ(eval_int("pow2(64)", env), 1);
  EXPECT_EQ(eval_int("pow2(1)", env), 1);
  EXPECT_EQ(eval_int("pow2(48)", env), 0);
  EXPECT_EQ(eval_int("pow2(0)", env), 0);
  EXPECT_EQ(eval_int("pow2(-4)", env), 0);
  EXPECT_TRUE(eval_bool("cols % VEC == 0 && pow2(256 / ROWS)", env));
  EXPECT_FALSE(eval_bool("cols % 7 == 0", env));
}

TEST(Expr, LogicalOperatorsShortCircuit) {
  const ExprEnv env{{"VEC", 0}, {"cols", 128}};
  EXPECT_FALSE(eval_bool("VEC != 0 && cols % VEC == 0", env));
  EXPECT_TRUE(eval_bool("VEC == 0 || cols / VEC > 1", env));
}

TEST(Expr, SyntaxErrorsNameTheExpressionAndColumn) {
  const ExprEnv none;
  expect_error("1 + * 2", none, {"expression \"1 + * 2\"", "expected a number, an identifier or '('", "at column 5"});
  expect_error("1 2", none, {"unexpected '2'", "at column 3"});
  expect_error("(1 + 2", none, {"expected ')', got the end", "at column 7"});
  expect_error("", none, {"got the end", "at column 1"});
  expect_error("3.5", none, {"expected an integer literal", "at column 2"});
  expect_error("1 & 2", none, {"unexpected '&'", "at column 3"});
  expect_error("sqrt(4)", none, {"unknown function 'sqrt'", "ceil_div, min, max, gcd, pow2", "at column 1"});
  expect_error("1 + min(1)", none, {"min() takes 2 arguments, got 1", "at column 5"});
  expect_error("99999999999999999999", none, {"does not fit in 64 bits"});
}

TEST(Expr, UnknownIdentifierListsTheKnownOnes) {
  expect_error("rows + hidden", {{"rows", 1}, {"cols", 2}},
               {"expression \"rows + hidden\"", "unknown identifier 'hidden'", "known: cols, rows", "at column 8"});
  expect_error("x", {}, {"unknown identifier 'x'", "known: (none)"});
}

TEST(Expr, ArithmeticErrorsNameTheOperator) {
  const ExprEnv env{{"VEC", 8}, {"cols", 3072}};
  expect_error("cols / (VEC - 8)", env, {"division by zero", "at column 6"});
  expect_error("cols % (VEC - 8)", env, {"modulo by zero", "at column 6"});
  expect_error("9223372036854775807 + 1", env, {"integer overflow in '+'"});
  expect_error("4611686018427387904 * 2", env, {"integer overflow in '*'"});
  expect_error("ceil_div(cols, 0)", env, {"ceil_div divisor must be positive, got 0", "at column 1"});
}

TEST(Expr, IdentifiersWithoutEvaluating) {
  EXPECT_EQ(expr_identifiers("ceil_div(rows, ROWS) + min(a, b) / 0"),
            (std::set<std::string>{"ROWS", "a", "b", "rows"}));
  EXPECT_TRUE(expr_identifiers("1 + 2").empty());
  EXPECT_THROW(expr_identifiers("rows +"), Error);
}

TEST(NameExpression, SubstitutesEveryPlaceholder) {
  EXPECT_EQ(expand_name_expression("k<{T}, {weight}, {BLOCK}>",
                                   {{"T", "__half"}, {"weight", "true"}, {"BLOCK", "256"}}),
            "k<__half, true, 256>");
  EXPECT_EQ(name_placeholders("k<{T}, {dtype}, {T}>"), (std::vector<std::string>{"T", "dtype", "T"}));
  EXPECT_EQ(expand_name_expression("plain_kernel", {}), "plain_kernel");
}

TEST(NameExpression, RejectsMalformedTemplates) {
  auto message = [](std::string_view templ, std::map<std::string, std::string> values) {
    try {
      expand_name_expression(templ, values);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("k<{T>", {{"T", "float"}}).find("unterminated '{' at column 3"), std::string::npos);
  EXPECT_NE(message("k<T}>", {}).find("'}' without '{' at column 4"), std::string::npos);
  EXPECT_NE(message("k<{}>", {}).find("empty placeholder"), std::string::npos);
  std::string unknown = message("k<{T}, {bias}>", {{"T", "float"}, {"weight", "true"}});
  EXPECT_NE(unknown.find("unknown placeholder {bias}; known: T, weight"), std::string::npos) << unknown;
}


TEST(Expr, StringLiteralsCompareWithStringAxesOnly) {
  const ExprEnv env{{"layout", string_value("bf1c")}, {"L", 32760}, {"F", 21}};
  EXPECT_TRUE(eval_bool("layout == 'bf1c'", env));
  EXPECT_FALSE(eval_bool("layout == 'blc'", env));
  EXPECT_TRUE(eval_bool("layout != 'bc' && L % F == 0", env));
  EXPECT_NE(string_value("bc"), string_value("blc"));
  EXPECT_LT(string_value("bc"), 0);  // far from every size a spec computes
  EXPECT_EQ(expr_strings("layout == 'bc' || layout == 'b1c'"), (std::set<std::string>{"bc", "b1c"}));
  EXPECT_EQ(expr_identifiers("layout == 'bc'"), (std::set<std::string>{"layout"}));
  try {
    eval_int("layout == 'bc", env);
    FAIL() << "no error for an unterminated string";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unterminated string literal"), std::string::npos) << e.what();
  }
}

TEST(Expr, ConditionalChoosesOneSideLowestPrecedenceRightAssociative) {
  const ExprEnv env{{"layout", string_value("blc")}, {"L", 6}, {"F", 3}, {"zero", 0}};
  EXPECT_EQ(eval_int("layout == 'blc' ? L : 1", env), 6);
  EXPECT_EQ(eval_int("layout == 'bf1c' ? F : layout == 'blc' ? L : 1", env), 6);
  EXPECT_EQ(eval_int("1 + 1 ? 10 : 20", env), 10);            // (1 + 1) ? 10 : 20
  EXPECT_EQ(eval_int("zero ? L / zero : 7", env), 7);          // the unchosen side is never evaluated
  EXPECT_EQ(eval_int("max(zero ? 1 : 2, 3 ? 4 : 5)", env), 4);
  try {
    eval_int("zero ? 1", env);
    FAIL() << "no error for a missing ':'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("expected ':'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ako::task
