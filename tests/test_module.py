"""Unit tests for ``tapejax._src.module``: ``tf.Module`` run side by side with TF's.

Each scenario is a function of the framework module; it defines its classes with that
framework's ``Module`` and returns names (of modules and variables), so the same
definitions are checked against real TensorFlow's ``tf.Module``.
"""

import pytest

import tapejax

tensorflow = pytest.importorskip("tensorflow")


def both(scenario):
    """``scenario`` under tapejax and TensorFlow; the two results must be equal."""
    got, want = scenario(tapejax), scenario(tensorflow)
    assert got == want, f"tapejax gives {got!r}\nTensorFlow gives {want!r}"
    return got


def names(values):
    return [v.name for v in values]


def _layer_class(tf):
    class MyDenseLayer(tf.Module):
        def __init__(self, name=None):
            super().__init__(name=name)
            with self.name_scope:
                self.w = tf.Variable(1.0, name="w")
                self.b = tf.Variable(0.0, name="b", trainable=False)

        @tf.Module.with_name_scope
        def __call__(self, x):
            if not hasattr(self, "made"):
                self.made = tf.Variable(2.0, name="made")
            return x * self.w

    return MyDenseLayer


@pytest.mark.parametrize(
    "class_name",
    [
        "MyDenseLayer",
        "HTTPServer2",
        "MyMLP",
        "ABC",
        "A",
        "Dense2D",
        "ResNet50V2",
        "already_snake",
        "_Private",
        "XMLHttpRequest",
        "Conv2DTranspose",
        "Lin2",
    ],
)
def test_default_name_is_snake_case(class_name):
    both(lambda tf: type(class_name, (tf.Module,), {})().name)


def test_given_name_and_invalid_names():
    assert both(lambda tf: tf.Module(name="given").name) == "given"
    assert both(lambda tf: tf.Module().name) == "module"
    for bad in ("1abc", "a/b", "é", "a b", ""):

        def scenario(tf, bad=bad):
            try:
                tf.Module(name=bad)
            except ValueError as e:
                return str(e)
            return "no error"

        assert both(scenario).startswith(f"{bad!r} is not a valid module name.")


def test_variables_are_created_in_the_module_scope():
    def scenario(tf):
        layer = _layer_class(tf)("xx")
        return layer.name_scope.name, names(layer.variables), names(layer.trainable_variables)

    assert both(scenario) == ("xx/", ["xx/b:0", "xx/w:0"], ["xx/w:0"])


def test_with_name_scope():
    def scenario(tf):
        layer = _layer_class(tf)("call")
        y = layer(tf.constant(2.0))
        return float(y), layer.made.name, names(layer.variables)

    assert both(scenario) == (2.0, "call/made:0", ["call/b:0", "call/made:0", "call/w:0"])


def test_module_scope_is_fixed_at_construction():
    def scenario(tf):
        with tf.name_scope("outer"):
            layer = _layer_class(tf)("lay")
        layer(tf.constant(1.0))  # called outside "outer": names still under it
        return layer.name_scope.name, names(layer.variables)

    assert both(scenario) == ("outer/lay/", ["outer/lay/b:0", "outer/lay/made:0", "outer/lay/w:0"])


def test_collection_order_and_deduplication():
    def scenario(tf):
        layer = _layer_class(tf)

        class Outer(tf.Module):
            def __init__(self):
                super().__init__()
                self.z = tf.Variable(3.0, name="z")
                self.layers = [layer(), layer("second")]
                self.d = {
                    "b": tf.Variable(4.0, name="db"),
                    "a": (tf.Variable(5.0, name="da", trainable=False), layer("third")),
                }
                self.alias = self.z  # the same variable twice
                self.a_first = self.layers[0]  # the same module twice

        o = Outer()
        return (
            names(o.variables),
            names(o.trainable_variables),
            names(o.non_trainable_variables),
            [m.name for m in o.submodules],
        )

    variables, trainable, non_trainable, submodules = both(scenario)
    assert variables == [
        "z:0",
        "da:0",
        "db:0",
        "my_dense_layer/b:0",
        "my_dense_layer/w:0",
        "third/b:0",
        "third/w:0",
        "second/b:0",
        "second/w:0",
    ]
    assert submodules == ["my_dense_layer", "third", "second"]


