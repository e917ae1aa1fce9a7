#include "lex/Lexer.h"

#include <cerrno>
#include <cstdlib>
#include <unordered_map>

namespace formac {

const char* tokenSpelling(Tok kind) {
  switch (kind) {
    case Tok::End: return "end of file";
    case Tok::Ident: return "identifier";
    case Tok::IntLit: return "integer literal";
    case Tok::FloatLit: return "float literal";
    case Tok::DoubleLit: return "double literal";
    case Tok::StringLit: return "string";
    case Tok::KwStencil: return "'stencil'";
    case Tok::KwVector: return "'vector'";
    case Tok::KwParameter: return "'parameter'";
    case Tok::KwReturn: return "'return'";
    case Tok::KwStruct: return "'struct'";
    case Tok::KwCast: return "'cast'";
    case Tok::KwFor: return "'for'";
    case Tok::KwEndfor: return "'endfor'";
    case Tok::KwDo: return "'do'";
    case Tok::KwWhile: return "'while'";
    case Tok::KwFloat: return "'float'";
    case Tok::KwDouble: return "'double'";
    case Tok::KwInt: return "'int'";
    case Tok::KwInt16: return "'int16'";
    case Tok::KwInt8: return "'int8'";
    case Tok::KwUint16: return "'uint16'";
    case Tok::KwInt64: return "'int64'";
    case Tok::KwMirror: return "'mirror'";
    case Tok::KwClamped: return "'clamped'";
    case Tok::KwExtend: return "'extend'";
    case Tok::KwWrap: return "'wrap'";
    case Tok::KwConstant: return "'constant'";
    case Tok::LParen: return "'('";
    case Tok::RParen: return "')'";
    case Tok::LBracket: return "'['";
    case Tok::RBracket: return "']'";
    case Tok::LBrace: return "'{'";
    case Tok::RBrace: return "'}'";
    case Tok::Comma: return "','";
    case Tok::Semi: return "';'";
    case Tok::Colon: return "':'";
    case Tok::Question: return "'?'";
    case Tok::At: return "'@'";
    case Tok::Hash: return "'#'";
    case Tok::Dot: return "'.'";
    case Tok::DotDot: return "'..'";
    case Tok::Assign: return "'='";
    case Tok::Plus: return "'+'";
    case Tok::Minus: return "'-'";
    case Tok::Star: return "'*'";
    case Tok::Slash: return "'/'";
    case Tok::Percent: return "'%'";
    case Tok::Caret: return "'^'";
    case Tok::Less: return "'<'";
    case Tok::Greater: return "'>'";
    case Tok::LessEq: return "'<='";
    case Tok::GreaterEq: return "'>='";
    case Tok::EqEq: return "'=='";
    case Tok::NotEq: return "'!='";
    case Tok::AndAnd: return "'&&'";
    case Tok::OrOr: return "'||'";
    case Tok::Bang: return "'!'";
  }
  return "token";
}

namespace {

const std::unordered_map<std::string, Tok>& keywords() {
  static const std::unordered_map<std::string, Tok> table = {
      {"stencil", Tok::KwStencil}, {"vector", Tok::KwVector},   {"parameter", Tok::KwParameter},
      {"return", Tok::KwReturn},   {"struct", Tok::KwStruct},   {"cast", Tok::KwCast},
      {"for", Tok::KwFor},         {"endfor", Tok::KwEndfor},   {"do", Tok::KwDo},
      {"while", Tok::KwWhile},     {"float", Tok::KwFloat},     {"double", Tok::KwDouble},
      {"int", Tok::KwInt},         {"int16", Tok::KwInt16},     {"int8", Tok::KwInt8},
      {"uint16", Tok::KwUint16},   {"int64", Tok::KwInt64},
      {"mirror", Tok::KwMirror},   {"clamped", Tok::KwClamped}, {"extend", Tok::KwExtend},
      {"wrap", Tok::KwWrap},       {"constant", Tok::KwConstant}};
  return table;
}

bool isIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isIdentChar(char c) { return isIdentStart(c) || isDigit(c); }

class Lexer {
 public:
  explicit Lexer(const SourceFile& file) : file_(file), src_(file.text) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    // A UTF-8 byte-order mark (editors on Windows write one) is not text.
    if (src_.compare(0, 3, "\xEF\xBB\xBF") == 0) pos_ = 3;
    for (;;) {
      skipSpaceAndComments();
      Token t = next();
      bool end = t.kind == Tok::End;
      out.push_back(std::move(t));
      if (end) break;
    }
    return out;
  }

