"""The networks' input (vision.images.network_input): RGB order and standardisation over the given axes."""

import numpy as np
import pytest

from vision.images import network_input


@pytest.mark.parametrize("axes", [(1, 2), (1, 2, 3), (0, 1, 2)])
def test_network_input_is_rgb_standardised_over_its_axes(axes: tuple[int, ...]) -> None:
    rng = np.random.default_rng(3)
    bgr = rng.integers(0, 256, (4, 20, 30, 3), dtype=np.uint8)
    bgr[1, ..., 0] = 0  # crop 1 has no blue: after the turn to RGB its channel 2 is the flat one
    x = network_input(bgr, axes)
    assert x.shape == (4, 3, 20, 30) and x.dtype == np.float32 and x.flags["C_CONTIGUOUS"]
    # the plain formula, on the RGB image, as the models were trained
    rgb = bgr[..., ::-1].astype(np.float64) / 255.0
    mean = rgb.mean(axis=axes, keepdims=True)
    want = (rgb - mean) / np.maximum(rgb.std(axis=axes, keepdims=True), 1e-3)
    assert np.allclose(x, want.transpose(0, 3, 1, 2), atol=1e-5)
    if axes == (1, 2):
        assert np.all(x[1, 2] == 0) and np.any(x[1, 0] != 0)  # the flat blue channel is RGB's last


def test_network_input_leaves_its_input_alone() -> None:
    crops = np.full((2, 8, 8, 3), 0.5, dtype=np.float32) * np.arange(1, 4, dtype=np.float32)
    before = crops.copy()
    network_input(crops, (1, 2, 3))
    assert np.array_equal(crops, before)
