"""Frame sources: every frame of a file in order; a live camera drops the oldest; errors are typed."""

from __future__ import annotations

import threading
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.errors import VisionError
from vision.sources import ArrayProducer, ImageFolderProducer, SourceState, VideoSource


def frames(n: int) -> list[np.ndarray]:
    return [np.full((8, 8, 3), i, np.uint8) for i in range(n)]


def test_a_file_source_delivers_every_frame_in_order_with_timestamps() -> None:
    src = VideoSource(ArrayProducer(frames(40), fps=20.0), buffer_size=2)
    src.start()
    got = list(src)
    assert [f.frame_id for f in got] == list(range(40))
    assert [int(f.image[0, 0, 0]) for f in got] == list(range(40))
    assert got[10].timestamp == pytest.approx(0.5)
    assert src.state is SourceState.ENDED and src.dropped == 0


class SlowLive:
    """A live producer that waits until the test lets it produce all frames at once."""

    def __init__(self, n: int) -> None:
        self.inner = ArrayProducer(frames(n), is_live=True, name="camera")
        self.name, self.is_live, self.fps = "camera", True, 30.0

    def read(self):
        return self.inner.read()

    def release(self) -> None:
        pass


def test_a_live_source_drops_the_oldest_frames_when_the_consumer_is_slow() -> None:
    src = VideoSource(SlowLive(20), buffer_size=3)
    src.start()
    # the consumer reads nothing until the producer has finished
    for _ in range(200):
        if src.state is SourceState.ENDED:
            break
        threading.Event().wait(0.01)
    got = list(src)
    ids = [f.frame_id for f in got]
    assert ids == sorted(ids) and ids[-1] == 19  # the newest frames survive
    assert len(ids) <= 3 and src.dropped >= 16


class Broken:
    name, is_live, fps = "broken", False, 30.0

    def __init__(self) -> None:
        self.n = 0

    def read(self):
        self.n += 1
        if self.n > 2:
            raise OSError("device unplugged")
        return np.zeros((4, 4, 3), np.uint8)

    def release(self) -> None:
        pass


def test_a_failing_producer_reports_an_error_state() -> None:
    events = []
    src = VideoSource(Broken(), on_status=events.append)
    src.start()
    assert len(list(src)) == 2
    assert src.state is SourceState.ERROR
    assert "device unplugged" in events[-1].message


def test_image_folder_source(tmp_path: Path) -> None:
    for i in (2, 0, 1):
        cv2.imwrite(str(tmp_path / f"f{i}.png"), np.full((4, 4, 3), i * 10, np.uint8))
    src = VideoSource(ImageFolderProducer(tmp_path))
    src.start()
    assert [int(f.image[0, 0, 0]) for f in src] == [0, 10, 20]
    with pytest.raises(VisionError, match="no images"):
        ImageFolderProducer(_empty(tmp_path))


def _empty(root: Path) -> Path:
    p = root / "empty"
    p.mkdir()
    return p
