"""Where a table's states come from: the seam between ``gammonwatch serve`` and the pipeline.

A source is an async iterator of :class:`SourceItem`: a table state (a JSON object of
``schemas/table_state.schema.json``), optionally with a camera frame to show on the monitor page.
:func:`open_source` turns a ``--source`` spec into one.

- ``replay:STATES.jsonl`` (what ``--replay`` uses): a recorded table-state stream, played in real
  time by the states' ``t`` (seconds), scaled by ``speed``.
- ``camera:N``, ``video:PATH``, ``rtsp://...``, ``images:DIR`` (with ``calibration``): the live
  pipeline, :class:`LiveSource`: a capture thread (``vision.sources.VideoSource``, bounded queue)
  -> :class:`server.pipeline.FramePipeline` on a worker thread -> table states. A camera or stream
  that drops is reopened with backoff (the status says so on the monitor page); the end of a video
  file or image folder ends the source cleanly. Video files and folders are played at their frame
  rate times ``speed`` (frames dropped, oldest first, when vision falls behind); ``speed`` 0 reads
  every frame as fast as vision goes (evaluation).
"""

from __future__ import annotations

import asyncio
import logging
import math
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from rules.referee.stream import BadRecord, read_stream
from server.live import FrameInfo

if TYPE_CHECKING:
    from server.pipeline import StageTimes
    from vision.sources import FrameProducer

log = logging.getLogger("gammonwatch.serve")

LIVE_PREFIXES = ("camera:", "video:", "rtsp://", "rtsps://", "images:")


class SourceUnavailable(RuntimeError):
    """A ``--source`` that this build cannot open; the message says why and what to use instead."""


class SourceError(ValueError):
    """A source that cannot be read (missing file, bad line); the message names the file and line."""


@dataclass(frozen=True)
class SourceItem:
    state: dict[str, Any] | None = None
    frame: FrameInfo | None = None
    announce: dict[str, Any] | None = None
    """A spoken act recorded in the stream (``{"type": "announce", "act": "resign", ...}``)."""
    status: dict[str, Any] | None = None
    """The live pipeline's status (:meth:`LiveSource.status`), for the monitor page."""


class Source(Protocol):
    description: str

    def items(self, skip_states: int = 0) -> AsyncIterator[SourceItem]: ...


class ReplaySource:
    """A recorded table-state stream (JSON lines), played in real time.

    Lines with ``"type": "table_state"`` are states; a ``"type": "match_setup"`` line (usually the
    first) sets up the match; ``"type": "announce"`` lines are spoken acts (resignations) and are
    applied where they stand; blank lines and lines starting with ``#`` are skipped. ``speed`` 2.0
    plays twice as fast; 0 plays as fast as possible.
    """

    def __init__(self, path: str | Path, speed: float = 1.0) -> None:
        self.path = Path(path)
        if speed < 0:
            raise SourceError(f"--speed must be >= 0 (0 = as fast as possible); got {speed}")
        self.speed = speed
        self.description = f"recorded stream {self.path}"
        if not self.path.is_file():
            raise SourceError(f"{self.path}: no such file; --replay needs a table-state stream (JSON lines)")
        self._lines = self._read()

    def _read(self) -> list[tuple[int, dict[str, Any]]]:
        """The stream's records, read by the referee's own reader (``rules.referee.read_stream``).

        A line that is not JSON or not a known record stops here with its line number; a table state
        that breaks the schema is skipped with a warning naming the line, field and reason (the
        referee would reject it too), so one bad frame does not stop a recording.
        """
        try:
            text = self.path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise SourceError(f"{self.path}: cannot read it ({exc}); expected UTF-8 JSON lines") from exc
        lines = ["" if line.lstrip().startswith("#") else line for line in text.splitlines()]
        out: list[tuple[int, dict[str, Any]]] = []
        for rec in read_stream(lines):
            if isinstance(rec, BadRecord):
                if rec.field in ("$", "type"):
                    raise SourceError(f"{self.path} line {rec.line}: {rec.reason}; each line must be one "
                                      "table_state, match_setup or announce object")
                log.warning("%s line %d: table state skipped: %s: %s", self.path, rec.line, rec.field, rec.reason)
            elif rec.kind == "table_state":
                out.append((rec.line, rec.data.to_json()))
            elif rec.kind == "match_setup":
                out.append((rec.line, rec.data.to_json()))
            elif rec.kind == "announce":
                out.append((rec.line, rec.data))
            else:
                log.warning("%s line %d: a recorded monitor decision is not replayed; decide on the monitor page",
                            self.path, rec.line)
        return out

    @property
    def match_setup(self) -> dict[str, Any] | None:
        for _, obj in self._lines:
            if obj["type"] == "match_setup":
                return obj
        return None

    @property
    def state_count(self) -> int:
        return sum(1 for _, obj in self._lines if obj["type"] == "table_state")

    async def items(self, skip_states: int = 0) -> AsyncIterator[SourceItem]:
        """The records after the first ``skip_states`` states (already fed before a restart), paced by ``t``."""
        records = [obj for _, obj in self._lines if obj["type"] != "match_setup"]
        seen = 0
        for i, obj in enumerate(records):
            if seen == skip_states:
                records = records[i:]
                break
            seen += obj["type"] == "table_state"
        else:
            records = []
        start_wall = time.monotonic()
        start_t: float | None = None
        for obj in records:
            if obj["type"] == "announce":
                yield SourceItem(announce=obj)
                continue
            t = obj.get("t")
            if self.speed > 0 and isinstance(t, int | float):
                if start_t is None:
                    start_t = float(t)
                wait = (float(t) - start_t) / self.speed - (time.monotonic() - start_wall)
                if wait > 0:
                    await asyncio.sleep(wait)
            else:
                await asyncio.sleep(0)
            yield SourceItem(state=obj)


