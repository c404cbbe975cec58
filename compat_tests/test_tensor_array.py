"""``tf.TensorArray`` eagerly (TF's ``_EagerTensorArray``: checks, error texts and quirks),
inside ``tf.function`` (TF's TensorList-backed array), as a ``while_loop`` variable and
under ``GradientTape``: values, shapes, dtypes, gradients and exception types.

Cases inside ``tf.function`` call the function twice: tapejax runs the first call
eagerly and traces on the second, and both must give TF's results.
"""

import numpy as np

from compat_tests import harness
from compat_tests.harness import case, catch

_LOOP_TOL = {"rtol": 1e-5, "atol": 1e-5}


def _fixed(shape, offset):
    """Deterministic stand-in for random values: in [-1, 1]."""
    n = int(np.prod(shape))
    return np.sin(np.arange(n, dtype=np.float64) * 1.3 + offset).reshape(shape).astype(np.float32)


def _twice(f, *args):
    return f(*args), f(*args)


def _outcome(f, *args):
    """``f(*args)``, or the class name of what it raises: TF's texts inside ``tf.function``
    carry stack traces that differ from run to run."""
    try:
        return f(*args)
    except Exception as exc:  # noqa: BLE001 - the exception is the outcome
        return type(exc).__name__


# ----------------------------------------------------------------- eager: reading and writing


def case_docstring_write_read_stack(tf):
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True, clear_after_read=False)
    ta = ta.write(0, 10)
    ta = ta.write(1, 20)
    ta = ta.write(2, 30)
    return ta.read(0), ta.read(1), ta.read(2), ta.stack(), ta.size()


def case_docstring_stack_int32(tf):
    ta = tf.TensorArray(tf.int32, size=3)
    ta = ta.write(0, tf.constant([1, 2]))
    ta = ta.write(1, tf.constant([3, 4]))
    ta = ta.write(2, tf.constant([5, 6]))
    return ta.stack()


