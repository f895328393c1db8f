// gammonwatch board diagram (SVG), shared by the monitor and the overlay pages.
//
// drawBoard(svg, board, opts) draws a board in *physical* terms, as seen from the near seat:
// points 1..12 along the bottom (near edge) from right to left, 13..24 along the top from left to
// right, the bar in the middle, the bear-off tray on the right, the cube column on the left.
// board = {light: [24 counts], dark: [24 counts], bar: {light, dark}, off: {light, dark},
//          dice: [{value, state, valid, reason, half, owner}], cube: {value, zone} | null}
// opts  = {near: "light"|"dark", labels: bool}
"use strict";

const GW = (() => {
  const NS = "http://www.w3.org/2000/svg";
  const P = 50;             // point width
  const CUBE_W = 64;        // cube column on the left
  const M = 16;             // side frames
  const FT = 26;            // top and bottom frames (point numbers are printed on them)
  const BAR = 44;
  const TRAY = 60;
  const TRI = 200;          // point length
  const GAP = 56;           // between the two rows
  const X0 = CUBE_W + M;    // left edge of the playing surface
  const Y0 = FT;
  const W = X0 + 12 * P + BAR + M + TRAY + M;
  const H = Y0 + 2 * TRI + GAP + FT;
  const R = 22;             // checker radius
  const COL = { light: "#f3ead7", dark: "#7a2020" };
  const EDGE = { light: "#8a7a5a", dark: "#2a0808" };
  const INK = { light: "#3a2e1a", dark: "#fbe9e9" };

  function el(name, attrs, parent, text) {
    const e = document.createElementNS(NS, name);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }

  // x of the left edge of physical point p (1..24), and whether it is on the top row
  function pointX(p) {
    const idx = p <= 12 ? 12 - p : p - 13;
    return X0 + idx * P + (idx >= 6 ? BAR : 0);
  }
  const isTop = (p) => p >= 13;

  function checkerStack(g, cx, yBase, dir, n, colour, maxShown) {
    const shown = Math.min(n, maxShown);
    const step = shown > 1 ? Math.min(2 * R, (TRI - 2 * R) / (shown - 1)) : 0;
    for (let i = 0; i < shown; i++) {
      const cy = yBase + dir * (R + i * step);
      el("circle", { cx, cy, r: R - 1, fill: COL[colour], stroke: EDGE[colour], "stroke-width": 2, class: "checker " + colour }, g);
      el("circle", { cx, cy, r: R - 8, fill: "none", stroke: EDGE[colour], "stroke-opacity": 0.35 }, g);
    }
    if (n > maxShown) {
      const cy = yBase + dir * (R + (shown - 1) * step);
      el("text", { x: cx, y: cy + 6, "text-anchor": "middle", class: "count", fill: INK[colour] }, g, String(n));
    }
  }

  function drawDie(g, x, y, size, die) {
    const colour = die.owner || "light";
    const valid = die.valid;
    const cls = ["die", die.state, valid === false ? "invalid" : valid === true ? "valid" : "unjudged"].join(" ");
    const d = el("g", { class: cls, transform: `translate(${x},${y})` }, g);
    el("rect", { x: 0, y: 0, width: size, height: size, rx: 7, fill: COL[colour], stroke: valid === false ? "#e01b24" : EDGE[colour],
                 "stroke-width": valid === false ? 4 : 2, "stroke-dasharray": die.state === "rolling" ? "5 4" : "none" }, d);
    const v = die.value;
    const pip = { 1: [[2, 2]], 2: [[1, 1], [3, 3]], 3: [[1, 1], [2, 2], [3, 3]], 4: [[1, 1], [1, 3], [3, 1], [3, 3]],
                  5: [[1, 1], [1, 3], [2, 2], [3, 1], [3, 3]], 6: [[1, 1], [1, 2], [1, 3], [3, 1], [3, 2], [3, 3]] }[v] || [];
    for (const [i, j] of pip) el("circle", { cx: (size * i) / 4, cy: (size * j) / 4, r: size / 11, fill: INK[colour] }, d);
    if (v == null) el("text", { x: size / 2, y: size / 2 + 7, "text-anchor": "middle", class: "count", fill: INK[colour] }, d, "?");
    if (valid === false) {
      el("line", { x1: -4, y1: -4, x2: size + 4, y2: size + 4, stroke: "#e01b24", "stroke-width": 4 }, d);
      el("text", { x: size / 2, y: size + 20, "text-anchor": "middle", class: "die-reason" }, d, (die.reason || "invalid").replace(/_/g, " "));
    } else if (valid === true && die.state === "at_rest") {
      // a small green tick in the corner: judged valid
      const tick = el("g", { class: "die-ok" }, d);
      el("circle", { cx: size, cy: 0, r: 9, fill: "#26a269", stroke: "#fff", "stroke-width": 1.5 }, tick);
      el("path", { d: `M ${size - 4.5} 0 l 3 3.5 l 6 -7`, fill: "none", stroke: "#fff", "stroke-width": 2.2 }, tick);
    }
    return d;
  }

  function drawCube(g, cube, near) {
    if (!cube || cube.zone === "absent") return;
    const s = 46;
    const x = M / 2 + (CUBE_W - s) / 2;
    let y = Y0 + TRI + GAP / 2 - s / 2;        // centre
    let cx = x;
    if (cube.zone === "far") y = Y0 + 8;
    if (cube.zone === "near") y = H - FT - s - 8;
    if (cube.zone === "centre") y = H / 2 - s / 2;
    if (cube.zone === "board") { cx = X0 + 9 * P + BAR - s / 2; y = Y0 + TRI + GAP / 2 - s / 2; }
    const c = el("g", { class: "cube zone-" + cube.zone, transform: `translate(${cx},${y})` }, g);
    el("rect", { width: s, height: s, rx: 6, fill: "#fdfdf8", stroke: "#222", "stroke-width": 2 }, c);
    el("text", { x: s / 2, y: s / 2 + 9, "text-anchor": "middle", class: "cube-face" }, c, String(cube.value === 1 ? 64 : cube.value));
  }

  function drawBoard(svg, board, opts) {
    opts = opts || {};
    const near = opts.near || "light";
    const far = near === "light" ? "dark" : "light";
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    const g = el("g", {}, svg);
    // frame, surface, bar, tray
    el("rect", { x: CUBE_W, y: 0, width: W - CUBE_W, height: H, rx: 10, fill: "#4b2e1a" }, g);
    el("rect", { x: X0, y: Y0, width: 6 * P, height: H - 2 * FT, fill: "#2f6b3f" }, g);
    el("rect", { x: X0 + 6 * P + BAR, y: Y0, width: 6 * P, height: H - 2 * FT, fill: "#2f6b3f" }, g);
    el("rect", { x: X0 + 6 * P, y: Y0, width: BAR, height: H - 2 * FT, fill: "#3c2414" }, g);
    const trayX = X0 + 12 * P + BAR + M;
    el("rect", { x: trayX, y: Y0, width: TRAY, height: H - 2 * FT, fill: "#3c2414", stroke: "#6b4a30" }, g);
    for (let p = 1; p <= 24; p++) {
      const x = pointX(p);
      const top = isTop(p);
      const yb = top ? Y0 : H - FT;
      const yt = top ? Y0 + TRI : H - FT - TRI;
      el("polygon", { points: `${x},${yb} ${x + P},${yb} ${x + P / 2},${yt}`, fill: p % 2 ? "#d9c48f" : "#9c3b2b", class: "point" }, g);
      if (opts.labels !== false) {
        el("text", { x: x + P / 2, y: top ? Y0 - 8 : H - 8, "text-anchor": "middle", class: "pt-label" }, g, String(p));
      }
    }
    if (!board) {
      el("text", { x: X0 + 6 * P + BAR / 2, y: H / 2 + 8, "text-anchor": "middle", class: "waiting" }, g, "waiting for the first table state");
      drawCube(g, null, near);
      return;
    }
    // checkers on points
    for (let p = 1; p <= 24; p++) {
      const x = pointX(p) + P / 2;
      const top = isTop(p);
      const yBase = top ? Y0 : H - FT;
      const dir = top ? 1 : -1;
      for (const colour of ["light", "dark"]) {
        const n = (board[colour] || [])[p - 1] || 0;
        if (n > 0) checkerStack(g, x, yBase, dir, n, colour, 5);
      }
    }
    // bar: the far player's checkers in the lower half (they enter on the near side), near's in the upper half
    const barX = X0 + 6 * P + BAR / 2;
    const bar = board.bar || {};
    if (bar[near]) checkerStack(g, barX, Y0 + TRI + GAP / 2 - 4, -1, bar[near], near, 3);
    if (bar[far]) checkerStack(g, barX, Y0 + TRI + GAP / 2 + 4, 1, bar[far], far, 3);
    // borne off: far player's tray at the top, near player's at the bottom
    const off = board.off || {};
    for (const [colour, topHalf] of [[far, true], [near, false]]) {
      const n = off[colour] || 0;
      for (let i = 0; i < n; i++) {
        const y = topHalf ? Y0 + 6 + i * 12 : H - FT - 16 - i * 12;
        el("rect", { x: trayX + 8, y, width: TRAY - 16, height: 10, rx: 3, fill: COL[colour], stroke: EDGE[colour] }, g);
      }
      if (n) el("text", { x: trayX + TRAY / 2, y: topHalf ? Y0 + 6 + n * 12 + 16 : H - FT - 16 - n * 12 - 4, "text-anchor": "middle", class: "tray-count" }, g, String(n));
    }
    // dice, on the half they lie on (left or right as seen from the near seat)
    const dice = (board.dice || []).filter((d) => d.state !== "lifted" && d.state !== "in_cup");
    const size = 40;
    const byHalf = { left: [], right: [] };
    for (const d of dice) (byHalf[d.half] || byHalf.right).push(d);
    for (const [half, list] of Object.entries(byHalf)) {
      const cx = half === "left" ? X0 + 3 * P : X0 + 9 * P + BAR;
      list.forEach((d, i) => drawDie(g, cx - (list.length * (size + 12)) / 2 + i * (size + 12) + 6, Y0 + TRI + GAP / 2 - size / 2 - 6, size, d));
    }
    drawCube(g, board.cube, near);
  }

  // A board dict from a table state ("seen"): the JSON of schemas/table_state.schema.json
  function boardFromState(state) {
    if (!state) return null;
    return {
      light: state.points.map((p) => p.light),
      dark: state.points.map((p) => p.dark),
      bar: state.bar || { light: 0, dark: 0 },
      off: state.off || { light: 0, dark: 0 },
      dice: state.dice || [],
      cube: state.cube || null,
    };
  }

  function fmtClock(s) {
    if (s == null) return "–";
    s = Math.max(0, Math.round(s));
    return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  }

  // A WebSocket that reconnects (after a "lagged" close too) and checks that seq has no gaps.
  function liveFeed(tableId, params, onMessage, onStatus) {
    let ws = null;
    let lastSeq = null;
    let stopped = false;
    let backoff = 250;
    function connect() {
      const proto = location.protocol === "https:" ? "wss" : "ws";
      const q = new URLSearchParams(params || {}).toString();
      ws = new WebSocket(`${proto}://${location.host}/ws/tables/${encodeURIComponent(tableId)}${q ? "?" + q : ""}`);
      ws.onopen = () => { backoff = 250; onStatus && onStatus("live"); };
      ws.onmessage = (ev) => {
        const msg = JSON.parse(ev.data);
        if (msg.type !== "snapshot" && lastSeq !== null && msg.seq !== lastSeq + 1) {
          onStatus && onStatus("gap");           // cannot happen by design; resync to be safe
          ws.close();
          return;
        }
        lastSeq = msg.seq;
        onMessage(msg);
      };
      ws.onclose = (ev) => {
        lastSeq = null;
        if (stopped) return;
        onStatus && onStatus(ev.code === 4008 ? "lagged, resyncing" : ev.code === 4404 ? "no such table" : "reconnecting");
        if (ev.code === 4404) return;
        setTimeout(connect, backoff);
        backoff = Math.min(backoff * 2, 5000);
      };
    }
    connect();
    return { close() { stopped = true; ws && ws.close(); } };
  }

  return { drawBoard, boardFromState, fmtClock, liveFeed, W, H };
})();
