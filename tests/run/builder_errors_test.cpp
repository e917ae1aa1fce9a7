// Every error path of the embedded builder (compiler/builder/Builder.h): a
// UserError whose diagnostic names this file and the line of the C++ call
// that made the offending value, shows that line, and says what is wrong —
// the builder's own checks and the language's (sema's) alike.
#include <gtest/gtest.h>

#include "builder/Builder.h"

namespace formac::test {
namespace {

using namespace formac::builder;  // NOLINT
using Type = formac::builder::Type;  // formac::Type is the IR's

CompileOptions evalOptions() {
  CompileOptions o;
  o.backend = Backend::Eval;
  return o;
}

// `f` must throw a UserError at line `line` of this file whose text holds `message`.
template <class F>
void expectError(F f, int line, const std::string& message) {
  try {
    f();
    ADD_FAILURE() << "no error; expected: " << message;
  } catch (const UserError& e) {
    std::string text = e.what();
    EXPECT_NE(text.find("builder_errors_test.cpp:" + std::to_string(line) + ":"), std::string::npos) << text;
    EXPECT_NE(text.find(message), std::string::npos) << text;
    EXPECT_NE(text.find("^"), std::string::npos) << text;  // the line and a caret under the call
  }
}

struct Fixture : ::testing::Test {
  Builder b;
  Value img = b.input("img", Type::Float, 2);
  Value row = b.input("row", Type::Float, 1);
  Value img8 = b.input("img8", Type::Int8, {"P", "Q"});
  Value k = b.scalar("k", Type::Float);
  Stencil copy = b.stencil("copy", [](Value X) { return X; });
  // Compiles the outputs `outs`, given at the caller's line.
  void compileOutputs(const std::vector<Value>& outs) {
    b.outputs(outs);
    compile(b, evalOptions());
  }
};
using BuilderErrors = Fixture;

TEST_F(BuilderErrors, TypeMismatchIsTheLanguagesMessage) {
  expectError([&] { (void)(img % 2); }, __LINE__, "'%' needs integer operands, found 'float' and 'int'");
}

TEST_F(BuilderErrors, ShowsTheSourceLine) {
  try {
    (void)(img % 2);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("    (void)(img % 2);\n"), std::string::npos) << e.what();
  }
}

TEST_F(BuilderErrors, ImagesOfTwoRanks) {
  expectError([&] { (void)(img + row); }, __LINE__, "'+' combines 'img', of rank 2, with 'row', of rank 1");
}

TEST_F(BuilderErrors, WrongNumberOfOffsets) {
  expectError([&] { (void)img.at(1); }, __LINE__, "'img' has rank 2, but 1 offset is given");
}

TEST_F(BuilderErrors, ReductionUsedAsAnImage) {
  expectError([&] { (void)sum(img).at(1, 0); }, __LINE__,
              "'.at' reads an image at an offset, but the result of 'sum' (line");
  expectError([&] { (void)max(img).mirror(); }, __LINE__, "is a scalar (a reduction of the whole image)");
  expectError([&] { (void)sum(sum(img)); }, __LINE__, "'sum' takes an image, but the result of 'sum'");
}

TEST_F(BuilderErrors, NonScalarLoopCondition) {
  int line = __LINE__ + 2;
  auto out = b.loop(5, {img}, [&](const std::vector<Value>& prev) {
    Value next = copy(prev[0]);
    return Round{{next}, next};
  });
  expectError([&] { compileOutputs(out); }, line, "the condition of a 'do' loop is a scalar");
}

TEST_F(BuilderErrors, LoopBodyReturnsTooFewImages) {
  expectError([&] { b.loop(5, {img, img}, [&](const std::vector<Value>& p) { return Round{{p[0]}, max(p[0])}; }); },
              __LINE__ - 1, "the 'do' loop carries 2 image(s), but its body returns 1");
}

TEST_F(BuilderErrors, LoopCarriesAnImageOfAnotherType) {
  Stencil half = b.stencil("half", [](Value X) { return X / 2.0; });  // double, the loop carries float
  int line = __LINE__ + 2;
  auto out = b.loop(5, {img}, [&](const std::vector<Value>& prev) {
    Value next = half(prev[0]);
    return Round{{next}, any(next)};
  });
  expectError([&] { compileOutputs(out); }, line, "must have the type and extent of");
}

TEST_F(BuilderErrors, LoopBodyValueUsedAfterTheLoop) {
  Value inner;
  auto out = b.loop(5, {img}, [&](const std::vector<Value>& prev) {
    inner = copy(prev[0]);
    return Round{{inner}, any(inner)};
  });
  (void)out;
  expectError([&] { (void)(inner + 1); }, __LINE__, "is computed in a 'do' loop's body");
}

TEST_F(BuilderErrors, StencilReadsAValueThatIsNotAParameter) {
  Stencil leaky = b.stencil("leaky", [&](Value X) { return X + img; });
  expectError([&] { leaky(img); }, __LINE__ - 1, "stencil 'leaky' reads 'img', which is not one of its parameters");
}

TEST_F(BuilderErrors, StencilValueUsedOutsideIt) {
  Value kept;
  Stencil keep = b.stencil("keep", [&](Value X) { return kept = X * 2; });
  keep(img);
  expectError([&] { (void)(kept + img); }, __LINE__, "is a value of stencil 'keep'");
}

TEST_F(BuilderErrors, BoundaryInsideAStencil) {
  Stencil bad = b.stencil("bad", [](Value X) { return X.mirror(); });
  expectError([&] { bad(img); }, __LINE__ - 1, "a boundary condition is given where a stencil is applied");
}

TEST_F(BuilderErrors, ReductionInsideAStencil) {
  Stencil bad = b.stencil("bad", [](Value X) { return X / sum(X); });
  expectError([&] { bad(img); }, __LINE__ - 1, "'sum' is a statement of the pipeline, not part of stencil 'bad'");
}

TEST_F(BuilderErrors, StencilGivenAScalarExpression) {
  expectError([&] { copy(k * 2); }, __LINE__, "a scalar argument of stencil 'copy' is a number, a scalar input");
}

TEST_F(BuilderErrors, StencilGivenNoImage) {
  expectError([&] { copy(k); }, __LINE__, "stencil 'copy' is given no image");
}

TEST_F(BuilderErrors, StencilGivenTooManyArguments) {
  expectError([&] { copy(img, img); }, __LINE__, "stencil 'copy' takes 1 argument, 2 given");
}

TEST_F(BuilderErrors, ScalarExpressionReturned) {
  int line = __LINE__ + 1;
  Value mean = sum(img) / 2;
  expectError([&] { compileOutputs({mean}); }, line, "is a scalar expression");
}

TEST_F(BuilderErrors, DimensionOutOfRange) {
  expectError([&] { sum(img, 2); }, __LINE__, "'img' has rank 2, so it has no dimension 2 for 'sum'");
}

TEST_F(BuilderErrors, BadName) {
  expectError([&] { (void)(img + 1).named("two words"); }, __LINE__, "'two words' cannot name a value");
  expectError([&] { b.input("while", Type::Float, 2); }, __LINE__, "'while' cannot name an input");
}

// The language's checks, run when the program is compiled, point at the
// line that made the value they are about.
TEST_F(BuilderErrors, NameDefinedTwice) {
  Value a = copy(img).named("a");
  int line = __LINE__ + 1;
  Value a2 = copy(a).named("a");
  expectError([&] { compileOutputs({a2}); }, line, "'a' is already defined");
}

TEST_F(BuilderErrors, BoundaryConstantDoesNotFit) {
  int line = __LINE__ + 1;
  Value c = copy(img8.constant(300));
  expectError([&] { compileOutputs({c}); }, line, "constant(300) does not fit");
}

TEST_F(BuilderErrors, ImagesOfDifferentExtents) {
  int line = __LINE__ + 1;
  Value mixed = img + cast(Type::Float, img8);
  expectError([&] { compileOutputs({mixed}); }, line, "has extent");
}

TEST_F(BuilderErrors, NoOutputs) {
  try {
    compile(b, evalOptions());
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("has no outputs"), std::string::npos) << e.what();
  }
}

