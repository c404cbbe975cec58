"""tapejax.autograph: TF's names, behaviour against live TF, and no source conversion."""

import functools
import inspect

import numpy as np
import pytest

import tapejax as tf
from tapejax._src import autograph as ag

tf_real = pytest.importorskip("tensorflow")
from tensorflow.python.autograph.utils import ag_logging  # noqa: E402

# Called through getattr in test_to_code_and_to_graph_raise_not_implemented.
OTHERWISE_TESTED = {"autograph.to_code", "autograph.to_graph"}


def _public(module):
    return sorted(n for n in dir(module) if not n.startswith("_"))


@pytest.fixture
def verbosity(monkeypatch):
    """Restores both libraries' verbosity state and clears ``$AUTOGRAPH_VERBOSITY``."""
    monkeypatch.setattr(ag_logging, "verbosity_level", None)
    monkeypatch.setattr(ag_logging, "echo_log_to_stdout", ag_logging.echo_log_to_stdout)
    monkeypatch.setattr(ag, "_verbosity_level", None)
    monkeypatch.setattr(ag, "_echo_log_to_stdout", ag._echo_log_to_stdout)
    monkeypatch.delenv(ag.VERBOSITY_VAR_NAME, raising=False)
    return monkeypatch


@pytest.mark.parametrize("ns", ["autograph", "autograph.experimental"])
def test_namespace_has_tfs_names(ns):
    ours, theirs = tf, tf_real
    for part in ns.split("."):
        ours, theirs = getattr(ours, part), getattr(theirs, part)
    assert _public(ours) == _public(theirs)


def test_feature_members_and_values():
    ours, theirs = tf.autograph.experimental.Feature, tf_real.autograph.experimental.Feature
    assert [(k, v.value) for k, v in ours.__members__.items()] == [
        (k, v.value) for k, v in theirs.__members__.items()
    ]
    assert [f.value for f in ours.all()] == [f.value for f in theirs.all()]
    for exclude in (ours.LISTS, [ours.LISTS, ours.NAME_SCOPES]):
        tf_exclude = (
            [theirs(e.value) for e in exclude]
            if isinstance(exclude, list)
            else theirs(exclude.value)
        )
        assert sorted(f.value for f in ours.all_but(exclude)) == sorted(
            f.value for f in theirs.all_but(tf_exclude)
        )


def _scale(x, k=2):
    """Multiplies by k."""
    return x * k


class _Holder:
    def method(self, x):
        """A method."""
        return x + 1

    def __call__(self, x):
        return x - 1


_METADATA = ("__name__", "__qualname__", "__doc__", "__module__", "__wrapped__")


def _metadata(f):
    return {a: getattr(f, a, "<absent>") for a in _METADATA}


@pytest.mark.parametrize("form", ["bare", "called", "none_then_func"])
def test_do_not_convert_decorator_forms(form):
    def decorate(dnc):
        if form == "bare":
            return dnc(_scale)
        if form == "called":
            return dnc()(_scale)
        return dnc(None)(_scale)

    ours = decorate(tf.autograph.experimental.do_not_convert)
    theirs = decorate(tf_real.autograph.experimental.do_not_convert)
    assert ours(3, k=4) == theirs(3, k=4) == 12
    assert _metadata(ours) == _metadata(theirs)
    assert ours.__wrapped__ is _scale


def test_do_not_convert_without_func_returns_the_decorator():
    assert tf.autograph.experimental.do_not_convert() is tf.autograph.experimental.do_not_convert
    assert (
        tf_real.autograph.experimental.do_not_convert()
        is tf_real.autograph.experimental.do_not_convert
    )


@pytest.mark.parametrize("kind", ["method", "callable_object", "partial"])
def test_do_not_convert_metadata_of_other_callables(kind):
    holder = _Holder()
    func = {
        "method": holder.method,
        "callable_object": holder,
        "partial": functools.partial(_scale, k=3),
    }[kind]
    ours = tf.autograph.experimental.do_not_convert(func)
    theirs = tf_real.autograph.experimental.do_not_convert(func)
    assert ours(5) == theirs(5) == func(5)
    ours, theirs = _metadata(ours), _metadata(theirs)
    if kind != "method":  # not wrapped, as in TF: only the wrapper's own module differs
        assert ours["__wrapped__"] == "<absent>"
        assert ours.pop("__module__") == "tapejax._src.autograph"
        theirs.pop("__module__")
    assert ours == theirs


def test_do_not_convert_inside_function_and_eagerly():
    traces = []

    @tf.autograph.experimental.do_not_convert
    def body(x):
        traces.append(1)
        return tf.reduce_sum(x * x)

    step = tf.function(body)
    x = np.arange(4, dtype=np.float32)
    assert float(body(tf.constant(x))) == 14.0
    results = [float(step(tf.constant(x + i))) for i in range(3)]
    assert results == [float(np.sum((x + i) ** 2)) for i in range(3)]
    assert step.experimental_get_tracing_count() == 1


