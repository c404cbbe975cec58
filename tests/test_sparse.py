"""``tapejax.SparseTensor``, ``SparseTensorSpec``, ``IndexedSlices`` and the semantics of
``tapejax.sparse`` beyond its op Cases (``tests/test_ops_sparse.py``), side by side with
real TensorFlow: the classes' properties, texts and errors; the tape (watching a
SparseTensor, composite sources and targets, ops TF gives no gradient); conversion,
operators and ``cast``; ``map_values`` and ``mask``; SparseTensors through
``tapejax.function`` and JAX transforms (with trace counts); and TF's CTC beam search.
"""

from __future__ import annotations

import re
import warnings

import jax
import numpy as np
import pytest

import tapejax

tensorflow = pytest.importorskip("tensorflow")

from opcheck import arr  # noqa: E402 - the shared op-test harness (tests/opcheck.py)

FW = {"tapejax": tapejax, "tensorflow": tensorflow}


def both(fn):
    """``fn(tf)`` under tapejax and under TensorFlow."""
    return fn(tapejax), fn(tensorflow)


def parts(st):
    """A SparseTensor as NumPy components and its static shape."""
    return (
        st.indices.numpy().tolist(),
        st.values.numpy().tolist(),
        st.dense_shape.numpy().tolist(),
        st.shape.as_list(),
        st.values.dtype.name,
        st.indices.dtype.name,
    )


def error_of(fn, *args):
    try:
        fn(*args)
    except Exception as e:  # noqa: BLE001 - the exception is the result under test
        return e
    raise AssertionError(f"{fn} raised nothing")


def same_error(fn):
    """``fn(tf)`` raises the same exception type with the same text in both frameworks."""
    got, want = error_of(fn, tapejax), error_of(fn, tensorflow)
    assert type(got).__name__ == type(want).__name__, (got, want)
    assert str(got) == str(want), (str(got), str(want))
    return got


def st(tf, values=(1.0, 2.0, 3.0)):
    return tf.sparse.SparseTensor([[0, 0], [1, 2], [2, 1]], list(values), [3, 4])


# -- SparseTensor and SparseTensorSpec ---------------------------------------------------------------


def test_sparse_tensor_components_and_properties_are_tfs(x64):
    got, want = both(st)
    assert parts(got) == parts(want)
    assert got.dtype == tapejax.float32 and got.get_shape() == got.shape
    assert tapejax.SparseTensor is tapejax.sparse.SparseTensor
    assert repr(got) == repr(want) and str(got) == str(want)
    assert got.consumers() == want.consumers() == []
    assert tapejax.is_tensor(got) and not isinstance(got, tapejax.Tensor)
    assert hash(got) != hash(st(tapejax))  # hashable by identity, as TF's


def test_sparse_tensor_converts_its_inputs_as_tf(x64):
    def make(tf):
        v = tf.Variable([1, 2])
        return tf.sparse.SparseTensor(np.array([[0], [3]], np.int32), v, np.array([5]))

    assert parts(make(tapejax)) == parts(make(tensorflow))
    empty = both(lambda tf: tf.sparse.SparseTensor(np.zeros((0, 2)), tf.zeros([0]), [2, 3]))
    assert parts(empty[0]) == parts(empty[1])
    for name, fn in (
        ("indices", lambda tf: tf.sparse.SparseTensor(tf.constant([[0]]), [1.0], [2])),
        ("dense_shape", lambda tf: tf.sparse.SparseTensor([[0]], [1.0], tf.constant([2]))),
    ):
        e = same_error(fn)
        assert str(e).startswith(f"{name}: Tensor conversion requested dtype int64")


def test_shape_set_shape_with_values_and_from_value_are_tfs(x64):
    for tf in (tapejax, tensorflow):
        sp = tf.sparse.SparseTensor([[0]], [1.0], [-1])  # an unknown dimension
        assert sp.shape.as_list() == [None]
        sp = st(tf)
        assert sp.set_shape([3, None]) is None and sp.shape.as_list() == [3, 4]
        w = sp.with_values([1, 2, 3])
        assert w.dtype == tf.int32 and w.indices is sp.indices
        assert tf.sparse.SparseTensor.from_value(sp).values.numpy().tolist() == [1.0, 2.0, 3.0]
    for attr in ("op", "graph"):
        assert str(same_error(lambda tf, a=attr: getattr(st(tf), a))).endswith(
            "is undefined when eager execution is enabled."
        )