# ----------------------------------------------------------------------------------------- live sources
@dataclass(frozen=True)
class Backoff:
    """Waits between attempts to reopen a camera or stream: ``first`` doubling up to ``most`` seconds."""

    first: float = 0.5
    most: float = 10.0

    def delay(self, attempt: int) -> float:
        return float(min(self.most, self.first * 2 ** max(0, attempt)))


class ReopeningProducer:
    """A live camera or stream that is reopened with backoff when it cannot be opened or stops
    delivering frames; ``read`` returns None only once :meth:`release` was called."""

    is_live = True

    def __init__(self, opener: Callable[[], FrameProducer], name: str, on_status: Callable[[str, str], None],
                 backoff: Backoff | None = None, stop: threading.Event | None = None) -> None:
        self._opener = opener
        self.name = name
        self.fps: float | None = None
        self._on_status = on_status
        self._backoff = backoff or Backoff()
        self._stop = stop or threading.Event()
        self._inner: FrameProducer | None = None
        self.reconnects = 0

    def read(self) -> Any:
        attempt = 0
        while not self._stop.is_set():
            if self._inner is None:
                try:
                    self._inner = self._opener()
                    self.fps = self._inner.fps
                    self._on_status("running", f"{self.name}: open" + (f" (reopened, attempt {attempt + 1})" if attempt else ""))
                    attempt = 0
                except Exception as exc:  # noqa: BLE001 - any failure to open is retried
                    wait = self._backoff.delay(attempt)
                    attempt += 1
                    self._on_status("reconnecting", f"{self.name}: cannot open ({exc}); retrying in {wait:.1f} s")
                    self._stop.wait(wait)
                    continue
            image = self._inner.read()
            if image is not None:
                return image
            self._inner.release()
            self._inner = None
            self.reconnects += 1
            wait = self._backoff.delay(attempt)
            attempt += 1
            self._on_status("reconnecting", f"{self.name}: no frames (camera or stream dropped); reopening in {wait:.1f} s")
            self._stop.wait(wait)
        return None

    def release(self) -> None:
        self._stop.set()
        if self._inner is not None:
            self._inner.release()
            self._inner = None


class PacedProducer:
    """A file or folder played at its frame rate times ``speed``, as a live source (so the oldest
    frames are dropped when vision falls behind); timestamps are the video's time (``t``)."""

    is_live = True

    def __init__(self, inner: FrameProducer, speed: float, fps: float) -> None:
        self._inner = inner
        self.name = inner.name
        self.fps: float | None = fps
        self._speed = speed
        self._k = 0
        self._start: float | None = None
        self.t = 0.0
        self.last_work_ms: float | None = None

    def read(self) -> Any:
        t0 = time.perf_counter()
        image = self._inner.read()
        self.last_work_ms = (time.perf_counter() - t0) * 1e3
        if image is None:
            return None
        now = time.monotonic()
        if self._start is None:
            self._start = now
        due = self._start + self._k / (self.fps or 30.0) / self._speed
        if due > now:
            time.sleep(due - now)
        self.t = self._k / (self.fps or 30.0)
        self._k += 1
        return image

    def release(self) -> None:
        self._inner.release()


