"""models/ensemble_validity.py: die-validity models joined into one ONNX model averaging their probabilities."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from vision.dice_validity import (
    N_FEATURES,
    POSE_CLASSES,
    RECT_SHIFT,
    RECT_SIZE,
    RECT_SPAN,
    DieValidityClassifier,
)

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

MODELS = Path(__file__).parents[2] / "models"
sys.path.insert(0, str(MODELS))

from ensemble_validity import join  # noqa: E402
from onnx_init import set_metadata  # noqa: E402


def _member(path: Path, seed: int, rect_size: int = RECT_SIZE) -> None:
    """A stand-in export: logits = features @ W + mean(crop) * v (both inputs used), with the metadata
    of ``models/train_die_validity.py``."""
    from onnx import TensorProto, helper

    rng = np.random.default_rng(seed)
    w = rng.normal(size=(N_FEATURES, len(POSE_CLASSES))).astype(np.float32)
    v = rng.normal(size=(1, len(POSE_CLASSES))).astype(np.float32)
    nodes = [helper.make_node("MatMul", ["features", "W"], ["fw"]),
             helper.make_node("ReduceMean", ["crop"], ["cm"], axes=[1, 2, 3], keepdims=0),
             helper.make_node("Unsqueeze", ["cm", "one"], ["cm2"]),
             helper.make_node("MatMul", ["cm2", "V"], ["cv"]),
             helper.make_node("Add", ["fw", "cv"], ["logits"])]
    inits = [helper.make_tensor("W", TensorProto.FLOAT, w.shape, w.ravel()),
             helper.make_tensor("V", TensorProto.FLOAT, v.shape, v.ravel()),
             helper.make_tensor("one", TensorProto.INT64, [1], [1])]
    graph = helper.make_graph(
        nodes, "m", [helper.make_tensor_value_info("crop", TensorProto.FLOAT, ["n", 3, rect_size, rect_size]),
                     helper.make_tensor_value_info("features", TensorProto.FLOAT, ["n", N_FEATURES])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["n", len(POSE_CLASSES)])], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    set_metadata(model, {"valid_threshold": "0.02", "classes": ",".join(POSE_CLASSES), "crop_kind": "rectified",
                         "rect_size": str(rect_size), "rect_span": str(RECT_SPAN), "rect_shift": str(RECT_SHIFT)})
    onnx.save(model, str(path))


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_the_joined_model_gives_the_mean_of_its_members_probabilities(tmp_path: Path) -> None:
    a, b = tmp_path / "a.onnx", tmp_path / "b.onnx"
    _member(a, 1)
    _member(b, 2)
    joined = tmp_path / "ab.onnx"
    onnx.save(join([a, b]), str(joined))
    rng = np.random.default_rng(0)
    crop = rng.normal(size=(5, 3, RECT_SIZE, RECT_SIZE)).astype(np.float32)
    feats = rng.normal(size=(5, N_FEATURES)).astype(np.float32)
    probs = []
    for p in (a, b, joined):
        out = ort.InferenceSession(str(p), providers=["CPUExecutionProvider"]).run(["logits"], {"crop": crop, "features": feats})[0]
        probs.append(_softmax(out))
    assert not np.allclose(probs[0], probs[1], atol=1e-3)  # two different members
    np.testing.assert_allclose(probs[2], (probs[0] + probs[1]) / 2, atol=1e-5)
    meta = ort.InferenceSession(str(joined), providers=["CPUExecutionProvider"]).get_modelmeta().custom_metadata_map
    assert meta["members"] == "a.onnx,b.onnx" and meta["crop_kind"] == "rectified"
    clf = DieValidityClassifier(joined)  # the run time takes it as any export (geometry from the metadata)
    assert clf.predict(np.zeros((2, RECT_SIZE, RECT_SIZE, 3), np.uint8), feats[:2]).shape == (2, len(POSE_CLASSES))


def test_members_of_another_crop_geometry_are_refused(tmp_path: Path) -> None:
    a, b = tmp_path / "a.onnx", tmp_path / "b.onnx"
    _member(a, 1)
    _member(b, 2, rect_size=RECT_SIZE // 2)
    with pytest.raises(SystemExit, match="crop geometry"):
        join([a, b])
