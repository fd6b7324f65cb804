// The table as a picture, and the belief strip: drawn alike by traitors-view (viewer.js) and traitors-play --web
// (play.js). Text is only ever set as text (textContent), never parsed as HTML.
(function () {
  "use strict";
  const SVG = "http://www.w3.org/2000/svg";

  function el(name, attrs, text) {
    const node = document.createElementNS(SVG, name);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, String(value));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // The seats in a circle, player_0 at the top, play passing clockwise; each seat's role as the viewpoint knows it.
  // seats: [{name, role, you, acted, player}]; centre: the text in the middle.
  function drawTable(container, seats, centre, caption) {
    const n = seats.length, size = 420, middle = size / 2, radius = 150;
    const svg = el("svg", { viewBox: `0 0 ${size} ${size}`, role: "img" });  // scales to its column (CSS)
    svg.appendChild(el("title", {}, caption));
    svg.appendChild(el("circle", { cx: middle, cy: middle, r: radius - 72, fill: "#f1ece0", stroke: "#c9bfa5" }));
    svg.appendChild(el("text", { x: middle, y: middle + 4, "text-anchor": "middle", class: "player" }, centre));
    seats.forEach((seat, index) => {
      const angle = -Math.PI / 2 + (2 * Math.PI * index) / n;
      const x = middle + radius * Math.cos(angle), y = middle + radius * Math.sin(angle);
      const classes = ["seat", seat.role !== null ? "known" : "unknown"];
      if (seat.you) classes.push("you");
      if (seat.acted) classes.push("acted");
      const g = el("g", { class: classes.join(" "), "data-seat": index });
      g.appendChild(el("circle", { cx: x, cy: y, r: 46 }));
      g.appendChild(el("text", { x: x, y: y - 10, "text-anchor": "middle", class: "name" }, seat.name));
      g.appendChild(el("text", { x: x, y: y + 6, "text-anchor": "middle", class: "role" },
        seat.role !== null ? seat.role : "?"));
      const player = seat.player && seat.player.length > 14 ? seat.player.slice(0, 13) + "…" : seat.player;
      const note = [seat.you && player !== "you" ? "you" : "", player || ""].filter(Boolean).join(" · ");
      if (note) g.appendChild(el("text", { x: x, y: y + 22, "text-anchor": "middle", class: "player" }, note));
      svg.appendChild(g);
    });
    container.replaceChildren(svg);
  }

  // Seats × moments, each cell the agent's P(hidden side) from white (0) to red (1); grey: no belief.
  // history: per moment a list per seat (null: none); what: the word for a moment in the tooltips ("step").
  function drawBeliefs(container, history, n, what) {
    const left = 70, row = 16;
    const cell = Math.max(1, Math.min(12, 280 / Math.max(1, history.length)));
    const width = left + cell * history.length + 40, height = row * n + 4;
    const svg = el("svg", { width: width, height: height, class: "heat", role: "img" });
    for (let s = 0; s < n; s++) {
      svg.appendChild(el("text", { x: 0, y: row * s + 12, class: "label" }, "player_" + s));
      history.forEach((beliefs, moment) => {
        const p = beliefs ? beliefs[s] : null;
        const fill = p === null ? "#e5e7eb" : `rgb(255,${Math.round(255 - 200 * p)},${Math.round(255 - 200 * p)})`;
        const rect = el("rect", { x: left + cell * moment, y: row * s, width: cell, height: row - 2, fill: fill });
        rect.appendChild(el("title", {}, `player_${s}, ${what} ${moment}: ` + (p === null ? "–" : Math.round(100 * p) + " %")));
        svg.appendChild(rect);
      });
      const last = history[history.length - 1], p = last ? last[s] : null;
      svg.appendChild(el("text", { x: left + cell * history.length + 4, y: row * s + 12, class: "label" },
        p === null || p === undefined ? "" : Math.round(100 * p) + "%"));
    }
    container.replaceChildren(svg);
  }

  window.TraitorsTable = { drawTable: drawTable, drawBeliefs: drawBeliefs };
})();
