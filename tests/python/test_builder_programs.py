"""The embedded builder from Python (python/formac/builder.py): pipelines
built with formac.input, @formac.stencil, operators, reductions, scans and
loops, bit-identical to the same programs as text (formac.compile), through
the JIT and the evaluator."""
import numpy as np
import pytest

import formac
from conftest import assert_bits_equal, example, random_image

TARGETS = ["cpu", "eval"]
f32 = np.float32


def same_as_text(outputs, text_or_path, inputs, values=None, target="cpu"):
    built = formac.Pipeline(outputs=outputs).compile(target=target)
    text = formac.compile(text_or_path, target=target)
    assert_bits_equal(built(*inputs, **(values or {})), text(*inputs, **(values or {})))
    return built


@pytest.mark.parametrize("target", TARGETS)
def test_blur(target, rng):
    img = formac.input("input", np.float32)

    @formac.stencil
    def blurx(X):
        return formac.cast("double", X.at(-1, 0) + X + X.at(1, 0)) / 3.0

    @formac.stencil
    def blury(Y):
        return (Y.at(0, -1) + Y + Y.at(0, 1)) / 3.0

    out = blury(blurx(img.mirror).named("temp").mirror).named("output")
    same_as_text([out], example("blur"), [random_image(rng, (37, 53), np.float32)], target=target)


def harris_outputs():
    img = formac.input("img", np.float32)
    k = formac.scalar("k", np.float32)

    @formac.stencil
    def sobel_x(I):
        return (I.at(-1, 1) - I.at(-1, -1)) + f32(2) * (I.at(0, 1) - I.at(0, -1)) + (I.at(1, 1) - I.at(1, -1))

    @formac.stencil
    def sobel_y(I):
        return (I.at(1, -1) - I.at(-1, -1)) + f32(2) * (I.at(1, 0) - I.at(-1, 0)) + (I.at(1, 1) - I.at(-1, 1))

    @formac.stencil
    def gaussian3x3(X):
        return (X.at(-1, -1) + f32(2) * X.at(-1, 0) + X.at(-1, 1) + f32(2) * X.at(0, -1) + f32(4) * X
                + f32(2) * X.at(0, 1) + X.at(1, -1) + f32(2) * X.at(1, 0) + X.at(1, 1)) / f32(16)

    @formac.stencil
    def product(A, B):
        return A * B

    @formac.stencil
    def response(Sxx, Syy, Sxy, k):
        det = (Sxx * Syy - Sxy * Sxy).named("det")
        trace = (Sxx + Syy).named("trace")
        return det - k * trace * trace

    ix = sobel_x(img.mirror).named("ix")
    iy = sobel_y(img.mirror).named("iy")
    sxx = gaussian3x3(product(ix, ix).named("ixx").mirror).named("sxx")
    syy = gaussian3x3(product(iy, iy).named("iyy").mirror).named("syy")
    sxy = gaussian3x3(product(ix, iy).named("ixy").mirror).named("sxy")
    return [response(sxx, syy, sxy, k)]


@pytest.mark.parametrize("target", TARGETS)
def test_harris(target, rng):
    same_as_text(harris_outputs(), example("harris"), [random_image(rng, (41, 29), np.float32)], {"k": 0.05},
                 target=target)


@pytest.mark.parametrize("target", TARGETS)
def test_canny(target, rng):
    img = formac.input("img", np.float32)
    low, high = formac.scalar("low", np.float32), formac.scalar("high", np.float32)
    w = [[2, 4, 5, 4, 2], [4, 9, 12, 9, 4], [5, 12, 15, 12, 5], [4, 9, 12, 9, 4], [2, 4, 5, 4, 2]]

    @formac.stencil
    def gauss5(X):
        s = None
        for i in range(-2, 3):
            for j in range(-2, 3):
                term = w[i + 2][j + 2] * (X if i == 0 and j == 0 else X.at(i, j))
                s = term if s is None else s + term
        return s / f32(159)

    @formac.stencil
    def sobel_x(I):
        return (I.at(-1, 1) - I.at(-1, -1)) + 2 * (I.at(0, 1) - I.at(0, -1)) + (I.at(1, 1) - I.at(1, -1))

    @formac.stencil
    def sobel_y(I):
        return (I.at(1, -1) - I.at(-1, -1)) + 2 * (I.at(1, 0) - I.at(-1, 0)) + (I.at(1, 1) - I.at(-1, 1))

    @formac.stencil
    def magnitude(gx, gy):
        return formac.sqrt(gx * gx + gy * gy)

    @formac.stencil
    def thin(gx, gy, mag):
        sel, t = formac.select, f32(0.41421)
        ax = formac.fabs(gx).named("ax")
        ay = formac.fabs(gy).named("ay")
        a = sel(ay <= t * ax, mag.at(0, -1),
                sel(ax <= t * ay, mag.at(-1, 0), sel(gx * gy > 0, mag.at(-1, -1), mag.at(-1, 1)))).named("a")
        b = sel(ay <= t * ax, mag.at(0, 1),
                sel(ax <= t * ay, mag.at(1, 0), sel(gx * gy > 0, mag.at(1, 1), mag.at(1, -1)))).named("b")
        return sel(mag > a, sel(mag >= b, mag, f32(0)), f32(0))

    @formac.stencil
    def classify(E, low, high):
        return formac.cast(np.uint8, formac.select(E >= high, 255, formac.select(E >= low, 128, 0)))

    smooth = gauss5(img.mirror).named("smooth")
    gx = sobel_x(smooth.mirror).named("gx")
    gy = sobel_y(smooth.mirror).named("gy")
    mag = magnitude(gx, gy).named("mag")
    edges = thin(gx, gy, mag.mirror).named("edges")
    same_as_text([classify(edges, low, high)], example("canny"), [random_image(rng, (31, 47), np.float32)],
                 {"low": 0.1, "high": 0.3}, target=target)


