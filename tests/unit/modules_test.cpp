// Unit tests of what issue 31 added to the front end: the byte-order mark,
// string tokens, several syntax errors in one file, "did you mean", and
// imports (compiler/parse/Modules.h) read from a scratch folder.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "lex/Lexer.h"
#include "parse/Modules.h"
#include "parse/Parser.h"
#include "support/Suggest.h"

namespace formac {
namespace {

TEST(ByteOrderMark, IsSkippedAndColumnsCountFromAfterIt) {
  SourceFile f{"bom.idsl", "\xEF\xBB\xBFparameter M;"};
  std::vector<Token> toks = lex(f);
  ASSERT_EQ(toks[0].kind, Tok::KwParameter);
  EXPECT_EQ(toks[0].loc.line, 1);
  EXPECT_EQ(toks[0].loc.col, 1);
  EXPECT_EQ(f.lineText(1), "parameter M;");
  // Only at the start of the file: elsewhere the bytes are an error.
  SourceFile g{"late.idsl", "parameter M;\xEF\xBB\xBF"};
  EXPECT_THROW(lex(g), UserError);
}

TEST(Strings, LexAsOneTokenWithQuotes) {
  SourceFile f{"s.idsl", "import \"stdlib/a b.idsl\";"};
  std::vector<Token> toks = lex(f);
  ASSERT_EQ(toks[1].kind, Tok::StringLit);
  EXPECT_EQ(toks[1].text, "\"stdlib/a b.idsl\"");
  SourceFile open{"o.idsl", "import \"stdlib/a.idsl\n\";"};
  try {
    lex(open);
    FAIL() << "an unterminated string lexed";
  } catch (const UserError& e) {
    EXPECT_NE(e.message().find("unterminated string"), std::string::npos);
  }
}

TEST(Recovery, EverySyntaxErrorOfAFileIsReported) {
  SourceFile f{"r.idsl",
               "stencil f(vector#1 float X) { return X +; }\n"  // 1: in a definition
               "parameter M;\n"
               "vector#1 float a[M];\n"
               "b = f(a)\n"                                      // 4: missing ';'
               "c = f(a);\n"
               "d = ) ;\n"                                       // 6
               "return c;\n"};
  try {
    parse(lex(f));
    FAIL() << "no error";
  } catch (const UserError& e) {
    std::string all = e.what();
    EXPECT_NE(all.find("r.idsl:1:41: error:"), std::string::npos) << all;
    EXPECT_NE(all.find("r.idsl:5:1: error:"), std::string::npos) << all;
    EXPECT_NE(all.find("r.idsl:6:5: error:"), std::string::npos) << all;
    EXPECT_EQ(e.loc().line, 1);  // loc() and message() are the first error's
  }
}

TEST(Recovery, StopsAtTheLimit) {
  std::string text;
  for (int i = 0; i < 30; ++i) text += "x = );\n";
  SourceFile f{"many.idsl", text + "return x;\n"};
  try {
    parse(lex(f));
    FAIL() << "no error";
  } catch (const UserError& e) {
    std::string all = e.what();
    EXPECT_NE(all.find("many.idsl:20:5:"), std::string::npos);
    EXPECT_EQ(all.find("many.idsl:21:5:"), std::string::npos);
    EXPECT_NE(all.find("too many errors; stopped after 20"), std::string::npos);
  }
}

TEST(DidYouMean, SuggestsTheNearestNameWithinAFewEdits) {
  EXPECT_EQ(didYouMean("gaus_x", {"gauss_y", "gauss_x"}), " (did you mean 'gauss_x'?)");
  EXPECT_EQ(didYouMean("sqr", {"sqrt", "exp"}), " (did you mean 'sqrt'?)");
  EXPECT_EQ(didYouMean("Input", {"input"}), " (did you mean 'input'?)");
  EXPECT_EQ(didYouMean("ipnut", {"input"}), " (did you mean 'input'?)");  // a swap is one edit
  EXPECT_EQ(didYouMean("blur", {"sharpen", "x"}), "");
  EXPECT_EQ(didYouMean("ab", {"xy"}), "");  // short names: at most one edit
}

// A scratch folder of .idsl files.
class Imports : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/formac_modules_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }
  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ + "/" + name) << text;
  }
  ast::Program load(const std::string& name, const std::vector<std::string>& path = {}) {
    std::ifstream in(dir_ + "/" + name);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    main_ = std::make_unique<SourceFile>(SourceFile{dir_ + "/" + name, text});
    return parseProgram(*main_, files_, path);
  }
  std::string errorOf(const std::string& name) {
    try {
      load(name);
    } catch (const UserError& e) {
      return e.what();
    }
    return "no error";
  }
  std::string dir_;
  std::unique_ptr<SourceFile> main_;
  SourceFiles files_;
};

