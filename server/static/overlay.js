// gammonwatch broadcast overlay (OBS browser source). Read-only: it only listens to the WebSocket.
// Query parameters: table (required), layout = full | board | scorebar | side (default full),
// delay = seconds held back for the broadcast (default 0, at most 600; the server holds the feed),
// width = pixel width of the board (default 900), pips = 0 to hide pip counts, labels = 1 to show point numbers.
"use strict";

(() => {
  const q = new URLSearchParams(location.search);
  const tableId = q.get("table");
  const layout = ["full", "board", "scorebar", "side"].includes(q.get("layout")) ? q.get("layout") : "full";
  const delay = Math.min(Math.max(Number(q.get("delay") || 0) || 0, 0), 600);
  const root = document.getElementById("overlay");
  root.className = "layout-" + layout;
  root.style.setProperty("--w", (Number(q.get("width")) || 900) + "px");
  if (q.get("pips") === "0") root.classList.add("no-pips");
  const $ = (sel) => root.querySelector(sel);

  function render(v) {
    const m = v.match;
    const ref = v.referee || {};
    document.body.dataset.stateCount = m ? m.states : 0;
    const near = m ? m.near : "light";
    const colours = m ? [m.first_colour, m.first_colour === "light" ? "dark" : "light"] : ["light", "dark"];
    const board = ref.board || GW.boardFromState(v.seen);
    if (layout !== "scorebar") GW.drawBoard($("#board"), board, { near, labels: q.get("labels") === "1" });
    for (const i of [0, 1]) {
      const s = $("#o" + i);
      s.querySelector(".swatch").className = "swatch " + colours[i];
      s.querySelector(".name").textContent = m ? m.players[i] : "";
      s.querySelector(".score").textContent = ref.score ? ref.score[i] : m ? m.score[i] : "";
      s.querySelector(".pips").textContent = ref.pips ? ref.pips[i] : "";
      s.classList.toggle("on-roll", ref.turn === i);
    }
    $("#len").textContent = m ? (m.length ? `${m.length} pt` : "money") + (ref.crawford ? " · CRAWFORD" : "") : "";
    const cube = ref.cube;
    $("#cube").textContent = !cube || !m ? "" : cube.offered_by != null ? `cube ${cube.value * 2} offered`
      : cube.owner == null ? "cube centred" : `cube ${cube.value} · ${m.players[cube.owner]}`;
  }

  if (!tableId) {
    document.body.textContent = "";
    return;
  }
  const params = { kinds: "view,table" };
  if (delay > 0) params.delay = String(delay);
  GW.liveFeed(tableId, params, (msg) => { if (msg.view) render(msg.view); }, () => {});
})();
