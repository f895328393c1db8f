"""The pages in Debian's chromium (Playwright, headless): live updates, an alert acknowledged, a transparent overlay.

Set GAMMONWATCH_SCREENSHOTS=DIR to keep the screenshots (docs/screenshots/ holds the committed ones).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium (/usr/bin/chromium) is not installed: make system-deps"),
]


@pytest.fixture
def browser(tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api", reason="the python package playwright is not installed")
    with sync_api.sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path / "profile"), executable_path=str(CHROMIUM), args=ARGS, headless=True,
            viewport={"width": 1600, "height": 1000},
        )
        try:
            yield context
        finally:
            context.close()


@pytest.fixture
def live_server(tmp_path, server_process, stream, start_table):
    srv = server_process(tmp_path / "events.db")
    try:
        import httpx

        with httpx.Client(base_url=srv.base, timeout=10) as c:
            start_table(c, stream[0])
        yield srv
    finally:
        srv.kill()


def shots_dir(tmp_path: Path) -> Path:
    return Path(os.environ.get("GAMMONWATCH_SCREENSHOTS") or tmp_path)


def post_states(srv: Any, states: list[dict[str, Any]], table: str = "t1") -> None:
    for s in states:
        assert srv.post(f"/api/tables/{table}/states", s).status_code == 200


def test_monitor_gets_live_updates_shows_the_alert_and_acknowledges_it(browser, live_server, stream, tmp_path, auth):
    srv = live_server
    _, states = stream
    page = browser.new_page()
    page.goto(f"{srv.base}/monitor?table=t1#token={auth['Authorization'].split()[1]}")
    page.wait_for_selector("#token-state:text('monitor')")
    page.wait_for_selector("#conn:text('live')")
    post_states(srv, states[:10])
    page.wait_for_selector("body[data-state-count='10']")
    assert page.locator("#board circle.checker").count() >= 30  # both sides' checkers drawn
    assert page.locator("#p0 .name").inner_text() == "Ann"
    page.get_by_role("button", name="Sound: off").click()  # browsers allow sound after a click
    page.wait_for_selector("#sound-btn:text('Sound: on')")
    assert page.evaluate("window.gwBeeps") == 1  # the test beep on switching it on
    illegal_at = next(i for i, s in enumerate(states) if s["frame"] == 390)
    post_states(srv, states[10 : illegal_at + 1])
    card = page.locator("#alert-list li.alert[data-code='ILLEGAL_MOVE']")
    card.wait_for()
    assert "RG19 4.2.3.1(a)" in card.inner_text()
    assert "legal: " in card.locator(".alert-details").inner_text()  # the referee's legal alternatives
    assert "Ann" in card.inner_text()
    assert page.locator("body.flash").count() == 1  # the flash of a new alert
    assert page.evaluate("window.gwBeeps") == 2  # and its beep
    assert page.locator("#alert-count").inner_text() == "1 open"
    assert page.locator("#pos-id").inner_text() == srv.get("/api/tables/t1/view")["referee"]["position_id"]
    card.get_by_role("button", name="Acknowledge").click()
    page.wait_for_selector("#alert-list li.alert[data-code='ILLEGAL_MOVE'].status-acknowledged")
    assert page.locator("#alert-count").inner_text() == "0 open"
    status = [a["status"] for a in srv.get("/api/tables/t1/alerts") if a["code"] == "ILLEGAL_MOVE"]
    assert status == ["acknowledged"]
    mat = page.locator("#mat")
    page.wait_for_function("document.querySelector('#mat').textContent.includes('64: 24/18 13/8')")
    assert "3 point match" in mat.inner_text()
    # the cocked roll: a second alert, and the die drawn as invalid with its reason
    cocked_at = next(i for i, s in enumerate(states) if s["frame"] == 1368)
    post_states(srv, states[illegal_at + 1 : cocked_at + 1])
    page.locator("#alert-list li.alert[data-code='ROLL_INVALID_COCKED']").wait_for()
    assert page.locator("#board g.die.invalid").count() == 1
    assert page.locator("#board .die-reason").text_content() == "cocked"
    page.wait_for_timeout(2300)  # after the flash
    page.screenshot(path=str(shots_dir(tmp_path) / "monitor.png"), full_page=True)
    page.locator("#show-referee").check()  # the referee's position: the invalid roll is not on it
    assert page.locator("#board g.die.invalid").count() == 0
    assert page.locator("#caption-text").inner_text() == "the referee's position"


def test_monitor_without_a_token_is_read_only(browser, live_server, stream, start_table):
    page = browser.new_page()
    page.goto(f"{live_server.base}/monitor?table=t1")
    page.wait_for_selector("#conn:text('live')")
    assert page.locator("#token-state").inner_text() == "read-only"
    post_states(live_server, stream[1][:3])
    page.wait_for_selector("body[data-state-count='3']")
    page.locator("#undo-btn").click()
    page.wait_for_selector("#action-msg:text('401')")
    # an alert on another table shows in the header (the page polls the tables every 5 s)
    import httpx

    states = stream[1]
    with httpx.Client(base_url=live_server.base, timeout=10) as c:
        start_table(c, stream[0], "t2")
    post_states(live_server, [s for s in states if s["frame"] <= 390], table="t2")
    page.wait_for_selector("#other-alerts:text('1 open on other tables')", timeout=15000)


def test_overlay_renders_on_a_transparent_background(browser, live_server, stream, tmp_path):
    states = stream[1]
    post_states(live_server, states)
    page = browser.new_page()
    page.set_viewport_size({"width": 1000, "height": 720})
    page.goto(f"{live_server.base}/overlay?table=t1&layout=full&width=900")
    page.wait_for_selector(f"body[data-state-count='{len(states)}']")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgba(0, 0, 0, 0)"
    assert page.locator("button, input, select, form").count() == 0  # no controls
    assert page.locator("#o0 .name").inner_text() == "Ann"
    png = page.screenshot(omit_background=True)
    (shots_dir(tmp_path) / "overlay.png").write_bytes(png)
    img = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_UNCHANGED)
    assert img.shape == (720, 1000, 4)
    alpha = img[:, :, 3]
    assert alpha[710, 990] == 0 and alpha[5, 995] == 0  # outside the board and score bar: see-through
    box = page.locator("#board").bounding_box()
    assert box is not None
    inside = alpha[int(box["y"] + box["height"] / 2), int(box["x"] + box["width"] / 2)]
    assert inside == 255  # the board itself is opaque
    assert (alpha == 0).mean() > 0.2


def test_camera_frame_and_detections_from_the_pipeline_api(browser, tmp_path, stream, port):
    """A pipeline in the server's process (``create_app(background=[...])``) shows a frame with boxes."""
    import threading

    import uvicorn

    from server.app import Settings, create_app
    from server.live import FrameInfo, Live
    from server.models import MatchCreate, TableCreate

    setup, states = stream
    img = np.full((360, 640, 3), (40, 90, 50), np.uint8)
    jpeg = cv2.imencode(".jpg", img)[1].tobytes()
    boxes = [{"box": [300, 160, 320, 180], "label": "die 3", "confidence": 0.98, "valid": True},
             {"box": [330, 162, 350, 182], "label": "die 1 cocked", "confidence": 0.91, "valid": False}]

    async def pipeline(live: Live) -> None:
        live.create_table(TableCreate(id="cam", name="Camera table", source="camera:0"))
        live.start_match("cam", MatchCreate(players=setup["players"], length=setup["length"], end_signal="clock"))
        for s in states[:5]:
            live.ingest("cam", s)
        live.set_frame("cam", FrameInfo(states[4]["frame"], jpeg, 640, 360, boxes))

    server = uvicorn.Server(uvicorn.Config(create_app(Settings(db=str(tmp_path / "cam.db"), token="t"), [pipeline]),
                                           host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        page = browser.new_page()
        for _ in range(100):
            if server.started:
                break
            page.wait_for_timeout(100)
        page.goto(f"http://127.0.0.1:{port}/monitor?table=cam")
        page.wait_for_selector("#camera-img:not([hidden])")
        assert page.locator("#no-camera").is_hidden()
        assert page.locator("#camera-det rect.det").count() == 2
        assert page.locator("#camera-det rect.det.invalid").count() == 1
        assert page.locator("#camera-det").is_visible()
        assert page.evaluate("document.querySelector('#camera-img').naturalWidth") == 640
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def test_overlay_layouts_by_query_parameter(browser, live_server, stream):
    post_states(live_server, stream[1][:5])
    page = browser.new_page()
    page.set_viewport_size({"width": 1000, "height": 400})
    page.goto(f"{live_server.base}/overlay?table=t1&layout=scorebar")
    page.wait_for_selector("body[data-state-count='5']")
    assert not page.locator("#board").is_visible() and page.locator("#bar").is_visible()
    page.goto(f"{live_server.base}/overlay?table=t1&layout=board")
    page.wait_for_selector("body[data-state-count='5']")
    assert page.locator("#board").is_visible() and not page.locator("#bar").is_visible()
