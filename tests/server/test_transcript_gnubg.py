"""The live .mat imports into GNU Backgammon with the same moves, cube actions and result."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

GNUBG = shutil.which("gnubg") or ("/usr/games/gnubg" if Path("/usr/games/gnubg").exists() else None)

pytestmark = [
    pytest.mark.gnubg,
    pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon is not installed (Debian package gnubg: make system-deps)"),
]


def rows(mat: str) -> dict[int, list[str]]:
    """Per numbered row: its words with each play's steps sorted (gnubg may write them in another order)."""
    out = {}
    for line in mat.splitlines():
        m = re.match(r"\s*(\d+)\)(.*)", line)
        if m:
            words = m.group(2).split()
            out[int(m.group(1))] = sorted(words)
    return out


def test_the_live_transcript_imports_into_gnubg_unchanged(client, stream, auth, start_table, tmp_path):
    setup, states = stream
    start_table(client, setup)
    for s in states:
        assert client.post("/api/tables/t1/states", json=s, headers=auth).status_code == 200
    assert client.post("/api/tables/t1/announce", json={"act": "resign", "player": "dark"}, headers=auth).status_code == 200
    ours = client.get("/api/tables/t1/transcript.mat").text
    path, back = tmp_path / "live.mat", tmp_path / "gnubg.mat"
    path.write_text(ours)
    commands = f'import mat "{path}"\nexport match mat "{back}"\n'
    proc = subprocess.run([GNUBG, "-t", "-q"], input=commands, text=True, capture_output=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert back.exists(), proc.stdout[-2000:]
    theirs = back.read_text()
    assert rows(theirs) == rows(ours) and len(rows(ours)) == 7  # every move, the double and the take
    assert "Wins 2 points" in theirs and "Wins 2 points" in ours
