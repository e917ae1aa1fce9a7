"""Every error path of the builder from Python: formac.CompileError whose
text names this file and the line of the Python call that made the
offending value, shows that line with a caret, and says what is wrong."""
import sys

import numpy as np
import pytest

import formac


def here():
    """The caller's line number."""
    return sys._getframe(1).f_lineno


def expect_error(fn, line, message):
    with pytest.raises(formac.CompileError) as e:
        fn()
    text = str(e.value)
    assert "%s:%d:" % (__file__, line) in text, text
    assert message in text, text
    assert "^" in text, text


@pytest.fixture
def img():
    return formac.input("img", np.float32)


@pytest.fixture
def copy():
    @formac.stencil
    def copy(X):
        return X
    return copy


def test_type_mismatch(img):
    expect_error(lambda: img % 2, here(), "'%' needs integer operands, found 'float' and 'int'")


def test_shows_the_python_line(img):
    with pytest.raises(formac.CompileError) as e:
        img % 2  # noqa: B018 the line shown
    assert "        img % 2  # noqa: B018 the line shown\n" in str(e.value)


def test_images_of_two_ranks(img):
    row = formac.input("row", np.float32, ndim=1)
    expect_error(lambda: img + row, here(), "'+' combines 'img', of rank 2, with 'row', of rank 1")


def test_wrong_number_of_offsets(img):
    expect_error(lambda: img.at(1), here(), "'img' has rank 2, but 1 offset is given")


def test_reduction_used_as_an_image(img):
    expect_error(lambda: formac.sum(img).at(1, 0), here(), "is a scalar (a reduction of the whole image)")
    expect_error(lambda: formac.max(img).mirror, here(), "is a scalar (a reduction of the whole image)")


def test_non_scalar_loop_condition(img, copy):
    line = here() + 1
    out = formac.loop(5, img, lambda e: (copy(e), copy(e)))
    expect_error(lambda: formac.Pipeline(outputs=[out]).compile(target="eval"), line,
                 "the condition of a 'do' loop is a scalar")


def test_loop_carries_another_type(img):
    @formac.stencil
    def half(X):
        return X / 2.0

    line = here() + 1
    out = formac.loop(5, img, lambda e: (half(e), formac.any(half(e))))
    expect_error(lambda: formac.Pipeline(outputs=[out]).compile(target="eval"), line,
                 "must have the type and extent of")


def test_loop_value_used_after_the_loop(img, copy):
    kept = []

    def body(e):
        kept.append(copy(e))
        return kept[0], formac.any(kept[0])

    formac.loop(5, img, body)
    expect_error(lambda: kept[0] + 1, here(), "is computed in a 'do' loop's body")


def test_stencil_reads_a_value_that_is_not_a_parameter(img):
    line = here() + 4

    @formac.stencil
    def leaky(X):
        return X + img

    expect_error(lambda: leaky(img), line, "stencil 'leaky' reads 'img', which is not one of its parameters")


def test_boundary_inside_a_stencil(img):
    line = here() + 4

    @formac.stencil
    def bad(X):
        return X.mirror

    expect_error(lambda: bad(img), line, "a boundary condition is given where a stencil is applied")


def test_reduction_inside_a_stencil(img):
    line = here() + 4

    @formac.stencil
    def bad(X):
        return X / formac.sum(X)

    expect_error(lambda: bad(img), line, "'sum' is a statement of the pipeline, not part of stencil 'bad'")


def test_stencil_given_a_scalar_expression(img, copy):
    k = formac.scalar("k", np.float32)
    expect_error(lambda: copy(k * 2), here(), "a scalar argument of stencil 'copy' is a number")


def test_stencil_given_too_many_arguments(img, copy):
    expect_error(lambda: copy(img, img), here(), "stencil 'copy' takes 1 argument, 2 given")


def test_scalar_expression_returned(img):
    line = here() + 1
    mean = formac.sum(img) / 2
    expect_error(lambda: formac.Pipeline(outputs=[mean]).compile(target="eval"), line, "is a scalar expression")


def test_dimension_out_of_range(img):
    expect_error(lambda: formac.sum(img, 2), here(), "'img' has rank 2, so it has no dimension 2 for 'sum'")


def test_bad_names(img):
    expect_error(lambda: (img + 1).named("two words"), here(), "'two words' cannot name a value")
    expect_error(lambda: formac.input("while", np.float32), here(), "'while' cannot name an input")


def test_name_defined_twice(img, copy):
    a = copy(img).named("a")
    line = here() + 1
    a2 = copy(a).named("a")
    expect_error(lambda: formac.Pipeline(outputs=[a2]).compile(target="eval"), line, "'a' is already defined")


def test_boundary_constant_does_not_fit(copy):
    img8 = formac.input("img8", np.uint8)
    line = here() + 1
    c = copy(img8.constant(300))
    expect_error(lambda: formac.Pipeline(outputs=[c]).compile(target="eval"), line, "constant(300) does not fit")


def test_images_of_different_extents(img):
    other = formac.input("other", np.float32, extents=["P", "Q"])
    line = here() + 1
    mixed = img + other
    expect_error(lambda: formac.Pipeline(outputs=[mixed]).compile(target="eval"), line, "has extent")


def test_python_type_errors(img):
    with pytest.raises(TypeError, match="is not an element type"):
        formac.input("x", np.complex64)
    with pytest.raises(TypeError, match="expected a formac Image or a number, got str"):
        img + "1"
    with pytest.raises(TypeError, match="a bool is not a number"):
        img + True
    with pytest.raises(TypeError, match="formac.sum takes a formac Image"):
        formac.sum(3)
    with pytest.raises(ValueError, match="does not fit Forma's int"):
        img + 2**40
    with pytest.raises(TypeError, match="at least one operand must be a formac Image"):
        formac.select(1, 2, 3)


def test_no_truth_value(img):
    with pytest.raises(TypeError, match="has no truth value"):
        if img > 0:
            pass


def test_stencil_applied_to_nothing(copy):
    with pytest.raises(TypeError, match="a stencil is applied to at least one image"):
        copy()