def test_sparse_tensor_spec_is_tfs():
    for tf in (tapejax, tensorflow):
        spec = tf.SparseTensorSpec([None, 4], tf.float32)
        assert spec.shape.as_list() == [None, 4] and spec.dtype == tf.float32
        assert spec.is_compatible_with(st(tf))
        assert not spec.is_compatible_with(tf.sparse.SparseTensor([[0]], [1.0], [4]))
        assert not spec.is_compatible_with(st(tf).with_values([1, 2, 3]))
        assert spec == tf.SparseTensorSpec([None, 4]) and spec != tf.SparseTensorSpec([3, 4])
        assert tf.SparseTensorSpec.from_value(st(tf)) == tf.SparseTensorSpec([3, 4], tf.float32)
        assert st(tf)._type_spec == tf.SparseTensorSpec([3, 4])
    assert repr(tapejax.SparseTensorSpec([3, None])) == repr(tensorflow.SparseTensorSpec([3, None]))


def test_without_x64_indices_are_int32_with_the_64_bit_warning():
    if jax.config.jax_enable_x64:
        pytest.skip("JAX's x64 mode is on in this process")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sp = st(tapejax)
    assert sp.indices.dtype == tapejax.int32 and sp.dense_shape.dtype == tapejax.int32
    # A tensor of the held dtype is accepted where int64 is asked for (with_values etc.).
    assert tapejax.sparse.SparseTensor(sp.indices, [5.0, 6.0, 7.0], sp.dense_shape).shape == [3, 4]


# -- the tape -----------------------------------------------------------------------------------------


def _watched_sparse_gradient(tf):
    values, dense = tf.constant([1.0, 2.0, 3.0]), tf.constant(arr("float32", (4, 2)))
    with tf.GradientTape() as tape:
        sp = tf.sparse.SparseTensor([[0, 0], [1, 2], [2, 1]], values, [3, 4])
        tape.watch(sp)  # TF watches its components
        tape.watch(dense)
        y = tf.sparse.sparse_dense_matmul(sp, dense)
        loss = tf.reduce_sum(y * y) + tf.reduce_sum(tf.sparse.to_dense(sp) ** 3)
    return [g.numpy() for g in tape.gradient(loss, [sp.values, dense])]


def test_watching_a_sparse_tensor_watches_its_values():
    got, want = both(_watched_sparse_gradient)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-5)


def test_a_sparse_tensor_is_not_a_gradient_source_or_target_as_in_tf():
    def source(tf):
        v = tf.constant([1.0, 2.0, 3.0])
        with tf.GradientTape() as tape:
            tape.watch(v)
            sp = tf.sparse.SparseTensor([[0, 0], [1, 2], [2, 1]], v, [3, 4])
            loss = tf.sparse.reduce_sum(sp)
        return tape.gradient(loss, sp)

    def target(tf):
        v = tf.constant([1.0, 2.0, 3.0])
        with tf.GradientTape() as tape:
            tape.watch(v)
            sp = tf.sparse.SparseTensor([[0, 0], [1, 2], [2, 1]], v * 2.0, [3, 4])
        return tape.gradient(sp, v)

    for fn in (source, target):
        e = same_error(fn)
        assert (
            str(e) == "Type SparseTensor is not supported as a gradient source or gradient target."
        )


def test_indexed_slices_are_not_gradient_targets_or_sources_as_in_tf():
    def target(tf):
        v = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        with tf.GradientTape() as tape:
            tape.watch(v)
            s = tf.IndexedSlices(v * v, tf.constant([0, 2]), tf.constant([3, 2]))
        return tape.gradient(s, v)

    def source(tf):
        s = tf.IndexedSlices(tf.ones([2, 3]), tf.constant([0, 0]), tf.constant([4, 3]))
        with tf.GradientTape() as tape:
            tape.watch(s)
            loss = tf.reduce_sum(tf.convert_to_tensor(s) * 2.0)
        return tape.gradient(loss, s)

    for fn in (target, source):
        assert str(same_error(fn)) == "'IndexedSlices' object has no attribute '_id'"