@pytest.mark.parametrize("target", TARGETS)
def test_sat_box_filter(target, rng):
    img = formac.input("img", np.uint8)

    @formac.stencil
    def one(X):
        return 1

    @formac.stencil
    def box(I, Inside):
        up = Inside.at(-4, 0).named("up")
        left = Inside.at(0, -4).named("left")
        s = (I.at(3, 3) - up * I.at(-4, 3) - left * I.at(3, -4) + up * left * I.at(-4, -4)).named("s")
        return s / 49.0

    I = formac.sat(img, np.float64).named("I")
    out = box(I.clamped, one(img).named("inside").constant(0)).named("out")
    same_as_text([out], example("boxfilter"), [random_image(rng, (33, 21), np.uint8)], target=target)


@pytest.mark.parametrize("target", TARGETS)
def test_normalize_and_reductions(target, rng):
    img = formac.input("img", np.uint8)

    @formac.stencil
    def stretch(X, lo: "double", hi: "double"):
        sel = formac.select
        scale = (255.0 * sel(hi > lo, 1.0 / (hi - lo), 0.0)).named("scale")
        a = formac.cast("float", scale).named("a")
        b = formac.cast("float", 0.0 - lo * scale).named("b")
        f = formac.cast("float", X * a.astype("double") + b.astype("double")).named("f")
        t = formac.floor(f).named("t")
        d = (f - t).named("d")
        i = t.astype("int").named("i")
        r = (i + sel(d > f32(0.5), 1, sel(d < f32(0.5), 0, sel(i % 2 != 0, 1, 0)))).named("r")
        return formac.cast("int8", sel(r < 0, 0, sel(r > 255, 255, r)))

    lo = formac.min(img).named("lo")
    hi = formac.max(img).named("hi")
    out = stretch(img, lo, hi).named("out")
    built = same_as_text([out, lo, hi], example("normalize"), [random_image(rng, (23, 19), np.uint8)],
                         target=target)
    o, l, h = built(np.array([[3, 9], [200, 7]], dtype=np.uint8))
    assert (l, h) == (3, 200) and o[0, 0] == 0 and o[1, 0] == 255


@pytest.mark.parametrize("target", TARGETS)
def test_histogram_and_scan(target, rng):
    img = formac.input("img", np.uint8)
    h = formac.histogram(img, 256, 0, 256).named("h")
    cdf = formac.scan(h, 0).named("cdf")
    text = ("parameter M, N;\nvector#2 int8 img[M,N];\nh = histogram(img, 256, 0, 256);\n"
            "cdf = scan(h, 0);\nrows = sum(img, 1);\nreturn h, cdf, rows;\n")
    rows = formac.sum(img, 1).named("rows")
    a = random_image(rng, (17, 40), np.uint8)
    hh, cc, rr = same_as_text([h, cdf, rows], text, [a], target=target)(a)
    assert (hh == np.bincount(a.ravel(), minlength=256)).all()
    assert (cc == np.cumsum(hh)).all() and (rr == a.sum(axis=1)).all()


@pytest.mark.parametrize("target", TARGETS)
def test_do_loop(target, rng):
    img = formac.input("img", np.float32)

    @formac.stencil
    def seed(X):
        return formac.select(X > f32(0.8), 1, 0)

    @formac.stencil
    def grow(E, X):
        near = (E.at(-1, 0) + E.at(1, 0) + E.at(0, -1) + E.at(0, 1)) > 0
        return formac.select(E > 0, 1, formac.select(near & (X > f32(0.5)), 1, 0))

    @formac.stencil
    def differs(A, B):
        return A != B

    def body(e):
        nxt = grow(e.constant(0), img)
        return nxt, formac.any(differs(nxt, e).named("c"))

    e = formac.loop("R", seed(img).named("e"), body)
    text = """
stencil seed(vector#2 float X) { return (X > 0.8f ? 1 : 0); }
stencil grow(vector#2 int E, vector#2 float X) {
  return (E > 0 ? 1 : ((E@[-1,0] + E@[1,0] + E@[0,-1] + E@[0,1]) > 0 && X > 0.5f ? 1 : 0));
}
stencil differs(vector#2 int A, vector#2 int B) { return A != B; }
parameter M, N, R;
vector#2 float img[M,N];
e<0> = seed(img);
do i = 1..R
  e<i> = grow(e<i-1>:constant(0), img);
  c = differs(e<i>, e<i-1>);
while (any(c));
return e<i>;
"""
    same_as_text([e], text, [random_image(rng, (29, 31), np.float32)], {"R": 100}, target=target)


def test_image_expressions(rng):
    """Accelerator's way: arithmetic on images, each expression a stencil of its own."""
    img = formac.input("img", np.float32)
    k = formac.scalar("k", np.float32)
    m = img.mirror
    dx = ((m.at(0, 1) - m.at(0, -1)) * f32(0.5)).named("dx")
    out = formac.sqrt(dx * dx + k) / formac.max(img)
    p = formac.Pipeline(outputs=[out]).compile(target="eval")
    a = random_image(rng, (13, 11), np.float32)
    got = p(a, k=2.0)
    pad = np.pad(a, ((0, 0), (1, 1)), mode="reflect")
    d = (pad[:, 2:] - pad[:, :-2]) * f32(0.5)
    want = np.sqrt(d * d + f32(2)) / a.max()
    assert got.dtype == np.float32 and np.array_equal(got, want)