class TimedProducer:
    """Measures each ``read`` (decoding or grabbing a frame) as the pipeline's ``capture`` stage."""

    def __init__(self, inner: Any, times: StageTimes) -> None:
        self._inner = inner
        self.name = inner.name
        self.is_live = inner.is_live
        self._times = times

    @property
    def fps(self) -> float | None:
        return self._inner.fps  # type: ignore[no-any-return]

    def read(self) -> Any:
        t0 = time.perf_counter()
        image = self._inner.read()
        if image is not None:
            work = getattr(self._inner, "last_work_ms", None)  # pacing waits are not capture work
            self._times.add("capture", work if work is not None else (time.perf_counter() - t0) * 1e3)
        return image

    def release(self) -> None:
        self._inner.release()


_END = SourceItem()


class LiveSource:
    """Frames from a camera, stream, video file or image folder through the live pipeline.

    ``items()`` starts a capture thread (``vision.sources.VideoSource``, ``buffer`` frames, oldest
    dropped for live sources) and a vision thread (:class:`server.pipeline.FramePipeline`), and
    yields every table state the tracker emits (never dropped), a preview frame for the monitor page
    every ``preview_s`` seconds and the pipeline's :meth:`status` every ``status_s`` seconds.
    """

    def __init__(self, spec: str, profile: Any, *, speed: float = 1.0, fps: float = 30.0, buffer: int = 8,
                 backoff: Backoff | None = None, pipeline: Any = None, producer: Any = None,
                 preview_s: float = 0.5, status_s: float = 1.0, note: str = "",
                 extra_status: Callable[[], dict[str, Any]] | None = None, config: Any = None) -> None:
        from server.pipeline import FramePipeline, StageTimes

        if speed < 0:
            raise SourceError(f"--speed must be >= 0 (0 = every frame, as fast as vision goes); got {speed}")
        self.spec = spec
        self.description = f"live source {spec}"
        self.profile = profile
        self.speed = speed
        self.fps = fps
        self.buffer = buffer
        self.backoff = backoff or Backoff()
        self.times: StageTimes = pipeline.times if pipeline is not None else StageTimes()
        self.pipeline: FramePipeline = pipeline or FramePipeline(profile, times=self.times, config=config)
        self.preview_s = preview_s
        self.status_s = status_s
        self.note = note
        self.extra_status = extra_status
        self.match_setup: dict[str, Any] | None = None
        self._producer = producer
        self._stop = threading.Event()
        self.state = "starting"
        self.message = ""
        self.frames_read = 0
        self.frames_done = 0
        self.states_out = 0
        self.dropped = 0
        self.failed = 0
        """Frames the pipeline failed on (an unexpected error): skipped, counted and shown."""
        self._failures_in_a_row = 0
        self.last_failure: str | None = None
        self.reconnects = 0
        self.video_t = 0.0
        self.started = time.monotonic()
        self.error: str | None = None
        self._source: Any = None
        self._reopening: ReopeningProducer | None = None
        if producer is None:
            self._check_openable()

    # -------------------------------------------------------------- opening
    def _check_openable(self) -> None:
        """Files and folders must be readable now (a clear error at start-up); cameras may come later."""
        spec = self.spec
        if spec.startswith("video:"):
            path = Path(spec.removeprefix("video:"))
            if not path.is_file():
                raise SourceError(f"--source {spec}: no such video file {path}; give video:PATH to an existing file")
            self._open_file(path).release()
        elif spec.startswith("images:"):
            self._open_folder()

    def _open_file(self, path: Path) -> FrameProducer:
        from vision.errors import VisionError
        from vision.sources import OpenCVProducer

        try:
            prod = OpenCVProducer(str(path))
        except VisionError:
            raise SourceError(f"--source video:{path}: OpenCV cannot read this file; convert it to an MP4 "
                              "(H.264) or AVI (MJPG) video, e.g. 'ffmpeg -i IN -c:v libx264 OUT.mp4'") from None
        prod.is_live = False
        return prod

    def _open_folder(self) -> FrameProducer:
        from vision.errors import VisionError
        from vision.sources import ImageFolderProducer

        try:
            return ImageFolderProducer(self.spec.removeprefix("images:"), fps=self.fps)
        except VisionError as exc:
            raise SourceError(f"--source {self.spec}: {exc}") from None

    def _open_camera(self) -> FrameProducer:
        from vision.errors import VisionError
        from vision.sources import OpenCVProducer

        target: int | str = int(self.spec.removeprefix("camera:")) if self.spec.startswith("camera:") else self.spec
        try:
            return OpenCVProducer(target)
        except VisionError as exc:
            raise OSError(str(exc)) from None

    def _producer_for_run(self) -> Any:
        if self._producer is not None:
            prod = self._producer
        elif self.spec.startswith(("video:", "images:")):
            inner = self._open_file(Path(self.spec.removeprefix("video:"))) if self.spec.startswith("video:") \
                else self._open_folder()
            fps = inner.fps or self.fps
            prod = PacedProducer(inner, self.speed, fps) if self.speed > 0 else inner
            if self.speed <= 0:
                inner.fps = fps
        else:
            prod = ReopeningProducer(self._open_camera, self.spec, self._set_status, self.backoff, self._stop)
            self._reopening = prod
        return TimedProducer(prod, self.times)

    def _set_status(self, state: str, message: str) -> None:
        self.state = state
        self.message = message
        (log.warning if state in ("reconnecting", "error") else log.info)("%s: %s", self.spec, message)

    # -------------------------------------------------------------- status
    def status(self) -> dict[str, Any]:
        """What the monitor page shows about the pipeline (JSON-ready)."""
        wall = max(1e-6, time.monotonic() - self.started)
        out: dict[str, Any] = {
            "source": self.spec, "state": self.state, "message": self.message,
            "frames_read": self.frames_read, "frames_processed": self.frames_done, "frames_dropped": self.dropped,
            "frames_failed": self.failed,
            "recognitions": self.pipeline.recognitions, "states": self.states_out,
            "reconnects": self._reopening.reconnects if self._reopening else 0,
            "video_t": round(self.video_t, 2), "wall_s": round(wall, 1),
            "processed_fps": round(self.frames_done / wall, 1),
            "realtime_factor": round(self.video_t / wall, 3) if self.video_t > 0 else None,
            "timings_ms": self.times.summary(), "ts": time.time(),
        }
        if self.note:
            out["note"] = self.note
        if self.extra_status is not None:
            out.update(self.extra_status())
        if self.error:
            out["error"] = self.error
        if self.last_failure:
            out["last_failure"] = self.last_failure
        return out

    # -------------------------------------------------------------- running
    async def items(self, skip_states: int = 0) -> AsyncIterator[SourceItem]:
        loop = asyncio.get_running_loop()
        out: asyncio.Queue[SourceItem] = asyncio.Queue()  # unbounded: states are decisions, never dropped

        def emit(item: SourceItem) -> None:
            loop.call_soon_threadsafe(out.put_nowait, item)

        worker = threading.Thread(target=self._run, args=(emit, skip_states), name=f"vision:{self.spec}", daemon=True)
        self.started = time.monotonic()
        worker.start()
        try:
            while True:
                item = await out.get()
                if item is _END:
                    return
                yield item
        finally:
            self.stop()

    def stop(self) -> None:
        self._stop.set()
        if self._source is not None:
            self._source.stop()

    MAX_FAILURES_IN_A_ROW = 50
    """After this many frames in a row the pipeline failed on, the run stops with the error."""

    def _frame_failed(self, frame_id: int, exc: Exception) -> None:
        """An unexpected error on one frame: logged (the first and every 100th), counted, the frame
        skipped; only a run of :attr:`MAX_FAILURES_IN_A_ROW` failures stops the source."""
        self.failed += 1
        self._failures_in_a_row += 1
        self.last_failure = f"frame {frame_id}: {exc!r}"
        if self.failed == 1 or self.failed % 100 == 0:
            log.error("%s: the pipeline failed on frame %d (%d so far; the frame is skipped)", self.spec, frame_id,
                      self.failed, exc_info=exc)
        if self._failures_in_a_row >= self.MAX_FAILURES_IN_A_ROW:
            raise RuntimeError(f"the pipeline failed on {self._failures_in_a_row} frames in a row; last: {exc!r}") from exc

    def _run(self, emit: Callable[[SourceItem], None], skip_states: int) -> None:
        from server.pipeline import PipelineError, encode_preview
        from vision.sources import SourceState, VideoSource

        skipped = 0
        last_preview = last_status = -math.inf
        try:
            producer = self._producer_for_run()
            inner = producer._inner
            # a paced file or a simulated table has its own time (``t``); a camera or stream the wall clock
            clock: Callable[[], float] = (lambda: float(inner.t)) if hasattr(inner, "t") else time.time
            live_clock = not hasattr(inner, "t")
            src = VideoSource(producer, buffer_size=self.buffer, clock=clock)
            self._source = src
            self._set_status("running", f"reading {self.spec}")
            src.start()
            t_origin: float | None = None
            while not self._stop.is_set():
                frame = src.read_frame(timeout=0.5)
                if frame is None:
                    if src.state in (SourceState.ENDED, SourceState.ERROR, SourceState.STOPPED):
                        break
                    continue
                self.frames_read = frame.frame_id + 1
                self.dropped = src.dropped
                if t_origin is None:
                    t_origin = frame.timestamp
                t = frame.timestamp - t_origin if live_clock else frame.timestamp
                self.video_t = t
                try:
                    result = self.pipeline.process(frame.image, frame.frame_id, t)
                except PipelineError:
                    raise
                except Exception as exc:  # noqa: BLE001 - one bad frame must not end a live table's monitoring
                    self._frame_failed(frame.frame_id, exc)
                    continue
                self._failures_in_a_row = 0
                self.frames_done += 1
                for state in result.states:
                    if skipped < skip_states:
                        skipped += 1
                        continue
                    self.states_out += 1
                    emit(SourceItem(state=state))
                now = time.monotonic()
                if now - last_preview >= self.preview_s:
                    last_preview = now
                    jpeg, w, h = encode_preview(frame.image)
                    sx = w / frame.image.shape[1]
                    dets = [{**d, "box": [round(v * sx, 1) for v in d["box"]]} for d in self.pipeline.detections()]
                    emit(SourceItem(frame=FrameInfo(frame.frame_id, jpeg, w, h, dets)))
                if now - last_status >= self.status_s:
                    last_status = now
                    emit(SourceItem(status=self.status()))
            if src.state is SourceState.ERROR:
                self.error = src.events[-1].message if src.events else "capture failed"
                self._set_status("error", self.error)
            elif self._stop.is_set():
                self._set_status("stopped", f"{self.spec}: stopped")
            else:
                self._set_status("ended", f"{self.spec}: end of the frames after {self.frames_read} frames; "
                                          "the match so far stays on the page and in the event log")
        except (PipelineError, SourceError) as exc:
            self.error = str(exc)
            self._set_status("error", str(exc))
        except Exception as exc:  # noqa: BLE001 - report, never die silently in a thread
            log.exception("%s: pipeline failed", self.spec)
            self.error = f"pipeline failed: {exc!r}"
            self._set_status("error", self.error)
        finally:
            if self._source is not None:
                self._source.stop()
            emit(SourceItem(status=self.status()))
            emit(_END)


