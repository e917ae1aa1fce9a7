// Tokens of the Forma language (LANGUAGE.md §1).
#pragma once

#include <cstdint>
#include <string>

#include "support/Diagnostics.h"

namespace formac {

enum class Tok {
  End,
  Ident,
  IntLit,     // 3
  FloatLit,   // 3.0f
  DoubleLit,  // 3.0, 1e-3, .5
  StringLit,  // "stdlib/gaussian3x3.idsl" (import paths); text keeps the quotes
  // keywords
  KwStencil, KwVector, KwParameter, KwReturn, KwStruct, KwCast, KwFor, KwEndfor,
  KwDo, KwWhile, KwFloat, KwDouble, KwInt, KwInt16, KwInt8, KwUint16, KwInt64, KwMirror, KwClamped,
  KwExtend, KwWrap, KwConstant,
  // punctuation
  LParen, RParen, LBracket, RBracket, LBrace, RBrace, Comma, Semi, Colon, Question,
  At, Hash, Dot, DotDot, Assign,
  Plus, Minus, Star, Slash, Percent, Caret,
  Less, Greater, LessEq, GreaterEq, EqEq, NotEq, AndAnd, OrOr, Bang,
};

// How a token kind is written in messages ("'('", "identifier").
const char* tokenSpelling(Tok kind);

struct Token {
  Tok kind = Tok::End;
  std::string text;   // the source spelling
  int64_t intValue = 0;
  double floatValue = 0.0;
  SourceLoc loc;
};

}  // namespace formac
