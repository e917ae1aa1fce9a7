// Writes the large or hostile inputs of the robustness tests (stress_*):
//   gen_stress CASE FILE [SEED]
// so that the repository need not hold megabytes of generated programs.
// Every case is a program formac must answer with exit status 0 or 1 (never a
// crash, a hang or an internal error); run_stress.cmake checks which.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <string>

namespace {

std::string repeat(const std::string& s, int n) {
  std::string out;
  out.reserve(s.size() * static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

const char* kStencil = "stencil f(vector#1 float X) { return X@[-1] + X; }\n";
const char* kInput = "parameter M;\nvector#1 float a[M];\n";

// A chain of n vector functions, v<k> calling v<k-1>, each applying f once.
std::string vectorChain(int n) {
  std::string s = kStencil;
  s += "vector v0(vector#1 float X) { return f(X); }\n";
  for (int k = 1; k < n; ++k)
    s += "vector v" + std::to_string(k) + "(vector#1 float X) { return f(v" +
         std::to_string(k - 1) + "(X)); }\n";
  return s + kInput + "return v" + std::to_string(n - 1) + "(a);\n";
}

std::string longSum(int terms) {
  std::string s = "stencil f(vector#1 float X) { return X";
  for (int i = 1; i < terms; ++i) s += i % 2 ? " + X@[1]" : " + X";
  return s + "; }\n" + kInput + "return f(a);\n";
}

// Issue 25's shapes, in two dimensions: a chain of n 3-point stencils, and
// one 9-point window summed over and over to `terms` reads.
std::string chain2d(int n) {
  std::string s = "stencil f(vector#2 float X) { return X@[-1,0] + X + X@[1,0]; }\n"
                  "parameter M, N;\nvector#2 float a[M,N];\ns0 = f(a);\n";
  for (int k = 1; k < n; ++k) s += "s" + std::to_string(k) + " = f(s" + std::to_string(k - 1) + ");\n";
  return s + "return s" + std::to_string(n - 1) + ";\n";
}

std::string longSum2d(int terms) {
  static const char* window[] = {"[-1,-1]", "[0,-1]", "[1,-1]", "[-1,0]", "[0,0]",
                                 "[1,0]",   "[-1,1]", "[0,1]",  "[1,1]"};
  std::string s = "stencil f(vector#2 float X) { return X@[-1,-1]";
  for (int i = 1; i < terms; ++i) s += std::string(" + X@") + window[i % 9];
  return s + "; }\nparameter M, N;\nvector#2 float a[M,N];\nreturn f(a);\n";
}

std::map<std::string, std::function<std::string(std::mt19937&)>> cases() {
  return {
      {"empty", [](std::mt19937&) { return std::string(); }},
      // Random bytes, as from /dev/urandom.
      {"random_bytes",
       [](std::mt19937& rng) {
         std::string s(65536, '\0');
         for (auto& c : s) c = static_cast<char>(rng() & 255);
         return s;
       }},
      // Random sequences of Forma's own tokens: gets deeper into the parser.
      {"random_tokens",
       [](std::mt19937& rng) {
         static const char* toks[] = {
             "stencil", "vector", "#", "2", "float", "int8", "struct", "parameter", "return",
             "for", "endfor", "cast", "<", ">", "(", ")", "[", "]", "{", "}", ",", ";", ":",
             "?", "@", ".", "..", "=", "+", "-", "*", "/", "%", "^", "==", "&&", "!",
             "X", "M", "f", "g", "a", "mirror", "constant", "0", "1", "-1", "2.5f", "1e3"};
         const size_t n = sizeof(toks) / sizeof(toks[0]);
         std::string s;
         for (int i = 0; i < 20000; ++i) s += std::string(toks[rng() % n]) + " ";
         return s;
       }},
      {"nested_parens_expr",
       [](std::mt19937&) {
         return std::string("stencil f(vector#1 float X) { return ") + repeat("(", 20000) + "X" +
                repeat(")", 20000) + "; }\n" + kInput + "return f(a);\n";
       }},
      {"nested_parens_image",
       [](std::mt19937&) {
         return std::string(kInput) + "return " + repeat("(", 20000) + "a" + repeat(")", 20000) +
                ";\n";
       }},
      {"nested_calls",
       [](std::mt19937&) {
         return std::string(kStencil) + kInput + "return " + repeat("f(", 20000) + "a" +
                repeat(")", 20000) + ";\n";
       }},
      {"nested_unary",
       [](std::mt19937&) {
         return std::string("stencil f(vector#1 float X) { return ") + repeat("-", 20000) +
                "X; }\n" + kInput + "return f(a);\n";
       }},
      {"nested_loops",
       [](std::mt19937&) {
         return std::string(kInput) + "s<0> = a;\n" + repeat("for i = 1..1\n", 5000) +
                "s<i> = s<i-1>;\n" + repeat("endfor\n", 5000) + "return s<1>;\n";
       }},
      // X + X@[1] + X + ... with 200,000 terms, one stencil: compiles.
      {"long_sum", [](std::mt19937&) { return longSum(200000); }},
      {"long_sum_20k", [](std::mt19937&) { return longSum(20000); }},
      // Identifiers of a million characters: compiles.
      {"long_identifiers",
       [](std::mt19937&) {
         std::string st(1000000, 's'), img(1000000, 'i'), prm(1000000, 'P');
         return "stencil " + st + "(vector#1 float X) { return X@[-1] + X; }\nparameter " +
                prm + ";\nvector#1 float " + img + "[" + prm + "];\nreturn " + st + "(" + img +
                ");\n";
       }},
      {"long_identifier_unknown",
       [](std::mt19937&) {
         return std::string(kInput) + "return " + std::string(1000000, 'q') + ";\n";
       }},
      // One line of a megabyte, the error at its end.
      {"long_line",
       [](std::mt19937&) {
         return std::string(kInput) + "b = a;" + repeat(" ", 1000000) + "return b $;\n";
       }},
      {"long_literal",
       [](std::mt19937&) {
         return std::string("parameter M = ") + repeat("9", 100000) + ";\nvector#1 float a[M];\n" +
                "return a;\n";
       }},
      {"nul_bytes",
       [](std::mt19937&) { return std::string(kInput) + "return a;" + std::string(16, '\0'); }},
      // 200 vector functions, each calling the previous one: compiles.
      {"vector_fn_chain", [](std::mt19937&) { return vectorChain(200); }},
      // 2,000 of them: nested deeper than formac inlines.
      {"vector_fn_chain_deep", [](std::mt19937&) { return vectorChain(2000); }},
      // Each function calls the previous one twice: 2^60 inlined calls.
      {"vector_fn_exponential",
       [](std::mt19937&) {
         std::string s = kStencil;
         s += "vector v0(vector#1 float X) { return f(X); }\n";
         for (int k = 1; k < 60; ++k)
           s += "vector v" + std::to_string(k) + "(vector#1 float X) { return v" +
                std::to_string(k - 1) + "(v" + std::to_string(k - 1) + "(X)); }\n";
         return s + kInput + "return v59(a);\n";
       }},
      // Issue 25: code generation in linear time (run under a CPU-time limit).
      {"chain_5000", [](std::mt19937&) { return chain2d(5000); }},
      {"long_sum_2d", [](std::mt19937&) { return longSum2d(200000); }},
      // 1,000 stages in a chain: compiles.
      {"many_stages",
       [](std::mt19937&) {
         std::string s = std::string(kStencil) + kInput + "s0 = a;\n";
         for (int k = 1; k <= 1000; ++k)
           s += "s" + std::to_string(k) + " = f(s" + std::to_string(k - 1) + ");\n";
         return s + "return s1000;\n";
       }},
  };
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: gen_stress CASE FILE [SEED]\n");
    return 2;
  }
  auto all = cases();
  auto it = all.find(argv[1]);
  if (it == all.end()) {
    std::fprintf(stderr, "gen_stress: unknown case '%s'\n", argv[1]);
    return 2;
  }
  unsigned seed = argc > 3 ? static_cast<unsigned>(std::strtoul(argv[3], nullptr, 10))
                           : std::random_device{}();
  std::mt19937 rng(seed);
  std::ofstream out(argv[2], std::ios::binary);
  out << it->second(rng);
  if (!out) {
    std::fprintf(stderr, "gen_stress: cannot write '%s'\n", argv[2]);
    return 2;
  }
  std::printf("gen_stress %s: seed %u\n", argv[1], seed);
  return 0;
}