const char* kMain = "parameter M;\nvector#1 float a[M];\nreturn f(a);\n";

TEST_F(Imports, BringInDefinitionsOnceAndIgnoreTheRest) {
  write("lib.idsl", "struct p { float x; }\nstencil f(vector#1 float X) { return X; }\n"
                    "parameter M;\nvector#1 float in[M];\nreturn f(in);\n");
  write("mid.idsl", "import \"lib.idsl\";\nvector g(vector#1 float X) { return f(X); }\n");
  write("main.idsl", std::string("import \"mid.idsl\";\nimport \"lib.idsl\";\n") + kMain);
  ast::Program p = load("main.idsl");
  ASSERT_EQ(p.stencils.size(), 1u);  // lib.idsl once, though imported twice
  EXPECT_EQ(p.structs.size(), 1u);
  EXPECT_EQ(p.vectorFns.size(), 1u);
  EXPECT_EQ(p.inputs.size(), 1u);  // the imported file's own declarations are ignored
  EXPECT_EQ(p.inputs[0].name, "a");
  EXPECT_EQ(p.stencils[0].loc.file->path, dir_ + "/lib.idsl");
}

TEST_F(Imports, SearchPathComesAfterTheImportingFolder) {
  ASSERT_EQ(mkdir((dir_ + "/lib").c_str(), 0755), 0);
  write("lib/f.idsl", "stencil f(vector#1 float X) { return X; }\n");
  write("main.idsl", std::string("import \"f.idsl\";\n") + kMain);
  EXPECT_NE(errorOf("main.idsl").find("cannot find 'f.idsl' (looked in " + dir_ + ")"),
            std::string::npos);
  EXPECT_EQ(load("main.idsl", {dir_ + "/lib"}).stencils.size(), 1u);
}

TEST_F(Imports, ErrorsNameBothPlacesOrTheCycle) {
  write("lib.idsl", "stencil f(vector#1 float X) { return X; }\n");
  write("clash.idsl", std::string("import \"lib.idsl\";\nstencil f(vector#1 float Y) { return Y; }\n") + kMain);
  EXPECT_NE(errorOf("clash.idsl").find("clash.idsl:2:1: error: stencil 'f' clashes with stencil 'f' "
                                       "defined at " + dir_ + "/lib.idsl:1"),
            std::string::npos);
  write("a.idsl", "import \"b.idsl\";\n");
  write("b.idsl", "import \"a.idsl\";\n");
  write("cycle.idsl", std::string("import \"a.idsl\";\n") + kMain);
  EXPECT_NE(errorOf("cycle.idsl").find("b.idsl:1:1: error: import cycle"), std::string::npos);
}

TEST_F(Imports, ChainsAreCutAt100Files) {
  for (int i = 0; i < 120; ++i)
    write("m" + std::to_string(i) + ".idsl", "import \"m" + std::to_string(i + 1) + ".idsl\";\n");
  write("m120.idsl", "stencil f(vector#1 float X) { return X; }\n");
  write("deep.idsl", std::string("import \"m0.idsl\";\n") + kMain);
  EXPECT_NE(errorOf("deep.idsl").find("imports nested more than 100 files deep"), std::string::npos);
  write("shallow.idsl", std::string("import \"m30.idsl\";\n") + kMain);
  EXPECT_EQ(load("shallow.idsl").stencils.size(), 1u);
}

TEST_F(Imports, OnlyRegularFilesAreRead) {
  write("dir.idsl", std::string("import \".\";\n") + kMain);
  EXPECT_NE(errorOf("dir.idsl").find("not a regular file"), std::string::npos);
  write("zero.idsl", std::string("import \"/dev/zero\";\n") + kMain);
  EXPECT_NE(errorOf("zero.idsl").find("not a regular file"), std::string::npos);
}

}  // namespace
}  // namespace formac
