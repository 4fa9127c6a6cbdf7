// The home page: the player's games from GET /players/me/games, his turns first.
(function () {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const storeKey = "railpost.player";

  function takeToken() {
    const hash = new URLSearchParams(location.hash.replace(/^#/, ""));
    const given = hash.get("player");
    if (given) {
      try { localStorage.setItem(storeKey, given); } catch (e) { /* private mode */ }
      history.replaceState(null, "", location.pathname + location.search);
      return given;
    }
    try { return localStorage.getItem(storeKey); } catch (e) { return null; }
  }

  function cell(row, text, header) {
    const c = document.createElement(header ? "th" : "td");
    if (header) c.scope = "row";
    if (text instanceof Node) c.appendChild(text); else c.textContent = text;
    row.appendChild(c);
    return c;
  }

  async function show(token) {
    const message = $("home-message");
    const r = await fetch("/players/me/games", { headers: { "Accept": "application/json", "Authorization": "Bearer " + token } });
    const d = await r.json().catch(() => ({}));
    if (r.status !== 200) {
      try { localStorage.removeItem(storeKey); } catch (e) { /* ignore */ }
      message.textContent = "That token does not list games: " + (d.message || ("HTTP " + r.status));
      $("home-signin").hidden = false;
      return;
    }
    $("home-who").hidden = false;
    $("home-who").textContent = "Signed in as " + d.name + ".";
    const forget = document.createElement("button");
    forget.type = "button"; forget.textContent = "Forget me on this device";
    forget.addEventListener("click", () => { try { localStorage.removeItem(storeKey); } catch (e) { /* ignore */ } location.reload(); });
    $("home-who").appendChild(forget);
    const yours = d.games.filter((g) => g.your_turn).length;
    message.textContent = d.games.length ? (yours ? yours + (yours === 1 ? " game waits" : " games wait") + " for you." : "No game waits for you now.")
      : "You sit in no game yet.";
    const body = $("home-games").querySelector("tbody");
    body.replaceChildren();
    d.games.forEach((g) => {
      const row = document.createElement("tr");
      row.dataset.game = g.game_id;
      if (g.your_turn) row.className = "is-acting";
      const a = document.createElement("a");
      a.href = "/games/" + g.game_id + "/page"; a.textContent = "game " + g.game_id;
      cell(row, a, true);
      cell(row, g.title);
      cell(row, g.status + (g.round ? " · " + g.round + (g.turn ? " " + g.turn : "") : ""));
      const waiting = cell(row, g.waiting_for);
      if (g.your_turn) { const b = document.createElement("span"); b.className = "badge"; b.textContent = "your turn"; waiting.replaceChildren(b); }
      cell(row, String(g.version));
      body.appendChild(row);
    });
    $("home-games").hidden = d.games.length === 0;
  }

  $("home-signin").addEventListener("submit", (e) => {
    e.preventDefault();
    const value = $("home-token").value.trim();
    if (!value) return;
    try { localStorage.setItem(storeKey, value); } catch (err) { /* ignore */ }
    location.reload();
  });
  const token = takeToken();
  if (token) { show(token).finally(() => { document.body.dataset.ready = "1"; }); }
  else { $("home-message").textContent = "Open this page with your player link, or enter your player token."; $("home-signin").hidden = false; document.body.dataset.ready = "1"; }
})();