TEST_F(BuilderErrors, StencilMisuse) {
  expectError([&] { b.stencil("none", [] { return 1; }); }, __LINE__, "stencil 'none' takes no parameter");
  expectError([&] { b.stencil("two", {"A"}, [](Value X, Value Y) { return X + Y; }); }, __LINE__,
              "stencil 'two' names 1 parameters, but its function takes 2");
  Value kept = copy(img);
  Stencil foreign = b.stencil("foreign", [&](Value) { return kept; });
  expectError([&] { foreign(img); }, __LINE__ - 2, "which is not computed from its parameters");
  Stencil empty = b.stencil("empty", [](Value) { return Value(); });
  expectError([&] { empty(img); }, __LINE__ - 1, "returns no value of this builder");
  Stencil nested = b.stencil("nested", [&](Value X) { return copy(X); });
  expectError([&] { nested(img); }, __LINE__ - 1, "applying stencil 'copy' is a statement of the pipeline");
  Stencil local = b.stencil("local", [](Value X) { return (X * 2).at(1, 0); });
  expectError([&] { local(img); }, __LINE__ - 1, "only its image parameters are read at offsets");
  Stencil named = b.stencil("named", [](Value X) { return X.named("Y"); });
  expectError([&] { named(img); }, __LINE__ - 1, "is named where it is declared");
  Stencil looping = b.stencil("looping", [&](Value X) {
    return b.loop(1, {X}, [](const std::vector<Value>& p) { return Round{p, any(p[0])}; })[0];
  });
  expectError([&] { looping(img); }, __LINE__ - 2, "a 'do' loop is a statement of the pipeline");
}