@pytest.mark.parametrize(
    "what, fn",
    [
        ("concat (NotDifferentiable)", lambda tf, s: tf.sparse.concat(0, [s, s]).values),
        ("reduce_max (no gradient)", lambda tf, s: tf.sparse.reduce_max(s)),
        (
            "split (no gradient)",
            lambda tf, s: tf.sparse.split(sp_input=s, num_split=2, axis=1)[0].values,
        ),
        (
            "sparse reduce_sum (no gradient)",
            lambda tf, s: tf.sparse.reduce_sum(s, 1, output_is_sparse=True).values,
        ),
        ("maximum (its gradient fails)", lambda tf, s: tf.sparse.maximum(s, s).values),
        ("minimum (its gradient fails)", lambda tf, s: tf.sparse.minimum(s, s).values),
        (
            "greedy decoder",
            lambda tf, s: tf.nn.ctc_greedy_decoder(tf.reshape(s.values, [3, 1, 1]), [3])[1],
        ),
    ],
    ids=lambda x: x if isinstance(x, str) else "",
)
def test_the_tape_gives_none_where_tf_has_no_gradient(what, fn):
    def grad(tf):
        v = tf.constant([1.0, 2.0, 3.0])
        with tf.GradientTape() as tape:
            tape.watch(v)
            y = fn(tf, tf.sparse.SparseTensor([[0, 0], [1, 2], [2, 1]], v, [3, 4]))
        return tape.gradient(y, v)

    assert grad(tapejax) is None
    try:  # TF: None, or an error saying there is no gradient (LookupError, TypeError)
        assert grad(tensorflow) is None
    except (LookupError, TypeError):
        pass


def test_gradients_through_the_sparse_dense_operators_are_tfs():
    def grads(tf):
        v, d = tf.constant([1.0, 2.0, 3.0]), tf.constant(arr("float32", (4,), lo=0.5, hi=2.0))
        with tf.GradientTape() as tape:
            tape.watch([v, d])
            sp = tf.sparse.SparseTensor([[0, 0], [1, 2], [2, 1]], v, [3, 4])
            both = tf.sparse.add((sp * d) / d, d * sp)
            loss = tf.sparse.reduce_sum(both) + tf.sparse.reduce_sum(sp / d)
        return [g.numpy() for g in tape.gradient(loss, [v, d])]

    for g, w in zip(*both(grads), strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-5)


# -- IndexedSlices ----------------------------------------------------------------------------------


def slices(tf, dense_shape=True):
    values = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    return tf.IndexedSlices(
        values, tf.constant([2, 0, 2]), tf.constant([4, 2]) if dense_shape else None
    )


def test_indexed_slices_properties_and_conversion_are_tfs():
    got, want = both(slices)
    assert got.values.numpy().tolist() == want.values.numpy().tolist()
    assert got.indices.numpy().tolist() == want.indices.numpy().tolist()
    assert got.shape.as_list() == want.shape.as_list() == [4, 2]
    assert got.dtype.name == want.dtype.name and str(got) == str(want)
    assert got.device == want.device or got.device.endswith("CPU:0")
    dense = [tf.convert_to_tensor(s).numpy() for tf, s in ((tapejax, got), (tensorflow, want))]
    np.testing.assert_array_equal(*dense)  # repeated indices add up
    assert slices(tapejax, False).shape.rank is None
    assert (-got).values.numpy().tolist() == (-want).values.numpy().tolist()
    assert got.consumers() == []


def test_indexed_slices_arithmetic_and_cast_are_tfs():
    for expr in (
        lambda tf: tf.ones([4, 2]) + slices(tf),
        lambda tf: slices(tf) + tf.ones([4, 2]),
        lambda tf: tf.reduce_sum(slices(tf), axis=0),
        lambda tf: tf.convert_to_tensor(tf.cast(slices(tf), tf.int32)),
    ):
        got, want = both(expr)
        assert got.dtype.name == want.dtype.name
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    same_error(lambda tf: slices(tf) * 2.0)
    for fn in (
        lambda tf: tf.convert_to_tensor(slices(tf, dense_shape=False)),
        lambda tf: tf.convert_to_tensor(slices(tf), dtype=tf.int32),
    ):
        e = same_error(fn)
        assert isinstance(e, ValueError)


def test_gradient_through_an_indexed_slices_conversion_is_tfs():
    def grad(tf):
        v = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        with tf.GradientTape() as tape:
            tape.watch(v)
            dense = tf.convert_to_tensor(
                tf.IndexedSlices(v * 3.0, tf.constant([1, 1]), tf.constant([3, 2]))
            )
            loss = tf.reduce_sum(dense * tf.constant([[1.0], [2.0], [3.0]]))
        return tape.gradient(loss, v).numpy()

    np.testing.assert_allclose(*both(grad))


