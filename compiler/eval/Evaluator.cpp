#include "eval/Evaluator.h"

#include <cmath>
#include <cstring>
#include <algorithm>
#include <map>

#include "eval/Value.h"

namespace formac::eval {
namespace {

using ir::Expr;
using namespace detail;

// A read's indices, on the stack up to rank 8 (the interpreter's inner loop
// must not allocate).
class Indices {
 public:
  explicit Indices(size_t rank) : heap_(rank > kInline ? rank : 0) {}
  long long& operator[](size_t d) { return data()[d]; }
  long long* data() { return heap_.empty() ? inline_ : heap_.data(); }

 private:
  static constexpr size_t kInline = 8;
  long long inline_[kInline];
  std::vector<long long> heap_;
};

class Interpreter {
 public:
  Interpreter(const ir::Pipeline& p, const Inputs& in) : p_(p), in_(in) {}

  std::vector<Buffer> run() {
    buffers_.resize(p_.stages.size());
    size_t nextInput = 0;
    for (const auto& s : p_.stages) {
      Buffer& b = buffers_[static_cast<size_t>(s.id)];
      b.type = s.type;
      for (const auto& e : s.extent) {
        long long n = ir::evalSize(e, in_.params);
        if (n < 0)
          throw UserError("the extent of '" + s.name + "' is negative (" + std::to_string(n) +
                          ") for these parameter values");
        b.extent.push_back(n);
      }
      size_t bytes = b.elementCount() * typeSize(s.type);
      if (s.kind == ir::Stage::Input) {
        FORMAC_INTERNAL_CHECK(nextInput < in_.images.size(), "missing input image");
        const unsigned char* src = in_.images[nextInput++];
        b.bytes.assign(src, src + bytes);
      } else if (s.kind == ir::Stage::Reduce) {
        b.bytes.assign(bytes, 0);
        runReduce(s, b);
      } else if (s.kind == ir::Stage::Scan) {
        b.bytes.assign(bytes, 0);
        runScan(s, b);
      } else if (s.kind == ir::Stage::LoopResult) {
        if (s.loopIndex == 0) runLoop(s);  // fills every result of the loop
      } else {
        b.bytes.assign(bytes, 0);
        for (const auto& pc : s.pieces) runPiece(s, pc, b);
      }
    }
    std::vector<Buffer> out;
    for (int o : p_.outputs) out.push_back(buffers_[static_cast<size_t>(o)]);
    return out;
  }

 private:
  void runPiece(const ir::Stage& s, const ir::Piece& pc, Buffer& b) {
    size_t rank = pc.axes.size();
    std::vector<long long> start(rank), count(rank), lo(rank), hi(rank), q(rank, 0);
    for (size_t d = 0; d < rank; ++d) {
      start[d] = ir::evalSize(pc.axes[d].start, in_.params);
      count[d] = ir::evalSize(pc.axes[d].count, in_.params);
      lo[d] = ir::evalSize(pc.validLo[d], in_.params);
      hi[d] = ir::evalSize(pc.validHi[d], in_.params);
      if (count[d] <= 0) return;
    }
    size_t elem = typeSize(s.type);
    for (;;) {
      bool inside = true;
      size_t linear = 0;
      for (size_t d = 0; d < rank; ++d) {
        long long pd = start[d] + pc.axes[d].step * q[d];
        if (pd < 0 || pd >= b.extent[d] || q[d] < lo[d] || q[d] > hi[d]) inside = false;
        linear = linear * static_cast<size_t>(b.extent[d]) + static_cast<size_t>(pd);
      }
      if (inside) {
        q_ = &q;
        lets_.clear();
        for (const auto& l : pc.body.lets) lets_.push_back(eval(*l.value));
        store(b.bytes.data() + linear * elem, s.type, eval(*pc.body.result));
      }
      size_t d = rank;
      while (d > 0) {
        --d;
        if (++q[d] < count[d]) break;
        q[d] = 0;
        if (d == 0) return;
      }
      if (rank == 0) return;
    }
  }

