// The statement tree of generated code (compiler/codegen/Stmt.h): what the C
// and CUDA printers print alike and what each prints its own way, and the
// fresh names of NameScope.
#include <gtest/gtest.h>

#include <string>

#include "codegen/NameScope.h"
#include "codegen/Stmt.h"
#include "support/Diagnostics.h"

namespace formac {
namespace {

using namespace codegen;

const StmtPrinter& c() { return printerFor(false); }
const StmtPrinter& cuda() { return printerFor(true); }

TEST(Statements, NestedStatementsIndentTwoSpacesALevel) {
  Stmt loop = forLoop("long long q0 = lo0", "q0 <= hi0", "++q0",
                      {decl("float", "v_t", "a[q0] * 2.0f"), assign("out[q0]", "v_t")});
  EXPECT_EQ(c().print(block({loop}), "  "),
            "  {\n"
            "    for (long long q0 = lo0; q0 <= hi0; ++q0) {\n"
            "      const float v_t = a[q0] * 2.0f;\n"
            "      out[q0] = v_t;\n"
            "    }\n"
            "  }\n");
  EXPECT_EQ(c().print(loop), cuda().print(loop));
}

TEST(Statements, AnElseHoldingOneIfIsAnElseIf) {
  Stmt s = ifThen("a", {eval("f()")}, {ifThen("b", {eval("g()")}, {eval("h()")})});
  EXPECT_EQ(c().print(s), "if (a) {\n  f();\n} else if (b) {\n  g();\n} else {\n  h();\n}\n");
  Stmt two = ifThen("a", {eval("f()")}, {eval("g()"), eval("h()")});
  EXPECT_EQ(c().print(two), "if (a) {\n  f();\n} else {\n  g();\n  h();\n}\n");
}

TEST(Statements, EachDialectSpellsRestrictAndThreadedLoops) {
  std::vector<Param> ps = {Param{"float", "in", true, true}, Param{"float", "out", true, false},
                           Param{"long long", "N", false, true}};
  EXPECT_EQ(c().params(ps), "const float* restrict in, float* restrict out, const long long N");
  EXPECT_EQ(cuda().params(ps), "const float* __restrict__ in, float* __restrict__ out, const long long N");
  Stmt threaded = forLoop("long long i = 0", "i < n", "++i", {eval("f(i)")}, "schedule(static)");
  EXPECT_EQ(c().print(threaded, "  "),
            "FORMAC_PRAGMA(omp parallel for schedule(static))\n  for (long long i = 0; i < n; ++i) {\n    f(i);\n  }\n");
  EXPECT_THROW(cuda().print(threaded), InternalError);  // a CUDA kernel's threads are its launch's
  Stmt unrolled = unrolledLoop("int j = 0", "j < 4", "++j", {eval("f(j)")});
  EXPECT_EQ(cuda().print(unrolled), "#pragma unroll\nfor (int j = 0; j < 4; ++j) {\n  f(j);\n}\n");
  EXPECT_THROW(c().print(unrolled), InternalError);
  EXPECT_THROW(c().print(lambda("f", {}, "float", {eval("return 0")})), InternalError);
}

TEST(Statements, FunctionsQuietOnlyTheParametersTheyLeaveUnused) {
  Stmt f = function("static", "void", "k_stage0", {Param{"float", "out", true, false}, Param{"long long", "M", false, true},
                                                   Param{"long long", "N", false, true}},
                    {comment("M is not read here"), assign("out[0]", "(float)N")}, {"M", "N"});
  EXPECT_EQ(c().print(f),
            "static void k_stage0(float* restrict out, const long long M, const long long N) {\n"
            "  (void)M;\n"
            "  /* M is not read here */\n"
            "  out[0] = (float)N;\n"
            "}\n");
  Stmt k = function("__global__", "void", "k", {Param{"I", "N", false, true}}, {eval("(void)0")});
  k.templateParams = "typename I";
  k.attributes = "__launch_bounds__(256)";
  EXPECT_EQ(cuda().print(k), "template <typename I>\n__global__ void __launch_bounds__(256) k(const I N) {\n  (void)0;\n}\n");
}

TEST(Statements, RecordsAndFunctionsWithoutParameters) {
  EXPECT_EQ(c().print(record("struct k_workspace", {declOnly("long long", "M"), declOnly("float*", "t")})),
            "struct k_workspace {\n  long long M;\n  float* t;\n};\n");
  Stmt none = function("", "int", "f", {}, {eval("return 0")});
  EXPECT_EQ(c().print(none), "int f(void) {\n  return 0;\n}\n");  // C: () would declare no prototype
  EXPECT_EQ(cuda().print(none), "int f() {\n  return 0;\n}\n");
}

TEST(Statements, CommentsOfSeveralLinesAndBraceComments) {
  EXPECT_EQ(c().print(comment("first\nsecond"), "  "), "  /* first\n     second */\n");
  EXPECT_EQ(c().print(block({eval("f()")}, "piece 1")), "{  /* piece 1 */\n  f();\n}\n");
}

TEST(Statements, APointerDeclarationSaysWhereItsConstGoes) {
  EXPECT_THROW(decl("float*", "p", "q"), InternalError);  // const float* would bind the pointee
  EXPECT_EQ(c().print(decl("float* const", "p", "q", false)), "float* const p = q;\n");
  EXPECT_EQ(c().print(decl("const float*", "p", "q", false)), "const float* p = q;\n");
  EXPECT_EQ(c().print(declOnly("long long", "h")), "long long h;\n");
}

TEST(Statements, CopiesShareTheirNestedStatements) {
  Stmt inner = block({eval("f()")});
  Stmt outer = forLoop("", "1", "", {inner, inner});
  EXPECT_EQ(c().print(forLoop("", "", "", {})), "for (;;) {\n}\n");
  Stmt copy = outer;
  EXPECT_EQ(&outer.body[0], &copy.body[0]);
  EXPECT_EQ(c().print(copy), "for (; 1;) {\n  {\n    f();\n  }\n  {\n    f();\n  }\n}\n");
}

TEST(NameScopes, FreshNamesAvoidEveryEnclosingScope) {
  NameScope program;
  program.take("end");
  program.take("row");
  NameScope function(&program);
  EXPECT_EQ(function.fresh("end"), "end_2");
  EXPECT_EQ(function.fresh("end"), "end_3");
  EXPECT_EQ(function.fresh("line"), "line");
  NameScope block(&function);
  EXPECT_EQ(block.fresh("line"), "line_2");
  EXPECT_TRUE(block.taken("row"));
  EXPECT_FALSE(program.taken("line"));  // a scope's names stay inside it
  NameScope sibling(&function);
  EXPECT_EQ(sibling.fresh("v"), "v");
  EXPECT_EQ(block.fresh("v"), "v");  // siblings do not see each other
}

}  // namespace
}  // namespace formac
