"""Join die-validity models into one ONNX model that averages their pose probabilities.

    pip install -e '.[train]'          # (onnx; no PyTorch needed)
    python models/ensemble_validity.py MEMBER.onnx MEMBER.onnx... --out models/die_validity.onnx
    python models/calibrate_validity.py FRAMES... --model models/die_validity.onnx --write

Each member is an export of ``models/train_die_validity.py`` (inputs ``crop`` and ``features``, output
``logits``) of the same crop geometry. The joined graph feeds both inputs to every member, takes each
member's softmax, averages them and outputs the log of the mean as ``logits``: the run time's softmax
(``vision.dice_validity.DieValidityClassifier``) then gives the mean probabilities, so the run time is
unchanged. The metadata are the first member's, with ``members`` naming the files and
``valid_threshold`` left for ``models/calibrate_validity.py`` to choose on the joined model's verdicts.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "models"))

from onnx_init import metadata, save_model, set_metadata  # noqa: E402

INPUTS = ("crop", "features")
GEOMETRY = ("crop_kind", "rect_size", "rect_span", "rect_shift", "classes")


def join(paths: list[Path]) -> Any:
    """The members' graphs side by side, their softmaxes averaged (see the module's doc)."""
    import onnx
    from onnx import helper

    members = [onnx.load(str(p)) for p in paths]
    first = metadata(members[0])
    for p, m in zip(paths, members, strict=True):
        meta = metadata(m)
        if [i.name for i in m.graph.input] != list(INPUTS) or [o.name for o in m.graph.output] != ["logits"]:
            raise SystemExit(f"{p}: not a die-validity export (inputs crop, features; output logits)")
        if any(meta.get(k) != first.get(k) for k in GEOMETRY):
            raise SystemExit(f"{p}: crop geometry or classes differ from {paths[0]}; retrain it with the same settings")
    nodes: list[Any] = []
    inits: list[Any] = []
    probs = []
    for k, m in enumerate(members):
        pre = f"m{k}/"

        def name(n: str, pre: str = pre) -> str:
            return n if n in INPUTS or n == "" else pre + n

        for init in m.graph.initializer:
            init.name = name(init.name)
            inits.append(init)
        for node in m.graph.node:
            node.name = name(node.name) if node.name else ""
            node.input[:] = [name(i) for i in node.input]
            node.output[:] = [name(o) for o in node.output]
            nodes.append(node)
        probs.append(f"{pre}p")
        nodes.append(helper.make_node("Softmax", [name("logits")], [f"{pre}p"], axis=1, name=f"{pre}softmax"))
    acc = probs[0]
    for k, prob in enumerate(probs[1:], start=1):
        nodes.append(helper.make_node("Add", [acc, prob], [f"sum{k}"], name=f"sum{k}"))
        acc = f"sum{k}"
    inits.append(helper.make_tensor("n_members_inv", onnx.TensorProto.FLOAT, [], [1.0 / len(members)]))
    nodes.append(helper.make_node("Mul", [acc, "n_members_inv"], ["mean_p"], name="mean"))
    nodes.append(helper.make_node("Log", ["mean_p"], ["logits"], name="log"))
    graph = helper.make_graph(nodes, "die_validity_ensemble", list(members[0].graph.input), list(members[0].graph.output),
                              initializer=inits)
    opset = max(o.version for m in members for o in m.opset_import if o.domain in ("", "ai.onnx"))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = members[0].ir_version
    onnx.checker.check_model(model)
    set_metadata(model, {**first, "members": ",".join(p.name for p in paths)})
    return model


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("members", nargs="+", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args(argv)
    if len(a.members) < 2:
        ap.error("give at least two member models")
    save_model(join(a.members), a.out)
    print(f"wrote {a.out}: mean of {', '.join(str(p) for p in a.members)} (threshold: run models/calibrate_validity.py --write)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
