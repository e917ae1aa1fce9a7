// How a read outside an image's extent resolves (LANGUAGE.md §5). Shared by
// the AST, which records what the user wrote, and the pipeline IR.
#pragma once

namespace formac {

enum class BoundaryMode { None, Clamped, Extend, Mirror, Wrap, Constant };

// The Forma spelling: "mirror"; "none" for None.
inline const char* boundaryName(BoundaryMode m) {
  switch (m) {
    case BoundaryMode::None: return "none";
    case BoundaryMode::Clamped: return "clamped";
    case BoundaryMode::Extend: return "extend";
    case BoundaryMode::Mirror: return "mirror";
    case BoundaryMode::Wrap: return "wrap";
    case BoundaryMode::Constant: return "constant";
  }
  return "?";
}

}  // namespace formac