def test_mask_is_tfs():
    got, want = both(lambda tf: tf.sparse.mask(slices(tf), [0, 7]))
    assert got.indices.numpy().tolist() == want.indices.numpy().tolist() == [2, 2]
    assert got.values.numpy().tolist() == want.values.numpy().tolist()
    assert got.dense_shape.numpy().tolist() == want.dense_shape.numpy().tolist()
    assert isinstance(got, tapejax.IndexedSlices)


# -- map_values and cast ------------------------------------------------------------------------------


def test_map_values_and_cast_are_tfs(x64):
    for fn in (
        lambda tf: tf.sparse.map_values(tf.math.exp, st(tf)),
        lambda tf: tf.sparse.map_values(tf.add, st(tf), st(tf, (1.0, 1.0, 1.0))),
        lambda tf: tf.sparse.map_values(tf.add_n, [st(tf), st(tf)]),
        lambda tf: tf.sparse.map_values(tf.multiply, st(tf), 2.0),
        lambda tf: tf.cast(st(tf), tf.int32),
    ):
        got, want = both(fn)
        assert parts(got) == parts(want)
    assert str(same_error(lambda tf: tf.sparse.map_values(tf.add, 1.0, 2.0))) == (
        "No SparseTensor in argument list of map_values"
    )
    for fn, text in (
        (
            lambda tf: tf.sparse.map_values(
                tf.add,
                st(tf),
                tf.sparse.SparseTensor([[0, 0], [1, 3], [2, 1]], [1.0, 2.0, 3.0], [3, 4]),
            ),
            "Mismatched indices!",
        ),
        (
            lambda tf: tf.sparse.map_values(
                tf.add,
                st(tf),
                tf.sparse.SparseTensor([[0, 0], [1, 2], [2, 1]], [1.0, 2.0, 3.0], [3, 5]),
            ),
            "Mismatched shapes!",
        ),
    ):
        got, want = error_of(fn, tapejax), error_of(fn, tensorflow)
        assert type(got).__name__ == type(want).__name__ == "InvalidArgumentError"
        assert str(got).startswith(text) and str(want).startswith(text)


def test_matmul_is_tf1s_name_of_sparse_dense_matmul():
    assert tapejax.sparse.matmul is tapejax.sparse.sparse_dense_matmul


# -- tapejax.function and JAX transforms -----------------------------------------------------------


def test_a_sparse_tensor_is_a_pytree_of_its_components():
    sp = st(tapejax)
    leaves, tree = jax.tree_util.tree_flatten(sp)
    assert [np.asarray(x).tolist() for x in leaves] == [
        [[0, 0], [1, 2], [2, 1]],
        [1.0, 2.0, 3.0],
        [3, 4],
    ]
    rebuilt = jax.tree_util.tree_unflatten(tree, leaves)
    assert rebuilt.shape.as_list() == [3, 4]
    dense = jax.jit(lambda s: tapejax.sparse.to_dense(s)._value * 2.0)(sp)
    np.testing.assert_array_equal(dense, 2.0 * tapejax.sparse.to_dense(sp).numpy())
    doubled = jax.jit(lambda s: s.with_values(s.values * 2.0))(sp)
    assert isinstance(doubled, tapejax.SparseTensor) and doubled.values.numpy().tolist() == [
        2.0,
        4.0,
        6.0,
    ]


def test_sparse_tensors_through_tapejax_function_trace_once_per_structure():
    @tapejax.function
    def f(sp, dense):
        y = tapejax.sparse.sparse_dense_matmul(sp, dense)
        t = tapejax.sparse.reorder(tapejax.sparse.transpose(sp))
        soft = tapejax.sparse.softmax(sp)
        r = tapejax.sparse.reduce_sum(sp * tapejax.constant([1.0, 2.0, 3.0, 4.0]), 1)
        both = tapejax.sparse.concat(0, [sp, sp])
        return (
            y,
            t,
            soft,
            r,
            tapejax.sparse.to_dense(tapejax.sparse.reshape(both, [-1])),
            tapejax.sparse.expand_dims(sp, 0),
        )

    dense = tapejax.constant(arr("float32", (4, 2)))
    want = f.python_function(st(tapejax), dense)
    for _ in range(3):
        got = f(st(tapejax), dense)
    assert f.experimental_get_tracing_count() == 1
    for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want), strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)
    assert isinstance(got[1], tapejax.SparseTensor) and got[1].shape.as_list() == [4, 3]
    f(tapejax.sparse.SparseTensor([[0, 0]], [1.0], [3, 4]), dense)  # another number of values
    f(tapejax.sparse.SparseTensor([[0, 0]], [1.0], [2, 4]), dense)  # another dense shape
    assert f.experimental_get_tracing_count() == 3