def test_verbosity_env_var_then_set_verbosity(verbosity):
    assert ag.get_verbosity() == ag_logging.get_verbosity() == 0
    verbosity.setenv("AUTOGRAPH_VERBOSITY", "5")
    assert ag.get_verbosity() == ag_logging.get_verbosity() == 5
    tf.autograph.set_verbosity(2, alsologtostdout=True)
    tf_real.autograph.set_verbosity(2, alsologtostdout=True)
    assert ag.get_verbosity() == ag_logging.get_verbosity() == 2
    assert ag.has_verbosity(2) == ag_logging.has_verbosity(2) is True
    assert ag.has_verbosity(3) == ag_logging.has_verbosity(3) is False
    assert ag.echo_log_to_stdout() is ag_logging.echo_log_to_stdout is True
    verbosity.setenv("AUTOGRAPH_VERBOSITY", "7")  # set_verbosity takes precedence
    tf.autograph.set_verbosity(0)
    tf_real.autograph.set_verbosity(0)
    assert ag.get_verbosity() == ag_logging.get_verbosity() == 0
    assert ag.echo_log_to_stdout() is ag_logging.echo_log_to_stdout is False


@pytest.mark.parametrize("level", [0, 10])
def test_trace_prints_like_tf(verbosity, capsys, level):
    tf.autograph.set_verbosity(level)
    tf_real.autograph.set_verbosity(level)
    args = ("step", 3, [1.5, None], {"a": "b"})
    tf_real.autograph.trace(*args)
    theirs = capsys.readouterr()
    tf.autograph.trace(*args)
    ours = capsys.readouterr()
    assert ours == theirs
    assert ours.out == "step 3 [1.5, None] {'a': 'b'}\n"


def test_trace_prints_once_per_trace_inside_function(capsys):
    @tf.function
    def f(x):
        tf.autograph.trace("tracing", x.shape)
        return x + 1

    for i in range(3):
        f(tf.constant([float(i)]))
    out = capsys.readouterr().out
    # The eager first call and the one trace (see docs/compat.md, "tapejax.function").
    assert out == "tracing (1,)\n" * 2
    assert f.experimental_get_tracing_count() == 1


def test_set_loop_options_signature_matches_tf():
    ours = inspect.signature(tf.autograph.experimental.set_loop_options)
    theirs = inspect.signature(tf_real.autograph.experimental.set_loop_options)
    assert list(ours.parameters) == list(theirs.parameters)
    for p in ours.parameters.values():
        assert p.default is ag.UNSPECIFIED
        assert p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD


@pytest.mark.parametrize(
    "args,kwargs",
    [
        ((), {}),
        ((10, True, 3, []), {}),
        ((), {"maximum_iterations": 3}),
        ((), {"shape_invariants": [(np.zeros(1), [None])], "parallel_iterations": -1}),
        ((), {"swap_memory": "not a bool"}),
    ],
    ids=["none", "positional", "maximum_iterations", "shape_invariants", "any_value"],
)
def test_set_loop_options_accepts_what_tf_accepts(args, kwargs):
    assert tf_real.autograph.experimental.set_loop_options(*args, **kwargs) is None
    assert tf.autograph.experimental.set_loop_options(*args, **kwargs) is None


@pytest.mark.parametrize(
    "args,kwargs",
    [((1, 2, 3, 4, 5), {}), ((), {"max_iterations": 3}), ((1,), {"parallel_iterations": 2})],
    ids=["five_positional", "unknown_keyword", "twice"],
)
def test_set_loop_options_bad_arguments_raise_tfs_error(args, kwargs):
    with pytest.raises(TypeError) as theirs:
        tf_real.autograph.experimental.set_loop_options(*args, **kwargs)
    with pytest.raises(TypeError) as ours:
        tf.autograph.experimental.set_loop_options(*args, **kwargs)
    assert str(ours.value) == str(theirs.value)


def test_set_loop_options_in_a_loop_inside_function():
    @tf.function
    def f(x):
        for _ in range(4):
            tf.autograph.experimental.set_loop_options(maximum_iterations=2)
            x = x * 2.0
        return x

    assert [float(f(tf.constant(float(i)))) for i in (1, 2, 3)] == [16.0, 32.0, 48.0]


@pytest.mark.parametrize("name", ["to_code", "to_graph"])
def test_to_code_and_to_graph_raise_not_implemented(name):
    ours = getattr(tf.autograph, name)
    assert list(inspect.signature(ours).parameters) == list(
        inspect.signature(getattr(tf_real.autograph, name)).parameters
    )
    with pytest.raises(NotImplementedError, match=rf"tf\.autograph\.{name} .*tapejax\.function"):
        ours(_scale)
    with pytest.raises(NotImplementedError, match=rf"tf\.autograph\.{name} "):
        ours(_scale, recursive=False, experimental_optional_features=None)


@pytest.mark.parametrize("autograph", [True, False])
@pytest.mark.parametrize("as_decorator_factory", [True, False], ids=["factory", "direct"])
def test_function_accepts_autograph_arguments(autograph, as_decorator_factory):
    options = tf.autograph.experimental.Feature.all_but(tf.autograph.experimental.Feature.LISTS)
    if as_decorator_factory:
        f = tf.function(autograph=autograph, experimental_autograph_options=options)(_scale)
    else:
        f = tf.function(_scale, autograph=autograph, experimental_autograph_options=options)
    assert [float(f(tf.constant(float(i)))) for i in range(3)] == [0.0, 2.0, 4.0]