TEST_F(BuilderErrors, LoopMisuse) {
  expectError([&] { b.loop(1, {}, [](const std::vector<Value>& p) { return Round{p, Value()}; }); }, __LINE__,
              "a 'do' loop carries at least one image");
  expectError([&] { b.loop(1, {k}, [](const std::vector<Value>& p) { return Round{p, Value()}; }); }, __LINE__,
              "a 'do' loop carries images, but 'k' is a scalar");
  expectError([&] { b.loop(1, {img}, [](const std::vector<Value>& p) { return Round{p, Value()}; }); }, __LINE__,
              "the body of the 'do' loop returns no condition");
  expectError([&] {
    b.loop(1, {img}, [&](const std::vector<Value>& p) {
      b.outputs({p[0]});
      return Round{p, any(p[0])};
    });
  }, __LINE__ - 3, "the outputs are given for the pipeline");
}

TEST_F(BuilderErrors, DeclarationMisuse) {
  expectError([&] { b.input("cube", Type::Float, 5); }, __LINE__, "an image has rank 1 to 4, not 5");
  expectError([&] { b.input("none", Type::Float, std::vector<std::string>{}); }, __LINE__,
              "an image has rank 1 to 4, not 0");
  expectError([&] { b.outputs({}); }, __LINE__, "a pipeline returns at least one value");
  expectError([&] { b.loop("2R", {img}, [](const std::vector<Value>& p) { return Round{p, any(p[0])}; }); },
              __LINE__ - 1, "'2R' cannot name a parameter");
}

// Values without a builder's location: the message alone.
TEST_F(BuilderErrors, EmptyAndForeignValues) {
  auto expectMessage = [](auto f, const std::string& message) {
    try {
      f();
      ADD_FAILURE() << "no error; expected: " << message;
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  };
  Value empty;
  Builder other;
  Value elsewhere = other.input("img", Type::Float, 2);
  expectMessage([&] { (void)empty.at(1, 0); }, "an empty formac::builder::Value is used");
  expectMessage([&] { (void)(empty + img); }, "an operand is an empty formac::builder::Value");
  expectMessage([&] { (void)(img + elsewhere); }, "values of two different Builders are combined");
  expectMessage([&] { (void)select(1, 2, 3); }, "'?:' of numbers only: write the number itself");
  expectMessage([&] { (void)call("sqrt", {}); }, "'sqrt' needs arguments");
  expectMessage([&] { (void)sum(empty); }, "'sum' of an empty formac::builder::Value");
  expectMessage([&] { copy(elsewhere); }, "stencil 'copy' is given an empty or foreign Value");
  expectMessage([&] { b.loop(1, {elsewhere}, [](const std::vector<Value>& p) { return Round{p, any(p[0])}; }); },
                "a 'do' loop is given an empty or foreign Value");
  expectMessage([&] { b.outputs({elsewhere}); }, "an output is an empty or foreign Value");
}

}  // namespace
}  // namespace formac::test
