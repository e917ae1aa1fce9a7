// formac._formac.builder: the embedded builder (compiler/builder/Builder.h)
// for python/formac/builder.py, which gives it its notation. Every call takes
// the site (file, line, column) of the user's Python line that made the
// value, so that errors point there; an error is formac.CompileError.
#include "Builder.h"

#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <climits>

#include "PipelineObject.h"
#include "builder/Builder.h"

namespace py = pybind11;
namespace fb = formac::builder;

namespace formac::python {
namespace {

py::handle gCompileError;

// A builder shared by the values it made (Python keeps them alive).
struct BuilderBox {
  std::shared_ptr<fb::Builder> b = std::make_shared<fb::Builder>();
};
struct ValueBox {
  std::shared_ptr<fb::Builder> owner;
  fb::Value v;
};
struct StencilBox {
  std::shared_ptr<fb::Builder> owner;
  fb::Stencil s;
};

fb::Site siteOf(const py::tuple& t) {
  fb::Site s;
  s.file = t[0].cast<std::string>();
  s.line = t[1].cast<int>();
  s.col = t[2].cast<int>();
  return s;
}

fb::Type typeNamed(const std::string& name) {
  for (fb::Type t : {fb::Type::Int8, fb::Type::Int16, fb::Type::Uint16, fb::Type::Int, fb::Type::Int64,
                     fb::Type::Float, fb::Type::Double})
    if (name == scalarName(t)) return t;
  throw py::value_error("unknown element type '" + name + "'");
}

// A compile error of the builder as Python's formac.CompileError.
template <class F>
auto guarded(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const UserError& e) {
    PyErr_SetString(gCompileError.ptr(), e.what());
    throw py::error_already_set();
  }
}

// A Value (formac's Image), or a number: int (Forma's int), float (double),
// numpy.float32 (float).
fb::Operand operand(py::handle h, const fb::Site& site) {
  if (py::isinstance<ValueBox>(h)) return fb::Operand(h.cast<ValueBox&>().v, site);
  if (py::isinstance<py::bool_>(h)) throw py::type_error("a bool is not a number of a pipeline: write 1 or 0");
  if (py::isinstance<py::int_>(h)) {
    long long v = h.cast<long long>();
    if (v < INT_MIN || v > INT_MAX) throw py::value_error(std::to_string(v) + " does not fit Forma's int");
    return fb::Operand(static_cast<int>(v), site);
  }
  if (py::isinstance<py::float_>(h)) return fb::Operand(h.cast<double>(), site);
  if (py::hasattr(h, "dtype") && py::str(h.attr("dtype")).cast<std::string>() == "float32")
    return fb::Operand(h.cast<float>(), site);
  throw py::type_error("expected a formac Image or a number, got " + std::string(py::str(py::type::of(h).attr("__name__"))));
}

ValueBox box(const std::shared_ptr<fb::Builder>& owner, const fb::Value& v) { return ValueBox{owner, v}; }

std::shared_ptr<fb::Builder> ownerOf(const std::vector<py::handle>& hs) {
  for (py::handle h : hs)
    if (py::isinstance<ValueBox>(h)) return h.cast<ValueBox&>().owner;
  throw py::type_error("at least one operand must be a formac Image");
}

ValueBox binary(const std::string& op, py::handle a, py::handle b, const py::tuple& site) {
  return guarded([&] {
    auto owner = ownerOf({a, b});
    fb::Site s = siteOf(site);
    fb::Operand x = operand(a, s), y = operand(b, s);
    static const std::map<std::string, fb::Value (*)(const fb::Operand&, const fb::Operand&)> ops = {
        {"+", fb::operator+}, {"-", fb::operator-}, {"*", fb::operator*}, {"/", fb::operator/},
        {"%", fb::operator%}, {"<", fb::operator<}, {">", fb::operator>}, {"<=", fb::operator<=},
        {">=", fb::operator>=}, {"==", fb::operator==}, {"!=", fb::operator!=}, {"&&", fb::operator&&},
        {"||", fb::operator||}};
    return box(owner, ops.at(op)(x, y));
  });
}

ValueBox unary(const std::string& op, py::handle a, const py::tuple& site) {
  return guarded([&] {
    auto owner = ownerOf({a});
    fb::Operand x = operand(a, siteOf(site));
    return box(owner, op == "-" ? -x : !x);
  });
}

ValueBox select(py::handle c, py::handle a, py::handle b, const py::tuple& site) {
  return guarded([&] {
    auto owner = ownerOf({c, a, b});
    fb::Site s = siteOf(site);
    return box(owner, fb::select(operand(c, s), operand(a, s), operand(b, s)));
  });
}

ValueBox cast(const std::string& type, py::handle a, const py::tuple& site) {
  return guarded([&] {
    auto owner = ownerOf({a});
    return box(owner, fb::cast(typeNamed(type), operand(a, siteOf(site))));
  });
}

ValueBox call(const std::string& fn, const std::vector<py::handle>& args, const py::tuple& site) {
  return guarded([&] {
    auto owner = ownerOf(args);
    fb::Site s = siteOf(site);
    std::vector<fb::Operand> ops;
    for (py::handle a : args) ops.push_back(operand(a, s));
    return box(owner, fb::call(fn, ops));
  });
}

ir::ReduceOp reduceOpNamed(const std::string& name) {
  for (ir::ReduceOp op : {ir::ReduceOp::Sum, ir::ReduceOp::Min, ir::ReduceOp::Max, ir::ReduceOp::Count,
                          ir::ReduceOp::Any, ir::ReduceOp::All})
    if (name == ir::reduceOpName(op)) return op;
  throw py::value_error("unknown reduction '" + name + "'");
}

// The builder's global operations, by name.
ValueBox global(const std::string& op, ValueBox& img, const py::tuple& args, const py::tuple& site) {
  return guarded([&] {
    fb::Site s = siteOf(site);
    fb::Value v = img.v;
    if (op == "histogram")
      return box(img.owner, fb::histogram(v, args[0].cast<long long>(), args[1].cast<double>(), args[2].cast<double>(), s));
    if (op == "where") return box(img.owner, fb::where(v, args[0].cast<long long>(), s));
    if (op == "topk") return box(img.owner, fb::topk(v, args[0].cast<long long>(), s));
    if (op == "scan" || op == "sat") {
      int dim = op == "sat" ? -1 : args[0].cast<int>();
      py::handle type = args[op == "sat" ? 0 : 1];
      if (type.is_none()) return box(img.owner, op == "sat" ? fb::sat(v, s) : fb::scan(v, dim, s));
      fb::Type t = typeNamed(type.cast<std::string>());
      return box(img.owner, op == "sat" ? fb::sat(v, t, s) : fb::scan(v, dim, t, s));
    }
    return box(img.owner, fb::reduce(reduceOpNamed(op), v, args[0].cast<int>(), s));
  });
}

// A Python function of Images, called with the builder's symbolic values.
fb::StencilBody stencilBody(const std::shared_ptr<fb::Builder>& owner, py::function fn, const fb::Site& site) {
  return [owner, fn, site](const std::vector<fb::Value>& params) {
    py::list args;
    for (const fb::Value& p : params) args.append(py::cast(box(owner, p)));
    return operand(fn(*args), site);
  };
}

}  // namespace