  // Every value of the reduction's input, in row-major order of q, goes to
  // the output point it is combined into (Pipeline.h).
  void runReduce(const ir::Stage& s, Buffer& b) {
    const ir::Reduction& r = s.reduction;
    const ir::Piece& pc = r.input;
    size_t rank = pc.axes.size();
    std::vector<long long> count(rank), q(rank, 0);
    for (size_t d = 0; d < rank; ++d) count[d] = ir::evalSize(pc.axes[d].count, in_.params);
    bool oneList = r.op == ir::ReduceOp::Histogram || r.op == ir::ReduceOp::Where || r.op == ir::ReduceOp::TopK;
    std::vector<std::vector<Val>> values(oneList ? 1 : b.elementCount());
    bool empty = false;
    size_t points = 1;
    for (long long c : count) {
      empty = empty || c <= 0;
      points *= c > 0 ? static_cast<size_t>(c) : 0;
    }
    for (auto& v : values) v.reserve(points / values.size());
    while (!empty) {
      size_t out = 0;
      for (size_t d = 0; d < rank; ++d)
        if (static_cast<int>(d) != r.dim) out = out * static_cast<size_t>(count[d]) + static_cast<size_t>(q[d]);
      if (r.dim < 0) out = 0;
      q_ = &q;
      lets_.clear();
      for (const auto& l : pc.body.lets) lets_.push_back(eval(*l.value));
      values[out].push_back(eval(*pc.body.result));
      size_t d = rank;
      while (d > 0 && ++q[d - 1] == count[d - 1]) q[--d] = 0;
      if (d == 0) break;
    }
    size_t elem = typeSize(s.type);
    if (r.op == ir::ReduceOp::Where || r.op == ir::ReduceOp::TopK) {
      std::vector<int64_t> chosen;
      const std::vector<Val>& v = values[0];
      if (r.op == ir::ReduceOp::Where) {
        for (size_t i = 0; i < v.size() && chosen.size() < static_cast<size_t>(r.bins); ++i)
          if (truthy(v[i])) chosen.push_back(static_cast<int64_t>(i));
      } else {
        for (size_t i = 0; i < v.size(); ++i)
          if (!isFloating(v[i].kind) || !std::isnan(v[i].f)) chosen.push_back(static_cast<int64_t>(i));
        // Larger first (-0 below +0), then the smaller index.
        auto above = [&](int64_t a, int64_t b) {
          const Val &x = v[static_cast<size_t>(a)], &y = v[static_cast<size_t>(b)];
          if (isFloating(x.kind)) {
            if (x.f != y.f) return x.f > y.f;
            if (std::signbit(x.f) != std::signbit(y.f)) return !std::signbit(x.f);
          } else if (x.i != y.i) {
            return x.i > y.i;
          }
          return a < b;
        };
        size_t k = std::min(chosen.size(), static_cast<size_t>(r.bins));
        std::partial_sort(chosen.begin(), chosen.begin() + static_cast<long>(k), chosen.end(), above);
        chosen.resize(k);
      }
      chosen.resize(static_cast<size_t>(r.bins), -1);
      for (size_t k = 0; k < chosen.size(); ++k) storeScalar(b.bytes.data() + k * elem, makeInt(ScalarKind::Int64, chosen[k]));
      return;
    }
    if (r.op == ir::ReduceOp::Histogram) {
      std::vector<int64_t> counts(static_cast<size_t>(r.bins), 0);
      for (const Val& v : values[0]) {
        double x = isFloating(v.kind) ? v.f : static_cast<double>(v.i);
        double bin = std::floor((x - r.lo) * static_cast<double>(r.bins) / (r.hi - r.lo));
        if (x >= r.lo && x < r.hi && bin >= 0 && bin < static_cast<double>(r.bins)) ++counts[static_cast<size_t>(bin)];
      }
      for (size_t k = 0; k < counts.size(); ++k) storeScalar(b.bytes.data() + k * elem, makeInt(ScalarKind::Int64, counts[k]));
      return;
    }
    for (size_t o = 0; o < values.size(); ++o)
      storeScalar(b.bytes.data() + o * elem, combine(r.op, s.type.scalar, pc.body.result->type.scalar, values[o]));
  }

