// gammonwatch monitor page: live board, alerts with decisions, corrections, transcript.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const ALERT_SEVERITIES = new Set(["VIOL", "IRREG", "WARN"]);
  const params = new URLSearchParams(location.search);
  let tableId = params.get("table");
  let feed = null;
  let view = null;
  let alerts = new Map();
  let token = "";
  let audio = null;
  let transcriptRev = null;

  // ------------------------------------------------------------------ token
  function readToken() {
    const m = location.hash.match(/token=([^&]+)/);
    if (m) {
      sessionStorage.setItem("gw-token", decodeURIComponent(m[1]));
      history.replaceState(null, "", location.pathname + location.search);
    }
    return sessionStorage.getItem("gw-token") || "";
  }
  async function checkToken(t) {
    if (!t) return false;
    const r = await fetch("/api/auth", { headers: { Authorization: "Bearer " + t } });
    return r.status === 204;
  }
  async function signIn(t) {
    const ok = await checkToken(t);
    token = ok ? t : "";
    if (ok) sessionStorage.setItem("gw-token", t); else sessionStorage.removeItem("gw-token");
    $("token-state").textContent = ok ? "monitor" : t ? "wrong token" : "read-only";
    $("token-state").className = "pill " + (ok ? "ok" : t ? "bad" : "");
    document.body.classList.toggle("signed-in", ok);
  }
  $("token-form").addEventListener("submit", (ev) => { ev.preventDefault(); signIn($("token").value.trim()); $("token").value = ""; });

  async function post(path, body) {
    const r = await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: "Bearer " + token },
      body: JSON.stringify(body || {}),
    });
    const data = await r.json().catch(() => ({}));
    if (!r.ok) {
      const d = data.detail;
      const text = typeof d === "string" ? d : Array.isArray(d) ? d.map((e) => `${(e.loc || []).slice(1).join(".")}: ${e.msg}`).join("; ") : JSON.stringify(d);
      throw new Error(`${r.status}: ${text}`);
    }
    return data;
  }
  function say(text, bad) {
    $("action-msg").textContent = text;
    $("action-msg").className = bad ? "bad-text" : "muted";
  }

  // ------------------------------------------------------------------ sound and flash
  $("sound-btn").addEventListener("click", () => {
    if (!audio) {
      audio = new (window.AudioContext || window.webkitAudioContext)();
      $("sound-btn").textContent = "Sound: on";
      beep();
    } else {
      audio.close();
      audio = null;
      $("sound-btn").textContent = "Sound: off";
    }
  });
  function beep() {
    if (!audio) return;
    window.gwBeeps = (window.gwBeeps || 0) + 1;  // counted, so the page tests can check the sound
    const t0 = audio.currentTime;
    for (const [start, freq] of [[0, 880], [0.22, 660]]) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, t0 + start);
      gain.gain.exponentialRampToValueAtTime(0.3, t0 + start + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, t0 + start + 0.18);
      osc.connect(gain).connect(audio.destination);
      osc.start(t0 + start);
      osc.stop(t0 + start + 0.2);
    }
  }
  function flash() {
    document.body.classList.remove("flash");
    void document.body.offsetWidth; // restart the animation
    document.body.classList.add("flash");
  }

  // ------------------------------------------------------------------ tables
  // Other tables: their open alerts show in the selector and in the header (polled every 5 s).
  let otherOpen = 0;
  async function loadTables() {
    const tables = await (await fetch("/api/tables")).json();
    const sel = $("table-select");
    sel.innerHTML = "";
    let others = 0;
    for (const t of tables) {
      const o = document.createElement("option");
      o.value = t.id;
      o.textContent = `${t.name} (${t.id})` + (t.open_alerts ? ` · ${t.open_alerts} open` : "");
      sel.appendChild(o);
      if (t.id !== tableId) others += t.open_alerts;
    }
    if (!tableId && tables.length) tableId = tables[0].id;
    sel.value = tableId || "";
    if (!tables.length) $("conn").textContent = "no tables yet";
    $("other-alerts").hidden = others === 0;
    $("other-alerts").textContent = `${others} open on other tables`;
    if (others > otherOpen) { beep(); flash(); }
    otherOpen = others;
  }
  setInterval(() => loadTables().catch(() => {}), 5000);
  $("show-referee").addEventListener("change", () => view && render(view));
  $("table-select").addEventListener("change", (ev) => {
    tableId = ev.target.value;
    otherOpen = 0;
    history.replaceState(null, "", "?table=" + encodeURIComponent(tableId));
    connect();
  });

  function connect() {
    if (feed) feed.close();
    alerts = new Map();
    $("alert-list").innerHTML = "";
    $("event-list").innerHTML = "";
    transcriptRev = null;
    if (!tableId) return;
    $("dl-events").href = `/api/tables/${tableId}/events.jsonl`;
    feed = GW.liveFeed(tableId, {}, onMessage, (s) => {
      $("conn").textContent = s;
      $("conn").className = "pill " + (s === "live" ? "ok" : "bad");
    });
  }

  function onMessage(msg) {
    switch (msg.type) {
      case "snapshot":
        for (const a of msg.alerts) addAlert(a, false);
        render(msg.view);
        if (msg.frame) showFrame(msg.frame);
        showPipeline(msg.pipeline || null);
        break;
      case "pipeline":
        showPipeline(msg.pipeline);
        break;
      case "view":
        render(msg.view);
        break;
      case "alert":
        addAlert(msg.alert, true);
        break;
      case "alert_status":
        addAlert(msg.alert, false);
        break;
      case "table":
        loadTables();
        break;
      case "frame":
        showFrame(msg.frame);
        break;
    }
  }

  // ------------------------------------------------------------------ view
  function render(v) {
    view = v;
    document.body.dataset.stateCount = v.match ? v.match.states : 0;
    const m = v.match;
    const ref = v.referee || {};
    $("match-title").textContent = m
      ? `${m.players[0]} v ${m.players[1]} · ${m.length ? m.length + "-point match" : "money play"} · ${m.rules}${m.clock && m.clock.mode === "timed" ? " · clock" : ""}`
      : "no match on this table";
    const near = m ? m.near : "light";
    const colours = m ? [m.first_colour, m.first_colour === "light" ? "dark" : "light"] : ["light", "dark"];
    const seen = v.seen;
    const clock = seen && seen.clock;
    for (const i of [0, 1]) {
      const box = $("p" + i);
      box.querySelector(".swatch").className = "swatch " + colours[i];
      box.querySelector(".name").textContent = m ? m.players[i] : "–";
      box.querySelector(".score").textContent = ref.score ? ref.score[i] : m ? m.score[i] : 0;
      box.querySelector(".pips").textContent = "pips " + (ref.pips ? ref.pips[i] : "–");
      const seat = colours[i] === near ? "near" : "far";
      const reserve = clock && clock.reserve_s ? clock.reserve_s[seat] : null;
      const running = !!(clock && clock.running === seat && !clock.paused);
      box.querySelector(".clock").textContent = !clock ? "" : reserve != null ? "clock " + GW.fmtClock(reserve)
        : running ? "clock running" : clock.paused ? "clock paused" : "";
      box.classList.toggle("running", running);
      box.classList.toggle("on-roll", ref.turn === i);
      document.querySelectorAll(i ? ".p1n" : ".p0n").forEach((o) => (o.textContent = m ? m.players[i] : o.textContent));
    }
    $("match-len").textContent = m ? (m.length ? `${m.length} pt` : "money") + (ref.crawford ? " · Crawford" : "") : "–";
    $("phase").textContent = ref.phase_text || ref.phase || (m ? "waiting for the referee" : "no match");
    $("phase").classList.toggle("pending", !!ref.pending_correction);
    const cube = ref.cube;
    $("cube-text").textContent = !cube ? "–" : cube.offered_by != null ? `cube ${cube.value * 2} offered`
      : cube.owner == null ? "cube centred" : `cube ${cube.value} · ${m.players[cube.owner]}`;
    const useReferee = $("show-referee").checked || !seen;
    const board = useReferee ? ref.board || null : GW.boardFromState(seen);
    GW.drawBoard($("board"), board, { near });
    $("caption-text").textContent = useReferee
      ? (ref.board ? "the referee's position" + (seen ? "" : " (no table state yet)") : "")
      : `as seen at frame ${seen.frame} (t = ${seen.t.toFixed(1)} s)`;
    $("pos-id").textContent = ref.position_id || "–";
    $("match-id").textContent = ref.match_id || "–";
    $("xgid").textContent = ref.xgid || "–";
    const open = v.open_alerts || 0;
    $("alert-count").textContent = `${open} open`;
    $("alert-count").className = "pill " + (open ? "bad" : "ok");
    if (m) {
      $("dl-mat").href = `/api/matches/${m.id}/transcript.mat`;
      if (ref.transcript_rev !== transcriptRev) {
        transcriptRev = ref.transcript_rev;
        refreshTranscript(m.id);
      }
    }
  }

  let transcriptTimer = null;
  function refreshTranscript(matchId) {
    clearTimeout(transcriptTimer);
    transcriptTimer = setTimeout(async () => {
      const r = await fetch(`/api/matches/${matchId}/transcript.mat`);
      $("mat").textContent = r.ok ? await r.text() : "(transcript not available: " + r.status + ")";
      $("mat").scrollTop = $("mat").scrollHeight;
    }, 150);
  }

  // ------------------------------------------------------------------ pipeline
  const STAGES = ["capture", "vision", "tracker", "referee", "push"];
  const STATE_CLASS = { running: "ok", ended: "", stopped: "", starting: "", reconnecting: "bad", error: "bad" };

  function showPipeline(p) {
    const panel = $("pipeline");
    if (!p) { panel.hidden = true; return; }
    panel.hidden = false;
    $("pipe-state").textContent = p.state;
    $("pipe-state").className = "pill " + (STATE_CLASS[p.state] || "");
    $("pipe-source").textContent = p.source || "";
    $("pipe-note").hidden = !p.note;
    $("pipe-note").textContent = p.note || "";
    $("pipe-msg").textContent = p.error || p.message || "";
    const rt = p.realtime_factor == null ? "–" : p.realtime_factor.toFixed(2) + "× real time";
    $("pipe-counts").textContent =
      `frames ${p.frames_processed} processed of ${p.frames_read} read · ${p.frames_dropped} dropped · ` +
      `${p.processed_fps} fps · ${p.recognitions} full recognitions · ${p.states_fed ?? p.states} states to the referee` +
      (p.states_rejected ? ` (${p.states_rejected} rejected)` : "") +
      ` · table time ${p.video_t.toFixed(1)} s · ${rt}` + (p.reconnects ? ` · ${p.reconnects} reconnects` : "");
    const body = $("pipe-times").querySelector("tbody");
    body.innerHTML = "";
    const t = p.timings_ms || {};
    for (const s of STAGES.concat(Object.keys(t).filter((k) => !STAGES.includes(k)))) {
      const v = t[s];
      const tr = document.createElement("tr");
      const cells = v ? [s, v.last_ms, v.p50_ms, v.p95_ms, v.mean_ms, v.n] : [s, "–", "–", "–", "–", 0];
      cells.forEach((c, i) => {
        const td = document.createElement("td");
        td.textContent = typeof c === "number" && i > 0 && i < 5 ? c.toFixed(1) + " ms" : String(c);
        tr.appendChild(td);
      });
      body.appendChild(tr);
    }
  }

  // ------------------------------------------------------------------ camera
  function showFrame(f) {
    const img = $("camera-img");
    img.hidden = false;
    $("no-camera").hidden = true;
    img.src = `/api/tables/${tableId}/frame.jpg?f=${f.frame_id}`;
    const det = $("camera-det");
    det.removeAttribute("hidden");  // an SVG element has no .hidden property
    det.setAttribute("viewBox", `0 0 ${f.width} ${f.height}`);
    det.innerHTML = "";
    for (const d of f.detections || []) {
      const [x1, y1, x2, y2] = d.box;
      const r = document.createElementNS("http://www.w3.org/2000/svg", "rect");
      Object.entries({ x: x1, y: y1, width: x2 - x1, height: y2 - y1, class: "det " + (d.valid === false ? "invalid" : "") }).forEach(([k, val]) => r.setAttribute(k, val));
      det.appendChild(r);
      const t = document.createElementNS("http://www.w3.org/2000/svg", "text");
      const below = d.valid === false;  // invalid dice labelled under their box, so neighbours' labels do not collide
      t.setAttribute("x", x1); t.setAttribute("y", below ? y2 + 22 : y1 - 6);
      t.setAttribute("class", "det-label" + (d.valid === false ? " invalid" : ""));
      t.textContent = d.label + (d.confidence != null ? " " + d.confidence.toFixed(2) : "");
      det.appendChild(t);
    }
  }

  // ------------------------------------------------------------------ alerts
  const DECISIONS = [["acknowledge", "Acknowledge"], ["let_stand", "Let stand"], ["require_correction", "Require correction"]];

  function addAlert(a, fresh) {
    const isAlert = ALERT_SEVERITIES.has(a.severity);
    let li = document.getElementById("alert-" + a.id);
    if (!li) {
      li = document.createElement("li");
      li.id = "alert-" + a.id;
      const list = isAlert ? $("alert-list") : $("event-list");
      list.insertBefore(li, list.firstChild);
    }
    alerts.set(a.id, a);
    li.className = `alert sev-${a.severity} status-${a.status}` + (fresh && isAlert ? " fresh" : "");
    li.dataset.code = a.code;
    li.innerHTML = "";
    const head = document.createElement("div");
    head.className = "alert-head";
    head.innerHTML = `<span class="sev">${a.severity}</span> <b class="code"></b> <span class="who"></span> <span class="status"></span>`;
    head.querySelector(".code").textContent = a.code;
    head.querySelector(".who").textContent = a.player_name ? `· ${a.player_name} (${a.player})` : a.player ? `· ${a.player}` : "";
    head.querySelector(".status").textContent = a.status === "open" ? "" : a.status.replace(/_/g, " ");
    li.appendChild(head);
    const msg = document.createElement("div");
    msg.className = "alert-msg";
    msg.textContent = a.message;
    li.appendChild(msg);
    const meta = document.createElement("div");
    meta.className = "alert-meta";
    for (const r of a.rules || []) {
      const c = document.createElement("span");
      c.className = "cite";
      c.textContent = r;
      meta.appendChild(c);
    }
    if (a.deadline) {
      const d = document.createElement("span");
      d.className = "deadline";
      d.textContent = "correct " + a.deadline;
      meta.appendChild(d);
    }
    if (a.frame != null) {
      const f = document.createElement("span");
      f.className = "muted";
      f.textContent = `frame ${a.frame}` + (a.game ? ` · game ${a.game}` : "");
      meta.appendChild(f);
    }
    li.appendChild(meta);
    const det = a.details || {};
    if (isAlert && (det.legal_alternatives || det.restore || det.seen)) {
      const d = document.createElement("div");
      d.className = "alert-details";
      const parts = [];
      if (det.seen) parts.push(`played ${det.seen}`);
      if (det.legal_alternatives && det.legal_alternatives.length)
        parts.push(`legal: ${det.legal_alternatives.slice(0, 4).join(", ")}${det.legal_count > 4 ? ` (+${det.legal_count - 4} more)` : ""}`);
      if (det.restore && det.restore.position_id) parts.push(`restore position ${det.restore.position_id} with ${det.restore.dice.join("-")}`);
      d.textContent = parts.join(" · ");
      li.appendChild(d);
    }
    if (isAlert && a.status === "open") {
      const row = document.createElement("div");
      row.className = "alert-actions";
      for (const [decision, label] of DECISIONS) {
        const b = document.createElement("button");
        b.type = "button";
        b.textContent = label;
        b.className = "decide " + decision;
        b.dataset.decision = decision;
        b.addEventListener("click", () => decide(a.id, decision));
        row.appendChild(b);
      }
      li.appendChild(row);
    }
    if (fresh && isAlert) {
      beep();
      flash();
    }
  }

  async function decide(alertId, decision) {
    try {
      await post(`/api/tables/${tableId}/alerts/${alertId}/decision`, { decision });
      const a = alerts.get(alertId);
      say(`${a ? a.code : alertId}: ${decision.replace(/_/g, " ")}`);
    } catch (e) {
      say(e.message, true);
    }
  }

  // ------------------------------------------------------------------ corrections
  $("f-position").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const text = ev.target.id.value.trim();
    let body;
    if (/^XGID=|:.*:.*:/.test(text)) body = { xgid: text };
    else {
      const [pos, mid] = text.split(":");
      body = mid ? { position_id: pos, match_id: mid } : { position_id: pos };
    }
    try { await post(`/api/tables/${tableId}/corrections/position`, body); say("position set"); } catch (e) { say(e.message, true); }
  });
  $("undo-btn").addEventListener("click", async () => {
    try { await post(`/api/tables/${tableId}/corrections/undo`, {}); say("last turn undone"); } catch (e) { say(e.message, true); }
  });
  $("f-cube").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const body = { value: Number(ev.target.value.value), owner: ev.target.owner.value };
    try { await post(`/api/tables/${tableId}/corrections/cube`, body); say("cube corrected"); } catch (e) { say(e.message, true); }
  });
  $("f-score").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const f = ev.target;
    const body = { score: [Number(f.a.value), Number(f.b.value)] };
    if (f.crawford.value) body.crawford = f.crawford.value === "true";  // else the referee derives it (RG19 4.4.7)
    try { await post(`/api/tables/${tableId}/corrections/score`, body); say("score corrected"); } catch (e) { say(e.message, true); }
  });
  $("f-resign").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const m = view && view.match;
    if (!m) return say("no match", true);
    const first = m.first_colour, second = first === "light" ? "dark" : "light";
    const player = ev.target.player.value === "first" ? first : second;
    const act = ev.target.act.value;
    const body = { act, player, kind: ev.target.kind.value, ...(act === "claim" ? { accepted: true } : {}) };
    try { await post(`/api/tables/${tableId}/announce`, body); say(`${act} recorded`); }
    catch (e) { say(e.message, true); }
  });
  document.querySelectorAll("button.copy").forEach((b) =>
    b.addEventListener("click", async () => {
      const text = $(b.dataset.copy).textContent;
      try { await navigator.clipboard.writeText(text); b.textContent = "Copied"; } catch { b.textContent = "Select"; }
      setTimeout(() => (b.textContent = "Copy"), 1200);
    })
  );

  // ------------------------------------------------------------------ start
  (async () => {
    await signIn(readToken());
    await loadTables();
    connect();
  })();
})();
