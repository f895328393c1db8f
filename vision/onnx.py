"""Loading the project's ONNX models: one place for the runtime options and the error a user sees."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vision.errors import ModelMissingError

MODELS_DIR = Path(__file__).resolve().parents[1] / "models"
"""Where the committed models are (``models/`` at the top of the repository)."""


def load_session(path: str | Path, *, what: str, rebuild_hint: str, threads: int = 1) -> Any:
    """An ONNX Runtime CPU session for the model at ``path``.

    ``what`` names the model in messages ("die reader model"); ``rebuild_hint`` says how to rebuild
    it. A missing or unloadable file raises :class:`ModelMissingError` with both. ``threads`` is
    the intra-op thread count (inter-op is 1: the pipeline runs its own stages in parallel).
    """
    import onnxruntime as ort

    path = Path(path)
    if not path.is_file():
        raise ModelMissingError(f"{what} {path} is missing; {rebuild_hint}")
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    try:
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own exception types
        raise ModelMissingError(f"{what} {path} cannot be loaded ({exc}); {rebuild_hint}") from exc