def test_flatten_with_paths_and_without_recursion():
    def scenario(tf):
        class Node(tf.Module):
            def __init__(self, name):
                super().__init__(name=name)
                self.v = tf.Variable(1.0, name=f"{name}_v")

        class Tree(tf.Module):
            def __init__(self):
                super().__init__()
                self.kids = [Node("k0"), {"x": Node("k1")}]
                self.own = tf.Variable(2.0, name="own")
                self.again = self.kids[0]

        t = Tree()
        paths = [p for p, _ in t._flatten(predicate=lambda x: hasattr(x, "assign"), with_path=True)]
        shallow = names(t._flatten(predicate=lambda x: hasattr(x, "assign"), recursive=False))
        return paths, shallow

    paths, shallow = both(scenario)
    assert ("again", "v") in paths and ("kids", 0, "v") in paths  # with_path keeps both
    assert shallow == ["own:0"]


def test_cycles_between_modules():
    def scenario(tf):
        class Node(tf.Module):
            def __init__(self, name, v):
                super().__init__(name=name)
                self.v = tf.Variable(v, name=name + "_v")

        a, b = Node("a", 1.0), Node("b", 2.0)
        a.other, b.other = b, a
        return names(a.variables), [m.name for m in a.submodules], [m.name for m in b.submodules]

    assert both(scenario) == (["a_v:0", "b_v:0"], ["b"], ["a"])


def test_same_variable_in_lists_and_tuples_is_reported_once():
    def scenario(tf):
        class Node(tf.Module):
            def __init__(self):
                super().__init__(name="n")
                self.v = tf.Variable(1.0, name="n_v")
                self.again = [self.v, self.v]
                self.t = (self.v, [tf.Variable(2.0, name="inner")])
                self.d = {2: tf.Variable(1.0, name="k2"), 1: tf.Variable(1.0, name="k1")}

        return names(Node().variables)

    assert both(scenario) == ["n_v:0", "k1:0", "k2:0", "inner:0"]


def test_mixed_containers_of_modules_and_variables():
    def scenario(tf):
        class Node(tf.Module):
            def __init__(self, name):
                super().__init__(name=name)
                self.v = tf.Variable(1.0, name=name + "_v")

        class Mixed(tf.Module):
            def __init__(self):
                super().__init__()
                self.items = [Node("x"), tf.Variable(2.0, name="loose"), [Node("y")]]
                self.y_again = self.items[2][0]
                self.t = tf.constant(1.0)  # tensors are not variables

        m = Mixed()
        return names(m.variables), [s.name for s in m.submodules]

    assert both(scenario) == (["loose:0", "x_v:0", "y_v:0"], ["x", "y"])


def test_ignored_properties():
    def scenario(tf):
        class Ignored(tf.Module):
            _TF_MODULE_IGNORED_PROPERTIES = tf.Module._TF_MODULE_IGNORED_PROPERTIES | {"skip"}

            def __init__(self):
                super().__init__()
                self.skip = tf.Variable(1.0, name="skip")
                self.keep = tf.Variable(1.0, name="keep")

        return names(Ignored().variables)

    assert both(scenario) == ["keep:0"]


def test_properties_are_not_traversed_but_their_storage_is():
    def scenario(tf):
        class WithProp(tf.Module):
            def __init__(self):
                super().__init__()
                self._v = tf.Variable(1.0, name="p")

            @property
            def prop(self):
                return self._v

        return names(WithProp().variables)

    assert both(scenario) == ["p:0"]


def test_modules_are_hashable_and_variables_are_tuples():
    m = tapejax.Module()
    assert {m: 1}[m] == 1
    assert m.variables == () and isinstance(m.trainable_variables, tuple)