  // Rounds of the loop's body until its condition is 0 or the rounds run
  // out (Pipeline.h); the carried images' last values go to the loop's
  // results, the consecutive stages from `first`.
  void runLoop(const ir::Stage& first) {
    const ir::Loop& loop = *first.loop;
    std::vector<Buffer> carried;
    for (const auto& b : loop.carried) carried.push_back(buffers_[static_cast<size_t>(b.outer)]);
    long long rounds = ir::evalSize(loop.rounds, in_.params), ran = 0;
    for (long long r = 0; r < rounds; ++r) {
      std::map<int, const unsigned char*> inputs;
      for (size_t j = 0; j < carried.size(); ++j) inputs[loop.carried[j].inner] = carried[j].bytes.data();
      for (const auto& b : loop.reads) inputs[b.inner] = buffers_[static_cast<size_t>(b.outer)].bytes.data();
      Inputs in;
      in.params = in_.params;
      in.scalars = in_.scalars;
      for (const auto& s : loop.body->stages)
        if (s.kind == ir::Stage::Input) in.images.push_back(inputs.at(s.id));
      std::vector<Buffer> out = Interpreter(*loop.body, in).run();
      for (size_t j = 0; j < carried.size(); ++j) carried[j].bytes = std::move(out[j].bytes);
      ++ran;
      const Buffer& cond = out.back();
      if (!truthy(load(cond.bytes.data(), cond.type))) break;
    }
    for (size_t j = 0; j < carried.size(); ++j) buffers_[static_cast<size_t>(first.id) + j].bytes = carried[j].bytes;
    if (in_.loopRounds) in_.loopRounds->push_back(ran);
  }

  // The input's values in row-major order, converted to the accumulation
  // type, scanned line by line (Pipeline.h), converted to the stage's type.
  void runScan(const ir::Stage& s, Buffer& b) {
    const ir::Piece& pc = s.scan.input;
    size_t rank = pc.axes.size(), n = b.elementCount();
    if (n == 0) return;
    bool floating = s.scan.accumulate == ScalarKind::Double;
    std::vector<double> f(floating ? n : 0);
    std::vector<uint64_t> i(floating ? 0 : n);
    std::vector<long long> q(rank, 0);
    for (size_t k = 0; k < n; ++k) {
      q_ = &q;
      lets_.clear();
      for (const auto& l : pc.body.lets) lets_.push_back(eval(*l.value));
      Val v = convertVal(eval(*pc.body.result), s.scan.accumulate);
      if (floating) f[k] = v.f;
      else i[k] = static_cast<uint64_t>(v.i);
      size_t d = rank;
      while (d > 0 && ++q[d - 1] == b.extent[d - 1]) q[--d] = 0;
    }
    for (int d = static_cast<int>(rank) - 1; d >= 0; --d) {
      if (s.scan.dim >= 0 && d != s.scan.dim) continue;
      size_t len = static_cast<size_t>(b.extent[static_cast<size_t>(d)]), stride = 1;
      for (size_t e = static_cast<size_t>(d) + 1; e < rank; ++e) stride *= static_cast<size_t>(b.extent[e]);
      for (size_t start = 0; start < n; ++start) {
        if ((start / stride) % len != 0) continue;  // not the first point of its line
        if (floating) {
          std::vector<double> line(len);
          for (size_t k = 0; k < len; ++k) line[k] = f[start + k * stride];
          line = floatingScan(line);
          for (size_t k = 0; k < len; ++k) f[start + k * stride] = line[k];
        } else {
          for (size_t k = 1; k < len; ++k) i[start + k * stride] += i[start + (k - 1) * stride];
        }
      }
    }
    size_t elem = typeSize(s.type);
    for (size_t k = 0; k < n; ++k) {
      Val v = floating ? makeFloat(ScalarKind::Double, f[k]) : makeInt(ScalarKind::Int64, static_cast<int64_t>(i[k]));
      storeScalar(b.bytes.data() + k * elem, convertVal(v, s.type.scalar));
    }
  }

