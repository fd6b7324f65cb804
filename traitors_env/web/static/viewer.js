// traitors-view: steps through a game record. Served, each step is asked of the server for the chosen viewpoint
// (/api/step), so the page holds only what that viewpoint may know; exported, every viewpoint's steps are in the
// page's JSON block. The table and the belief strip are drawn by table.js. Text from the record is only ever set as
// text (textContent), never parsed as HTML.
(function () {
  "use strict";
  const block = document.getElementById("viewer-data");
  const DATA = block ? JSON.parse(block.textContent) : null;
  const $ = (id) => document.getElementById(id);
  const app = { meta: null, view: "spectator", step: 0, cache: new Map(), shown: 0, record: 0, records: null };

  async function fetchJSON(url) {
    const response = await fetch(url, { cache: "no-store" });
    const body = await response.json();
    if (!response.ok) throw new Error(body.error || response.statusText);
    return body;
  }

  function loadMeta(record) {
    return DATA ? Promise.resolve(DATA.meta) : fetchJSON("/api/meta?record=" + record);
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
    const key = app.record + "/" + view + "/" + step;
    if (!app.cache.has(key)) {
      const query = new URLSearchParams({ record: String(app.record), view: view, step: String(step) });
      const request = fetchJSON("/api/step?" + query.toString());
      request.catch(() => app.cache.delete(key));
      app.cache.set(key, request);
    }
    return app.cache.get(key);
  }

  function viewLabel(view) {
    if (view === "spectator") return "spectator (public table)";
    if (view === "all") return "everything";
    return "player_" + view.slice(4) + "'s seat";
  }

  function drawTable(payload) {
    TraitorsTable.drawTable($("table"), payload.seats, payload.finished ? "game over" : payload.title,
      "The table at " + payload.title);
  }

  function drawBeliefs(payload) {
    const section = $("beliefs-section");
    if (!payload.belief_history || !app.meta.beliefs) { section.hidden = true; return; }
    section.hidden = false;
    $("beliefs-title").textContent =
      `Beliefs of ${app.meta.beliefs.label}: P(${app.meta.beliefs.hidden}) per seat, steps 0–${payload.step}`;
    TraitorsTable.drawBeliefs($("beliefs"), payload.belief_history, app.meta.num_players, "step");
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
    if (current) current.scrollIntoView({ block: "nearest", inline: "nearest" });
  }

  function draw(payload) {
    $("position").textContent = `step ${payload.step} of ${payload.last} · ${viewLabel(payload.view)}`;
    $("step-title").textContent = payload.title + (payload.event ? " — " + payload.event : "");
    $("content").textContent = payload.content;
    $("result").hidden = !payload.finished;
    $("result").textContent = payload.finished ? "The game is over: every role is revealed." : "";
    $("slider").value = String(payload.step);
    $("link").href = "#" + place(payload.step, payload.view);
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
    history.replaceState(null, "", "#" + place(app.step, app.view));
    try {
      const payload = await loadStep(app.view, app.step);
      if (wanted === app.shown) { draw(payload); $("error").hidden = true; }
    } catch (error) {
      $("error").textContent = "Could not load the step: " + error.message;
      $("error").hidden = false;
    }
  }

  // The address of a move: the record (where the viewer serves several), the step and the viewpoint.
  function place(step, view) {
    return (app.records && app.records.length > 1 ? `record=${app.record}&` : "") + `step=${step}&view=${view}`;
  }

  function fromHash() {
    const params = new URLSearchParams(location.hash.replace(/^#/, ""));
    const step = Number.parseInt(params.get("step") || "0", 10);
    const record = Number.parseInt(params.get("record") || "0", 10);
    return {
      record: app.records && record >= 0 && record < app.records.length ? record : 0,
      step: Number.isFinite(step) ? step : 0,
      view: params.get("view") || "spectator",
    };
  }

  // Load a record's meta, set the viewpoint menu and the slider for it, and show a step of it.
  async function openRecord(record, step, view) {
    try {
      app.meta = await loadMeta(record);
    } catch (error) {
      $("error").textContent = "Could not load the record: " + error.message;
      $("error").hidden = false;
      return;
    }
    app.record = record;
    const select = $("view");
    select.replaceChildren(...app.meta.views.map((name) => {
      const option = document.createElement("option");
      option.value = name;
      option.textContent = viewLabel(name);
      return option;
    }));
    if (!app.meta.views.includes(view)) view = "spectator";
    select.value = view;
    $("slider").max = String(app.meta.steps);
    if (app.records && app.records.length > 1) {
      $("record").value = String(record);
      document.title = `${app.records[record].name}: ${app.meta.game}, ${app.meta.num_players} players`;
    }
    await show(step, view);
  }

  async function start() {
    if (!DATA) {
      try {
        app.records = await fetchJSON("/api/records");
      } catch (error) {
        $("error").textContent = "Could not load the records: " + error.message;
        $("error").hidden = false;
        return;
      }
      if (app.records.length > 1) {
        $("record").replaceChildren(...app.records.map((entry) => {
          const option = document.createElement("option");
          option.value = String(entry.index);
          option.textContent = `${entry.name} (${entry.num_players} players${entry.finished ? "" : ", unfinished"})`;
          return option;
        }));
        $("record-label").hidden = false;
        $("record").addEventListener("change", () => { openRecord(Number($("record").value), 0, app.view); $("record").blur(); });
      }
    }
    const select = $("view");
    select.addEventListener("change", () => { show(app.step, select.value); select.blur(); });
    $("slider").addEventListener("input", (event) => show(Number(event.target.value), app.view));
    $("first").addEventListener("click", () => show(0, app.view));
    $("prev").addEventListener("click", () => show(app.step - 1, app.view));
    $("next").addEventListener("click", () => show(app.step + 1, app.view));
    $("last").addEventListener("click", () => show(app.meta.steps, app.view));
    document.addEventListener("keydown", (event) => {
      if (event.target.tagName === "SELECT" || event.altKey || event.ctrlKey || event.metaKey || !app.meta) return;
      const moves = { ArrowLeft: app.step - 1, ArrowRight: app.step + 1, Home: 0, End: app.meta.steps };
      if (!(event.key in moves)) return;
      event.preventDefault();
      show(moves[event.key], app.view);
    });
    window.addEventListener("hashchange", () => {
      const target = fromHash();
      if (target.record !== app.record) { openRecord(target.record, target.step, target.view); return; }
      if (!app.meta.views.includes(target.view)) target.view = "spectator";
      if (target.step !== app.step || target.view !== app.view) { select.value = target.view; show(target.step, target.view); }
    });
    const at = fromHash();
    await openRecord(at.record, at.step, at.view);
  }

  start();
})();
