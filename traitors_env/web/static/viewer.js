// traitors-view: steps through a game record. Served, each step is asked of the server for the chosen viewpoint
// (/api/step), so the page holds only what that viewpoint may know; exported, every viewpoint's steps are in the
// page's JSON block. Text from the record is only ever set as text (textContent), never parsed as HTML.
(function () {
  "use strict";
  const SVG = "http://www.w3.org/2000/svg";
  const block = document.getElementById("viewer-data");
  const DATA = block ? JSON.parse(block.textContent) : null;
  const $ = (id) => document.getElementById(id);
  const app = { meta: null, view: "spectator", step: 0, cache: new Map(), shown: 0 };

  async function fetchJSON(url) {
    const response = await fetch(url, { cache: "no-store" });
    const body = await response.json();
    if (!response.ok) throw new Error(body.error || response.statusText);
    return body;
  }

  function loadMeta() {
    return DATA ? Promise.resolve(DATA.meta) : fetchJSON("/api/meta");
  }

  // One step with the log and belief history up to it, from the export's steps or from the server.
  function loadStep(view, step) {
    if (DATA) {
      const steps = DATA.views[view];
      const payload = Object.assign({}, steps[step]);
      payload.log = steps.slice(1, step + 1).filter((s) => s.event !== null).map((s) => [s.step, s.event]);
      payload.belief_history = payload.beliefs ? steps.slice(0, step + 1).map((s) => s.beliefs) : null;
      return Promise.resolve(payload);
    }
    const key = view + "/" + step;
    if (!app.cache.has(key)) {
      const query = new URLSearchParams({ view: view, step: String(step) });
      const request = fetchJSON("/api/step?" + query.toString());
      request.catch(() => app.cache.delete(key));
      app.cache.set(key, request);
    }
    return app.cache.get(key);
  }

  function el(name, attrs, text) {
    const node = document.createElementNS(SVG, name);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, String(value));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function viewLabel(view) {
    if (view === "spectator") return "spectator (public table)";
    if (view === "all") return "everything";
    return "player_" + view.slice(4) + "'s seat";
  }

  // The seats in a circle, player_0 at the top, play passing clockwise; each seat's role as the viewpoint knows it.
  function drawTable(payload) {
    const n = payload.seats.length, size = 420, centre = size / 2, radius = 150;
    const svg = el("svg", { viewBox: `0 0 ${size} ${size}`, role: "img" });  // scales to its column (CSS)
    svg.appendChild(el("title", {}, "The table at " + payload.title));
    svg.appendChild(el("circle", { cx: centre, cy: centre, r: radius - 72, fill: "#f1ece0", stroke: "#c9bfa5" }));
    svg.appendChild(el("text", { x: centre, y: centre + 4, "text-anchor": "middle", class: "player" },
      payload.finished ? "game over" : payload.title));
    payload.seats.forEach((seat, index) => {
      const angle = -Math.PI / 2 + (2 * Math.PI * index) / n;
      const x = centre + radius * Math.cos(angle), y = centre + radius * Math.sin(angle);
      const classes = ["seat", seat.role !== null ? "known" : "unknown"];
      if (seat.you) classes.push("you");
      if (seat.acted) classes.push("acted");
      const g = el("g", { class: classes.join(" "), "data-seat": index });
      g.appendChild(el("circle", { cx: x, cy: y, r: 46 }));
      g.appendChild(el("text", { x: x, y: y - 10, "text-anchor": "middle", class: "name" }, seat.name));
      g.appendChild(el("text", { x: x, y: y + 6, "text-anchor": "middle", class: "role" },
        seat.role !== null ? seat.role : "?"));
      const player = seat.player && seat.player.length > 14 ? seat.player.slice(0, 13) + "…" : seat.player;
      const note = [seat.you ? "you" : "", player || ""].filter(Boolean).join(" · ");
      if (note) g.appendChild(el("text", { x: x, y: y + 22, "text-anchor": "middle", class: "player" }, note));
      svg.appendChild(g);
    });
    $("table").replaceChildren(svg);
  }

  // Seats × steps so far, each cell the agent's P(hidden side) from white (0) to red (1); grey: no belief.
  function drawBeliefs(payload) {
    const section = $("beliefs-section");
    if (!payload.belief_history || !app.meta.beliefs) { section.hidden = true; return; }
    section.hidden = false;
    $("beliefs-title").textContent =
      `Beliefs of ${app.meta.beliefs.label}: P(${app.meta.beliefs.hidden}) per seat, steps 0–${payload.step}`;
    const history = payload.belief_history, n = app.meta.num_players, left = 70, row = 16;
    const cell = Math.max(1, Math.min(12, 280 / history.length));
    const width = left + cell * history.length + 40, height = row * n + 4;
    const svg = el("svg", { width: width, height: height, class: "heat", role: "img" });
    for (let s = 0; s < n; s++) {
      svg.appendChild(el("text", { x: 0, y: row * s + 12, class: "label" }, "player_" + s));
      history.forEach((beliefs, step) => {
        const p = beliefs ? beliefs[s] : null;
        const fill = p === null ? "#e5e7eb" : `rgb(255,${Math.round(255 - 200 * p)},${Math.round(255 - 200 * p)})`;
        const rect = el("rect", { x: left + cell * step, y: row * s, width: cell, height: row - 2, fill: fill });
        rect.appendChild(el("title", {}, `player_${s}, step ${step}: ` + (p === null ? "–" : Math.round(100 * p) + " %")));
        svg.appendChild(rect);
      });
      const last = history[history.length - 1], p = last ? last[s] : null;
      svg.appendChild(el("text", { x: left + cell * history.length + 4, y: row * s + 12, class: "label" },
        p === null ? "" : Math.round(100 * p) + "%"));
    }
    $("beliefs").replaceChildren(svg);
  }

  function drawLog(payload) {
    const items = payload.log.map(([step, text]) => {
      const li = document.createElement("li");
      li.value = step;
      li.textContent = text;
      if (step === payload.step) li.className = "current";
      return li;
    });
    if (!items.length) {
      const li = document.createElement("li");
      li.textContent = payload.step ? "(this viewpoint lists no decisions: the table shows them)" : "(the deal)";
      items.push(li);
    }
    $("log").replaceChildren(...items);
    const current = $("log").querySelector(".current");
    if (current) current.scrollIntoView({ block: "nearest" });
  }

  function draw(payload) {
    $("position").textContent = `step ${payload.step} of ${payload.last} · ${viewLabel(payload.view)}`;
    $("step-title").textContent = payload.title + (payload.event ? " — " + payload.event : "");
    $("content").textContent = payload.content;
    $("result").hidden = !payload.finished;
    $("result").textContent = payload.finished ? "The game is over: every role is revealed." : "";
    $("slider").value = String(payload.step);
    $("link").href = `#step=${payload.step}&view=${payload.view}`;
    drawTable(payload);
    drawLog(payload);
    drawBeliefs(payload);
    // What a test (or a user's script) waits for: the step and viewpoint now drawn.
    document.body.dataset.step = String(payload.step);
    document.body.dataset.view = payload.view;
  }

  async function show(step, view) {
    const wanted = ++app.shown;
    app.step = Math.max(0, Math.min(app.meta.steps, step));
    app.view = view;
    history.replaceState(null, "", `#step=${app.step}&view=${app.view}`);
    try {
      const payload = await loadStep(app.view, app.step);
      if (wanted === app.shown) { draw(payload); $("error").hidden = true; }
    } catch (error) {
      $("error").textContent = "Could not load the step: " + error.message;
      $("error").hidden = false;
    }
  }

  function fromHash() {
    const params = new URLSearchParams(location.hash.replace(/^#/, ""));
    const step = Number.parseInt(params.get("step") || "0", 10);
    const view = params.get("view");
    return {
      step: Number.isFinite(step) ? step : 0,
      view: app.meta.views.includes(view) ? view : "spectator",
    };
  }

  async function start() {
    try {
      app.meta = await loadMeta();
    } catch (error) {
      $("error").textContent = "Could not load the record: " + error.message;
      $("error").hidden = false;
      return;
    }
    const select = $("view");
    for (const view of app.meta.views) {
      const option = document.createElement("option");
      option.value = view;
      option.textContent = viewLabel(view);
      select.appendChild(option);
    }
    $("slider").max = String(app.meta.steps);
    const at = fromHash();
    select.value = at.view;
    select.addEventListener("change", () => { show(app.step, select.value); select.blur(); });
    $("slider").addEventListener("input", (event) => show(Number(event.target.value), app.view));
    $("first").addEventListener("click", () => show(0, app.view));
    $("prev").addEventListener("click", () => show(app.step - 1, app.view));
    $("next").addEventListener("click", () => show(app.step + 1, app.view));
    $("last").addEventListener("click", () => show(app.meta.steps, app.view));
    document.addEventListener("keydown", (event) => {
      if (event.target.tagName === "SELECT" || event.altKey || event.ctrlKey || event.metaKey) return;
      const moves = { ArrowLeft: app.step - 1, ArrowRight: app.step + 1, Home: 0, End: app.meta.steps };
      if (!(event.key in moves)) return;
      event.preventDefault();
      show(moves[event.key], app.view);
    });
    window.addEventListener("hashchange", () => {
      const target = fromHash();
      if (target.step !== app.step || target.view !== app.view) { select.value = target.view; show(target.step, target.view); }
    });
    await show(at.step, at.view);
  }

  start();
})();