  static Val combine(ir::ReduceOp op, ScalarKind result, ScalarKind element, const std::vector<Val>& v) {
    switch (op) {
      case ir::ReduceOp::Sum: {
        if (isFloating(element)) {
          std::vector<double> x;
          for (const Val& a : v) x.push_back(a.f);
          return makeFloat(result, floatingSum(x));
        }
        uint64_t sum = 0;
        for (const Val& a : v) sum += static_cast<uint64_t>(a.i);
        return makeInt(result, static_cast<int64_t>(sum));
      }
      case ir::ReduceOp::Min:
      case ir::ReduceOp::Max: {
        bool isMax = op == ir::ReduceOp::Max;
        if (isFloating(element)) {
          // NaN is the identity: it is skipped, and stays only if all are NaN.
          double acc = v.empty() ? (isMax ? -INFINITY : INFINITY) : NAN;
          for (const Val& a : v) {
            bool wins = isMax ? (a.f > acc || (a.f == acc && !std::signbit(a.f)))
                              : (a.f < acc || (a.f == acc && std::signbit(a.f)));
            if (std::isnan(acc) || wins) acc = std::isnan(a.f) ? acc : a.f;
          }
          return makeFloat(result, acc);
        }
        long long lo, hi;
        integerRange(element, &lo, &hi);
        int64_t acc = isMax ? lo : hi;
        for (const Val& a : v) acc = isMax ? std::max(acc, a.i) : std::min(acc, a.i);
        return makeInt(result, acc);
      }
      case ir::ReduceOp::Count: {
        int64_t n = 0;
        for (const Val& a : v) n += truthy(a) ? 1 : 0;
        return makeInt(result, n);
      }
      case ir::ReduceOp::Histogram:
      case ir::ReduceOp::Where:
      case ir::ReduceOp::TopK: break;
      case ir::ReduceOp::Any:
      case ir::ReduceOp::All: {
        bool all = true, any = false;
        for (const Val& a : v) {
          any = any || truthy(a);
          all = all && truthy(a);
        }
        return makeInt(result, op == ir::ReduceOp::Any ? any : all);
      }
    }
    throw InternalError("unhandled reduction in the evaluator");
  }

  Val readAt(int producer, const long long* idx, size_t rank, ir::BoundaryMode mode,
             double constant, const Type& type, int field) {
    const Buffer& src = buffers_[static_cast<size_t>(producer)];
    size_t linear = 0;
    for (size_t d = 0; d < rank; ++d) {
      long long n = src.extent[d];
      long long i = idx[d];
      if (i < 0 || i >= n) {
        i = resolveIndex(i, n, mode);
        if (i < 0) {
          if (mode == ir::BoundaryMode::Constant) return constantOf(type, constant);
          return zeroOf(type);
        }
      }
      linear = linear * static_cast<size_t>(n) + static_cast<size_t>(i);
    }
    const unsigned char* at = src.bytes.data() + linear * typeSize(src.type);
    if (field >= 0) return loadScalar(at + fieldOffset(*src.type.structType, field), type.scalar);
    return load(at, src.type);
  }

  Val eval(const Expr& e) {
    switch (e.kind) {
      case Expr::Const: return constVal(e);
      case Expr::ImageRead: {
        Indices idx(e.axes.size());
        for (size_t d = 0; d < e.axes.size(); ++d) {
          long long o = d < e.origin.size() ? ir::evalSize(e.origin[d], in_.params) : 0;
          idx[d] = e.axes[d].scale * (*q_)[static_cast<size_t>(e.firstDim) + d] + e.axes[d].offset + o;
        }
        return readAt(e.producer, idx.data(), e.axes.size(), e.mode, e.constant, e.type, e.field);
      }
      case Expr::IndexRead: {
        Indices idx(e.args.size());
        for (size_t d = 0; d < e.args.size(); ++d) idx[d] = eval(*e.args[d]).i;
        return readAt(e.producer, idx.data(), e.args.size(), e.mode, e.constant, e.type, -1);
      }
      case Expr::ScalarIn: {
        double v = in_.scalars.at(static_cast<size_t>(e.scalar));
        return isFloating(e.type.scalar) ? makeFloat(e.type.scalar, v)
                                         : makeInt(e.type.scalar, static_cast<int64_t>(v));
      }
      case Expr::Local: return lets_.at(static_cast<size_t>(e.local));
      case Expr::Select: {
        Val c = eval(*e.args[0]);
        Val a = eval(*e.args[1]);
        Val b = eval(*e.args[2]);
        return truthy(c) ? a : b;
      }
      case Expr::Unary:
      case Expr::Binary:
      case Expr::Call:
      case Expr::Cast: {
        FORMAC_INTERNAL_CHECK(e.args.size() <= 3, "an operation of more than 3 operands");
        Val args[3];
        for (size_t k = 0; k < e.args.size(); ++k) args[k] = eval(*e.args[k]);
        return applyOp(e, args, e.args.size());
      }
      case Expr::Field: return eval(*e.args[0]).fields.at(static_cast<size_t>(e.field));
      case Expr::MakeStruct: {
        Val v;
        for (const auto& a : e.args) v.fields.push_back(eval(*a));
        return v;
      }
    }
    throw InternalError("unhandled expression in the evaluator");
  }