def case_properties(tf):
    ta = tf.TensorArray(tf.float32, size=2, element_shape=[None, 2])
    before = ta.element_shape
    ta = ta.write(0, [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    return (
        ta.dtype.name,
        ta.dynamic_size,
        ta.handle,
        ta.flow,
        before,
        ta.element_shape,
        ta.size(),
    )


def case_dtype_from_string_and_size_tensor(tf):
    ta = tf.TensorArray("float32", size=tf.constant(3))
    return ta.dtype.name, ta.size()


def case_read_unwritten_known_shape_is_zeros(tf):
    ta = tf.TensorArray(tf.float32, size=3, element_shape=[2])
    return ta.read(1), ta.stack()


@case(match_message=True)
def case_read_unwritten_unknown_shape(tf):
    return tf.TensorArray(tf.float32, size=3).read(0)


def case_write_twice_overwrites(tf):
    ta = tf.TensorArray(tf.float32, size=2, clear_after_read=False)
    ta = ta.write(0, [1.0, 2.0])
    ta = ta.write(0, [3.0, 4.0])
    return ta.read(0), ta.stack()


@case(match_message=True)
def case_read_twice_clear_after_read(tf):
    ta = tf.TensorArray(tf.float32, size=2)
    ta = ta.write(0, 1.0)
    first = ta.read(0)
    return first, catch(ta.read, 0)


def case_read_twice_without_clearing(tf):
    ta = tf.TensorArray(tf.float32, size=2, clear_after_read=False)
    ta = ta.write(0, 1.0)
    return ta.read(0), ta.read(0)


def case_stack_twice_does_not_clear(tf):
    ta = tf.TensorArray(tf.float32, size=3)
    ta = ta.unstack([1.0, 2.0, 3.0])
    return ta.stack(), ta.stack()


@case(match_message=True)
def case_index_errors(tf):
    ta = tf.TensorArray(tf.float32, size=2)
    ta = ta.write(0, 1.0)
    return (
        catch(ta.write, 2, 1.0),
        catch(ta.write, -1, 1.0),
        catch(ta.read, 5),
        catch(ta.read, -1),
    )


@case(match_message=True)
def case_write_wrong_dtype(tf):
    ta = tf.TensorArray(tf.float32, size=2)
    return catch(ta.write, 0, tf.constant([1, 2])), catch(
        tf.TensorArray(tf.int32, size=1).write, 0, 3.0
    )


def case_write_python_values_take_the_dtype(tf):
    a = tf.TensorArray(tf.float32, size=1).write(0, [1, 2]).stack()
    c = tf.TensorArray(tf.float32, size=1).write(0, np.float64(3.5)).stack()
    return a, c


@case(x64=True)
def case_write_python_int_into_int64(tf):
    return tf.TensorArray(tf.int64, size=1).write(0, 3).stack()


@case(match_message=True)
def case_write_wrong_shape(tf):
    ta = tf.TensorArray(tf.float32, size=2)
    ta = ta.write(0, [1.0, 2.0])
    partial = tf.TensorArray(tf.float32, size=1, element_shape=[None, 2])
    return catch(ta.write, 1, [1.0, 2.0, 3.0]), catch(partial.write, 0, [[1.0, 2.0, 3.0]])


def case_infer_shape_false_keeps_shape_unknown(tf):
    ta = tf.TensorArray(tf.float32, size=2, infer_shape=False)
    ta = ta.write(0, [1.0])
    ta = ta.write(1, [2.0, 3.0])
    return ta.element_shape, ta.concat()


def case_dynamic_size_grows_with_zeros(tf):
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    ta = ta.write(3, 1.0)
    return ta.size(), ta.stack()


def case_empty_stack(tf):
    known = tf.TensorArray(tf.float32, size=0, element_shape=[2, 3]).stack()
    unknown = tf.TensorArray(tf.float32, size=0).stack()
    return known, unknown


@case(match_message=True)
def case_stack_unwritten_unknown_shape(tf):
    return tf.TensorArray(tf.float32, size=2).stack()


def case_stack_partially_written(tf):
    ta = tf.TensorArray(tf.float32, size=3)
    ta = ta.write(1, [1.0, 2.0])
    return ta.stack()


@case(match_message=True)
def case_construction_errors(tf):
    return (
        catch(tf.TensorArray, tf.float32),
        catch(tf.TensorArray, tf.float32, size=1, handle=tf.constant(1)),
        catch(tf.TensorArray, "foo", size=1),
    )


# ----------------------------------------------------------------- eager: bulk operations


def case_unstack_read_gather(tf):
    ta = tf.TensorArray(tf.float32, size=3, clear_after_read=False)
    ta = ta.unstack([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    return ta.read(1), ta.gather([2, 0, 0]), ta.gather(tf.constant([1])), ta.size()


@case(match_message=True)
def case_unstack_too_many(tf):
    ta = tf.TensorArray(tf.float32, size=2)
    return ta.unstack([[1.0], [2.0], [3.0]])


def case_unstack_fewer_sets_the_size(tf):
    ta = tf.TensorArray(tf.float32, size=4)
    ta = ta.unstack([[1.0], [2.0], [3.0]])
    return ta.size(), ta.stack()


def case_unstack_python_ints_into_float(tf):
    ta = tf.TensorArray(tf.float32, size=2)
    ta = ta.unstack([1, 2])
    return ta.stack()


def case_gather_negative_index_counts_from_the_end(tf):
    # TF eager indexes its Python list: -1 is the last element.
    ta = tf.TensorArray(tf.float32, size=3, clear_after_read=False)
    ta = ta.unstack([1.0, 2.0, 3.0])
    return ta.gather([-1]), catch(ta.gather, [5])


def case_scatter(tf):
    ta = tf.TensorArray(tf.float32, size=4)
    ta = ta.scatter([0, 2], [[1.0], [2.0]])
    shorter = tf.TensorArray(tf.float32, size=4).scatter([0, 1, 2], [[1.0], [2.0]])
    return ta.stack(), shorter.stack()


@case(match_message=True)
def case_scatter_errors(tf):
    return (
        catch(tf.TensorArray(tf.float32, size=2).scatter, [0, 5], [[1.0], [2.0]]),
        catch(tf.TensorArray(tf.float32, size=2).scatter, [-1], [1.0]),
        catch(tf.TensorArray(tf.float32, size=2).scatter, [0, 1], tf.constant([1, 2])),
    )


def case_split_and_concat(tf):
    ta = tf.TensorArray(tf.float32, size=2)
    ta = ta.split([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], [1, 2])
    dyn = tf.TensorArray(tf.float32, size=0, dynamic_size=True).split([1.0, 2.0, 3.0], [1, 2])
    return ta.element_shape, ta.read(1), ta.read(0), dyn.size(), dyn.concat()


@case(match_message=True)
def case_split_errors(tf):
    return (
        catch(tf.TensorArray(tf.float32, size=2).split, [1.0, 2.0, 3.0], [1, 1]),
        catch(tf.TensorArray(tf.float32, size=3).split, [1.0, 2.0, 3.0], [1, 2]),
        catch(tf.TensorArray(tf.float32, size=2).split, [1.0, 2.0, 3.0], [[1, 2]]),
        catch(tf.TensorArray(tf.float32, size=2).split, 1.0, [1, 2]),
    )


@case(match_message=True)
def case_concat_scalars(tf):
    ta = tf.TensorArray(tf.float32, size=2)
    ta = ta.write(0, 1.0)
    ta = ta.write(1, 2.0)
    return ta.concat()


def case_concat_matrices(tf):
    ta = tf.TensorArray(tf.float32, size=2)
    ta = ta.write(0, [[1.0, 2.0]])
    ta = ta.write(1, [[3.0, 4.0]])
    return ta.concat()


@case(match_message=True)
def case_close_empties_it(tf):
    ta = tf.TensorArray(tf.float32, size=1)
    ta = ta.write(0, 1.0)
    closed = ta.close()
    return closed, ta.size(), catch(ta.write, 0, 1.0)


@case(match_message=True)
def case_grad_is_not_supported_eagerly(tf):
    return tf.TensorArray(tf.float32, size=1).grad("source")


# ----------------------------------------------------------------- eager: gradients


def case_gradient_unstack_read(tf):
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as g:
        g.watch(x)
        ta = tf.TensorArray(tf.float32, size=3)
        ta = ta.unstack(x)
        y = ta.read(0) * ta.read(2)
    return y, g.gradient(y, x)


def case_gradient_write_stack_with_unwritten(tf):
    x = tf.constant(2.0)
    with tf.GradientTape() as g:
        g.watch(x)
        ta = tf.TensorArray(tf.float32, size=3)
        ta = ta.write(0, x * x)
        ta = ta.write(2, tf.sin(x))
        s = ta.stack()
        y = tf.reduce_sum(s * tf.constant([1.0, 2.0, 3.0]))
    return s, g.gradient(y, x)


def case_gradient_read_twice(tf):
    x = tf.constant(2.0)
    with tf.GradientTape() as g:
        g.watch(x)
        ta = tf.TensorArray(tf.float32, size=2, clear_after_read=False)
        ta = ta.write(0, x * x).write(1, 3 * x)
        y = ta.read(0) + ta.read(0) * ta.read(1)
    return g.gradient(y, x)


def case_gradient_scatter_gather(tf):
    v = tf.Variable(_fixed([3, 2], 0.0))
    with tf.GradientTape() as g:
        ta = tf.TensorArray(tf.float32, size=5, element_shape=[2])
        ta = ta.scatter([4, 1, 2], v * v)
        got = ta.gather([1, 4, 0])
        y = tf.reduce_sum(got * tf.constant(_fixed([3, 2], 1.0)))
    return got, g.gradient(y, v)


def case_gradient_split_concat(tf):
    x = tf.constant(_fixed([5, 2], 0.5))
    with tf.GradientTape() as g:
        g.watch(x)
        ta = tf.TensorArray(tf.float32, size=2, infer_shape=False, clear_after_read=False)
        ta = ta.split(tf.exp(x), [2, 3])
        y = tf.reduce_sum(ta.read(0)) + tf.reduce_sum(tf.square(ta.concat()))
    return g.gradient(y, x)


def case_gradient_to_unwritten_is_unconnected(tf):
    x = tf.constant(1.0)
    with tf.GradientTape(persistent=True) as g:
        g.watch(x)
        ta = tf.TensorArray(tf.float32, size=2, element_shape=[], clear_after_read=False)
        ta = ta.write(0, x * 2.0)
        unwritten = ta.read(1)
    return g.gradient(unwritten, x), g.gradient(ta.read(0), x)


def _rnn(tf, dynamic, in_function):
    x = tf.constant(_fixed([5, 3], 0.0))
    w = tf.Variable(_fixed([3, 4], 1.0) * 0.5)
    u = tf.Variable(_fixed([4, 4], 2.0) * 0.5)

    def step():
        with tf.GradientTape() as tape:
            ta = tf.TensorArray(tf.float32, size=0 if dynamic else 5, dynamic_size=dynamic)

            def body(t, h, ta):
                h = tf.tanh(tf.matmul(tf.expand_dims(x[t], 0), w) + tf.matmul(h, u))
                return [t + 1, h, ta.write(t, h[0])]

            _, h, ta = tf.while_loop(
                lambda t, h, ta: t < 5,
                body,
                [tf.constant(0), tf.zeros([1, 4]), ta],
                maximum_iterations=5,
            )
            outputs = ta.stack()
            loss = tf.reduce_sum(tf.square(outputs)) + tf.reduce_sum(h * 0.5)
        return outputs, ta.size(), loss, tape.gradient(loss, [w, u])

    if in_function:
        return _twice(tf.function(step))
    return step()


@case(**_LOOP_TOL)
def case_rnn_while_loop_eager_tape(tf):
    return _rnn(tf, dynamic=False, in_function=False)


@case(**_LOOP_TOL)
def case_rnn_while_loop_eager_tape_dynamic_size(tf):
    return _rnn(tf, dynamic=True, in_function=False)


@case(**_LOOP_TOL)
def case_rnn_while_loop_in_function(tf):
    return _rnn(tf, dynamic=False, in_function=True)


@case(**_LOOP_TOL)
def case_rnn_while_loop_in_function_dynamic_size(tf):
    return _rnn(tf, dynamic=True, in_function=True)


# ----------------------------------------------------------------- inside tf.function


def case_function_docstring_fibonacci(tf):
    @tf.function
    def fibonacci(n):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        ta = ta.unstack([0.0, 1.0])
        for i in range(2, n):
            ta = ta.write(i, ta.read(i - 1) + ta.read(i - 2))
        return ta.stack()

    return _twice(fibonacci, 7)


def case_function_reads_twice_and_unwritten_zeros(tf):
    @tf.function
    def f(x):
        ta = tf.TensorArray(tf.float32, size=3)
        ta = ta.write(0, x)
        ta = ta.write(0, x * 2.0)
        return ta.read(0), ta.read(0), ta.read(1), ta.stack(), ta.size()

    return _twice(f, tf.constant([1.0, 2.0]))


def case_function_write_keeps_the_old_array(tf):
    @tf.function
    def f(x):
        old = tf.TensorArray(tf.float32, size=2, element_shape=[2])
        new = old.write(1, x)
        return old.stack(), new.stack()

    return _twice(f, tf.constant([1.0, 2.0]))


def case_function_traced_index_read_and_write(tf):
    @tf.function
    def f(x, i, j):
        ta = tf.TensorArray(tf.float32, size=4, clear_after_read=False)
        ta = ta.unstack(x)
        ta = ta.write(i, ta.read(j) * 10.0)
        return ta.stack(), ta.read(i), ta.gather(tf.stack([j, i]))

    x = tf.constant(_fixed([4, 3], 0.0))
    return _twice(f, x, tf.constant(2), tf.constant(1))


def case_function_scatter_traced_indices(tf):
    @tf.function
    def f(x, idx):
        ta = tf.TensorArray(tf.float32, size=5, element_shape=[2])
        ta = ta.scatter(idx, x)
        return ta.stack(), ta.gather(idx)

    return _twice(f, tf.constant(_fixed([3, 2], 0.0)), tf.constant([4, 0, 2]))


def case_function_split_concat_and_size(tf):
    @tf.function
    def f(x):
        ta = tf.TensorArray(tf.float32, size=3, infer_shape=False)
        ta = ta.split(x, [1, 3, 2])
        return ta.read(1), ta.concat(), ta.size()

    return _twice(f, tf.constant(_fixed([6, 2], 0.0)))


def case_function_unstack_then_loop_reads(tf):
    @tf.function
    def f(x):
        ta = tf.TensorArray(tf.float32, size=4, clear_after_read=False).unstack(x)
        total = tf.while_loop(
            lambda t, s: t < 4,
            lambda t, s: (t + 1, s + ta.read(t) * tf.cast(t, tf.float32)),
            [tf.constant(0), tf.zeros([3])],
        )[1]
        return total

    return _twice(f, tf.constant(_fixed([4, 3], 0.0)))


@case(**_LOOP_TOL)
def case_function_gradient_through_unstack_loop(tf):
    w = tf.Variable(_fixed([4, 3], 0.5))

    @tf.function
    def f():
        with tf.GradientTape() as tape:
            ta = tf.TensorArray(tf.float32, size=4).unstack(tf.tanh(w))
            out = tf.TensorArray(tf.float32, size=4)

            def body(t, acc, out):
                acc = acc * 0.5 + ta.read(t)
                return [t + 1, acc, out.write(t, acc * acc)]

            _, acc, out = tf.while_loop(
                lambda t, acc, out: t < 4,
                body,
                [tf.constant(0), tf.zeros([3]), out],
                maximum_iterations=4,
            )
            loss = tf.reduce_sum(out.stack()) + tf.reduce_sum(acc)
        return loss, tape.gradient(loss, w)

    return _twice(f)


def case_function_cond_returns_array(tf):
    @tf.function
    def f(x, flag):
        ta = tf.TensorArray(tf.float32, size=2, element_shape=[2])
        ta = ta.write(0, x)
        ta = tf.cond(flag, lambda: ta.write(1, x * 3.0), lambda: ta.write(1, -x))
        return ta.stack()

    x = tf.constant([1.0, 2.0])
    return _twice(f, x, tf.constant(True)), f(x, tf.constant(False))


def case_function_dynamic_size_loop_runs_to_its_bound(tf):
    @tf.function
    def f(n):
        ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
        _, ta = tf.while_loop(
            lambda i, ta: i < n,
            lambda i, ta: [i + 1, ta.write(i, i * i)],
            [tf.constant(0), ta],
            maximum_iterations=6,
        )
        return ta.stack(), ta.size()

    return _twice(f, tf.constant(6))


def case_function_python_loop_writes(tf):
    @tf.function
    def f(x):
        ta = tf.TensorArray(tf.float32, size=3)
        for i in range(3):
            ta = ta.write(i, x * float(i + 1))
        return ta.stack(), ta.concat()

    return _twice(f, tf.constant([1.0, -1.0]))


def case_function_empty_stack_known_shape(tf):
    @tf.function
    def f():
        return tf.TensorArray(tf.float32, size=0, element_shape=[2, 3]).stack()

    return _twice(f)


# Each error case succeeds on its first call, so that tapejax's later calls trace.


def case_function_read_out_of_range(tf):
    @tf.function
    def f(index):
        ta = tf.TensorArray(tf.float32, size=2).write(0, 1.0)
        return ta.read(index)

    return f(0), _outcome(f, 5), _outcome(f, -1)


def case_function_write_out_of_range(tf):
    @tf.function
    def f(index):
        return tf.TensorArray(tf.float32, size=2).write(index, 1.0).stack()

    return f(1), _outcome(f, 2), _outcome(f, -1)


def case_function_stack_unknown_empty(tf):
    @tf.function
    def f(known):
        return tf.TensorArray(tf.float32, size=0, element_shape=[2] if known else None).stack()

    return f(True), _outcome(f, False)


def case_function_unstack_fewer_then_stack(tf):
    @tf.function
    def f(n):
        ta = tf.TensorArray(tf.float32, size=4).unstack(tf.ones([n, 1]))
        return ta.stack()

    return f(4), _outcome(f, 3)


def case_function_write_wrong_shape(tf):
    @tf.function
    def f(n):
        ta = tf.TensorArray(tf.float32, size=2).write(0, [1.0, 2.0])
        return ta.write(1, tf.ones([n])).stack()

    return f(2), _outcome(f, 1)


def case_function_stack_elements_of_different_shapes(tf):
    @tf.function
    def f(n):
        ta = tf.TensorArray(tf.float32, size=2, infer_shape=False)
        ta = ta.write(0, [1.0]).write(1, tf.ones([n]))
        return ta.stack()

    return f(1), _outcome(f, 2)


def case_function_read_unwritten_unknown_shape(tf):
    @tf.function
    def f(write):
        ta = tf.TensorArray(tf.float32, size=2)
        if write:
            ta = ta.write(1, [1.0, 2.0])
        return ta.read(0)

    return f(True), _outcome(f, False)


# ----------------------------------------------------------------- deliberate differences


@case(
    deviation="a dynamic_size TensorArray carried by a traced while_loop needs maximum_iterations "
    "(an XLA buffer has a static size); TF's TensorList grows at run time",
    expect=harness.raises("NotImplementedError"),
)
def case_function_dynamic_size_loop_without_bound(tf):
    @tf.function
    def f(n):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        _, ta = tf.while_loop(
            lambda i, ta: i < n, lambda i, ta: (i + 1, ta.write(i, 1.0)), [tf.constant(0), ta]
        )
        return ta.stack()

    return _twice(f, tf.constant(3))


def _pad_to(rows):
    def adapt(tf, result):
        return [tf.concat([r, tf.zeros([rows - r.shape[0]], r.dtype)], 0) for r in result]

    return adapt


@case(
    deviation="after a traced while_loop, stack() of a dynamic_size TensorArray returns its whole "
    "buffer (size + maximum_iterations rows, zeros past what the loop wrote): XLA shapes are "
    "static; TF returns only the written rows",
    tf_adapt=_pad_to(6),
)
def case_function_dynamic_size_loop_stops_early(tf):
    @tf.function
    def f(n):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        _, ta = tf.while_loop(
            lambda i, ta: i < n,
            lambda i, ta: [i + 1, ta.write(i, tf.cast(i + 1, tf.float32))],
            [tf.constant(0), ta],
            maximum_iterations=6,
        )
        return ta.stack()

    return list(_twice(f, tf.constant(4)))


def _traced_read_gives_zeros(tj_record, tf_record):
    __tracebackhide__ = True
    first, second = tj_record.get("result", {}).get("tuple", [None, None])
    if second != first:
        raise harness.Mismatch(
            "at result[1]: expected tapejax's traced call to read zeros, as the first did\n"
            f"  tensorflow: {tf_record}\n  tapejax:    {tj_record}"
        )


@case(
    deviation="an index known only at run time is not checked inside tapejax.function (XLA has "
    "no run-time errors): an out-of-range read gives zeros where TF raises",
    expect=_traced_read_gives_zeros,
)
def case_function_traced_read_out_of_range(tf):
    @tf.function
    def f(i):
        return tf.TensorArray(tf.float32, size=2, element_shape=[]).read(i)

    return f(tf.constant(1)), _outcome(f, tf.constant(5))


@case(
    deviation="tapejax.function cannot return a TensorArray (TypeError naming `ta.stack()`); TF "
    "returns its raw variant tensor, on which no TensorArray method works",
    expect=harness.raises("TypeError"),
)
def case_function_returns_array(tf):
    @tf.function
    def f():
        return tf.TensorArray(tf.float32, size=1).write(0, 1.0)

    return f().stack()


test_matches_tensorflow = harness.compat_test(globals())