def test_a_sparse_training_step_in_tapejax_function_matches_eager():
    def run(compiled):
        w = tapejax.Variable(arr("float32", (4, 2)))

        def step(sp):
            with tapejax.GradientTape() as tape:
                loss = tapejax.reduce_sum(tapejax.sparse.sparse_dense_matmul(sp, w) ** 2)
            w.assign_sub(0.1 * tape.gradient(loss, w))
            return loss

        f = tapejax.function(step) if compiled else step
        return [float(f(st(tapejax))) for _ in range(3)], w.numpy()

    eager, compiled = run(False), run(True)
    np.testing.assert_allclose(eager[0], compiled[0], rtol=1e-6)
    np.testing.assert_allclose(eager[1], compiled[1], rtol=1e-6)


def test_input_signature_takes_a_sparse_tensor_spec():
    f = tapejax.function(
        lambda sp: tapejax.sparse.reduce_sum(sp),
        input_signature=[tapejax.SparseTensorSpec([None, 4])],
    )
    assert float(f(st(tapejax))) == 6.0
    with pytest.raises(TypeError, match="Binding inputs to tf.function failed"):
        f(tapejax.sparse.SparseTensor([[0]], [1.0], [3]))
    with pytest.raises(TypeError, match="Binding inputs to tf.function failed"):
        tapejax.function(lambda x: x, input_signature=[tapejax.TensorSpec([3, 4])])(st(tapejax))


@pytest.mark.parametrize(
    "fn",
    [
        lambda sp: tapejax.sparse.add(sp, sp),
        lambda sp: tapejax.sparse.retain(sp, [True, False, True]),
        lambda sp: tapejax.sparse.slice(sp, [0, 0], [2, 2]),
        lambda sp: tapejax.sparse.fill_empty_rows(sp, 0.0),
        lambda sp: tapejax.sparse.reset_shape(sp),
        lambda sp: tapejax.sparse.from_dense(tapejax.sparse.to_dense(sp)),
        lambda sp: tapejax.nn.embedding_lookup_sparse(
            tapejax.ones([5, 2]), tapejax.cast(sp, tapejax.int32), None
        ),
        lambda sp: tapejax.nn.ctc_greedy_decoder(tapejax.reshape(sp.values, [3, 1, 1]), [3]),
    ],
)
def test_ops_whose_sizes_depend_on_traced_indices_say_so(fn):
    with pytest.raises(NotImplementedError, match="concrete|num_segments"):
        jax.jit(lambda s: jax.tree_util.tree_leaves(fn(s)))(st(tapejax))


