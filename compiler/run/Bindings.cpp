#include "run/Bindings.h"

#include <cfloat>
#include <climits>
#include <cmath>
#include <cstring>
#include <set>

#include "run/ImageIO.h"

namespace formac::run {
namespace {

// How to give `name` ("--param low=VALUE"), or `name=value` ("--param M=10").
std::string give(const BindStyle& s, const std::string& name) {
  std::string t = s.giveValue;
  size_t eq = name.find('=');
  size_t at = t.find("NAME");
  if (at != std::string::npos) t.replace(at, 4, name.substr(0, eq));
  at = t.find("VALUE");
  if (eq != std::string::npos && at != std::string::npos) t.replace(at, 5, name.substr(eq + 1));
  return t;
}

std::string numberText(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<long long>(v));
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string joinNames(const std::vector<std::string>& names) {
  std::string t;
  for (const auto& n : names) t += (t.empty() ? "" : ", ") + n;
  return t.empty() ? "none" : t;
}

bool isInteger(double v, double lo, double hi) { return v == std::floor(v) && v >= lo && v <= hi; }

// The range of a scalar input's type, and its spelling in messages.
void rangeOf(ScalarKind k, double& lo, double& hi) {
  if (isFloating(k)) {
    lo = -HUGE_VAL;
    hi = HUGE_VAL;
    return;
  }
  long long l, h;
  integerRange(k, &l, &h);
  lo = static_cast<double>(l);
  // INT64_MAX is no double: the largest double below 2^63.
  hi = k == ScalarKind::Int64 ? std::nextafter(9223372036854775808.0, 0.0) : static_cast<double>(h);
}

// "[M, N]"
std::string symbolicExtent(const ir::Pipeline& p, int id) {
  const ir::Stage& s = p.stages[static_cast<size_t>(id)];
  std::string sym;
  for (size_t d = 0; d < s.extent.size(); ++d) sym += (d ? ", " : "") + ir::printSize(s.extent[d], p.paramNames());
  return "[" + sym + "]";
}

// "[M, N] = [512, 512]"
std::string extentText(const ir::Pipeline& p, int id, const std::vector<long long>& params) {
  const ir::Stage& s = p.stages[static_cast<size_t>(id)];
  std::string num;
  for (size_t d = 0; d < s.extent.size(); ++d) num += (d ? ", " : "") + std::to_string(ir::evalSize(s.extent[d], params));
  return symbolicExtent(p, id) + " = [" + num + "]";
}

}  // namespace

std::vector<int> imageInputs(const ir::Pipeline& p) {
  std::vector<int> out;
  for (const auto& in : p.inputs)
    if (in.kind == ir::EntryArg::Image) out.push_back(in.index);
  return out;
}

std::vector<long long> stageExtent(const ir::Pipeline& p, int id, const std::vector<long long>& params) {
  std::vector<long long> e;
  for (const auto& s : p.stages[static_cast<size_t>(id)].extent) e.push_back(ir::evalSize(s, params));
  return e;
}

Binding bind(const ir::Pipeline& p, const std::vector<GivenImage>& images,
             const std::map<std::string, double>& values, const BindStyle& style) {
  std::vector<int> ins = imageInputs(p);
  std::vector<std::string> inNames;
  for (int id : ins) inNames.push_back(p.stages[static_cast<size_t>(id)].name);
  if (images.size() != ins.size())
    throw UserError(style.program + " takes " + std::to_string(ins.size()) + " input image" +
                    (ins.size() == 1 ? "" : "s") + " (" + joinNames(inNames) + "), but " +
                    std::to_string(images.size()) + (images.size() == 1 ? " was" : " were") +
                    " given with " + style.giveImages);

  // Every name given must be a parameter or a scalar input.
  std::vector<std::string> names;
  for (const auto& prm : p.params) names.push_back(prm.name);
  for (const auto& s : p.scalars) names.push_back(s.name);
  for (const auto& kv : values) {
    bool found = false;
    for (const auto& k : names) found = found || k == kv.first;
    if (!found)
      throw UserError(style.program + " has no parameter or scalar input '" + kv.first + "' (it has: " +
                      joinNames(names) + ")");
  }

  Binding b;
  size_t np = p.params.size();
  b.params.assign(np, 0);
  // Where each parameter's value came from: an image input, or given (-1).
  std::vector<bool> known(np, false);
  std::vector<int> fromImage(np, -1);
  for (size_t i = 0; i < np; ++i) {
    auto it = values.find(p.params[i].name);
    if (it == values.end()) continue;
    if (!isInteger(it->second, INT_MIN, INT_MAX))
      throw UserError("parameter '" + p.params[i].name + "' is a size: " + numberText(it->second) +
                      " is not an integer");
    b.params[i] = static_cast<long long>(it->second);
    known[i] = true;
  }
  for (size_t k = 0; k < ins.size(); ++k) {
    const ir::Stage& s = p.stages[static_cast<size_t>(ins[k])];
    if (images[k].extent.size() != s.extent.size())
      throw UserError(images[k].origin + " has " + std::to_string(images[k].extent.size()) +
                      " dimensions, but input '" + s.name + "' has " + std::to_string(s.extent.size()));
    for (size_t d = 0; d < s.extent.size(); ++d) {
      const ir::SizeNode& e = *s.extent[d];
      if (e.kind != ir::SizeNode::Param) continue;
      size_t i = static_cast<size_t>(e.param);
      long long v = images[k].extent[d];
      std::string name = p.params[i].name;
      std::string here = images[k].origin + " (" + describeExtent(images[k].extent) + ")";
      if (!known[i]) {
        b.params[i] = v;
        known[i] = true;
        fromImage[i] = static_cast<int>(k);
      } else if (b.params[i] != v && fromImage[i] < 0) {
        throw UserError(give(style, name + "=" + std::to_string(b.params[i])) + " does not match " + here +
                        ", which gives " + name + " = " + std::to_string(v) + " (input '" + s.name + "' is " +
                        symbolicExtent(p, ins[k]) + ")");
      } else if (b.params[i] != v) {
        size_t j = static_cast<size_t>(fromImage[i]);
        const std::string& other = p.stages[static_cast<size_t>(ins[j])].name;
        throw UserError("inputs of different sizes: " + images[j].origin + " (" + describeExtent(images[j].extent) +
                        ") gives " + name + " = " + std::to_string(b.params[i]) + ", but " + here + " gives " +
                        name + " = " + std::to_string(v) + " (inputs '" + other + "' " + symbolicExtent(p, ins[j]) +
                        " and '" + s.name + "' " + symbolicExtent(p, ins[k]) + ")");
      }
    }
  }
  for (size_t i = 0; i < np; ++i) {
    if (known[i]) continue;
    if (p.params[i].hasDefault) {
      b.params[i] = p.params[i].defaultValue;
      continue;
    }
    throw UserError("cannot determine parameter '" + p.params[i].name + "' of " + style.program +
                    ": no input image has it alone as an extent; give it with " + give(style, p.params[i].name));
  }

  // Every input must have the extent the program gives it, every extent >= 0.
  for (size_t k = 0; k < ins.size(); ++k)
    if (stageExtent(p, ins[k], b.params) != images[k].extent)
      throw UserError("input '" + p.stages[static_cast<size_t>(ins[k])].name + "' must be " +
                      extentText(p, ins[k], b.params) + ", but " + images[k].origin + " is " +
                      describeExtent(images[k].extent));
  for (const auto& s : p.stages)
    for (long long n : stageExtent(p, s.id, b.params))
      if (n < 0)
        throw UserError("image " + ir::describeStage(p, s.id) + " would be " + extentText(p, s.id, b.params) +
                        ": a negative size for these parameter values");

  for (const auto& s : p.scalars) {
    auto it = values.find(s.name);
    if (it == values.end())
      throw UserError("scalar input '" + s.name + "' (" + scalarName(s.type) + ") of " + style.program +
                      " needs a value: give it with " + give(style, s.name));
    double lo, hi;
    rangeOf(s.type, lo, hi);
    if (!isFloating(s.type) && !isInteger(it->second, lo, hi))
      throw UserError("scalar input '" + s.name + "' is " + scalarName(s.type) + ": " + numberText(it->second) +
                      " is not an integer in " + numberText(lo) + ".." + numberText(hi));
    // As a literal in the source: a finite value too large for float is an
    // error, not an infinity (inf and -inf themselves are taken).
    if (s.type == ScalarKind::Float && std::isfinite(it->second) && std::fabs(it->second) > FLT_MAX)
      throw UserError("scalar input '" + s.name + "' is float: " + numberText(it->second) +
                      " is beyond its range (largest 3.40282347e+38)");
    b.scalars.push_back(it->second);
  }
  return b;
}

void storeScalarArgument(ScalarKind k, double v, void* slot) {
  switch (k) {
    case ScalarKind::Int8: { unsigned char x = static_cast<unsigned char>(v); std::memcpy(slot, &x, sizeof x); return; }
    case ScalarKind::Int16: { short x = static_cast<short>(v); std::memcpy(slot, &x, sizeof x); return; }
    case ScalarKind::Uint16: { unsigned short x = static_cast<unsigned short>(v); std::memcpy(slot, &x, sizeof x); return; }
    case ScalarKind::Int: { int x = static_cast<int>(v); std::memcpy(slot, &x, sizeof x); return; }
    case ScalarKind::Int64: { long long x = static_cast<long long>(v); std::memcpy(slot, &x, sizeof x); return; }
    case ScalarKind::Float: { float x = static_cast<float>(v); std::memcpy(slot, &x, sizeof x); return; }
    case ScalarKind::Double: std::memcpy(slot, &v, sizeof v); return;
  }
}

}  // namespace formac::run