 private:
  SourceLoc here() const { return SourceLoc{&file_, line_, col_}; }
  char peek(size_t k = 0) const { return pos_ + k < src_.size() ? src_[pos_ + k] : '\0'; }
  bool atEnd() const { return pos_ >= src_.size(); }
  void advance() {
    if (src_[pos_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++pos_;
  }

  void skipSpaceAndComments() {
    while (!atEnd()) {
      char c = peek();
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        advance();
      } else if (c == '/' && peek(1) == '/') {
        while (!atEnd() && peek() != '\n') advance();
      } else if (c == '/' && peek(1) == '*') {
        SourceLoc start = here();
        advance();
        advance();
        while (!atEnd() && !(peek() == '*' && peek(1) == '/')) advance();
        if (atEnd()) userError(start, "unterminated comment: '/*' has no matching '*/'");
        advance();
        advance();
      } else {
        return;
      }
    }
  }

  Token make(Tok kind, size_t start, SourceLoc loc) {
    Token t;
    t.kind = kind;
    t.text = src_.substr(start, pos_ - start);
    t.loc = loc;
    return t;
  }

  Token next() {
    SourceLoc loc = here();
    size_t start = pos_;
    if (atEnd()) return make(Tok::End, start, loc);
    char c = peek();
    if (isIdentStart(c)) {
      while (!atEnd() && isIdentChar(peek())) advance();
      Token t = make(Tok::Ident, start, loc);
      auto kw = keywords().find(t.text);
      if (kw != keywords().end()) t.kind = kw->second;
      return t;
    }
    if (isDigit(c) || (c == '.' && isDigit(peek(1)))) return number(loc);
    if (c == '"') return string(loc);
    advance();
    auto two = [&](char second, Tok yes, Tok no) {
      if (peek() == second) {
        advance();
        return make(yes, start, loc);
      }
      return make(no, start, loc);
    };
    switch (c) {
      case '(': return make(Tok::LParen, start, loc);
      case ')': return make(Tok::RParen, start, loc);
      case '[': return make(Tok::LBracket, start, loc);
      case ']': return make(Tok::RBracket, start, loc);
      case '{': return make(Tok::LBrace, start, loc);
      case '}': return make(Tok::RBrace, start, loc);
      case ',': return make(Tok::Comma, start, loc);
      case ';': return make(Tok::Semi, start, loc);
      case ':': return make(Tok::Colon, start, loc);
      case '?': return make(Tok::Question, start, loc);
      case '@': return make(Tok::At, start, loc);
      case '#': return make(Tok::Hash, start, loc);
      case '.': return two('.', Tok::DotDot, Tok::Dot);
      case '=': return two('=', Tok::EqEq, Tok::Assign);
      case '+': return make(Tok::Plus, start, loc);
      case '-': return make(Tok::Minus, start, loc);
      case '*': return make(Tok::Star, start, loc);
      case '/': return make(Tok::Slash, start, loc);
      case '%': return make(Tok::Percent, start, loc);
      case '^': return make(Tok::Caret, start, loc);
      case '<': return two('=', Tok::LessEq, Tok::Less);
      case '>': return two('=', Tok::GreaterEq, Tok::Greater);
      case '!': return two('=', Tok::NotEq, Tok::Bang);
      case '&':
        if (peek() == '&') return two('&', Tok::AndAnd, Tok::AndAnd);
        break;
      case '|':
        if (peek() == '|') return two('|', Tok::OrOr, Tok::OrOr);
        break;
      default: break;
    }
    unsigned char u = static_cast<unsigned char>(c);
    std::string shown = (u >= 32 && u < 127) ? std::string("'") + c + "'"
                                             : "byte 0x" + hex(u);
    userError(loc, "unexpected character " + shown);
  }

  static std::string hex(unsigned char u) {
    const char* digits = "0123456789abcdef";
    return std::string{digits[u >> 4], digits[u & 15]};
  }

  // STRING: '"' any characters but '"' and a line break '"'; no escapes.
  Token string(SourceLoc loc) {
    size_t start = pos_;
    advance();
    while (!atEnd() && peek() != '"' && peek() != '\n') advance();
    if (peek() != '"') userError(loc, "unterminated string: '\"' has no matching '\"' on its line");
    advance();
    return make(Tok::StringLit, start, loc);
  }

  // INT: digits. DOUBLE: digits '.' digits, '.' digits, with optional
  // exponent. FLOAT: a DOUBLE (or digits with exponent) followed by 'f'.
  // "1..4" is INT DOTDOT INT, so a '.' followed by '.' ends the integer.
  Token number(SourceLoc loc) {
    size_t start = pos_;
    bool isReal = false;
    while (isDigit(peek())) advance();
    if (peek() == '.' && peek(1) != '.') {
      isReal = true;
      advance();
      while (isDigit(peek())) advance();
    }
    if ((peek() == 'e' || peek() == 'E') &&
        (isDigit(peek(1)) || ((peek(1) == '+' || peek(1) == '-') && isDigit(peek(2))))) {
      isReal = true;
      advance();
      if (peek() == '+' || peek() == '-') advance();
      while (isDigit(peek())) advance();
    }
    std::string digits = src_.substr(start, pos_ - start);
    bool isFloat = false;
    if (isReal && (peek() == 'f' || peek() == 'F')) {
      isFloat = true;
      advance();
    }
    if (isIdentChar(peek()))
      userError(here(), "unexpected character '" + std::string(1, peek()) +
                            "' after number '" + digits + "'");
    Token t = make(isReal ? (isFloat ? Tok::FloatLit : Tok::DoubleLit) : Tok::IntLit, start, loc);
    errno = 0;
    if (isReal) {
      t.floatValue = std::strtod(digits.c_str(), nullptr);
      if (errno == ERANGE && t.floatValue != 0.0)
        userError(loc, "floating literal '" + digits + "' is out of range");
    } else {
      unsigned long long v = std::strtoull(digits.c_str(), nullptr, 10);
      if (errno == ERANGE || v > 2147483647ULL)
        userError(loc, "integer literal '" + digits + "' does not fit in 'int'");
      t.intValue = static_cast<int64_t>(v);
    }
    return t;
  }

  const SourceFile& file_;
  const std::string& src_;
  size_t pos_ = 0;
  int line_ = 1;
  int col_ = 1;
};

}  // namespace

std::vector<Token> lex(const SourceFile& file) { return Lexer(file).run(); }

}  // namespace formac