def test_sparse_tensors_built_from_constants_inside_a_function_run_eager_only_ops():
    @tapejax.function
    def f(values):
        sp = tapejax.sparse.SparseTensor([[0, 0], [1, 2], [2, 1]], values, [3, 4])
        return tapejax.sparse.to_dense(
            tapejax.sparse.add(sp, tapejax.sparse.retain(sp, [True, False, True]))
        )

    want = f.python_function(tapejax.constant([1.0, 2.0, 3.0]))
    for _ in range(2):
        got = f(tapejax.constant([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(got.numpy(), want.numpy())


# -- CTC beam search: TF's kernel step for step ---------------------------------------------------------


def _beams(tf, x, lengths, beam_width, top_paths):
    decoded, log_p = tf.nn.ctc_beam_search_decoder(
        x, lengths, beam_width=beam_width, top_paths=top_paths
    )
    return [parts(d)[:3] for d in decoded], log_p.numpy()


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("beam_width, top_paths", [(1, 1), (3, 3), (8, 4), (20, 5)])
def test_beam_search_equals_tfs_kernel(seed, beam_width, top_paths):
    x = np.random.default_rng(seed).normal(size=(7, 3, 5)).astype(np.float32)
    lengths = np.array([7, 5, 1], np.int32)
    (got, got_p), (want, want_p) = (
        _beams(fw, x, lengths, beam_width, top_paths) for fw in (tapejax, tensorflow)
    )
    assert got == want
    np.testing.assert_allclose(got_p, want_p, rtol=2e-7, atol=2e-7)


def test_beam_search_orders_equal_beams_as_tf_when_all_are_returned():
    x = np.zeros((3, 1, 6), np.float32)  # every labelling of a length is equally likely
    for beam_width in (9, 12):
        got, want = (
            _beams(fw, x, np.array([3], np.int32), beam_width, beam_width)
            for fw in (tapejax, tensorflow)
        )
        assert got[0] == want[0]
        np.testing.assert_array_equal(got[1], want[1])


def test_beam_search_errors_are_tfs():
    x = np.zeros((4, 2, 3), np.float32)
    for fn in (
        lambda tf: tf.nn.ctc_beam_search_decoder(x, [4, 3], beam_width=2, top_paths=3),
        lambda tf: tf.nn.ctc_beam_search_decoder(x, [0, 3], beam_width=5, top_paths=2),
    ):
        got, want = error_of(fn, tapejax), error_of(fn, tensorflow)
        assert type(got).__name__ == type(want).__name__ == "InvalidArgumentError"
        assert re.sub(r"\{\{.*?\}\} | \[Op.*$", "", str(want)) in str(got)


def test_indexed_slices_through_tapejax_function():
    f = tapejax.function(
        lambda s: (
            tapejax.IndexedSlices(s.values * 2.0, s.indices, s.dense_shape),
            tapejax.convert_to_tensor(s),
        )
    )
    for _ in range(3):
        doubled, dense = f(slices(tapejax))
    assert f.experimental_get_tracing_count() == 1
    assert isinstance(doubled, tapejax.IndexedSlices) and doubled.shape.as_list() == [4, 2]
    np.testing.assert_array_equal(
        dense.numpy(), tensorflow.convert_to_tensor(slices(tensorflow)).numpy()
    )
    g = tapejax.function(lambda s: s.values + 1.0)  # without a dense shape: two components
    for _ in range(2):
        np.testing.assert_array_equal(
            g(slices(tapejax, dense_shape=False)).numpy(), slices(tapejax).values.numpy() + 1.0
        )


# -- deliberate differences (docs/compat.md, "tapejax.sparse") --------------------------------------


def test_traced_indices_out_of_bounds_are_dropped_not_checked():
    sp = tapejax.sparse.SparseTensor([[0, 0], [5, 1]], [1.0, 2.0], [2, 2])
    with pytest.raises(tapejax.errors.InvalidArgumentError, match="out of bounds"):
        tapejax.sparse.to_dense(sp)  # eagerly: TF's check
    dense = jax.jit(lambda s: tapejax.sparse.to_dense(s)._value)(sp)
    np.testing.assert_array_equal(dense, [[1.0, 0.0], [0.0, 0.0]])


def test_add_of_traced_values_needs_a_zero_threshold():
    def add(threshold):
        def fn(values):
            sp = tapejax.sparse.SparseTensor(
                [[0, 0], [1, 1]], tapejax.convert_to_tensor(values), [2, 2]
            )
            return tapejax.sparse.add(sp, sp, threshold).values._value

        return jax.jit(fn)(np.array([1.0, 2.0], np.float32))

    np.testing.assert_array_equal(add(0), [2.0, 4.0])
    with pytest.raises(NotImplementedError, match="threshold=0"):
        add(0.5)


def test_ctc_loss_of_sparse_labels_ended_before_their_first_label_is_the_all_blank_path():
    logits = tapejax.constant(arr("float32", (4, 2, 3)))
    ended = tapejax.sparse.SparseTensor([[0, 0], [1, 0]], [5, 1], [2, 1])  # 5 - 1 >= 3 - 1
    got = tapejax.nn.ctc_loss(ended, logits, None, [4, 4], blank_index=0).numpy()
    empty = tapejax.nn.ctc_loss(np.zeros((2, 1), np.int32), logits, [0, 1], [4, 4]).numpy()
    want = tensorflow.nn.ctc_loss(
        tensorflow.sparse.SparseTensor([[0, 0], [1, 0]], [1, 1], [2, 1]),
        logits.numpy(),
        None,
        [4, 4],
        blank_index=0,
    ).numpy()
    np.testing.assert_allclose(got, [empty[0], want[1]], rtol=1e-5)
