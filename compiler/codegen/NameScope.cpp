#include "codegen/NameScope.h"

namespace formac::codegen {

bool NameScope::taken(const std::string& name) const {
  for (const NameScope* s = this; s; s = s->parent_)
    if (s->names_.count(name)) return true;
  return false;
}

std::string NameScope::fresh(const std::string& stem) {
  std::string name = stem;
  for (int k = 2; taken(name); ++k) name = stem + "_" + std::to_string(k);
  names_.insert(name);
  return name;
}

}  // namespace formac::codegen
