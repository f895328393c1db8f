"""Continue training from an exported model: its ONNX weights back into the PyTorch network.

An export folds each batch norm into the convolution before it (inference mode), so the exported
``Conv`` nodes carry a weight and a bias while the network has ``Conv2d`` (no bias) + ``BatchNorm2d``.
:func:`load_folded_convs` puts each folded weight into its ``Conv2d`` and the folded bias into the
batch norm's shift over unit statistics (scale 1, mean 0, variance 1); the batch norms must then stay
in inference mode while training (:func:`freeze_batch_norms` after each ``model.train()``), so the
network computes what the export computed. Used by ``train_die_reader.py`` and
``train_die_validity.py`` (``--init-onnx`` / ``--init``). :func:`set_metadata` writes the metadata the
run time reads (thresholds, crop kinds) into an exported model, :func:`save_model` saves one in place
of a file without leaving it half written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy.typing as npt


def load_folded_convs(pairs: list[tuple[Any, Any]], path: Path) -> dict[str, npt.NDArray[Any]]:
    """Copy the first ``len(pairs)`` ONNX ``Conv`` nodes of ``path`` into ``(Conv2d, BatchNorm2d)``
    ``pairs`` in order; returns every initializer of the graph by name (for the layers exported
    under their own names). Stops with a message when the export is not of the same network."""
    import onnx
    import torch
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    init = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    convs = [n for n in graph.node if n.op_type == "Conv"]
    if len(convs) < len(pairs):
        raise SystemExit(f"{path}: {len(convs)} convolutions, this network has {len(pairs)} with batch norm; not the same network")
    with torch.no_grad():
        for node, (conv, bn) in zip(convs, pairs, strict=False):
            w = init[node.input[1]]
            if tuple(w.shape) != tuple(conv.weight.shape):
                raise SystemExit(f"{path}: convolution {node.name} is {w.shape}, this network's is "
                                 f"{tuple(conv.weight.shape)}; not the same network (check --width)")
            conv.weight.copy_(torch.from_numpy(w.copy()))
            bn.weight.fill_(1.0)
            bn.bias.copy_(torch.from_numpy(init[node.input[2]].copy()) if len(node.input) > 2
                          else torch.zeros_like(bn.bias))
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
    return init


def freeze_batch_norms(model: Any) -> None:
    """Batch norms in inference mode (after ``model.train()``), as :func:`load_folded_convs` needs."""
    from torch import nn

    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.eval()


def metadata(model: Any) -> dict[str, str]:
    """An ``onnx.ModelProto``'s metadata as a dict."""
    return {p.key: p.value for p in model.metadata_props}


def set_metadata(model: Any, values: dict[str, str]) -> None:
    """Set ``values`` in an ``onnx.ModelProto``'s metadata, replacing keys it already has."""
    meta = metadata(model)
    meta.update(values)
    del model.metadata_props[:]
    for k, v in meta.items():
        entry = model.metadata_props.add()
        entry.key, entry.value = k, v


def save_model(model: Any, path: Path) -> None:
    """Save an ``onnx.ModelProto`` to ``path`` through a sibling ``.tmp.onnx`` file renamed over it, so
    that a model in use is never half written."""
    import onnx

    tmp = path.with_name(path.stem + ".tmp.onnx")
    onnx.save(model, str(tmp))
    tmp.replace(path)
