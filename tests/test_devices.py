"""TF device names mapped onto JAX devices."""

import jax
import pytest

import tapejax as tf


def test_list_physical_devices_names_jax_devices():
    cpus = tf.config.list_physical_devices("CPU")
    assert cpus and cpus[0].name == "/physical_device:CPU:0" and cpus[0].device_type == "CPU"
    assert len(tf.config.list_physical_devices()) >= len(cpus)
    assert tf.config.list_logical_devices("CPU")[0].name == "/device:CPU:0"


def test_device_places_new_values():
    with tf.device("/CPU:0"):
        t = tf.constant([1.0, 2.0]) * 2
    assert t.device.endswith("CPU:0")
    with tf.device("/job:localhost/replica:0/task:0/device:CPU:0"):
        pass


def test_bad_device_names():
    with pytest.raises(ValueError, match="Invalid device specification"):
        with tf.device("nonsense"):
            pass
    if not any(d.platform == "gpu" for d in jax.devices()):
        with pytest.raises(ValueError, match="does not exist here"):
            with tf.device("/GPU:0"):
                pass