void defineBuilder(py::module_& m, py::handle compileError) {
  gCompileError = compileError;
  py::module_ b = m.def_submodule("builder", "the embedded builder (use formac.input, formac.stencil, ...)");
  py::class_<ValueBox>(b, "Value")
      .def_property_readonly("ndim", [](const ValueBox& v) { return v.v.rank(); })
      .def_property_readonly("type", [](const ValueBox& v) { return std::string(scalarName(v.v.type())); })
      .def_property_readonly("name", [](const ValueBox& v) { return v.v.name(); })
      .def("at",
           [](const ValueBox& v, const std::vector<std::pair<int, int>>& axes, const py::tuple& site) {
             return guarded([&] {
               std::vector<fb::Offset> offsets;
               for (const auto& [o, s] : axes) offsets.emplace_back(o, s);
               return box(v.owner, v.v.atAxes(offsets, siteOf(site)));
             });
           })
      .def("boundary",
           [](const ValueBox& v, const std::string& mode, py::handle constant, const py::tuple& site) {
             return guarded([&] {
               fb::Site s = siteOf(site);
               if (mode == "clamped") return box(v.owner, v.v.clamped(s));
               if (mode == "extend") return box(v.owner, v.v.extend(s));
               if (mode == "mirror") return box(v.owner, v.v.mirror(s));
               if (mode == "wrap") return box(v.owner, v.v.wrap(s));
               bool isInt = py::isinstance<py::int_>(constant);
               return box(v.owner, v.v.withBoundary(BoundaryMode::Constant, constant.cast<double>(), isInt, s));
             });
           })
      .def("named", [](const ValueBox& v, const std::string& name, const py::tuple& site) {
        return guarded([&] { return box(v.owner, v.v.named(name, siteOf(site))); });
      });
  py::class_<StencilBox>(b, "Stencil").def("apply", [](const StencilBox& st, const py::list& args, const py::tuple& site) {
    return guarded([&] {
      fb::Site s = siteOf(site);
      std::vector<fb::Operand> ops;
      for (py::handle a : args) ops.push_back(operand(a, s));
      if (ops.empty()) throw py::type_error("a stencil is applied to at least one image");
      return box(st.owner, st.s.apply(ops));
    });
  });
  py::class_<BuilderBox>(b, "Builder")
      .def(py::init<>())
      .def("input",
           [](BuilderBox& bb, const std::string& name, const std::string& type, const std::vector<std::string>& extents,
              int rank, const py::tuple& site) {
             return guarded([&] {
               fb::Type t = typeNamed(type);
               fb::Site s = siteOf(site);
               return box(bb.b, extents.empty() ? bb.b->input(name, t, rank, s) : bb.b->input(name, t, extents, s));
             });
           })
      .def("scalar",
           [](BuilderBox& bb, const std::string& name, const std::string& type, const py::tuple& site) {
             return guarded([&] { return box(bb.b, bb.b->scalar(name, typeNamed(type), siteOf(site))); });
           })
      .def("stencil",
           [](BuilderBox& bb, const std::string& name, const std::vector<std::pair<std::string, std::string>>& params,
              py::function fn, const py::tuple& site) {
             return guarded([&] {
               fb::Site s = siteOf(site);
               std::vector<fb::Param> ps;
               for (const auto& [n, t] : params) ps.push_back(t.empty() ? fb::Param(n) : fb::Param(n, typeNamed(t)));
               return StencilBox{bb.b, bb.b->makeStencil(name, ps, ps.size(), stencilBody(bb.b, fn, s), s)};
             });
           })
      .def("loop",
           [](BuilderBox& bb, int rounds, const std::string& param, const std::vector<ValueBox>& init, py::function body,
              const py::tuple& site) {
             return guarded([&] {
               fb::Site s = siteOf(site);
               std::vector<fb::Value> values;
               for (const ValueBox& v : init) values.push_back(v.v);
               auto owner = bb.b;
               fb::LoopBody fn = [owner, body](const std::vector<fb::Value>& prev) {
                 py::list args;
                 for (const fb::Value& p : prev) args.append(py::cast(box(owner, p)));
                 py::tuple r = body(args);
                 fb::Round round;
                 for (py::handle n : r[0].cast<py::list>()) round.next.push_back(n.cast<ValueBox&>().v);
                 round.condition = r[1].cast<ValueBox&>().v;
                 return round;
               };
               std::vector<fb::Value> out = param.empty() ? bb.b->loop(rounds, values, fn, s)
                                                          : bb.b->loop(param, values, fn, s);
               std::vector<ValueBox> boxes;
               for (const fb::Value& v : out) boxes.push_back(box(bb.b, v));
               return boxes;
             });
           })
      .def("compile", [](BuilderBox& bb, const std::vector<ValueBox>& outputs, const py::tuple& site,
                         const std::string& target, bool fuse, const std::string& name) {
        return guarded([&] {
          std::vector<fb::Value> values;
          for (const ValueBox& v : outputs) values.push_back(v.v);
          bb.b->outputs(values, siteOf(site));
          CompileOptions o = targetOptions(target, fuse, name);
          return new PipelineObject(fb::compile(*bb.b, o), target);
        });
      }, py::return_value_policy::take_ownership);
  b.def("binary", &binary);
  b.def("unary", &unary);
  b.def("select", &select);
  b.def("cast", &cast);
  b.def("call", &call);
  b.def("global_op", &global);
}

}  // namespace formac::python
