// NameScope: the names declared in one scope of generated code (a function,
// a block, a point's body) and, through its parent, in the scopes around it.
// A generator asks it for a fresh name instead of choosing one that it hopes
// nothing else uses.
#pragma once

#include <set>
#include <string>

namespace formac::codegen {

class NameScope {
 public:
  explicit NameScope(const NameScope* parent = nullptr) : parent_(parent) {}
  // Whether this scope or one around it declares `name`.
  bool taken(const std::string& name) const;
  // Declares `name`, given from outside (a parameter, a caller's variable).
  void take(const std::string& name) { names_.insert(name); }
  // Declares and returns `stem` when it is not taken, else the first of
  // stem_2, stem_3, ... that is not.
  std::string fresh(const std::string& stem);

 private:
  const NameScope* parent_;
  std::set<std::string> names_;
};

}  // namespace formac::codegen
