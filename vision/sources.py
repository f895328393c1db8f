"""Frame sources (after roboflow/inference ``VideoSource``).

A :class:`FrameProducer` yields raw images (a camera, a video file, an image folder, arrays in a
test). :class:`VideoSource` runs it on a capture thread that fills a bounded queue: for a live
source the oldest frame is dropped when the consumer falls behind (latency matters more than
completeness); for a file every frame is processed (the capture thread waits). Every frame carries
a frame id and a timestamp; the source's health is an explicit :class:`SourceState` reported as
typed :class:`StatusEvent` s.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np
import numpy.typing as npt

from vision.errors import VisionError

Image = npt.NDArray[np.uint8]
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


class SourceState(StrEnum):
    NOT_STARTED = "not_started"
    RUNNING = "running"
    ENDED = "ended"
    """The producer has no more frames (end of file or folder)."""
    STOPPED = "stopped"
    """Stopped by the consumer."""
    ERROR = "error"


@dataclass(frozen=True)
class Frame:
    image: Image
    frame_id: int
    """0, 1, 2, ... in capture order (ids of dropped frames are skipped, so gaps show drops)."""
    timestamp: float
    """Seconds: wall-clock capture time for live sources, ``frame_id / fps`` for files."""
    source: str


@dataclass(frozen=True)
class StatusEvent:
    state: SourceState
    message: str
    time: float


class FrameProducer(Protocol):
    """Where frames come from. ``read`` returns None at the end; ``is_live`` picks the buffer policy."""

    name: str
    is_live: bool
    fps: float | None

    def read(self) -> Image | None: ...

    def release(self) -> None: ...


class ArrayProducer:
    """Frames from a list of arrays (tests, the simulator)."""

    def __init__(self, frames: Sequence[Image], fps: float = 30.0, is_live: bool = False, name: str = "arrays") -> None:
        self._frames = list(frames)
        self._i = 0
        self.fps: float | None = fps
        self.is_live = is_live
        self.name = name

    def read(self) -> Image | None:
        if self._i >= len(self._frames):
            return None
        frame = self._frames[self._i]
        self._i += 1
        return frame

    def release(self) -> None:
        self._i = len(self._frames)


class ImageFolderProducer:
    """The images of a folder in name order."""

    def __init__(self, folder: str | Path, fps: float = 30.0) -> None:
        root = Path(folder)
        if not root.is_dir():
            raise VisionError(f"{root}: not a folder; give a folder of .png/.jpg frames")
        self._paths = sorted(p for p in root.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self._paths:
            raise VisionError(f"{root}: no images ({', '.join(IMAGE_SUFFIXES)}); give a folder of frames")
        self._i = 0
        self.fps: float | None = fps
        self.is_live = False
        self.name = str(root)

    def read(self) -> Image | None:
        from vision.images import read_image

        if self._i >= len(self._paths):
            return None
        path = self._paths[self._i]
        self._i += 1
        return read_image(path)

    def release(self) -> None:
        self._i = len(self._paths)


class OpenCVProducer:
    """A camera index (``0``), a video file or a stream URL through ``cv2.VideoCapture``."""

    def __init__(self, source: int | str) -> None:
        self._cap = cv2.VideoCapture(source)
        if not self._cap.isOpened():
            what = f"camera {source}" if isinstance(source, int) else str(source)
            raise VisionError(f"{what}: cannot be opened; check the camera index, the file path or the stream URL")
        self.is_live = isinstance(source, int) or "://" in str(source)
        fps = float(self._cap.get(cv2.CAP_PROP_FPS))
        self.fps: float | None = fps if fps > 0 else None
        self.name = str(source)

    def read(self) -> Image | None:
        ok, frame = self._cap.read()
        return np.asarray(frame, dtype=np.uint8) if ok else None

    def release(self) -> None:
        self._cap.release()


class VideoSource:
    """A producer on a capture thread with a bounded queue.

    >>> src = VideoSource(ArrayProducer([np.zeros((4, 4, 3), np.uint8)] * 3))
    >>> src.start(); [f.frame_id for f in src]
    [0, 1, 2]
    """

    def __init__(self, producer: FrameProducer, buffer_size: int = 8,
                 on_status: Callable[[StatusEvent], None] | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        if buffer_size < 1:
            raise ValueError("buffer_size must be at least 1")
        self.producer = producer
        self._queue: queue.Queue[Frame | None] = queue.Queue(maxsize=buffer_size)
        self._state = SourceState.NOT_STARTED
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._on_status = on_status
        self._clock = clock
        self._lock = threading.Lock()
        self.events: list[StatusEvent] = []
        self.dropped = 0
        """Frames dropped because the consumer fell behind (live sources only)."""

    @property
    def state(self) -> SourceState:
        return self._state

    def _set_state(self, state: SourceState, message: str) -> None:
        with self._lock:
            self._state = state
            event = StatusEvent(state, message, self._clock())
            self.events.append(event)
        if self._on_status is not None:
            self._on_status(event)

    def start(self) -> None:
        if self._state is not SourceState.NOT_STARTED:
            raise RuntimeError(f"source {self.producer.name} already started (state {self._state.value})")
        self._set_state(SourceState.RUNNING, f"reading {self.producer.name}")
        self._thread = threading.Thread(target=self._capture, name=f"capture:{self.producer.name}", daemon=True)
        self._thread.start()

    def _put(self, item: Frame | None) -> None:
        if self.producer.is_live:
            while True:
                try:
                    self._queue.put_nowait(item)
                    return
                except queue.Full:
                    try:
                        old = self._queue.get_nowait()
                        if old is not None:
                            self.dropped += 1
                    except queue.Empty:
                        pass
        else:
            while not self._stop.is_set():
                try:
                    self._queue.put(item, timeout=0.1)
                    return
                except queue.Full:
                    continue

    def _capture(self) -> None:
        frame_id = 0
        fps = self.producer.fps or 30.0
        try:
            while not self._stop.is_set():
                image = self.producer.read()
                if image is None:
                    self._set_state(SourceState.ENDED, f"{self.producer.name}: end of frames after {frame_id}")
                    break
                ts = self._clock() if self.producer.is_live else frame_id / fps
                self._put(Frame(image, frame_id, ts, self.producer.name))
                frame_id += 1
        except Exception as exc:  # report any producer failure as a typed status, never silently
            self._set_state(SourceState.ERROR, f"{self.producer.name}: {exc}")
        finally:
            self.producer.release()
            self._put(None)

    def read_frame(self, timeout: float | None = None) -> Frame | None:
        """The next frame, or None when the source has ended, was stopped, or ``timeout`` passed."""
        if self._state is SourceState.NOT_STARTED:
            raise RuntimeError("call start() before reading frames")
        try:
            item = self._queue.get(timeout=timeout)
        except queue.Empty:
            return None
        if item is None:  # keep the end marker for the next read
            try:
                self._queue.put_nowait(None)
            except queue.Full:
                pass
        return item

    def __iter__(self) -> Iterator[Frame]:
        while True:
            frame = self.read_frame()
            if frame is None:
                return
            yield frame

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
        if self._state is SourceState.RUNNING:
            self._set_state(SourceState.STOPPED, f"{self.producer.name}: stopped")