def open_source(spec: str, *, speed: float = 1.0, calibration: str | None = None, buffer: int = 8,
                dice_locator: str = "model") -> Source:
    """The source for a ``--source`` spec (``replay:PATH`` or a live spec, see the module docstring)."""
    if spec.startswith("replay:"):
        return ReplaySource(spec.removeprefix("replay:"), speed)
    if spec.startswith(LIVE_PREFIXES):
        if spec.startswith("camera:") and not spec.removeprefix("camera:").isdigit():
            raise SourceError(f"--source {spec}: a camera is camera:N with N the camera index (0, 1, ...)")
        if not calibration:
            raise SourceError(f"--source {spec} needs --calibration PROFILE.json (the board's corners in this "
                              "camera's image): make one with 'gammonwatch calibrate board IMAGE --out profile.json'")
        from server.pipeline import PipelineError, load_profile

        try:
            profile = load_profile(calibration)
        except PipelineError as exc:
            raise SourceError(str(exc)) from None
        from calibration.profile import die_size_warning

        warning = die_size_warning(profile)
        if warning:
            print(f"gammonwatch: {calibration}: {warning}", file=sys.stderr)
        try:
            from vision.errors import ModelMissingError
        except ImportError:  # pragma: no cover - vision is part of the package
            ModelMissingError = RuntimeError  # type: ignore[misc,assignment]  # noqa: N806
        try:
            from server.pipeline import PipelineConfig

            return LiveSource(spec, profile, speed=speed, buffer=buffer,
                              config=PipelineConfig(dice_locator="model" if dice_locator == "model" else "background"))
        except ModelMissingError as exc:
            raise SourceError(f"--source {spec}: {exc}") from None
    raise SourceError(
        f"--source {spec!r}: unknown kind; use camera:N, video:PATH, rtsp://..., images:DIR or replay:STATES.jsonl"
    )
