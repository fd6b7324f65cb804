// traitors-play --web: one seat's page. It asks the server for its seat's data (a long poll on /api/state) with the
// seat's token from the address's fragment, draws it, and sends the chosen legal action (/api/act). The server sends
// this page only what its seat may know. Text is only ever set as text (textContent), never parsed as HTML.
(function () {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const token = new URLSearchParams(location.hash.replace(/^#/, "")).get("token") || "";
  const app = { version: 0, payload: null, busy: false };

  function showError(text) {
    $("error").textContent = text;
    $("error").hidden = !text;
  }

  async function call(path, options) {
    const response = await fetch(path, Object.assign({ cache: "no-store" }, options || {}, {
      headers: Object.assign({ "X-Seat-Token": token }, (options && options.headers) || {}),
    }));
    let body = {};
    try { body = await response.json(); } catch (error) { body = { error: response.statusText }; }
    if (!response.ok) { const e = new Error(body.error || response.statusText); e.status = response.status; throw e; }
    return body;
  }

  function button(text, onClick, className) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = text;
    b.className = className || "choice";
    b.addEventListener("click", onClick);
    return b;
  }

  async function act(action) {
    if (app.busy) return;
    app.busy = true;
    document.querySelectorAll("#choices button").forEach((b) => { b.disabled = true; });
    try {
      await call("/api/act", {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ decision: app.payload.decision.id, action: action }),
      });
      showError("");
    } catch (error) {
      showError("Your choice was not taken: " + error.message);
      app.busy = false;
      drawDecision(app.payload);
    }
  }

  // The choices as buttons; an entry with a second list opens it (with a way back); a choice that asks for a
  // confirmation shows its warning and the two answers first.
  function drawChoices(choices, prompt, back) {
    $("prompt").textContent = prompt;
    const buttons = choices.map((choice, index) => {
      const b = button(choice.text, () => {
        if (choice.submenu) {
          drawChoices(choice.submenu.choices, choice.submenu.intro, () => drawDecision(app.payload));
        } else if (choice.confirm) {
          drawConfirm(choice, () => drawChoices(choices, prompt, back));
        } else {
          act(choice.action);
        }
      });
      b.dataset.index = String(index);
      if (choice.action !== null) b.dataset.action = String(choice.action);
      if (choice.submenu) b.dataset.submenu = "1";
      return b;
    });
    if (back) buttons.push(button("← back", back, "back"));
    $("choices").replaceChildren(...buttons);
    $("choices").dataset.list = back ? "submenu" : "menu";
  }

  function drawConfirm(choice, back) {
    $("prompt").textContent = choice.confirm.warning;
    const yes = button(choice.confirm.yes, () => act(choice.action), "choice confirm-yes");
    const no = button(choice.confirm.no, back, "choice confirm-no");
    $("choices").replaceChildren(yes, no);
    $("choices").dataset.list = "confirm";
  }

  function drawDecision(payload) {
    const decision = payload.decision;
    $("decision").hidden = !decision;
    if (!decision) { $("choices").replaceChildren(); return; }
    drawChoices(decision.choices, "Your choice:", null);
  }

  function drawLog(payload) {
    const items = payload.log.map((text) => {
      const li = document.createElement("li");
      li.textContent = text;
      return li;
    });
    $("log").replaceChildren(...items);
    if (items.length) items[items.length - 1].scrollIntoView({ block: "nearest", inline: "nearest" });
  }

  function drawBeliefs(payload) {
    const section = $("beliefs-section");
    const beliefs = payload.beliefs;
    if (!beliefs || !beliefs.history.length) { section.hidden = true; return; }
    section.hidden = false;
    $("beliefs-title").textContent =
      `Beliefs of ${beliefs.label} from your seat: P(${beliefs.hidden}) per seat at each of your decisions`;
    TraitorsTable.drawBeliefs($("beliefs"), beliefs.history, payload.num_players, "decision");
  }

  function statusText(payload) {
    if (payload.status === "playing") return payload.decision ? "Your turn." : "Waiting for the other seats…";
    const parts = [payload.message || (payload.status === "over" ? "The game is over: every role is revealed." : "")];
    if (payload.seed !== null) parts.push(`Seed ${payload.seed}.`);
    if (payload.saved) parts.push(`Game record saved to ${payload.saved}.`);
    return parts.filter(Boolean).join(" ");
  }

  function draw(payload) {
    const first = app.payload === null;
    app.payload = payload;
    app.version = payload.version;
    document.title = `${payload.game} · player_${payload.seat}`;
    $("title").textContent = `${payload.game} · ${payload.num_players} players`;
    $("position").textContent = `you are player_${payload.seat}`;
    if (first) {
      $("opening").textContent = payload.opening;
      $("rules").textContent = payload.rules;
    }
    $("step-title").textContent = payload.title;
    $("status").textContent = statusText(payload);
    $("content").textContent = payload.table;
    $("result").hidden = !payload.result;
    $("result").textContent = payload.result || "";
    const centre = payload.status !== "playing" ? "game " + payload.status : payload.decision ? "your turn" : "";
    TraitorsTable.drawTable($("table"), payload.seats, centre,
      "The table as player_" + payload.seat + " sees it");
    drawLog(payload);
    drawBeliefs(payload);
    app.busy = false;
    drawDecision(payload);
    $("leave").hidden = payload.status !== "playing";
    // What a test (or a user's script) waits for.
    document.body.dataset.version = String(payload.version);
    document.body.dataset.status = payload.status;
    document.body.dataset.decision = payload.decision ? String(payload.decision.id) : "";
  }

  async function poll() {
    for (;;) {
      try {
        const payload = await call("/api/state?since=" + app.version);
        showError("");
        if (payload.version !== app.version || app.payload === null) draw(payload);
        if (payload.final) return;  // the game is over and its record written: nothing more will come
      } catch (error) {
        showError("Could not reach the table: " + error.message);
        if (error.status === 403) return;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }

  $("rules-button").addEventListener("click", () => { $("rules").hidden = !$("rules").hidden; });
  $("leave").addEventListener("click", async () => {
    const b = $("leave");
    if (b.dataset.armed !== "1") { b.dataset.armed = "1"; b.textContent = "Leave: click again to end the game"; return; }
    try { await call("/api/leave", { method: "POST" }); } catch (error) { showError(error.message); }
  });
  if (!token) {
    showError("This address has no seat token: open the address traitors-play printed for your seat.");
  } else {
    poll();
  }
})();