  const ir::Pipeline& p_;
  const Inputs& in_;
  std::vector<Buffer> buffers_;
  const std::vector<long long>* q_ = nullptr;
  std::vector<Val> lets_;
};

}  // namespace

size_t Buffer::elementCount() const {
  size_t n = 1;
  for (long long e : extent) n *= static_cast<size_t>(e);
  return n;
}

long long resolveIndex(long long i, long long n, ir::BoundaryMode mode) {
  if (i >= 0 && i < n) return i;
  if (n <= 0) return -1;
  switch (mode) {
    case ir::BoundaryMode::Clamped:
    case ir::BoundaryMode::Extend: return i < 0 ? 0 : n - 1;
    case ir::BoundaryMode::Mirror: {
      if (n == 1) return 0;
      long long period = 2 * (n - 1);
      long long m = i % period;
      if (m < 0) m += period;
      return m < n ? m : period - m;
    }
    case ir::BoundaryMode::Wrap: {
      long long m = i % n;
      return m < 0 ? m + n : m;
    }
    default: return -1;
  }
}

double floatingSum(std::vector<double> x) {
  if (x.empty()) return 0.0;
  for (;;) {
    size_t chunk = static_cast<size_t>(ir::kSumChunk), chunks = (x.size() + chunk - 1) / chunk;
    for (size_t c = 0; c < chunks; ++c) {
      double lane[ir::kSumLanes] = {};
      size_t end = std::min(x.size(), (c + 1) * static_cast<size_t>(ir::kSumChunk));
      for (size_t k = c * static_cast<size_t>(ir::kSumChunk); k < end; ++k) lane[k % ir::kSumLanes] += x[k];
      for (int s = ir::kSumLanes / 2; s >= 1; s /= 2)
        for (int j = 0; j < s; ++j) lane[j] += lane[j + s];
      x[c] = lane[0];
    }
    if (chunks == 1) return x[0];
    x.resize(chunks);
  }
}

std::vector<double> floatingScan(const std::vector<double>& x) {
  const size_t run = ir::kScanRun, runs = (x.size() + run - 1) / run;
  std::vector<double> out(x.size()), group(runs);
  for (size_t r = 0; r < runs; ++r) {
    double l = 0.0;
    for (size_t i = r * run; i < std::min(x.size(), (r + 1) * run); ++i) out[i] = l = l + x[i];
    group[r] = l;
  }
  // Up-sweep: group[k] becomes G(k + 1 - b, b), b the lowest set bit of k + 1.
  for (size_t m = 1; m < runs; m *= 2)
    for (size_t k = 2 * m - 1; k < runs; k += 2 * m) group[k] = group[k - m] + group[k];
  std::vector<double> prefix(runs, 0.0);  // E
  for (size_t r = 1; r < runs; ++r) prefix[r] = prefix[r - (r & (~r + 1))] + group[r - 1];
  for (size_t i = 0; i < x.size(); ++i) out[i] = prefix[i / run] + out[i];
  return out;
}

std::vector<Buffer> evaluate(const ir::Pipeline& p, const Inputs& in) {
  return Interpreter(p, in).run();
}

}  // namespace formac::eval
